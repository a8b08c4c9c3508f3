"""classify: one class per workload and target, from its findings and what it depends on."""
from __future__ import annotations

from collections.abc import Sequence

from migrate.model import CLASSES, CONFIDENCES, Finding, class_rank

# Alone, a signal of this confidence lifts a workload at most to this class.
CEILING = {"low": "minor-adaptation", "medium": "migration-required", "high": "incompatible"}
# Distinct symbols of medium confidence that together confirm a class above their ceiling.
CORROBORATING_SYMBOLS = 3
# Kinds whose CUDA sources a ROCm build of PyTorch hipifies on its own.
AUTO_HIPIFIED_KINDS = frozenset({"torch-extension"})


class _Agreement:
    """For each class, what the findings of at least that class say: their best confidence and
    their distinct medium-confidence symbols (computed once per workload, not per finding)."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        best = [-1] * len(CLASSES)
        medium: list[set[str]] = [set() for _ in CLASSES]
        for o in findings:
            rank = class_rank(o.migration_class)
            best[rank] = max(best[rank], CONFIDENCES.index(o.confidence))
            if o.confidence == "medium":
                medium[rank].add(o.symbol)
        for rank in range(len(CLASSES) - 2, -1, -1):  # "at least this class": accumulate from the top
            best[rank] = max(best[rank], best[rank + 1])
            medium[rank] |= medium[rank + 1]
        self.best, self.medium = best, [len(m) for m in medium]


def effective_class(finding: Finding, findings: Sequence[Finding], kind: str,
                    agreement: _Agreement | None = None) -> str:
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
    agreement = agreement or _Agreement(findings)
    if agreement.best[class_rank(cls)] > CONFIDENCES.index(finding.confidence):
        return cls
    if finding.confidence == "medium" and agreement.medium[class_rank(cls)] >= CORROBORATING_SYMBOLS:
        return cls
    return ceiling


def classify(findings: Sequence[Finding], kind: str = "directory") -> tuple[str, tuple[Finding, ...]]:
    """The workload's own class and the findings that decided it (worst effective class)."""
    if not findings:
        return "native", ()
    agreement = _Agreement(findings)
    effective = {f: effective_class(f, findings, kind, agreement) for f in findings}
    worst = max(effective.values(), key=class_rank)
    return worst, tuple(f for f in findings if effective[f] == worst)
