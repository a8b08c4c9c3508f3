"""One repository's line in the inventory, read from its scan report (or from a failed scan)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from migrate.model import CLASSES, class_rank

TOP_BLOCKERS = 5
NOT_BLOCKING = frozenset({"ported", "optional"})  # a finding's status (issue 13)


@dataclass(frozen=True, slots=True, kw_only=True)
class Blocker:
    """A rule that decided the class of one of the repository's workloads."""

    rule: str
    migration_class: str
    findings: int
    symbol: str  # its most frequent symbol in this repository

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "class": self.migration_class, "findings": self.findings, "symbol": self.symbol}


@dataclass(frozen=True, slots=True, kw_only=True)
class RepoRecord:
    name: str
    source: str  # the path or URL it was scanned from
    status: str  # "ok" or "failed"
    migration_class: str | None = None
    effort: Mapping[str, float] = field(default_factory=dict)  # low, likely, high (hours)
    findings: int = 0
    lines: int = 0
    files: int = 0
    workloads: int = 0
    blockers: tuple[Blocker, ...] = ()
    stack: str | None = None  # the stack verdict, where the report has one
    hipify_coverage: float | None = None  # converted / references over the repository
    scanned_at: str | None = None
    commit: str | None = None
    rules_version: str | None = None
    tool_version: str | None = None
    seconds: float | None = None
    error: str | None = None
    owner: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "source": self.source, "status": self.status, "owner": self.owner,
            "class": self.migration_class, "effort_hours": dict(self.effort) or None, "findings": self.findings,
            "lines": self.lines, "files": self.files, "workloads": self.workloads,
            "top_blockers": [b.to_json() for b in self.blockers], "stack": self.stack,
            "hipify_coverage": self.hipify_coverage, "scanned_at": self.scanned_at, "commit": self.commit,
            "rules_version": self.rules_version, "tool_version": self.tool_version, "seconds": self.seconds,
            "error": self.error,
        }


def from_report(report: Mapping[str, Any], *, name: str, source: str) -> RepoRecord:
    """The inventory line of a scan report (the JSON of `scan --format json`)."""
    summary = report.get("summary", {})
    origin = report.get("source") or {}
    return RepoRecord(
        name=name, source=source, status="ok", migration_class=summary.get("class"),
        effort=dict(summary.get("effort_hours") or {}), findings=int(summary.get("findings", 0)),
        lines=int(summary.get("lines", 0)), files=int(summary.get("files_scanned", 0)),
        workloads=len(report.get("workloads", ())), blockers=blockers(report), stack=_stack(report.get("stack")),
        hipify_coverage=_coverage(report.get("hipify") or {}), scanned_at=origin.get("scanned_at"),
        commit=origin.get("commit"), rules_version=report.get("tool", {}).get("rules_version"),
        tool_version=report.get("tool", {}).get("version"), seconds=summary.get("seconds"),
    )


def failed(*, name: str, source: str, error: str, scanned_at: str | None = None,
           commit: str | None = None, rules_version: str | None = None) -> RepoRecord:
    return RepoRecord(name=name, source=source, status="failed", error=error, scanned_at=scanned_at,
                      commit=commit, rules_version=rules_version)


def blockers(report: Mapping[str, Any], top: int = TOP_BLOCKERS) -> tuple[Blocker, ...]:
    """The rules that decided a required workload's class (its reason rules), worst class first, then by
    count; optional workloads (tests, examples) and findings a ROCm path already covers do not block."""
    deciding = {rule for w in report.get("workloads", ()) if w.get("class") != "native" and not w.get("optional")
                for rule in w.get("reason_rules", ())}
    counts: Counter[str] = Counter()
    symbols: dict[str, Counter[str]] = {}
    classes: dict[str, str] = {}
    for finding in report.get("findings", ()):
        rule = finding.get("rule")
        if rule in deciding and finding.get("status", "") not in NOT_BLOCKING:
            counts[rule] += 1
            symbols.setdefault(rule, Counter())[finding.get("symbol") or ""] += 1
            if class_rank(finding["class"]) > class_rank(classes.get(rule, "native")):
                classes[rule] = finding["class"]
    ranked = sorted(counts, key=lambda r: (-class_rank(classes[r]), -counts[r], r))
    return tuple(Blocker(rule=r, migration_class=classes[r], findings=counts[r],
                         symbol=symbols[r].most_common(1)[0][0]) for r in ranked[:top])


def _coverage(hipify: Mapping[str, Any]) -> float | None:
    per_workload = (hipify.get("coverage") or {}).values()
    references = sum(c.get("references", 0) for c in per_workload)
    converted = sum(c.get("converted", 0) for c in per_workload)
    return round(converted / references, 3) if references else None


def _stack(stack: object) -> str | None:
    """The stack block's verdict: the worst class over its targets (ROCm release x GPU), with the
    number of problems (unsupported pins, GPUs); None without a stack block or targets."""
    if not isinstance(stack, Mapping):
        return None
    targets = [t for t in stack.get("targets", ()) if isinstance(t, Mapping) and t.get("class") in CLASSES]
    if not targets:
        return None
    worst = max((str(t["class"]) for t in targets), key=class_rank)
    problems = len({p for t in targets for p in t.get("problems", ())})
    return f"{worst} ({problems} problem{'s' if problems != 1 else ''})" if problems else worst
