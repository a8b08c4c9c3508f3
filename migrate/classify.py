"""classify: one class per workload, from its findings, with the findings that decided it."""
from __future__ import annotations

from typing import Sequence

from migrate.model import CLASSES, Finding, class_rank

# A low-confidence signal alone never lifts a workload above this class.
LOW_CONFIDENCE_CEILING = "minor-adaptation"


def classify(findings: Sequence[Finding]) -> tuple[str, tuple[Finding, ...]]:
    """The workload's class and the findings that decided it.

    The class is that of the worst finding, except that findings of low confidence
    count at most as minor-adaptation unless a finding of higher confidence agrees.
    """
    if not findings:
        return "native", ()
    effective = {f: _effective_class(f, findings) for f in findings}
    worst = max(effective.values(), key=class_rank)
    deciding = tuple(f for f in findings if effective[f] == worst)
    return worst, deciding


def _effective_class(finding: Finding, findings: Sequence[Finding]) -> str:
    if finding.confidence != "low" or class_rank(finding.migration_class) <= class_rank(LOW_CONFIDENCE_CEILING):
        return finding.migration_class
    corroborated = any(
        other.confidence != "low" and class_rank(other.migration_class) >= class_rank(finding.migration_class)
        for other in findings
    )
    return finding.migration_class if corroborated else LOW_CONFIDENCE_CEILING


__all__ = ["CLASSES", "classify"]
