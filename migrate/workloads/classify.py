"""classify: one class per workload and target, from its findings and what it depends on."""
from __future__ import annotations

from collections.abc import Sequence

from migrate.model import CONFIDENCES, Finding, class_rank

# Alone, a signal of this confidence lifts a workload at most to this class.
CEILING = {"low": "minor-adaptation", "medium": "migration-required", "high": "incompatible"}
# Distinct symbols of medium confidence that together confirm a class above their ceiling.
CORROBORATING_SYMBOLS = 3
# Kinds whose CUDA sources a ROCm build of PyTorch hipifies on its own.
AUTO_HIPIFIED_KINDS = frozenset({"torch-extension"})


def effective_class(finding: Finding, findings: Sequence[Finding], kind: str) -> str:
    """A finding's weight in its workload.

    In a PyTorch extension, CUDA that hipify converts automatically ("yes") is only a
    minor adaptation: PyTorch's ROCm build runs hipify itself. A single weak signal does
    not condemn a workload: a low-confidence finding counts at most as minor-adaptation
    and a medium-confidence one at most as migration-required, unless a finding of
    higher confidence and at least the same class agrees, or (for medium confidence)
    several distinct symbols of that class do."""
    cls = finding.migration_class
    if kind in AUTO_HIPIFIED_KINDS and cls == "migration-required" and finding.hipify == "yes":
        cls = "minor-adaptation"
    ceiling = CEILING[finding.confidence]
    if class_rank(cls) <= class_rank(ceiling):
        return cls
    agrees = [o for o in findings if class_rank(o.migration_class) >= class_rank(cls)]
    if any(CONFIDENCES.index(o.confidence) > CONFIDENCES.index(finding.confidence) for o in agrees):
        return cls
    if finding.confidence == "medium" and len({o.symbol for o in agrees if o.confidence == "medium"}) \
            >= CORROBORATING_SYMBOLS:
        return cls
    return ceiling


def classify(findings: Sequence[Finding], kind: str = "directory") -> tuple[str, tuple[Finding, ...]]:
    """The workload's own class and the findings that decided it (worst effective class)."""
    if not findings:
        return "native", ()
    effective = {f: effective_class(f, findings, kind) for f in findings}
    worst = max(effective.values(), key=class_rank)
    return worst, tuple(f for f in findings if effective[f] == worst)

