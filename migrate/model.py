"""The values that flow through the pipeline up to matching: files, facts, findings, rule facts, effort.
The records after matching (workloads, the report) are in `migrate.model_report`."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from operator import attrgetter
from pathlib import Path

from migrate.compat import run_text, sha256_hex

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any, Literal, TypeVar

    # The vocabularies of a finding, as types: a value outside them is a type error (mypy) and, where text
    # from outside is read (a cached row, a baseline), refused by `vocabulary_value`. Each tuple below holds
    # its type's words in this order (tests/test_lint_typing.py).
    MigrationClass = Literal["native", "minor-adaptation", "migration-required", "incompatible"]  # least to most work
    Confidence = Literal["low", "medium", "high"]
    HipifyState = Literal["yes", "partial", "no"]  # whether hipify-perl converts it: the rule's word or measured
    Status = Literal["", "ported", "optional"]  # a ROCm path covers it; in an optional part or import; neither
    PreciseState = Literal["confirmed", "fast-only", "unchecked", "precise-only"]  # with --precise (libclang)
    CompilerState = Literal["", "confirmed", "miss"]  # with `check`: a hip-clang error on its line; one no finding predicted
    Word = TypeVar("Word", bound=str)
    T = TypeVar("T")
else:  # at run time a vocabulary's type is text (modules import the names for their annotations)
    MigrationClass = Confidence = HipifyState = Status = PreciseState = CompilerState = str
CLASSES: tuple[MigrationClass, ...] = ("native", "minor-adaptation", "migration-required", "incompatible")
CONFIDENCES: tuple[Confidence, ...] = ("low", "medium", "high")
HIPIFY_STATES: tuple[HipifyState, ...] = ("yes", "partial", "no")
STATUSES: tuple[Status, ...] = ("", "ported", "optional")
_RANKS: dict[str, int] = {name: rank for rank, name in enumerate(CLASSES)}
SCHEMA_VERSION = 1


def class_rank(name: str) -> int:
    """A class's place from least to most work; ValueError for a word that is no class (a report read back)."""
    try:
        return _RANKS[name]  # a scan's judge asks ~90k times: a dict, not a scan of the tuple
    except (KeyError, TypeError):
        return CLASSES.index(name)  # ValueError, as for any other word


def worst_class(names: Iterable[str]) -> MigrationClass:
    ranks = [class_rank(n) for n in names]
    return CLASSES[max(ranks)] if ranks else "native"




def vocabulary_value(value: str, words: tuple[Word, ...]) -> Word:
    """`value` as a word of the vocabulary `words` (text read from outside); ValueError otherwise."""
    for word in words:
        if word == value:
            return word
    raise ValueError(f"{value!r} is not one of {', '.join(repr(w) for w in words)}")


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFile:
    """A file discovery chose to read: where it is, its path relative to the scanned root, its kind and size."""

    path: Path
    rel: str
    kind: str
    size: int
    # (size, mtime_ns, ctime_ns, inode, device) as discovery stat'ed the file (`statcache.Stamp`), so
    # that the stat cache need not stat it again; None where the file was not stat'ed by a walk.
    stamp: tuple[int, int, int, int, int] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Skipped:
    """A file that was not read, and why."""

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
    """Estimated engineer-hours: low, likely and high."""

    low: float
    likely: float
    high: float

    def to_json(self) -> dict[str, Any]:
        return {"low": round(self.low, 2), "likely": round(self.likely, 2), "high": round(self.high, 2)}


NO_EFFORT = Effort(low=0.0, likely=0.0, high=0.0)


@dataclass(frozen=True, slots=True, kw_only=True)
class EffortItem:
    """One contributor to an estimate's likely hours."""

    label: str  # as a person reads it: "warp: warp-width assumptions x3" (with a multiplication sign)
    hours: float  # likely
    kind: str  # what it is about, summed across workloads: a rule family, a rule id, or the item itself
    name: str  # the label without its detail in parentheses (a project's set-up steps)


def sum_effort(efforts: object) -> Effort:
    items = list(efforts)  # type: ignore[call-overload]
    return Effort(low=sum(e.low for e in items), likely=sum(e.likely for e in items), high=sum(e.high for e in items))


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One rule matched at one place of one file; never changed after creation (replace() makes a new one)."""

    rule: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    symbol: str
    message: str
    hip: str | None
    hipify: HipifyState
    confidence: Confidence
    migration_class: MigrationClass
    source_line: str = ""
    cell: int | None = None
    workload: str = ""
    targets: tuple[str, ...] = ()  # the architectures the finding applies to
    source: str = "rules"  # "hipify" for findings hipify-perl reported that the extractor did not see
    precise: PreciseState | None = None  # with --precise
    status: Status = ""  # "ported" (a ROCm path covers it), "optional" (an optional part or import), else ""
    effective_class: MigrationClass | Literal[""] = ""  # the class it counts as (classify.effective_class); "" until judged
    compiler: CompilerState = ""  # with `check`

    def __hash__(self) -> int:
        """Over the fields that tell findings apart (equal findings share them): a scan keys dicts by
        tens of thousands of findings, and hashing all 21 fields cost three times as much."""
        return hash((self.path, self.line, self.column, self.rule, self.symbol))

    @property
    def cls(self) -> MigrationClass:
        """The one class used everywhere (summary, lint, SARIF, HTML): effective once judged."""
        return self.effective_class or self.migration_class

    @property
    def info(self) -> bool:
        """A hint (low confidence: a tuning parameter, a name that looks like a back end's): never in a
        class or the top risks, and left out of the text and HTML findings lists unless asked for."""
        return self.confidence == "low"

    @property
    def sort_key(self) -> tuple[str, int, int, int, str, str]:
        return (self.path, self.cell or 0, self.line, self.column, self.rule, self.symbol)

    @property
    def fingerprint(self) -> str:
        """Stable across line shifts: rule, path, symbol and the whitespace-folded line."""
        norm = "".join(self.source_line.split())  # every whitespace character out: what re's \s+ took (str.isspace)
        raw = "\0".join((self.rule, self.path, self.symbol, norm))
        return sha256_hex(raw.encode("utf-8", "surrogateescape"))[:16]

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
            "info": self.info,
            "workload": self.workload,
            "targets": list(self.targets),
            "source": self.source,
            "precise": self.precise,
            "compiler": self.compiler,
            "fingerprint": self.fingerprint,
        }




def slot_builder(cls: type[T]) -> Callable[[Iterable[object]], T]:
    """A maker of `cls` (a frozen dataclass with slots) from its fields' values in their order: each
    value is stored into a draft with the same slots (a plain attribute store), whose class is then set
    to `cls` (CPython allows it between classes of the same slots): the same frozen object, where the
    dataclass's own __init__ (object.__setattr__ per field) costs twice as much, and a scan decodes and
    evolves tens of thousands of facts and findings, a lint start 450 rules. Nothing is checked that
    __init__ would check."""
    names: tuple[str, ...] = cls.__slots__  # type: ignore[attr-defined]
    draft = type(f"_{cls.__name__}Draft", (), {"__slots__": names})
    # written out, one slot a line (as dataclasses writes __init__): a loop over the slots cost twice as much
    lines = ["def build(values, *, draft=draft, cls=cls):", f"    {', '.join(f'v_{n}' for n in names)}, = values",
             "    made = draft()", *(f"    made.{n} = v_{n}" for n in names), "    made.__class__ = cls", "    return made"]
    scope: dict[str, Any] = {"draft": draft, "cls": cls}
    run_text("\n".join(lines), scope)  # our own text, built from the slot names above
    build: Callable[[Iterable[object]], T] = scope["build"]
    return build


_FINDING_FIELDS: tuple[str, ...] = Finding.__slots__
_FINDING_VALUES = attrgetter(*_FINDING_FIELDS)
_FINDING_PLACE = {name: n for n, name in enumerate(_FINDING_FIELDS)}
build_finding = slot_builder(Finding)  # the values in Finding's field order
build_fact = slot_builder(Fact)


def evolve(finding: Finding, **changes: object) -> Finding:
    """dataclasses.replace for a Finding, without its per-call overhead (a scan makes tens of
    thousands); the fields are the same, the original is untouched."""
    values: list[object] = list(_FINDING_VALUES(finding))
    for name, value in changes.items():
        values[_FINDING_PLACE[name]] = value
    return build_finding(values)


@cache
def evolver(*names: str) -> Callable[..., Finding]:
    """`evolve(finding, **dict(zip(names, values)))` as a function of (finding, *values), for the scan's hot
    loops (a judged scan evolves every finding three times): written out for these fields, one slot a line as
    slot_builder's maker, each other field read from the finding, no list or keyword dict in between (a third
    of evolve's time)."""
    unknown = [n for n in names if n not in _FINDING_PLACE]
    if unknown or len(set(names)) != len(names):
        raise KeyError(f"not a field of Finding, or twice: {', '.join(unknown) or names}")
    fields: tuple[str, ...] = Finding.__slots__
    lines = [f"def evolved(finding, {', '.join(f'v_{n}' for n in names)}, *, draft=draft, cls=cls):",
             "    made = draft()",
             *(f"    made.{n} = v_{n}" if n in names else f"    made.{n} = finding.{n}" for n in fields),
             "    made.__class__ = cls", "    return made"]
    scope: dict[str, Any] = {"draft": type("_FindingDraft", (), {"__slots__": fields}), "cls": Finding}
    run_text("\n".join(lines), scope)  # our own text, built from the slot names above
    evolved: Callable[..., Finding] = scope["evolved"]
    return evolved


@dataclass(frozen=True, slots=True)
class Candidate:
    """A finding of one file before the repo-wide filters: it is dropped when `defined_as` is a
    name the project defines, or `namespace` a namespace a HIP guard makes portable, and kept
    only when `needs_mask` (if set) is a lane-mask type of the project (FileResult.masks)."""

    finding: Finding
    defined_as: str | None = None
    namespace: str | None = None
    needs_mask: str | None = None  # kept only when some file of the project knows this name as a lane mask
    needs_context: bool = False  # kept only in a .cu/.cuh file or a header (match.in_context): a plain name, no CUDA beside
    header_only: bool = False  # kept only in a header (match.select): a rule's `header_only_when` construct names it


build_candidate = slot_builder(Candidate)  # (finding, defined_as, namespace, needs_mask, needs_context, header_only)


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
    masks: tuple[str, ...] = ()  # and of the names of its 32-bit lane-mask types
    found: tuple[tuple[Candidate, ...], ...] = ()  # per target architecture, in the scan's order
    line_text: dict[tuple[int, int], str] = field(default_factory=dict)  # of the kept facts' and candidates' lines
    string_device_lines: int = 0  # lines whose one-line string literals carry CUDA device code (scan.layout)

    def kept(self) -> Extraction:
        """The kept facts as an extraction, for the stages after matching that read facts."""
        return Extraction(facts=self.facts, lines=self.lines, line_text=self.line_text, notes=self.notes)


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """The ROCm release and GPU architectures findings are judged against."""

    rocm: str
    arch: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleInfo:
    """What a report needs to know of a rule that produced findings (for SARIF, HTML, Markdown)."""

    id: str
    name: str
    title: str
    migration_class: MigrationClass
    hip: str | None
    hipify: HipifyState
    confidence: Confidence
    rationale: str
    docs: str
    mechanical: bool = False  # its fix is a rename or one-for-one replacement (hipify's, or rules/effort/mechanical.yaml)
