"""The values that flow through the pipeline: files, facts, findings, workloads, report."""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLASSES = ("native", "minor-adaptation", "migration-required", "incompatible")
CONFIDENCES = ("low", "medium", "high")
SCHEMA_VERSION = 1


def required_class(workloads: Iterable[Workload]) -> str:
    """The worst class of the required workloads (of all of them, when every one is optional)."""
    items = list(workloads)
    required = [w for w in items if not w.optional] or items
    return worst_class(w.migration_class for w in required)


def class_rank(name: str) -> int:
    return CLASSES.index(name)


def worst_class(names: Iterable[str]) -> str:
    ranks = [class_rank(n) for n in names]
    return CLASSES[max(ranks)] if ranks else "native"


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFile:
    path: Path
    rel: str
    kind: str
    size: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Skipped:
    path: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason}


@dataclass(frozen=True, slots=True, kw_only=True)
class Fact:
    """One thing an extractor saw in a file, with its exact 1-based location."""

    kind: str
    name: str
    line: int
    column: int
    end_line: int
    end_column: int
    role: str = ""
    text: str = ""
    guard: str | None = None
    cell: int | None = None
    value: int | None = None  # a size or count the construct carries (e.g. shared-memory bytes)


@dataclass(frozen=True, slots=True, kw_only=True)
class Extraction:
    """What extraction produced for one file: a pure function of its bytes and kind."""

    facts: tuple[Fact, ...]
    lines: int
    line_text: dict[tuple[int, int], str] = field(default_factory=dict)  # (cell, line) -> text
    notes: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Effort:
    low: float
    likely: float
    high: float

    def to_json(self) -> dict[str, Any]:
        return {"low": round(self.low, 2), "likely": round(self.likely, 2), "high": round(self.high, 2)}


def sum_effort(efforts: object) -> Effort:
    items = list(efforts)  # type: ignore[call-overload]
    return Effort(low=sum(e.low for e in items), likely=sum(e.likely for e in items), high=sum(e.high for e in items))


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    rule: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    symbol: str
    message: str
    hip: str | None
    hipify: str
    confidence: str
    migration_class: str
    source_line: str = ""
    cell: int | None = None
    workload: str = ""
    targets: tuple[str, ...] = ()  # the architectures the finding applies to
    source: str = "rules"  # "hipify" for findings hipify-perl reported that the extractor did not see
    precise: str | None = None  # with --precise: confirmed, fast-only, unchecked or precise-only
    status: str = ""  # "ported" (a ROCm path covers it), "optional" (an optional part or import), else ""
    effective_class: str = ""  # the class it counts as (classify.effective_class); "" until judged

    @property
    def cls(self) -> str:
        """The one class used everywhere (summary, lint, SARIF, HTML): effective once judged."""
        return self.effective_class or self.migration_class

    @property
    def sort_key(self) -> tuple[str, int, int, int, str, str]:
        return (self.path, self.cell or 0, self.line, self.column, self.rule, self.symbol)

    @property
    def fingerprint(self) -> str:
        """Stable across line shifts: rule, path, symbol and the whitespace-folded line."""
        norm = re.sub(r"\s+", "", self.source_line)
        raw = "\0".join((self.rule, self.path, self.symbol, norm))
        return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:16]

    def to_json(self, finding_id: str) -> dict[str, Any]:
        return {
            "id": finding_id,
            "rule": self.rule,
            "class": self.cls,
            "rule_class": self.migration_class,
            "status": self.status,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "cell": self.cell,
            "symbol": self.symbol,
            "message": self.message,
            "hip": self.hip,
            "hipify": self.hipify,
            "confidence": self.confidence,
            "workload": self.workload,
            "targets": list(self.targets),
            "source": self.source,
            "precise": self.precise,
            "fingerprint": self.fingerprint,
        }


_FINDING_FIELDS = Finding.__slots__


def evolve(finding: Finding, **changes: object) -> Finding:
    """dataclasses.replace for a Finding, without its per-call overhead (a scan makes tens of
    thousands); the fields are the same, the original is untouched."""
    new = object.__new__(Finding)
    for name in _FINDING_FIELDS:
        object.__setattr__(new, name, changes[name] if name in changes else getattr(finding, name))
    return new


@dataclass(frozen=True, slots=True)
class Candidate:
    """A finding of one file before the repo-wide filters: it is dropped when `defined_as` is a
    name the project defines, or `namespace` a namespace a HIP guard makes portable."""

    finding: Finding
    defined_as: str | None = None
    namespace: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class FileResult:
    """What a scan keeps of one file once it is extracted and matched; cached per file by
    content, rules, targets and extractor version, so a rescan skips both steps."""

    lines: int
    notes: tuple[str, ...] = ()
    error: str | None = None
    facts: tuple[Fact, ...] = ()  # the kinds workloads read (all but workloads.UNREAD_KINDS)
    defined: tuple[str, ...] = ()  # the file's share of the project's own names
    portable: tuple[str, ...] = ()  # and of the namespaces a HIP guard makes portable
    found: tuple[tuple[Candidate, ...], ...] = ()  # per target architecture, in the scan's order
    line_text: dict[tuple[int, int], str] = field(default_factory=dict)  # of the kept facts' and candidates' lines

    def kept(self) -> Extraction:
        """The kept facts as an extraction, for the stages after matching that read facts."""
        return Extraction(facts=self.facts, lines=self.lines, line_text=self.line_text, notes=self.notes)


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetVerdict:
    """A workload's class and effort for one GPU architecture."""

    arch: str
    migration_class: str
    own_class: str  # from its own findings, before what it depends on
    reasons: tuple[Finding, ...]  # the findings that decided the class
    chain: tuple[str, ...]  # how an inherited class reaches this workload, step by step
    effort: Effort
    breakdown: tuple[tuple[str, float], ...]  # every contributor to the likely effort, largest first
    calibrated: float = 0.0  # likely hours that rest on measured constants


@dataclass(frozen=True, slots=True, kw_only=True)
class OptionalPart:
    """Optional code inside a workload (a tests/ or experimental/ folder, an opt-in import), with its own class."""

    root: str
    migration_class: str
    findings: int

    def to_json(self) -> dict[str, object]:
        return {"root": self.root, "class": self.migration_class, "findings": self.findings}


@dataclass(frozen=True, slots=True, kw_only=True)
class Workload:
    name: str
    root: str
    kind: str
    files: tuple[str, ...]
    verdicts: tuple[TargetVerdict, ...]  # one per target architecture, the primary first
    depends_on: tuple[str, ...] = ()
    depends_why: tuple[str, ...] = ()  # for each of depends_on: the first file-level link ("a.cu includes b.h")
    project: str = ""
    rocm_path: tuple[str, ...] = ()  # evidence that the project already has a ROCm path ("setup.py:41 ...")
    optional: bool = False  # tests, examples, benchmarks, experimental: reported, not counted in the summary
    optional_parts: tuple[OptionalPart, ...] = ()

    @property
    def primary(self) -> TargetVerdict:
        return self.verdicts[0]

    @property
    def migration_class(self) -> str:
        """The worst class over the target architectures."""
        return worst_class(v.migration_class for v in self.verdicts)

    @property
    def reasons(self) -> tuple[Finding, ...]:
        return max(self.verdicts, key=lambda v: class_rank(v.migration_class)).reasons

    @property
    def effort(self) -> Effort:
        return self.primary.effort


@dataclass(frozen=True, slots=True, kw_only=True)
class Project:
    """One repository of a portfolio scan."""

    name: str
    root: str
    workloads: tuple[str, ...]
    commit: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ProjectCost:
    """What a project costs once, whatever its workloads and targets (build port, CI ...)."""

    name: str
    migration_class: str
    kloc: float  # C/C++/CUDA with findings, in thousands of lines
    effort: Effort
    breakdown: tuple[tuple[str, float], ...]
    calibrated: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    rocm: str
    arch: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleInfo:
    """What a report needs to know of a rule that produced findings (for SARIF, HTML, Markdown)."""

    id: str
    name: str
    title: str
    migration_class: str
    hip: str | None
    hipify: str
    confidence: str
    rationale: str
    docs: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HipifyCoverage:
    references: int  # CUDA references hipify-perl examined in the workload's files
    converted: int

    @property
    def ratio(self) -> float | None:
        return self.converted / self.references if self.references else None


@dataclass(frozen=True, slots=True, kw_only=True)
class HipifyDisagreement:
    kind: str  # false-alarm, comment-rename, silent-miss, ... (hipify.compare.KINDS)
    path: str
    line: int
    symbol: str
    rule: str | None
    hipify: str  # hipify's side: its warning(s) or its rewrite


@dataclass(frozen=True, slots=True, kw_only=True)
class HipifySummary:
    """The report's `hipify` block: what hipify-perl measured over the scanned C/C++/CUDA files."""

    version: str | None
    seconds: float
    warnings_checked: bool
    coverage: dict[str, HipifyCoverage]  # by workload name
    disagreements: tuple[HipifyDisagreement, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "used": True, "version": self.version, "seconds": round(self.seconds, 2),
            "warnings_checked": self.warnings_checked,
            "coverage": {name: {"references": c.references, "converted": c.converted,
                                "ratio": None if c.ratio is None else round(c.ratio, 3)}
                         for name, c in sorted(self.coverage.items())},
            "disagreements": [{"kind": d.kind, "path": d.path, "line": d.line, "symbol": d.symbol, "rule": d.rule,
                               "hipify": d.hipify} for d in self.disagreements],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class PassResult:
    """What a late pass (hipify-perl, precise mode) returns: the findings it relabelled or
    added, and what it has to say."""

    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    tool_version: str
    rules_version: str
    target: Target
    root: str
    files_scanned: int
    lines: int
    seconds: float
    workloads: tuple[Workload, ...]
    findings: tuple[Finding, ...]
    skipped: tuple[Skipped, ...]
    notes: tuple[str, ...] = field(default=())
    projects: tuple[Project, ...] = field(default=())
    rules: tuple[RuleInfo, ...] = field(default=())  # the rules behind the findings
    hipify: HipifySummary | None = None  # None when hipify-perl was not used
    commit: str | None = None  # the git commit of the scanned folder, when it is the top of a checkout
    scanned_at: str = ""  # ISO 8601, UTC
    plan: dict[str, Any] = field(default_factory=dict)  # the migration plan (workloads.plan), built once per report
    timing: bool = False  # whether the JSON report carries the elapsed times (`scan --timing`)
    stack: dict[str, Any] = field(default_factory=dict)  # the pinned stack against the compatibility matrix (migrate.stack)
    project_costs: tuple[ProjectCost, ...] = field(default=())
    precise: bool = False  # findings were checked with libclang

    @property
    def migration_class(self) -> str:
        """The worst class of the required workloads (of all, when every workload is optional)."""
        return required_class(self.workloads)

    @property
    def workload_effort(self) -> Effort:
        return sum_effort(w.effort for w in self.workloads)

    @property
    def effort(self) -> Effort:
        """Every workload once, plus each project's fixed costs once."""
        return sum_effort([self.workload_effort] + [p.effort for p in self.project_costs])

    def finding_ids(self) -> dict[Finding, str]:
        return {f: f"F{i}" for i, f in enumerate(self.findings, start=1)}
