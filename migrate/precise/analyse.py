"""Precise mode: the compiler's view of CUDA API use, through libclang, and how it compares with the fast scan.

`analyse` parses one translation unit and keeps the uses whose declaration lives in a CUDA or
CUDA-library header, at the user's source line (the expansion site when a macro produced them).
`compare` labels fast findings `confirmed` / `fast-only` / `unchecked` and lists `precise-only` facts.
Nothing here raises for a missing tool or a broken file: the caller gets a one-line string instead.
"""
from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from migrate.model import Extraction, Fact, Finding, PreciseState
from migrate.precise import compile_commands

if TYPE_CHECKING:
    from migrate.precise.clang import Diagnostic, Ref, Toolchain
    from migrate.rulebase.load import RuleBase
    from migrate.scan.match import RuleIndex

MAX_ERRORS = 5
# Header names (or folders) of CUDA and its libraries, wherever they are installed.
_CUDA_HEADER = re.compile(
    r"^(__clang_cuda|cuda|cuComplex|cublas|cufft|curand|cusparse|cusolver|cudnn|cutensor|cufile|cupti|nccl|nvrtc"
    r"|nvToolsExt|nvtx|npp|nvjpeg|nvml|nvJitLink|cooperative_groups|sm_\d|device_|crt/|math_functions|vector_"
    r"|driver_|host_defines|texture_|surface_|channel_descriptor|builtin_types|library_types)")
_CUDA_DIRS = frozenset({"thrust", "cub", "cuda", "nvtx3", "cooperative_groups", "cccl", "crt"})
KERNEL_CONSTRUCTS = frozenset({"kernel-definition", "kernel-launch", "device-kernel-launch"})
JUDGED_KINDS = frozenset({"identifier", "include", "asm"})


@dataclass(frozen=True, slots=True)
class PreciseFact:
    """A fact the compiler saw, in the fast extractor's vocabulary, with where it came from."""

    path: str  # relative to the root (posix), like Finding.path
    fact: Fact
    declared_in: str | None = None  # the CUDA header that declares the name
    macro: str | None = None  # the macro whose expansion produced the use
    macro_definition: str | None = None  # "path:line" of that macro's definition
    macro_lines: tuple[str, int, int] | None = None  # (path, first line, last line) of that definition

    @property
    def symbol(self) -> str:
        return self.fact.text if self.fact.kind == "construct" and self.fact.text else self.fact.name


@dataclass(frozen=True, slots=True)
class PreciseResult:
    path: str  # the translation unit's main file, relative to the root
    ok: bool  # parsed without errors; when false, keep the fast result and show `errors`
    facts: tuple[PreciseFact, ...]
    files: tuple[str, ...]  # project files the compiler read for this unit (main file and headers)
    errors: tuple[str, ...] = ()  # the compiler's first errors
    notes: tuple[str, ...] = ()  # flags dropped or translated
    seconds: float = 0.0
    rejected: tuple[PreciseFact, ...] = ()  # clang's errors in project files: what hip-clang will not compile

    def extractions(self) -> dict[str, Extraction]:
        """Facts per file, ready for `match.match_file`, so precise facts become findings like fast ones."""
        by_path: dict[str, list[Fact]] = {}
        for pf in self.facts:
            by_path.setdefault(pf.path, []).append(pf.fact)
        return {path: Extraction(facts=tuple(facts), lines=0) for path, facts in by_path.items()}


@dataclass(frozen=True, slots=True)
class Comparison:
    labels: dict[Finding, PreciseState]  # fast finding -> confirmed | fast-only | unchecked
    precise_only: tuple[PreciseFact, ...]  # what macros or templates hid from the fast scan
    counts: dict[str, int] = field(default_factory=dict)


def toolchain(cuda_path: str | None = None) -> Toolchain | str:
    """libclang, clang's CUDA headers and a CUDA installation, or one line saying what is missing."""
    from migrate.precise import clang

    return clang.toolchain(cuda_path)


def commands_for(root: Path, explicit: Path | None = None) -> list[compile_commands.Command] | str:
    """The compile commands of a project (`--compile-commands`, else auto-detected), or why there are none."""
    database = compile_commands.find(root, explicit)
    if database is None:
        where = explicit.name if explicit else "compile_commands.json or build/compile_commands.json"
        return f"no compilation database ({where}); configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON"
    return compile_commands.load(database, root)


MAX_TREE_FILES = 500_000  # files of the tree a parse may read (the overlay lists each)


def tree_files(root: Path) -> dict[str, str]:
    """The regular files of the tree clang may read, name -> real path, found without recursion:
    a link is listed only when what it points at is a regular file inside the tree; FIFOs,
    devices and sockets never; nothing under .git."""
    from migrate.scan.readfile import inside

    top = os.path.realpath(root)
    files: dict[str, str] = {}
    stack = [top]
    while stack and len(files) < MAX_TREE_FILES:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name == ".git":
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                    continue
                real = os.path.realpath(entry.path) if entry.is_symlink() else entry.path
                if inside(real, top) and stat.S_ISREG(os.stat(real, follow_symlinks=False).st_mode):
                    files[entry.path] = real
            except (OSError, ValueError):
                continue
    return files


def boundary(root: Path, tc: Toolchain, folder: Path) -> Path:
    """The overlay file that confines every parse of this tree to its own files and the toolchain."""
    from migrate.precise import clang

    return clang.write_overlay(tree_files(root), tc, folder)


def analyse(path: str | Path, args: Sequence[str] = (), cuda_path: str | None = None, *,
            root: str | Path | None = None, cuda: bool | None = None,
            tc: Toolchain | str | None = None, notes: Sequence[str] = (),
            overlay: Path | None = None) -> PreciseResult | str:
    """Parse one translation unit as CUDA (or C++ for a .cpp file, unless `cuda`) with the user's clang flags.

    `root` bounds the project: facts are reported for files under it (default: the file's folder),
    and clang reads no other file but the toolchain's (`overlay`, made from `boundary` when not given).
    Returns a one-line string when libclang, clang's CUDA headers or the CUDA headers are missing.
    """
    import tempfile

    from migrate.precise import clang

    source = Path(path).resolve()
    base = Path(root).resolve() if root is not None else source.parent
    chain = tc if tc is not None else clang.toolchain(cuda_path)
    if isinstance(chain, str):
        return chain
    if not source.is_file():
        return f"{source.name}: no such file"
    as_cuda = cuda if cuda is not None else source.suffix in compile_commands.CUDA_SUFFIXES
    classify = _Classifier(base, chain)
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="rocm-migrate-vfs-") as folder:
            vfs = overlay or boundary(base, chain, Path(folder))
            parsed = clang.parse(source, list(args), chain, cuda=as_cuda, report=classify.is_project, overlay=vfs)
    except Exception as exc:
        return f"{classify.rel(source)}: libclang failed ({type(exc).__name__})"
    seconds = time.perf_counter() - started
    errors = [d.text for d in parsed.diagnostics if d.severity in ("error", "fatal")]
    facts = _facts(parsed.refs, classify)
    rejected = _rejected(parsed.diagnostics, classify)
    files = {classify.rel(source)} | {classify.rel(r.decl_file) for r in parsed.refs
                                      if r.kind == "include" and r.decl_file and classify.is_project(r.decl_file)}
    return PreciseResult(path=classify.rel(source), ok=not errors, facts=facts, files=tuple(sorted(files)),
                         errors=tuple(_relative(e, base) for e in errors[:MAX_ERRORS]), notes=tuple(notes),
                         seconds=round(seconds, 3), rejected=rejected)


def analyse_command(command: compile_commands.Command, root: str | Path, cuda_path: str | None = None, *,
                    tc: Toolchain | str | None = None, overlay: Path | None = None) -> PreciseResult | str:
    """`analyse` for one entry of a compilation database."""
    return analyse(command.file, command.args, cuda_path, root=root, cuda=command.cuda, tc=tc,
                   notes=command.notes, overlay=overlay)


class _Classifier:
    """Which files belong to the project, and which declarations come from CUDA."""

    def __init__(self, root: Path, tc: Toolchain) -> None:
        self.root = root
        self.cuda = tc.cuda_path.resolve()
        self.resource = tc.resource_dir.resolve()
        self._project: dict[str, bool] = {}

    def rel(self, file: str | Path) -> str:
        resolved = Path(file).resolve()
        try:
            return resolved.relative_to(self.root).as_posix()
        except ValueError:
            return resolved.as_posix()

    def is_project(self, file: str) -> bool:
        if file not in self._project:
            resolved = Path(file).resolve()
            self._project[file] = (resolved.is_relative_to(self.root) and not resolved.is_relative_to(self.cuda)
                                   and not resolved.is_relative_to(self.resource))
        return self._project[file]

    def is_cuda(self, decl_file: str | None) -> bool:
        if not decl_file or self.is_project(decl_file):
            return False
        resolved = Path(decl_file).resolve()
        if resolved.is_relative_to(self.cuda):
            return True
        if resolved.is_relative_to(self.resource):
            return resolved.name.startswith("__clang_cuda")
        return bool(_CUDA_HEADER.match(resolved.name)) or bool(_CUDA_DIRS & set(resolved.parent.parts[-3:]))


def _facts(refs: Iterable[Ref], classify: _Classifier) -> tuple[PreciseFact, ...]:
    out: dict[tuple[str, int, int, str, str, str, str], PreciseFact] = {}
    for ref in refs:
        fact = _fact(ref, classify)
        if fact is None:
            continue
        definition = f"{classify.rel(ref.macro_file)}:{ref.macro_line}" if ref.macro_file else None
        lines = (classify.rel(ref.macro_file), ref.macro_line or 0, ref.macro_end_line or ref.macro_line or 0) \
            if ref.macro_file else None
        pf = PreciseFact(path=classify.rel(ref.file), fact=fact,
                         declared_in=classify.rel(ref.decl_file) if ref.decl_file else None,
                         macro=ref.macro, macro_definition=definition, macro_lines=lines)
        out.setdefault((pf.path, fact.line, fact.column, fact.kind, fact.name, fact.role, fact.text), pf)
    return tuple(sorted(out.values(), key=lambda p: (p.path, p.fact.line, p.fact.column, p.fact.name)))


class _Where(TypedDict):
    line: int
    column: int
    end_line: int
    end_column: int


def _fact(ref: Ref, classify: _Classifier) -> Fact | None:
    where = _Where(line=ref.line, column=ref.column, end_line=ref.end_line, end_column=ref.end_column)
    if ref.kind == "kernel":
        return Fact(kind="construct", name="kernel-definition", text=ref.name, **where)
    if ref.kind == "launch":
        name = "device-kernel-launch" if ref.device else "kernel-launch"
        return Fact(kind="construct", name=name, text=ref.name, **where)
    if ref.kind == "asm":
        return Fact(kind="asm", name=ref.name, **where)
    if ref.kind == "include":
        if ref.decl_file is None or classify.is_cuda(ref.decl_file):
            return Fact(kind="include", name=ref.name, text=f"<{ref.name}>", **where)
        return None
    if not classify.is_cuda(ref.decl_file):
        return None  # declared by the project or a non-CUDA library: a look-alike name is not an API use
    role = "value" if ref.kind == "macro" else ref.kind
    return Fact(kind="identifier", name=ref.name, role=role, **where)


# Errors that say the environment is incomplete (a header or flag clang cannot find), not that the code is wrong.
_ENVIRONMENT = re.compile(r"file not found|cannot find|unknown argument|unsupported option|no such file|"
                          r"cannot open|too many errors emitted|GPU arch|CUDA installation")


def _rejected(diagnostics: Iterable[Diagnostic], classify: _Classifier) -> tuple[PreciseFact, ...]:
    """clang's own errors at lines of the project's files, as `clang-error` construct facts.

    Parsing the user's CUDA as CUDA, clang rejects mostly what hip-clang (the same front end) will
    reject: a dependent template without `template`, host calls in device code, nvcc extensions."""
    out: dict[tuple[str, int, int], PreciseFact] = {}
    for diag in diagnostics:
        if diag.severity != "error" or not diag.file or not classify.is_project(diag.file) or diag.line < 1:
            continue
        if _ENVIRONMENT.search(diag.message):
            continue
        fact = Fact(kind="construct", name="clang-error", text=diag.message, line=diag.line, column=diag.column,
                    end_line=diag.line, end_column=diag.column + 1)
        path = classify.rel(diag.file)
        out.setdefault((path, diag.line, diag.column), PreciseFact(path=path, fact=fact))
    return tuple(out.values())


def rejected_findings(results: Iterable[PreciseResult], index: RuleIndex) -> list[Finding]:
    """clang's errors through the rule base (clang-rejects-cuda), for every unit, whether it parsed cleanly or not."""
    from migrate.scan.match import match_file

    out: dict[tuple[str, str, int, int, str], Finding] = {}
    for result in results:
        by_path: dict[str, list[Fact]] = {}
        for pf in result.rejected:
            by_path.setdefault(pf.path, []).append(pf.fact)
        for rel, facts in by_path.items():
            for finding in match_file(rel, Extraction(facts=tuple(facts), lines=0), index):
                out.setdefault((finding.rule, finding.path, finding.line, finding.column, finding.symbol), finding)
    return sorted(out.values(), key=lambda f: f.sort_key)


def _relative(text: str, root: Path) -> str:
    prefix = str(root) + "/"
    return text[len(prefix):] if text.startswith(prefix) else text


# -- comparison with the fast scan ------------------------------------------------

def to_findings(results: Iterable[PreciseResult], index: RuleIndex) -> list[Finding]:
    """Precise facts through the rule base: findings in the same shape as the fast scan's."""
    from migrate.scan.match import match_file

    out: dict[tuple[str, str, int, int, str], Finding] = {}
    for result in results:
        for rel, extraction in result.extractions().items():
            for finding in match_file(rel, extraction, index):
                out.setdefault((finding.rule, finding.path, finding.line, finding.column, finding.symbol), finding)
    return sorted(out.values(), key=lambda f: f.sort_key)


def compare(fast: Iterable[Finding], results: Iterable[PreciseResult], *, rules: RuleBase | None = None,
            index: RuleIndex | None = None) -> Comparison:
    """Label each fast finding in a file the compiler read; list the facts only the compiler saw.

    Matching is on (path, line, symbol). A fast finding is `confirmed` when the compiler saw the same
    symbol on that line, `fast-only` when it did not (a dead `#if` branch, a look-alike name, a name
    the compiler resolved to the project's own declaration), `unchecked` for device-code constructs
    precise mode does not extract (needs `rules`). Files no successful unit read get no label.
    `precise_only` keeps the facts a rule matches when `index` is given, else every CUDA fact.
    """
    results = [r for r in results if r.ok]
    covered = {f for r in results for f in r.files}
    keys: dict[tuple[str, int, str], PreciseFact] = {}
    asm_lines: dict[tuple[str, int], list[str]] = {}
    in_macro: set[tuple[str, int, str]] = set()
    for result in results:
        for pf in result.facts:
            keys.setdefault((pf.path, pf.fact.line, pf.symbol), pf)
            if pf.macro_lines:  # the fast scan reads macro bodies where they are defined
                path, first, last = pf.macro_lines
                for line in range(first, last + 1):
                    in_macro.add((path, line, pf.symbol))
            if pf.fact.kind == "asm":
                asm_lines.setdefault((pf.path, pf.fact.line), []).append(pf.fact.name)
    unjudged = _unjudged_rules(rules)
    labels: dict[Finding, PreciseState] = {}
    seen: set[tuple[str, int, str]] = set()
    for finding in fast:
        if finding.path not in covered:
            continue
        key = (finding.path, finding.line, finding.symbol)
        if key in keys or key in in_macro or any(finding.symbol in text for text in asm_lines.get(key[:2], ())):
            labels[finding] = "confirmed"
            seen.add(key)
        elif finding.rule in unjudged:
            labels[finding] = "unchecked"
        else:
            labels[finding] = "fast-only"
    fast_keys = {(f.path, f.line, f.symbol) for f in labels}
    hidden = [pf for key, pf in keys.items() if key not in seen and pf.fact.kind != "asm"
              and not _in_fast_macro(pf, fast_keys) and (index is None or index.lookup(pf.fact))]
    counts = {name: sum(1 for v in labels.values() if v == name) for name in ("confirmed", "fast-only", "unchecked")}
    counts["precise-only"] = len(hidden)
    return Comparison(labels=labels, precise_only=tuple(hidden), counts=counts)


def _in_fast_macro(pf: PreciseFact, fast_keys: set[tuple[str, int, str]]) -> bool:
    """The fast scan already reported this name where the macro that expands to it is defined."""
    if not pf.macro_lines:
        return False
    path, first, last = pf.macro_lines
    return any((path, line, pf.symbol) in fast_keys for line in range(first, last + 1))


def _unjudged_rules(rules: RuleBase | None) -> frozenset[str]:
    if rules is None:
        return frozenset()
    return frozenset(r.id for r in rules.rules if r.matcher.kind not in JUDGED_KINDS
                     and not (r.matcher.kind == "construct" and set(r.matcher.names()) <= KERNEL_CONSTRUCTS))


def with_macro_note(finding: Finding, pf: PreciseFact) -> Finding:
    """A precise-only finding's message, naming the macro that hid the call."""
    if not pf.macro:
        return finding
    where = f" (defined at {pf.macro_definition})" if pf.macro_definition else ""
    return replace(finding, message=f"{finding.message} [expanded from macro {pf.macro}{where}]")
