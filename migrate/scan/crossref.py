"""The cross-file join: functions whose every definition is CUTLASS/CuTe code (which has no ROCm
counterpart), and the statements elsewhere that name them (op registrations and schemas, header
declarations, calls). One pass over the files' `function_defined` / `function_reference` facts
(extract/c/xref.py), after the per-file cache: no file is read or parsed again."""
from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, replace

from migrate.model import Fact
from migrate.rulebase.name_lists import header_suffixes

KINDS = frozenset({"function_defined", "function_reference", "include"})  # the facts the join reads
CONSTRUCT = "cutlass-only-function-reference"
MACRO = "macro"  # a block a macro makes a function of (extract/c/xref.py): it holds code, it names no function
GUARDED = frozenset({"hip", "cuda"})  # facts the authors already put behind a HIP guard (match.GUARDED)
HEADERS = header_suffixes()
# Dispatch keys whose kernels are not the GPU's: a Meta shape function does not make an op run on ROCm.
OTHER_DEVICE_KEYS = frozenset({"Meta", "CPU", "SparseCPU", "QuantizedCPU", "MTIA", "XPU", "MPS", "HPU", "Lazy",
                               "BackendSelect"})
WHAT = {"call": "call", "registration": "registration", "schema": "op's schema or shape function",
        "declaration": "declaration"}
PRIORITY = ("registration", "schema", "declaration", "call")  # one finding per line and name


@dataclass(slots=True)
class _Definition:
    """A definition of a name seen while cross-referencing: its file, its fact, whether it reaches CUTLASS code (tainted)."""

    path: str
    fact: Fact
    tainted: bool = False
    via: int | None = None  # the CUTLASS-only definition its body calls, when it names no CUTLASS itself

    @property
    def counts(self) -> bool:
        """Whether the definition decides its name: a stub that only throws does not, nor does one the
        HIP side of a guard holds (it is ROCm's own)."""
        return self.fact.role != "stub"


@dataclass(frozen=True, slots=True)
class Use:
    """A statement outside CUTLASS code that names a CUTLASS-only function, as a construct fact."""

    path: str
    fact: Fact
    detail: str


def uses(files: Sequence[tuple[str, Sequence[Fact]]]) -> list[Use]:
    """Every registration, schema, header declaration and call, outside CUTLASS code, of a function
    whose definitions (stubs aside) all are, or only call, CUTLASS/CuTe code."""
    definitions, references = _collect(files)
    if not any(d.tainted for d in definitions):  # no CUTLASS code: nothing for a use to name (most projects)
        return []
    by_name: dict[str, list[int]] = {}
    for n, d in enumerate(definitions):
        if d.fact.text != MACRO:
            by_name.setdefault(d.fact.name, []).append(n)
    enclosing = _enclosing(definitions, references)
    sees = _Visibility(files)
    tainted = _spread(definitions, by_name, references, enclosing, sees)
    ops = _tainted_ops(references, tainted)
    found: dict[tuple[str, int, str], tuple[int, Use]] = {}
    for (path, ref), owner in zip(references, enclosing, strict=True):
        if ref.guard in GUARDED or (owner is not None and definitions[owner].tainted):
            continue
        name, home = ref.name, _nearest(path, by_name.get(ref.name, []), definitions) if ref.name in tainted else None
        if ref.role == "schema":
            name = _op(ref.name)
            home = ops.get(name)
        elif ref.role == "registration" and home is None and ref.text.partition("@")[2] in OTHER_DEVICE_KEYS:
            name = _op(ref.text.partition("@")[0])  # a Meta shape function of an op that has no GPU kernel on ROCm
            home = ops.get(name)
            if home is not None:
                ref = replace(ref, role="schema")
        if home is None or path == definitions[home].path \
                or (ref.role in ("call", "registration") and not sees.sees(path, ref.name)) \
                or not _reported(path, ref, definitions[home], sees):
            continue  # a use in the CUTLASS definition's own file goes with it: ROCm builds leave the file out
        use = Use(path, replace(ref, kind="construct", name=CONSTRUCT, text=name, role=""),
                  _detail(ref, definitions, home))
        key = (path, ref.line, name)
        rank = PRIORITY.index(ref.role)
        if key not in found or rank < found[key][0]:
            found[key] = (rank, use)
    return [use for _, use in found.values()]


class _Visibility:
    """Whether a file can name a function of another file: it declares the name itself, or includes
    (one level, by the include's path suffix) a header that declares or defines it. A name alone is
    no link: FBGEMM's CuTe `copy` in hstu's utils.h is not the `copy` its embedding ops call."""

    def __init__(self, files: Sequence[tuple[str, Sequence[Fact]]]) -> None:
        self.by_base: dict[str, list[str]] = {}
        self.includes: dict[str, list[str]] = {}
        self.named: dict[str, set[str]] = {}  # name -> files that define or declare it
        self.users: dict[str, set[str]] = {}  # name -> files that define, call or register it
        self.defined: dict[str, set[str]] = {}  # name -> files that define it
        for path, _ in files:
            self.by_base.setdefault(path.rpartition("/")[2], []).append(path)
        for path, facts in files:
            for fact in facts:
                if fact.kind == "include":
                    self.includes.setdefault(path, []).extend(self._resolve(fact.name))
                    continue
                defines = fact.kind == "function_defined" and fact.text != MACRO
                if defines or (fact.kind == "function_reference" and fact.role == "declaration"):
                    self.named.setdefault(fact.name, set()).add(path)
                if defines:
                    self.defined.setdefault(fact.name, set()).add(path)
                if defines or (fact.kind == "function_reference" and fact.role in ("call", "registration")):
                    self.users.setdefault(fact.name, set()).add(path)

    def _resolve(self, header: str) -> list[str]:
        header = header.replace("\\", "/")
        while header.startswith(("./", "../")):
            header = header.partition("/")[2]
        return [p for p in self.by_base.get(header.rpartition("/")[2], ()) if p == header or p.endswith("/" + header)]

    def sees(self, path: str, name: str) -> bool:
        named = self.named.get(name, set())
        return path in named or any(h in named for h in self.includes.get(path, ()))

    def inside(self, path: str, name: str, home: str) -> bool:
        """Whether a use in `path` is part of the CUTLASS code it names: the same file, or through a
        header that defines the name or declares it beside its CUTLASS definition (FBGEMM's kernel
        manifests). A use through a header elsewhere (an API header) is a use to report instead."""
        if path == home or path in self.defined.get(name, set()):
            return True
        folder = home.rpartition("/")[0]
        return any(h in self.defined.get(name, set()) or (h in self.named.get(name, set())
                                                          and h.rpartition("/")[0] == folder)
                   for h in self.includes.get(path, ()))

    def includers(self, header: str) -> list[str]:
        return [p for p, headers in self.includes.items() if header in headers]


def _collect(files: Sequence[tuple[str, Sequence[Fact]]]) -> tuple[list[_Definition], list[tuple[str, Fact]]]:
    definitions, references = [], []
    for path, facts in files:
        for fact in facts:
            if fact.kind == "function_defined":
                hip = fact.guard == "hip"
                definitions.append(_Definition(path, replace(fact, role="") if hip else fact,
                                               tainted=fact.role == "cutlass" and not hip))
            elif fact.kind == "function_reference":
                references.append((path, fact))
    return definitions, references


def _nearest(path: str, numbers: list[int], definitions: list[_Definition]) -> int:
    """The counting definition nearest the use in the tree (the longest common folder), for the message:
    two libraries of a project (flash-attention's csrc/ and hopper/) may define the same template."""
    parts = path.split("/")

    def shared(n: int) -> tuple[int, int]:
        other = definitions[n].path.split("/")
        common = next((k for k, (a, b) in enumerate(zip(parts, other, strict=False)) if a != b), min(len(parts), len(other)))
        return (-common, n)

    return min((n for n in numbers if definitions[n].counts), key=shared)


def _enclosing(definitions: list[_Definition], references: list[tuple[str, Fact]]) -> list[int | None]:
    """The innermost definition around each reference (None at namespace scope or in a macro block)."""
    spans: dict[str, list[tuple[int, int, int]]] = {}  # (start, n, end) of each file's definitions, sorted
    for n, d in enumerate(definitions):
        spans.setdefault(d.path, []).append((d.fact.line, n, d.fact.end_line))
    starts: dict[str, list[int]] = {}
    for path, found in spans.items():
        found.sort()
        starts[path] = [start for start, _, _ in found]
    out: list[int | None] = []
    for path, ref in references:
        found = spans.get(path, [])
        # the largest (start, n) with start <= line that holds the line: from the last that starts by then
        last = bisect.bisect_right(starts.get(path, []), ref.line)
        out.append(next((n for start, n, end in reversed(found[:last])
                         if ref.line <= end and (ref.role == "call" or start != ref.line)), None))
    return out


def _spread(definitions: list[_Definition], by_name: dict[str, list[int]], references: list[tuple[str, Fact]],
            enclosing: list[int | None], sees: _Visibility) -> dict[str, int]:
    """Names every counting definition of which is CUTLASS code, each with one such definition (a
    direct one where there is one). A definition whose body calls such a function becomes CUTLASS
    code too: a call goes to the definitions of its own translation unit (its file and the headers it
    includes) where there are any, as FBGEMM's per-file `get_kernel_via_heuristic` helpers do, else
    to the name's, when the use is part of the CUTLASS code (`_Visibility.inside`)."""
    calls = []
    for (path, ref), owner in zip(references, enclosing, strict=True):
        if owner is not None and ref.role == "call" and ref.guard not in GUARDED and ref.name in by_name:
            local = [n for n in by_name[ref.name] if definitions[n].counts and (
                definitions[n].path == path or definitions[n].path in sees.includes.get(path, ()))]
            calls.append((definitions[owner], path, ref.name, local))
    changed = True
    while changed:
        changed = False
        tainted = _tainted_names(definitions, by_name)
        for d, path, name, local in calls:
            if d.tainted or d.fact.guard == "hip":
                continue
            if local:
                if all(definitions[n].tainted for n in local):
                    d.tainted, d.via = True, local[0]
                    changed = True
            elif name in tainted and sees.inside(path, name, definitions[tainted[name]].path):
                d.tainted, d.via = True, tainted[name]
                changed = True
    return _tainted_names(definitions, by_name)


def _tainted_names(definitions: list[_Definition], by_name: dict[str, list[int]]) -> dict[str, int]:
    out = {}
    for name, numbers in by_name.items():
        counting = [n for n in numbers if definitions[n].counts]
        if counting and all(definitions[n].tainted for n in counting):
            out[name] = min(counting, key=lambda n: (definitions[n].via is not None, n))
    return out


def _op(name: str) -> str:
    """`fbgemm::f8f8bf16.out` -> `f8f8bf16`."""
    return name.rsplit("::", maxsplit=1)[-1].split(".", maxsplit=1)[0].strip()


def _tainted_ops(references: list[tuple[str, Fact]], tainted: dict[str, int]) -> dict[str, int]:
    """Ops whose GPU registrations all name CUTLASS-only functions; an op registered nowhere is
    taken to be the function of its name."""
    registered: dict[str, list[str]] = {}
    for _, ref in references:
        if ref.role == "registration" and ref.guard not in GUARDED:
            op, _, key = ref.text.partition("@")
            if key not in OTHER_DEVICE_KEYS:
                registered.setdefault(_op(op), []).append(ref.name)
    ops = {op: tainted[names[0]] for op, names in registered.items() if all(n in tainted for n in names)}
    for name, home in tainted.items():
        if name not in registered:
            ops.setdefault(name, home)
    return ops


def _reported(path: str, ref: Fact, home: _Definition, sees: _Visibility) -> bool:
    """A declaration counts in a header only (a source file's own declaration is reached through its
    registration or call), not in a header beside the CUTLASS code it declares, and only in a header
    that the CUTLASS definition or a file naming the function includes (else it may declare another
    function of the same name)."""
    if ref.role != "declaration":
        return True
    folder = path.rpartition("/")[0]
    if not path.lower().endswith(HEADERS) or folder == home.path.rpartition("/")[0]:
        return False
    return bool(set(sees.includers(path)) & sees.users.get(ref.name, set()))


def _detail(ref: Fact, definitions: list[_Definition], home: int) -> str:
    d = definitions[home]
    chain: list[str] = []
    while d.via is not None and len(chain) < 4:
        d = definitions[d.via]
        chain.append(d.fact.name)
    where = f"{definitions[home].path}:{definitions[home].fact.line}"
    through = f", which uses {' -> '.join(chain)} ({d.path}:{d.fact.line})" if chain else ""
    return f"defined in {where}{through}; this {WHAT[ref.role]}"
