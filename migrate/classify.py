"""classify: one class per workload and target, from its findings and what it depends on."""
from __future__ import annotations

from typing import Sequence

from migrate.model import CLASSES, Finding, class_rank

# A low-confidence signal alone never lifts a workload above this class.
LOW_CONFIDENCE_CEILING = "minor-adaptation"
# Kinds whose CUDA sources a ROCm build of PyTorch hipifies on its own.
AUTO_HIPIFIED_KINDS = frozenset({"torch-extension"})


def effective_class(finding: Finding, findings: Sequence[Finding], kind: str) -> str:
    """A finding's weight in its workload.

    In a PyTorch extension, CUDA that hipify converts automatically ("yes") is only a
    minor adaptation: PyTorch's ROCm build runs hipify itself. A low-confidence finding
    counts as at most minor-adaptation unless a finding of higher confidence and at least
    the same class agrees."""
    cls = finding.migration_class
    if kind in AUTO_HIPIFIED_KINDS and cls == "migration-required" and finding.hipify == "yes":
        cls = "minor-adaptation"
    if finding.confidence == "low" and class_rank(cls) > class_rank(LOW_CONFIDENCE_CEILING):
        corroborated = any(o.confidence != "low" and class_rank(o.migration_class) >= class_rank(cls)
                           for o in findings)
        cls = cls if corroborated else LOW_CONFIDENCE_CEILING
    return cls


def classify(findings: Sequence[Finding], kind: str = "directory") -> tuple[str, tuple[Finding, ...]]:
    """The workload's own class and the findings that decided it (worst effective class)."""
    if not findings:
        return "native", ()
    effective = {f: effective_class(f, findings, kind) for f in findings}
    worst = max(effective.values(), key=class_rank)
    return worst, tuple(f for f in findings if effective[f] == worst)


__all__ = ["CLASSES", "classify", "effective_class"]
