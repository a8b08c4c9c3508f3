"""estimate: effort in hours from the rules' figures (a first model; see docs/effort.md)."""
from __future__ import annotations

from typing import Callable, Sequence

from migrate.model import Effort, Finding

# The likely figure is the rules' sum; the range reflects how uncertain estimates are.
LOW_FACTOR, HIGH_FACTOR = 0.7, 2.0


def estimate(findings: Sequence[Finding], effort_of: Callable[[str], tuple[float, float]]) -> Effort:
    """Sum of per-occurrence effort plus each rule's first-use effort once."""
    likely = 0.0
    seen: set[str] = set()
    for finding in findings:
        per_occurrence, first_use = effort_of(finding.rule)
        likely += per_occurrence
        if finding.rule not in seen:
            seen.add(finding.rule)
            likely += first_use
    return Effort(low=likely * LOW_FACTOR, likely=likely, high=likely * HIGH_FACTOR)
