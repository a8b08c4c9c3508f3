"""The records after matching: workloads and their verdicts per target, the report, hipify-perl's
summary, a late pass's result. They build on `migrate.model` (files, facts, findings) and sit in a
module of their own so that lint, which builds none of them, does not pay for defining them."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from migrate.model import (
    NO_EFFORT,
    Effort,
    EffortItem,
    Finding,
    MigrationClass,
    RuleInfo,
    Skipped,
    Target,
    class_rank,
    sum_effort,
    worst_class,
)


def required_class(workloads: Iterable[Workload]) -> MigrationClass:
    """The worst class of the required workloads (of all of them, when every one is optional)."""
    items = list(workloads)
    required = [w for w in items if not w.optional] or items
    return worst_class(w.migration_class for w in required)

CHAIN_HEAD, CHAIN_TAIL = 6, 2  # the steps a long chain keeps from each end, the middle counted (a generated chain
                               # of 4,000 targets would otherwise hold 8 million steps across its verdicts)
ELIDED = "… {} more steps …"


def is_elision(step: str) -> bool:
    return step.startswith(ELIDED[:2]) and step.endswith(ELIDED[-2:])


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetVerdict:
    """A workload's class and effort for one GPU architecture."""

    arch: str
    migration_class: MigrationClass
    own_class: MigrationClass  # from its own findings, before what it depends on
    reasons: tuple[Finding, ...]  # the findings that decided the class
    chain: tuple[str, ...]  # how an inherited class reaches this workload, step by step
    effort: Effort
    breakdown: tuple[EffortItem, ...]  # every contributor to the likely effort, largest first
    calibrated: float = 0.0  # likely hours that rest on measured constants
    validation: Effort = NO_EFFORT  # the assumed validation steps within effort
    rewrite: Effort = NO_EFFORT  # its rewrite components' bands, apart from effort (Report.rewrite_effort)
    rewrite_breakdown: tuple[EffortItem, ...] = ()  # one item per rewrite component, largest first


@dataclass(frozen=True, slots=True, kw_only=True)
class OptionalPart:
    """Optional code inside a workload (a tests/ or experimental/ folder, an opt-in import, a build switch's
    code), with its own class and what makes it optional."""

    root: str
    migration_class: MigrationClass
    findings: int
    evidence: tuple[str, ...] = ()
    effort: Effort = NO_EFFORT  # what porting it costs, apart from the headline (Report.optional_effort)
    breakdown: tuple[EffortItem, ...] = ()  # its findings' items and its own build port, glue, twins; largest first
    files: tuple[str, ...] = ()  # the files its findings are in

    def to_json(self) -> dict[str, object]:
        return {"root": self.root, "class": self.migration_class, "findings": self.findings,
                "evidence": list(self.evidence), "effort_hours": self.effort.to_json(),
                "effort_breakdown": [{"item": i.label, "hours": i.hours} for i in self.breakdown],
                "files": list(self.files)}


ComponentKind = Literal["rewrite", "ported-elsewhere"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Component:
    """A part of a workload with a named AMD route: a kernel with no mechanical port, rewritten on an AMD
    library (`rewrite`, its lane in rules/alternatives/rewrites.yaml), or a dependency whose AMD build,
    fork or equivalent is installed instead (`ported-elsewhere`, rules/alternatives/ported-elsewhere.yaml)."""

    kind: ComponentKind
    id: str  # the lane or the registry entry
    title: str
    migration_class: MigrationClass
    alternatives: tuple[tuple[str, str], ...]  # (name, url) of each AMD route
    source: str
    band: str | None = None  # rewrite: small | medium | large (rewrites.yaml)
    route: str | None = None  # ported-elsewhere: upstream | fork | equivalent
    findings: tuple[Finding, ...] = ()
    evidence: tuple[str, ...] = ()  # "path:line what" for a dependency without findings
    optional: bool = False  # every finding of it sits in an optional part

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(sorted({f.path for f in self.findings}))


@dataclass(frozen=True, slots=True, kw_only=True)
class Workload:
    """One workload of the report: its name, root, kind and files, its verdict per target, what it depends on."""

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
    route: dict[str, Any] | None = None  # which way to AMD (migrate/workloads/route.py), as JSON
    components: tuple[Component, ...] = ()  # rewrites and ported-elsewhere dependencies (workloads.components)

    @property
    def primary(self) -> TargetVerdict:
        return self.verdicts[0]

    @property
    def migration_class(self) -> MigrationClass:
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
    migration_class: MigrationClass
    kloc: float  # C/C++/CUDA with findings, in thousands of lines
    effort: Effort
    breakdown: tuple[EffortItem, ...]
    calibrated: float = 0.0
    validation: Effort = NO_EFFORT  # the assumed validation steps within effort


@dataclass(frozen=True, slots=True, kw_only=True)
class HipifyCoverage:
    """How much of a workload's CUDA hipify-perl converts."""

    references: int  # CUDA references hipify-perl examined in the workload's files
    converted: int

    @property
    def ratio(self) -> float | None:
        return self.converted / self.references if self.references else None


@dataclass(frozen=True, slots=True, kw_only=True)
class HipifyDisagreement:
    """A place where hipify-perl and the rules disagree."""

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
class CompileError:
    """A hip-clang error, located on the original CUDA line, and what it means for the port
    (`meaning`: confirmed, newer-rocm, not-checked, toolchain or miss; migrate.hipclang.explain)."""

    meaning: str
    path: str  # relative to the scanned root; "" for a header outside it
    line: int  # 0 outside the tree
    column: int
    message: str  # the compiler's
    why: str
    rules: tuple[str, ...] = ()  # the rules of the findings it confirms
    archs: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"meaning": self.meaning, "path": self.path, "line": self.line, "column": self.column,
                "message": self.message, "why": self.why, "rules": list(self.rules), "archs": list(self.archs)}


@dataclass(frozen=True, slots=True, kw_only=True)
class CompiledUnit:
    """One translation unit for one architecture: passed, failed (a porting error) or not checked."""

    path: str
    arch: str
    status: str  # passed | failed | not-checked
    errors: int  # porting errors (confirmed or misses)
    reason: str = ""  # why it was not checked

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "arch": self.arch, "status": self.status, "errors": self.errors,
                "reason": self.reason}


@dataclass(frozen=True, slots=True, kw_only=True)
class CompileSummary:
    """The report's `compile` block: which hip-clang ran over the converted copy and what it said."""

    toolchain: str
    hip_version: str
    clang_version: str
    device_code: bool
    flags_from: str
    archs: tuple[str, ...]
    units: tuple[CompiledUnit, ...]
    errors: tuple[CompileError, ...]
    not_checked: tuple[str, ...] = ()  # what this toolchain could not check, one line each
    seconds: float = 0.0

    def count(self, meaning: str) -> int:
        return sum(1 for e in self.errors if e.meaning == meaning)

    @property
    def passed(self) -> int:
        return sum(1 for u in self.units if u.status == "passed")

    @property
    def checked(self) -> int:
        return sum(1 for u in self.units if u.status != "not-checked")

    def to_json(self) -> dict[str, Any]:
        meanings = ("confirmed", "newer-rocm", "not-checked", "toolchain", "miss")
        return {
            "toolchain": self.toolchain, "hip_version": self.hip_version, "clang_version": self.clang_version,
            "device_code": self.device_code, "flags_from": self.flags_from, "archs": list(self.archs),
            "units": len(self.units), "checked": self.checked, "passed": self.passed,
            "errors_by_meaning": {m: self.count(m) for m in meanings},
            "not_checked": list(self.not_checked), "seconds": round(self.seconds, 2),
            "unit_results": [u.to_json() for u in self.units], "errors": [e.to_json() for e in self.errors],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class PassResult:
    """What a late pass (hipify-perl, precise mode) returns: the findings it relabelled or
    added, and what it has to say."""

    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """Everything a scan reports."""

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
    repository_prefix: str | None = None  # the scanned folder below its checkout's top ('' at the top), else None
    scanned_at: str = ""  # ISO 8601, UTC
    plan: dict[str, Any] = field(default_factory=dict)  # the migration plan (workloads.plan), built once per report
    timing: bool = False  # whether the JSON report carries the elapsed times (`scan --timing`)
    stack: dict[str, Any] = field(default_factory=dict)  # the pinned stack against the compatibility matrix (migrate.stack)
    project_costs: tuple[ProjectCost, ...] = field(default=())
    precise: bool = False  # findings were checked with libclang
    compile: CompileSummary | None = None  # `check`: hip-clang over the converted copy
    rule_hours: dict[str, float] = field(default_factory=dict)  # expected hand hours per rule, for ranking

    @property
    def migration_class(self) -> MigrationClass:
        """The worst class of the required workloads (of all, when every workload is optional)."""
        return required_class(self.workloads)

    @property
    def workload_effort(self) -> Effort:
        """The required workloads (optional and scratch parts are costed apart: optional_effort)."""
        return sum_effort(w.effort for w in self.workloads if not w.optional)

    @property
    def optional_effort(self) -> Effort:
        """Optional workloads, and the optional parts of required ones (a build switch's CUDA back end)."""
        return sum_effort([*(w.effort for w in self.workloads if w.optional),
                           *(p.effort for w in self.workloads if not w.optional for p in w.optional_parts)])

    @property
    def rewrite_effort(self) -> Effort:
        """The rewrite components of the required workloads, each its band: a later milestone, apart from the
        headline (measured first ports left them out of their first ROCm build; docs/effort.md)."""
        return sum_effort(w.primary.rewrite for w in self.workloads if not w.optional)

    @property
    def validation_effort(self) -> Effort:
        """The plan's assumed validation steps within `effort` (the rest is hand work)."""
        return sum_effort([*(w.primary.validation for w in self.workloads if not w.optional),
                           *(p.validation for p in self.project_costs)])

    @property
    def hand_effort(self) -> Effort:
        """Hand work: what the measured ports measure (effort less the assumed validation)."""
        total, checks = self.effort, self.validation_effort
        return Effort(low=total.low - checks.low, likely=total.likely - checks.likely, high=total.high - checks.high)

    @property
    def effort(self) -> Effort:
        """Every required workload once, plus each project's costs once."""
        return sum_effort([self.workload_effort] + [p.effort for p in self.project_costs])

    def hand_work_order(self) -> Callable[[Finding], tuple[int, bool, float]]:
        """The order of findings by expected hand work, one for every renderer and the plan: worst class first,
        mechanical changes last (a rename hipify makes, or a rule in rules/effort/mechanical.yaml such as
        __stcs), then the rule's expected hand hours (rule_hours) most first."""
        mechanical = frozenset(r.id for r in self.rules if r.mechanical)
        return lambda f: (-class_rank(f.cls), f.hipify == "yes" or f.rule in mechanical,
                          -self.rule_hours.get(f.rule, 0.0))

    def finding_ids(self) -> dict[Finding, str]:
        return {f: f"F{i}" for i, f in enumerate(self.findings, start=1)}
