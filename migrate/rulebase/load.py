"""Load, validate and index the rule base (rules/*.yaml)."""
from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from migrate import __version__, jsonio
from migrate.compat import sha256_hex
from migrate.model import Confidence, HipifyState, MigrationClass, RuleInfo, slot_builder
from migrate.rulebase import datafile
from migrate.vocabulary import CONSTRUCTS, FACT_KINDS, ROLES

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    import jsonschema

    from migrate.rulebase.stamps import Digests
    from migrate.rulebase.targets import Arch

    T = TypeVar("T")

SCHEMA_PATH = Path(__file__).with_name("rule.schema.json")


class RuleError(Exception):
    """A rule file is malformed; str() is one line naming file, rule and field."""


def version_tuple(text: str) -> tuple[int, ...]:
    """(major, minor, patch): "7.2" and "7.2.0" are one release, so a name added in 7.2.0 is there on 7.2."""
    parts = tuple(int(p) for p in text.split("."))
    return parts + (0,) * (3 - len(parts))


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """What a rule's map says of one name: its HIP equivalent, when it came or went, what hipify does."""

    hip: str | None = None
    since: str | None = None
    hipify: HipifyState | None = None
    note: str | None = None
    deprecated: str | None = None
    removed: str | None = None
    experimental: str | None = None
    value: re.Pattern[str] | None = None  # flags: the entry applies only when the flag's value matches


class Entries(Mapping[str, Entry]):
    """A rule's map, each entry turned into an Entry when first read: the cached rule base holds
    11k of them and is read at every lint start, which looks up a handful (`precompiled` checks
    the raw values' types when it reads them)."""

    __slots__ = ("_built", "raw")

    def __init__(self, raw: dict[str, object]) -> None:
        self.raw = raw
        self._built: dict[str, Entry] = {}

    def __getitem__(self, name: str) -> Entry:
        entry = self._built.get(name)
        if entry is None:
            entry = self._built[name] = _entry(self.raw[name])
        return entry

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)

    def __repr__(self) -> str:
        return f"Entries({len(self.raw)} names)"


class MapText(Mapping[str, object]):
    """A rule's `map` as rules/compiled.json holds it (rulebase/compiled.py): its JSON text, a span of the
    bytes its file's line carries after the records, decoded when the map is first read. A lint start
    reads none: the match index takes a map's names from the file's name table (`name_table`). Equal to
    the dict of the same items, as any Mapping. Raises ValueError when the span is not a JSON object."""

    __slots__ = ("_items", "end", "start", "tail")

    def __init__(self, tail: bytes, start: int, end: int) -> None:
        self.tail, self.start, self.end = tail, start, end
        self._items: dict[str, object] | None = None

    def decoded(self) -> bool:
        """Whether the text was decoded (tests)."""
        return self._items is not None

    def _decode(self) -> dict[str, object]:
        if self._items is None:
            items = jsonio.loads(self.tail[self.start:self.end])
            if not isinstance(items, dict):
                raise ValueError("a compiled map that is not a JSON object")
            self._items = items
        return self._items

    def __getitem__(self, name: str) -> object:
        return self._decode()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decode())

    def __len__(self) -> int:
        return len(self._decode())

    def __repr__(self) -> str:
        return f"MapText({self.end - self.start} bytes)"


def map_names(spec: Mapping[str, Any]) -> Collection[str]:
    """The names of a matcher record's `map` (empty without one)."""
    names: Collection[str] = spec.get("map") or _EMPTY
    return names


# A rule file's names, for the match index: fact kind -> name -> the rules of the file listing it, each as
# `position * 2 + 1` for a name of the rule's map, `position * 2` for one of its `exact` names (position: the
# rule's place in the file); one int, or a list of them in rule order (a rule's exact names before its map's).
# compiled.json holds a kind's names packed (PackedNames) where none has a `|`, else as an object.
NameTable = Mapping[str, Mapping[str, "int | list[int]"]]


def name_table(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int | list[int]]]:
    """A rule file's name table (above), from its records: compiled.json holds it for each file, so that a
    lint start does not enter 11k names into an index (scan/match.RuleIndex reads the tables as they are)."""
    table: dict[str, dict[str, int | list[int]]] = {}
    for position, record in enumerate(records):
        ((kind, spec),) = record["match"].items()
        for name, hit in [*((n, position * 2) for n in dict.fromkeys(as_tuple(spec.get("exact")))),
                          *((n, position * 2 + 1) for n in map_names(spec))]:
            names = table.setdefault(kind, {})
            before = names.get(name)
            names[name] = hit if before is None else [before, hit] if isinstance(before, int) else [*before, hit]
    return table


class PackedNames(Mapping[str, "int | list[int]"]):
    """A name table's names of one kind as compiled.json writes them: by length, the names of that many
    characters as one text (`a|b|c`) and their hits as another (`3|3,4|7`, in the same order), spans of the
    bytes the file's line carries after the records (`offsets`: for n = 0, 1, ..., where the names of n
    characters start, where their hits start; then where the last hits end). The names of one length are
    made a dict when a name of that length is first looked up (two splits and a zip, in C): a lint of a small
    file makes the ~800 names its facts' lengths share instead of all 11k (making them all and their dicts
    was ~15 M instructions of an edited-file lint's ~340 M)."""

    __slots__ = ("_by_length", "offsets", "tail")

    def __init__(self, tail: bytes, offsets: list[int]) -> None:
        self.tail, self.offsets = tail, offsets
        self._by_length: dict[int, dict[str, bytes]] = {}

    @staticmethod
    def pack(names: Mapping[str, int | list[int]]) -> list[tuple[bytes, bytes]] | None:
        """The texts of a kind's names and of their hits, by length; None when a name holds a `|` or a line
        break (the table is then written as an object)."""
        if any("|" in name or "\n" in name or "\r" in name for name in names):
            return None
        by_length: list[list[tuple[str, int | list[int]]]] = [[] for _ in range(max(map(len, names), default=-1) + 1)]
        for name, hits in names.items():
            by_length[len(name)].append((name, hits))
        return [("|".join(name for name, _ in entries).encode(),
                 "|".join(str(hits) if isinstance(hits, int) else ",".join(map(str, hits)) for _, hits in entries).encode())
                for entries in by_length]

    def _names(self, size: int) -> dict[str, bytes]:
        """The names of `size` characters, each with its hits' text."""
        found = self._by_length.get(size)
        if found is None:
            offsets, tail = self.offsets, self.tail
            start, middle, end = offsets[2 * size:2 * size + 3] if 2 * size + 2 < len(offsets) else (0, 0, 0)
            found = self._by_length[size] = dict(zip(tail[start:middle].decode().split("|"),
                                                     tail[middle:end].split(b"|"), strict=True)) if end > start else {}
        return found

    def get(self, name: str, default: object = None) -> Any:
        """The hits of a name (`default` when no rule of the file lists it)."""
        hits = self._names(len(name)).get(name)
        return default if hits is None else _hits(hits)

    def __getitem__(self, name: str) -> int | list[int]:
        hits = self.get(name)
        if hits is None:
            raise KeyError(name)
        return hits  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return (name for size in range(len(self.offsets) // 2) for name in self._names(size))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"PackedNames({len(self)} names)"


def _hits(text: bytes) -> int | list[int]:
    return int(text) if b"," not in text else [int(hit) for hit in text.split(b",")]


class LazyPattern:
    """A rule's regular expression, compiled on first use: the cached rule base is read on every
    lint start, and most patterns are never needed by a run (their fact kind does not occur).
    Equal to the compiled pattern of the same text."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            try:
                self._compiled = re.compile(self.pattern)
            except re.error:  # only a tampered cache holds one (the YAML path compiles every pattern)
                self._compiled = re.compile(r"(?!)")
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled().search(text)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyPattern):
            return self.pattern == other.pattern
        if isinstance(other, re.Pattern):
            return self.compiled() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.pattern)

    def __repr__(self) -> str:
        return f"re.compile({self.pattern!r})"


@dataclass(frozen=True, slots=True, kw_only=True)
class Matcher:
    """What facts a rule matches: one fact kind, and the names, prefixes, pattern or map it looks for."""

    kind: str
    exact: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()
    regex: re.Pattern[str] | LazyPattern | None = None
    entries: Mapping[str, Entry] = field(default_factory=dict)
    roles: frozenset[str] = frozenset()
    value: re.Pattern[str] | None = None  # flags: only when the flag's value matches (searched)

    def names(self) -> Iterable[str]:
        return (*self.exact, *self.entries)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """One rule of rules/*.yaml, validated: what it matches and what it says of a match."""

    id: str
    name: str
    title: str
    matcher: Matcher
    migration_class: MigrationClass
    hip: str | None
    hipify: HipifyState
    effort_per_occurrence: float
    effort_first_use: float
    confidence: Confidence
    status: str
    rationale: str
    docs: str
    file: str
    message: str | None = None
    rocm_min: str | None = None
    rocm_max: str | None = None
    arch: tuple[str, ...] = ()
    fallback: bool = False
    covers_file: bool = False  # a finding means the whole file is rewritten: its lower-class findings go
    in_backend_files: bool = True  # False: not reported in a file of a per-back-end family (layout.backend_files)
    mask_elsewhere: bool = False  # True: reported only where another file of the project knows the symbol as a lane mask
    known_name: bool = False  # True: a construct reported only when its name is one an identifier rule matches
    file_has: str | None = None  # reported only in a file with an unguarded fact whose name this regex finds
    file_has_what: str | None = None  # what that evidence is, in words (the rule docs)
    file_lacks: str | None = None  # reported only in a file with no unguarded fact whose name this regex finds
    file_lacks_what: str | None = None  # what that missing evidence is, in words (the rule docs)
    # a construct of the file naming the finding's symbol that keeps the finding only in a header (match.select):
    # a constant the file defines and spells nowhere else is dead code in a source, its includers' in a header
    header_only_when: str | None = None
    header_only_what: str | None = None  # what that construct says, in words (the rule docs)
    # True: the include names a header an NVIDIA product ships for others to copy (or the project is the product):
    # a copy in the project's tree is still the product's header, never the project's own (scan/own_headers.py)
    product_header: bool = False
    # a name outside CUDA's spellings (backends.yaml own_function_names) is reported only in a file with CUDA
    # context: a .cu/.cuh file, a header, or a file with another CUDA finding; the text says what the name is elsewhere
    needs_context: str | None = None
    when: str | None = None  # "unavailable": report an entry only if the target ROCm predates it
    target: tuple[tuple[str, object], ...] = ()  # conditions on the GPU architecture (targets.Arch fields)
    exceeds: str | None = None  # fire only when the fact's value exceeds this Arch property

    def applies_to(self, rocm: str, archs: Iterable[Arch]) -> bool:
        """Whether the rule is in force for a ROCm version and at least one of the architectures."""
        return in_force(self.status, self.rocm_min, self.rocm_max, self.arch, dict(self.target), rocm, archs)

    def matching_archs(self, archs: Iterable[Arch]) -> list[Arch]:
        conditions = dict(self.target)
        return [a for a in archs if (not self.arch or a.name in self.arch) and a.satisfies(conditions)]


def in_force(status: str, rocm_min: str | None, rocm_max: str | None, arch: tuple[str, ...],
             target: Mapping[str, object], rocm: str, archs: Iterable[Arch]) -> bool:
    """Whether a rule of these fields is in force for a ROCm version and at least one of the
    architectures (Rule.applies_to; RuleBase.in_force reads the fields from the records)."""
    if status == "removed":
        return False
    if rocm_min and version_tuple(rocm) < version_tuple(rocm_min):
        return False
    if rocm_max and version_tuple(rocm) > version_tuple(rocm_max):
        return False
    return any((not arch or a.name in arch) and a.satisfies(target) for a in archs)


class RuleBase:
    """The rules in file order, the rule-set version, and the folder they were read from.

    A rule is built from its validated record when first read (`rule(i)`; `rules` builds them all):
    an edited-file lint reads ~450 records at start and needs the handful its findings name. What
    every rule's selection needs is read from the records as columns (`ids`, `names`, `in_force`,
    `matchers`, `in_backend_files`): a site that iterates `rules` builds every rule, and
    tests/test_rulebase_lazy.py counts the builds of an edited-file lint (`built`)."""

    __slots__ = ("_all", "_by_key", "_columns", "_lazy", "_records", "_rules", "_shipped", "_tables", "built",
                 "directory", "version")

    def __init__(self, records: list[tuple[str, dict[str, Any]]], version: str, directory: Path | None = None, *,
                 lazy: bool = True, tables: Mapping[str, NameTable] | None = None) -> None:
        self._records = records  # (rule file name, validated record), in file order
        self._shipped = tables or {}  # rule file name -> its name table as compiled.json holds it
        self._tables: list[tuple[int, NameTable]] | None = None
        self._rules: list[Rule | None] = [None] * len(records)
        self._lazy = lazy  # the records were compiled before: patterns compile on first use
        self._by_key: dict[str, int] | None = None
        self._all: tuple[Rule, ...] | None = None
        self._columns: dict[str, tuple[Any, ...]] = {}  # _column's, by name
        self.version = version
        self.directory = directory  # where the rule data beside the rules (alternatives/, targets/) is read
        self.built = 0  # rules built so far

    def __len__(self) -> int:
        return len(self._records)

    def __eq__(self, other: object) -> bool:
        """Equal rules (all built), version and folder, as when the rules were a tuple field."""
        if not isinstance(other, RuleBase):
            return NotImplemented
        return (self.version, self.directory, self.rules) == (other.version, other.directory, other.rules)

    __hash__ = None  # type: ignore[assignment]  # as before: a rule's map is not hashable

    def rule(self, position: int) -> Rule:
        """The rule at a position of the file order, built on first read."""
        rule = self._rules[position]
        if rule is None:
            filename, record = self._records[position]
            try:
                rule = self._rules[position] = _build(record, filename, lazy=self._lazy)
            except re.error as exc:
                raise RuleError(f"rules/{filename}: {record['id']}: field 'match': bad regex: {exc}") from None
            self.built += 1
        return rule

    @property
    def rules(self) -> tuple[Rule, ...]:
        """Every rule, in file order (all built)."""
        if self._all is None:
            self._all = tuple(map(self.rule, range(len(self._records))))
        return self._all

    def _column(self, name: str, read: Callable[[dict[str, Any]], Any]) -> list[Any]:
        """`read` of every record, in file order: a new list each call, read from the records once (a lint of one
        file asks for the ids 7 times and for the matchers 4: ~1 ms of its start, the matchers' ~0.25 ms a time)."""
        column = self._columns.get(name)
        if column is None:
            column = self._columns[name] = tuple(read(record) for _, record in self._records)
        return list(column)

    @property
    def ids(self) -> list[str]:
        return self._column("ids", _record_id)

    @property
    def names(self) -> list[str]:
        return self._column("names", _record_name)

    def in_backend_files(self) -> list[bool]:
        return self._column("in_backend_files", _in_backend_files)

    def name_tables(self) -> list[tuple[int, NameTable]]:
        """Each rule file's name table (`name_table`) with the position of its first rule, in file order: the
        compiled copy's where it holds the file, else made from the records."""
        if self._tables is None:
            starts: dict[str, int] = {}
            for position, (filename, _) in enumerate(self._records):
                starts.setdefault(filename, position)
            ends = [*list(starts.values())[1:], len(self._records)] if starts else []
            shipped = self._shipped
            self._tables = [(start, shipped[filename] if filename in shipped else name_table(
                record for _, record in self._records[start:end]))
                for (filename, start), end in zip(starts.items(), ends, strict=True)]
        return self._tables

    def matchers(self) -> list[tuple[str, dict[str, Any]]]:
        """Each rule's fact kind and matcher record (`match` of rule.schema.json), in file order."""
        return self._column("matchers", _matcher)

    def file_conditions(self) -> list[tuple[str, ...]]:
        """Each rule's `file_has` and `file_lacks` patterns, in file order: the names they find are facts the scan
        must build (match.IdentifierNames), read from the records: no rule is built."""
        return self._column("file_conditions", _file_conditions)

    def construct_rules(self, constructs: Iterable[str]) -> frozenset[str]:
        """The ids of the rules that match any of `constructs` exactly (a `construct` matcher's `exact`), read from
        the records: no rule is built."""
        wanted = frozenset(constructs)
        return frozenset(rule_id for rule_id, (kind, spec) in zip(self.ids, self.matchers(), strict=True)
                         if kind == "construct" and not wanted.isdisjoint(as_tuple(spec.get("exact"))))

    def product_headers(self) -> frozenset[str]:
        """The ids of the rules whose headers stay the product's in a project's copy (`product_header`), read from
        the records: no rule is built."""
        return frozenset(record["id"] for _, record in self._records if record.get("product_header", False))

    def in_force(self, rocm: str, archs: Iterable[Arch]) -> list[bool]:
        """Rule.applies_to of every rule, read from the records."""
        archs = tuple(archs)
        # a rule with no status "removed", ROCm range, architectures or target conditions (most) is in force as any is
        plain = in_force("stable", None, None, (), _EMPTY, rocm, archs)
        return [plain if r.keys().isdisjoint(_CONDITIONS) and r["status"] != "removed" else
                in_force(r["status"], (rocm_range := r.get("rocm", _EMPTY)).get("min"), rocm_range.get("max"),
                         tuple(r.get("arch", ())), r.get("target", _EMPTY), rocm, archs) for _, r in self._records]

    def infos(self, used: set[str]) -> tuple[RuleInfo, ...]:
        """What a report needs of the rules behind its findings."""
        mechanical = mechanical_rules(self.directory or default_rules_dir())
        rules = [self.rule(i) for i, rule_id in enumerate(self.ids) if rule_id in used]
        return tuple(RuleInfo(id=r.id, name=r.name, title=r.title, migration_class=r.migration_class, hip=r.hip,
                              hipify=r.hipify, confidence=r.confidence, rationale=r.rationale, docs=r.docs,
                              mechanical=r.hipify == "yes" or r.id in mechanical)
                     for r in rules)

    def get(self, key: str) -> Rule | None:
        """The rule of an id or a name (an id first, in file order, as the rules are read)."""
        if self._by_key is None:
            by_key: dict[str, int] = {}
            for position, (_, record) in enumerate(self._records):
                by_key.setdefault(record["id"], position)
                by_key.setdefault(record["name"], position)
            self._by_key = by_key
        found = self._by_key.get(key)
        return None if found is None else self.rule(found)


def _record_id(record: dict[str, Any]) -> str:
    rule_id: str = record["id"]
    return rule_id


def _record_name(record: dict[str, Any]) -> str:
    name: str = record["name"]
    return name


def _in_backend_files(record: dict[str, Any]) -> bool:
    return bool(record.get("in_backend_files", True))


def _file_conditions(record: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(record[key]["regex"]) for key in ("file_has", "file_lacks") if key in record)


def _matcher(record: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    matcher: tuple[str, dict[str, Any]] = next(iter(record["match"].items()))
    return matcher


_EMPTY: dict[str, Any] = {}
_CONDITIONS = frozenset({"rocm", "arch", "target"})  # the fields of a record that `in_force` reads besides its status


MECHANICAL_FILE = "effort/mechanical.yaml"


@lru_cache(maxsize=4)
def mechanical_rules(directory: Path) -> frozenset[str]:
    """Rules whose fix is a mechanical change hipify does not make (rules/effort/mechanical.yaml, each with its
    source): ranked with hipify's renames, last, wherever findings are ordered by hand work."""
    path = directory / MECHANICAL_FILE
    return frozenset(str(entry["id"]) for entry in datafile.read(path)) if path.is_file() else frozenset()


@cache
def default_rules_dir() -> Path:
    """Installed wheels carry the rules inside the package; a checkout has them beside it. Found once per process
    (a lint of one file asked 12 times, each resolving the package's path: ~1 M instructions)."""
    package = Path(__file__).resolve().parent.parent
    packaged = package / "_rules"
    return packaged if packaged.is_dir() else package.parent / "rules"


def data_files(directory: Path) -> list[Path]:
    """Every data file of a rule base: the rule files and what the matcher and classifier read
    beside them (alternatives/routes.yaml, targets/, effort/, stack/, validation/), in a stable order."""
    return [Path(path) for path, _ in data_file_names(directory)]


def data_file_names(directory: Path) -> list[tuple[str, str]]:
    """`data_files` as text: each file's path (`os.fspath` of its Path) and its name relative to `directory`
    (`relative_to(directory).as_posix()`, the order). A lint start asks for the ~80 files' stamps: making,
    sorting and relating Path objects cost it ~6 M instructions (os.walk: pathlib's rglob is slower still)."""
    top = os.fspath(directory)
    found: list[tuple[str, str]] = []
    for folder, _, names in os.walk(top):
        sub = folder[len(top):].lstrip(os.sep)  # os.walk joins each folder to `top` with one separator
        for name in names:
            if name.endswith(".yaml"):
                rel = f"{sub}{os.sep}{name}" if sub else name
                found.append((os.path.join(top, rel) if top != "." else rel, rel.replace(os.sep, "/")))
    found.sort(key=lambda pair: pair[1])
    return found


def data_digest(directory: Path) -> str:
    """A digest of every data file (relative name and bytes): any edit under rules/ changes it."""
    import hashlib  # here: a lint whose rule stamps are known (rulebase/stamps) does not compute it

    digest = hashlib.sha256()
    for path in data_files(directory):
        digest.update(digest_part(path.relative_to(directory).as_posix(), path.read_bytes()))
    return digest.hexdigest()[:10]


def digest_part(rel: str, raw: bytes) -> bytes:
    """What one data file adds to the data digest: its relative name and its bytes."""
    return rel.encode() + b"\0" + raw + b"\0"


def version_text(digest: str) -> str:
    """The rule base's version from its data digest (data_digest, or rulebase.stamps' version): the tool's version and
    the digest, the one place that writes this form (rules_version, read_rules, the CLI's --version)."""
    return f"{__version__}+{digest}"


def rules_version(directory: Path | None = None) -> str:
    """The rule base's version without loading it: the tool's version and a digest of the rule data."""
    return version_text(data_digest(directory or default_rules_dir()))


def load_rules(directory: Path | None = None) -> RuleBase:
    """Parse and validate the rule files, then build the rule base."""
    directory = directory or default_rules_dir()
    files, version = validated_records(directory, known={})
    return from_records(files, version, directory=directory)


def validated_records(directory: Path | None = None, *, known: Mapping[str, tuple[str, list[dict[str, Any]]]],
                      digests: Digests | None = None) -> tuple[list[tuple[str, list[dict[str, Any]]]], str]:
    """Every rule file's records (plain values, schema-checked) and the rule-set version. `known`:
    file name -> (SHA-256 of its bytes, its records) validated before (the compiled copy): a file
    with those bytes is not parsed or validated again. `digests`: the rule files' SHA-256 and the
    version digest known without reading the files (rulebase.stamps)."""
    directory = directory or default_rules_dir()
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise RuleError(f"{directory}: no rule files (*.yaml) found")
    records: list[tuple[str, list[dict[str, Any]]]] = []
    validator: jsonschema.Draft202012Validator | None = None
    for path in files:
        before = known.get(path.name)
        sha = digests.rule_files.get(path.name) if digests else None
        raw = path.read_bytes() if sha is None or before is None or before[0] != sha else b""
        if before is not None and before[0] == (sha or sha256_hex(raw)):
            records.append((path.name, before[1]))
            continue
        validator = validator or _validator()
        records.append((path.name, _records(path, raw, validator)))
    return records, version_text(digests.version) if digests else rules_version(directory)


def from_records(files: list[tuple[str, list[dict[str, Any]]]], version: str, *, checked: bool = False,
                 directory: Path | None = None, tables: Mapping[str, NameTable] | None = None) -> RuleBase:
    """The rule base from validated records; unique ids and names are checked here. `checked`
    records were compiled before (the compiled copy, the precompiled cache): a rule is built when
    first read and its patterns compile on first use; others are built now (a bad pattern is a RuleError).
    `tables`: the compiled copy's name tables of the files whose records it gave (RuleBase.name_tables)."""
    rulebase = RuleBase([(filename, record) for filename, records in files for record in records], version, directory,
                        lazy=checked, tables=tables)
    if not checked:
        rulebase.rules  # noqa: B018 (every rule built: a pattern that does not compile is an error now)
    _check_unique(rulebase)
    return rulebase


def _validator() -> jsonschema.Draft202012Validator:
    import jsonschema

    return jsonschema.Draft202012Validator(schema())


def schema() -> dict[str, Any]:
    """rule.schema.json with its vocabulary (fact kinds, roles, construct names) filled in from
    migrate/vocabulary.py, the one place those words are written."""
    data: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())
    defs = data["$defs"]
    defs["matcher"]["properties"]["roles"] = {"type": "array", "items": {"enum": list(ROLES)}, "minItems": 1}
    names = {"enum": list(CONSTRUCTS)}
    construct = copy.deepcopy(defs["matcher"])
    construct["properties"]["exact"] = {"oneOf": [names, {"type": "array", "items": names, "minItems": 1}]}
    construct["properties"]["map"] = {**construct["properties"]["map"], "propertyNames": names}
    defs["constructMatcher"] = construct
    defs["rule"]["properties"]["match"]["properties"] = {
        kind: {"$ref": "#/$defs/constructMatcher" if kind == "construct" else "#/$defs/matcher"} for kind in FACT_KINDS}
    return data


def _records(path: Path, raw: bytes, validator: jsonschema.Draft202012Validator) -> list[dict[str, Any]]:
    import yaml  # here: a run served by the precompiled rule base never parses YAML

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        records = yaml.load(raw, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise RuleError(f"rules/{path.name}{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    if records is None:
        return []
    errors = sorted(validator.iter_errors(records), key=lambda e: list(e.absolute_path))
    if errors:
        raise RuleError(_describe(path, records, errors[0]))
    checked: list[dict[str, Any]] = records
    return checked


def _describe(path: Path, records: object, error: jsonschema.ValidationError) -> str:
    where = list(error.absolute_path)
    rule_id = "?"
    if where and isinstance(where[0], int) and isinstance(records, list):
        record = records[where[0]]
        if isinstance(record, dict):
            rule_id = str(record.get("id", f"record {where[0] + 1}"))
        where = where[1:]
    fieldname = ".".join(str(p) for p in where) or "(record)"
    reason = error.message
    if isinstance(error.instance, bool):
        reason += " (YAML read a bare yes/no/on/off as a boolean: quote it)"
    if fieldname.startswith(("match.construct", "match.")) and ("roles" in fieldname or "construct" in fieldname):
        reason += " (constructs and roles are listed in migrate/vocabulary.py)"
    return f"rules/{path.name}: {rule_id}: field '{fieldname}': {reason}"


def as_tuple(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(str(v) for v in value) if isinstance(value, list) else ()


def _entry(value: object) -> Entry:
    if value is None or isinstance(value, str):
        return Entry(hip=value)
    fields = dict(value) if isinstance(value, dict) else {}
    pattern = fields.pop("value", None)
    return Entry(**fields, value=re.compile(pattern) if pattern else None)


_make_matcher = slot_builder(Matcher)
_make_rule = slot_builder(Rule)


def _made(make: Callable[[Iterable[object]], T], slots: tuple[str, ...], fields: dict[str, object]) -> T:
    """An object from every one of its fields by name, through model.slot_builder's maker."""
    return make(fields[name] for name in slots)


def _build(record: dict[str, Any], filename: str, *, lazy: bool = False) -> Rule:
    """One rule from its validated record. Every lint start builds the 450 rules: a frozen dataclass's
    `__init__` sets each field through `object.__setattr__` (~29 M instructions for 450 x 37 fields, 6 % of
    an edited-file lint), so they are made by model.slot_builder, as the scan makes facts and findings
    (tests/test_rules_drafted.py holds every rule equal to Rule(**its fields), every field set)."""
    (kind, spec), = record["match"].items()
    matcher = _made(_make_matcher, Matcher.__slots__, {
        "kind": kind, "exact": frozenset(as_tuple(spec.get("exact"))), "prefixes": as_tuple(spec.get("prefix")),
        "regex": None if "regex" not in spec else LazyPattern(spec["regex"]) if lazy else re.compile(spec["regex"]),
        "entries": Entries(spec.get("map") or {}) if lazy else {k: _entry(v) for k, v in (spec.get("map") or {}).items()},
        "roles": frozenset(spec.get("roles", ())), "value": re.compile(spec["value"]) if "value" in spec else None})
    rocm = record.get("rocm", {})
    return _made(_make_rule, Rule.__slots__, {
        "id": record["id"], "name": record["name"], "title": record["title"], "matcher": matcher,
        "migration_class": record["class"], "hip": record["hip"], "hipify": record["hipify"],
        "effort_per_occurrence": float(record["effort"]["per_occurrence"]),
        "effort_first_use": float(record["effort"]["first_use"]),
        "confidence": record["confidence"], "status": record["status"],
        "rationale": record["rationale"].strip(), "docs": record["docs"], "file": filename,
        "message": record.get("message"), "rocm_min": rocm.get("min"), "rocm_max": rocm.get("max"),
        "arch": tuple(record.get("arch", ())), "fallback": bool(record.get("fallback", False)),
        "covers_file": bool(record.get("covers_file", False)),
        "in_backend_files": bool(record.get("in_backend_files", True)),
        "mask_elsewhere": bool(record.get("mask_elsewhere", False)),
        "known_name": bool(record.get("known_name", False)),
        "file_has": record["file_has"]["regex"] if "file_has" in record else None,
        "file_has_what": record["file_has"]["what"] if "file_has" in record else None,
        "file_lacks": record["file_lacks"]["regex"] if "file_lacks" in record else None,
        "file_lacks_what": record["file_lacks"]["what"] if "file_lacks" in record else None,
        "header_only_when": record["header_only_when"]["construct"] if "header_only_when" in record else None,
        "header_only_what": record["header_only_when"]["what"] if "header_only_when" in record else None,
        "product_header": bool(record.get("product_header", False)),
        "needs_context": record["needs_context"]["what"] if "needs_context" in record else None,
        "when": record.get("when"), "target": tuple(sorted(record.get("target", {}).items())),
        "exceeds": record.get("exceeds")})


def _check_unique(rulebase: RuleBase) -> None:
    seen: dict[str, str] = {}
    for (filename, record) in rulebase._records:
        for key in (record["id"], record["name"]):
            if key in seen:
                raise RuleError(f"rules/{filename}: {record['id']}: field 'id/name': '{key}' is also used in rules/{seen[key]}")
            seen[key] = filename
