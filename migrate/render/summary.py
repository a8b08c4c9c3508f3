"""Views of a report shared by the human-readable renderers."""
from __future__ import annotations

from collections import Counter

from migrate.model import CLASSES, Finding, Report, class_rank

CONFIDENCE_RANK = {"low": 0, "medium": 1, "high": 2}
MANUAL_RANK = {"yes": 0, "partial": 1, "no": 2}  # what hipify does not fix is the harder part


def by_class(report: Report) -> dict[str, int]:
    """Workloads per class, in class order."""
    counts = Counter(w.migration_class for w in report.workloads)
    return {c: counts.get(c, 0) for c in CLASSES}


def blockers(report: Report, limit: int) -> list[tuple[Finding, int]]:
    """The hardest findings: worst class first, then hand work before hipify's, then confidence;
    one per (rule, symbol), with counts."""
    seen: dict[tuple[str, str], list[Finding]] = {}
    for finding in report.findings:
        if class_rank(finding.cls) >= class_rank("migration-required"):
            seen.setdefault((finding.rule, finding.symbol), []).append(finding)
    ranked = sorted(seen.values(), key=lambda fs: (-class_rank(fs[0].cls), -MANUAL_RANK[fs[0].hipify],
                                                   -CONFIDENCE_RANK[fs[0].confidence], -len(fs), fs[0].sort_key))
    return [(fs[0], len(fs)) for fs in ranked[:limit]]
