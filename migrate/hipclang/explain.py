"""What one compiler error means for the port, located on the original CUDA line.

In order: an error on a line with a finding confirms that finding; a header not found is "not
checked" (the toolchain lacks that library, or the header is a dependency outside the tree); an
error inside a header outside the tree is the toolchain's; a name the rule base knows from
HIPIFY's tables as added in a ROCm newer than the toolchain's HIP is "available from ROCm X"; what
is left is a miss: an error no finding predicted."""
from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from migrate.hipclang.compiler import Diagnostic
from migrate.model import Finding
from migrate.model_report import CompileError
from migrate.rulebase.load import RuleBase, version_tuple

Meaning = Literal["confirmed", "newer-rocm", "not-checked", "toolchain", "miss"]
NOT_FOUND = re.compile(r"^'(?P<header>[^']+)' file not found")
QUOTED = re.compile(r"'([A-Za-z_]\w*)'")
CUDA_HEADERS = ("cu", "nv", "thrust/", "cub/", "cutlass/", "cute/", "mma.h", "sm_")  # left unconverted: the port's


def since_index(rules: RuleBase) -> dict[str, str]:
    """HIP (and CUDA) name -> the ROCm release HIPIFY's tables say added the HIP name (the rules' `since`)."""
    out: dict[str, str] = {}
    for rule in rules.rules:
        for cuda, entry in rule.matcher.entries.items():
            if entry.since:
                out.setdefault(cuda, entry.since)
                if entry.hip:
                    out.setdefault(entry.hip, entry.since)
    return out


def until_index(rules: RuleBase) -> dict[str, tuple[str, str]]:
    """Name -> (rule, last ROCm release it applies to) for the rules in force only up to a release
    (`rocm: {max: ...}`, warp-sync-builtins-before-rocm7: the *_sync builtins before ROCm 7.0)."""
    return {name: (rule.id, rule.rocm_max) for rule in rules.rules if rule.rocm_max for name in rule.matcher.exact}


def original_lines(original: bytes, converted: bytes) -> Callable[[int], int]:
    """Map a 1-based line of the converted file back to the original (hipify inserts an include at most)."""
    a = original.decode("utf-8", "surrogateescape").split("\n")
    b = converted.decode("utf-8", "surrogateescape").split("\n")
    back: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        for k in range(j2 - j1):
            back[j1 + k + 1] = (i1 + min(k, max(i2 - i1 - 1, 0)) + 1) if tag != "insert" else max(i1, 1)
    return lambda line: back.get(line, line)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplacedInclude:
    """An include hipify-perl rewrote to another header (helper_cuda.h -> hip/hip_runtime_api.h): the
    names the tree's original header declared are gone from the converted unit."""

    line: int  # in the original file
    header: str  # as written in the original include
    text: str  # the original header's text (from the tree), "" when it is not in the tree


INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def replaced_includes(original: bytes, converted: bytes, headers: Mapping[str, str]) -> tuple[ReplacedInclude, ...]:
    """The includes of `original` that hipify rewrote to another header; `headers` maps a header's
    path as included (its tail) to its original text."""
    a = original.decode("utf-8", "surrogateescape").split("\n")
    b = converted.decode("utf-8", "surrogateescape").split("\n")
    out: list[ReplacedInclude] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "replace":
            continue
        for k in range(min(i2 - i1, j2 - j1)):
            old, new = INCLUDE.match(a[i1 + k]), INCLUDE.match(b[j1 + k])
            if old and new and old.group(1) != new.group(1):
                out.append(ReplacedInclude(line=i1 + k + 1, header=old.group(1), text=_header_text(old.group(1), headers)))
    return tuple(out)


def _header_text(header: str, headers: Mapping[str, str]) -> str:
    tail = header.rsplit("/", 1)[-1]
    return next((text for path, text in headers.items() if path == header or path.rsplit("/", 1)[-1] == tail), "")


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    copy: Path
    maps: Mapping[str, Callable[[int], int]]  # converted file (relative) -> its line map
    findings: Mapping[tuple[str, int], tuple[Finding, ...]]  # (path, original line) -> findings there
    since: Mapping[str, str]
    until: Mapping[str, tuple[str, str]]
    hip_version: str
    replaced: Mapping[str, tuple[ReplacedInclude, ...]] = field(default_factory=dict)  # by original file


def findings_by_line(findings: Iterable[Finding]) -> dict[tuple[str, int], tuple[Finding, ...]]:
    out: dict[tuple[str, int], list[Finding]] = {}
    for f in findings:
        for line in range(f.line, max(f.end_line, f.line) + 1):
            out.setdefault((f.path, line), []).append(f)
    return {k: tuple(v) for k, v in out.items()}


def explain(diagnostic: Diagnostic, context: Context, *, arch: str, unit: str = "") -> CompileError:
    rel = _relative(diagnostic.file, context.copy)
    line = context.maps[rel](diagnostic.line) if rel is not None and rel in context.maps else diagnostic.line
    meaning, why, rules = _meaning(diagnostic, rel, line, context, unit)
    return CompileError(meaning=meaning, path=rel or "", line=line if rel is not None else 0, column=diagnostic.column,
                        message=diagnostic.message, why=why, rules=rules, archs=(arch,))


def _meaning(diagnostic: Diagnostic, rel: str | None, line: int, context: Context,
             unit: str) -> tuple[Meaning, str, tuple[str, ...]]:
    header = NOT_FOUND.match(diagnostic.message)
    found = context.findings.get((rel, line), ()) if rel is not None else ()
    if header and not (found and header["header"].startswith(CUDA_HEADERS)):
        return "not-checked", _missing(header["header"]), ()
    if rel is None:
        return "toolchain", f"in a header outside the project ({diagnostic.file}): the toolchain's, not a porting error", ()
    newer = _newer(diagnostic.message, context)
    if newer:  # before a finding on the line: the toolchain's age explains it, not the finding
        return "newer-rocm", newer, ()
    related = _related(found, QUOTED.findall(diagnostic.message))
    if related:
        rules = tuple(sorted({f.rule for f in related}))
        return "confirmed", f"confirms {', '.join(rules)}", rules
    return _lost_declaration(QUOTED.findall(diagnostic.message), [rel, unit], context)


def _lost_declaration(names: list[str], files: list[str], context: Context) -> tuple[Meaning, str, tuple[str, ...]]:
    """An undeclared name that a header hipify replaced had declared: the finding on that include
    line (if any) explains it; else it is a miss, with the cause named. The error's file and the unit
    are looked at first, then the tree's other files (the include may sit in a header of the unit's)."""
    for file in dict.fromkeys([*files, *sorted(context.replaced)]):
        for include in context.replaced.get(file, ()):
            name = next((n for n in names if re.search(rf"\b{re.escape(n)}\b", include.text)), None)
            if name is None:
                continue
            cause = f"hipify-perl replaced the include of {include.header} ({file}:{include.line}), which declared {name}"
            found = context.findings.get((file, include.line), ())
            if found:
                rules = tuple(sorted({f.rule for f in found}))
                return "confirmed", f"confirms {', '.join(rules)}: {cause}", rules
            return "miss", f"{cause}; no rule covers it", ()
    return "miss", "an error no finding predicted", ()


def _related(found: tuple[Finding, ...], names: list[str]) -> tuple[Finding, ...]:
    """The findings on the line the error is about: all of them when it names nothing ('empty
    filename'), else those whose symbol or HIP name it names (an undeclared `checkCudaErrors` on the
    line of a `cudaMalloc` finding confirms nothing)."""
    if not names:
        return found
    return tuple(f for f in found if any(n == f.symbol or n in f.symbol or (f.hip and n in f.hip) for n in names))


def _relative(file: str, copy: Path) -> str | None:
    try:
        path = Path(file).resolve()
    except (OSError, RuntimeError):
        return None
    return path.relative_to(copy).as_posix() if path.is_relative_to(copy) else None


def _missing(header: str) -> str:
    library = header.split("/", 1)[0] if "/" in header and not header.startswith("hip/") else Path(header).stem
    return f"not checked: no {library} headers in this toolchain (or a dependency outside the tree): '{header}'"


def _newer(message: str, context: Context) -> str:
    if not context.hip_version:
        return ""
    have = version_tuple(context.hip_version)[:2]
    for name in QUOTED.findall(message):
        since = context.since.get(name)
        if since and version_tuple(since)[:2] > have:
            return f"{name}: available from ROCm {since}; your toolchain is {context.hip_version}"
        rule, last = context.until.get(name, ("", ""))
        if last and have <= version_tuple(last)[:2]:
            return (f"{name}: {rule} marks it as missing or opt-in up to ROCm {last}; your toolchain is "
                    f"{context.hip_version}")
    return ""
