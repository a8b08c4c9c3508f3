"""The check's late pass: hip-clang's errors over the converted copy, explained against the scan's
findings. Confirmed findings get `compiler` = "confirmed"; an error no finding predicted becomes a
finding of its own (compiler-error-unpredicted, `compiler` = "miss"); the report gets the `compile` block."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from migrate.hipclang import compiler, explain
from migrate.hipclang.toolchain import HipToolchain
from migrate.hipclang.units import Unit
from migrate.model import Finding, evolve
from migrate.model_report import CompiledUnit, CompileError, CompileSummary, PassResult
from migrate.rulebase.load import RuleBase
from migrate.scan.readfile import read_regular

MISS_CONSTRUCT = "compiler-error-unpredicted"  # its rule: rules/meta.yaml
PORTING = frozenset({"confirmed", "miss"})
LINES_BYTES = 16 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class Compilation:
    """What the compiler said, before it is explained: per unit and architecture."""

    toolchain: HipToolchain
    source: Path
    copy: Path
    archs: tuple[str, ...]
    results: tuple[tuple[Unit, str, compiler.Compiled], ...]
    maps: dict[str, Callable[[int], int]] = field(default_factory=dict)  # converted file -> original lines
    replaced: dict[str, tuple[explain.ReplacedInclude, ...]] = field(default_factory=dict)  # includes hipify rewrote
    flags_from: str = ""
    not_checked: tuple[str, ...] = ()
    seconds: float = 0.0


def compile_units(toolchain: HipToolchain, copy: Path, units: Sequence[Unit], archs: Sequence[str], *,
                  jobs: int = 1) -> tuple[list[tuple[Unit, str, compiler.Compiled]], list[str]]:
    """Every unit for every architecture the toolchain knows; a note per architecture it does not."""
    known = [a for a in archs if compiler.knows_arch(toolchain, a)]
    notes = [f"not checked for {a}: {toolchain.name} (clang {toolchain.clang_version or '?'}, HIP "
             f"{toolchain.hip_version or '?'}) does not know this target" for a in archs if a not in known]
    work = [(u, a) for u in units for a in known]

    def one(item: tuple[Unit, str]) -> tuple[Unit, str, compiler.Compiled]:
        unit, arch = item
        return unit, arch, compiler.compile_unit(toolchain, copy / unit.rel, list(unit.flags), arch=arch, cwd=copy)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, work)), notes


def run(compilation: Compilation, findings: Sequence[Finding], rules: RuleBase) -> tuple[PassResult, CompileSummary]:
    """The findings labelled and the misses added, and the report's compile block."""
    context = explain.Context(copy=compilation.copy, maps=compilation.maps, findings=explain.findings_by_line(findings),
                              since=explain.since_index(rules), until=explain.until_index(rules),
                              hip_version=compilation.toolchain.hip_version, replaced=compilation.replaced)
    merged: dict[tuple[str, str, int, str], CompileError] = {}
    units: list[CompiledUnit] = []
    for unit, arch, compiled in compilation.results:
        errors = [explain.explain(d, context, arch=arch, unit=unit.rel) for d in compiled.diagnostics]
        for e in errors:
            key = (e.meaning, e.path, e.line, e.message)
            old = merged.get(key)
            merged[key] = e if old is None else _with_arch(old, arch)
        units.append(_unit(unit.rel, arch, compiled, errors))
    explained = tuple(sorted(merged.values(), key=lambda e: (e.path, e.line, e.column, e.message)))
    confirmed = {(e.path, e.line) for e in explained if e.meaning == "confirmed"}
    labelled = [evolve(f, compiler="confirmed") if _on(f, confirmed) else f for f in findings]
    misses = _misses([e for e in explained if e.meaning == "miss"], rules, _Lines(compilation.source))
    summary = CompileSummary(
        toolchain=compilation.toolchain.name, hip_version=compilation.toolchain.hip_version,
        clang_version=compilation.toolchain.clang_version, device_code=compilation.toolchain.device_code,
        flags_from=compilation.flags_from, archs=compilation.archs, units=tuple(units), errors=explained,
        not_checked=(*compilation.not_checked, *_libraries(explained)), seconds=compilation.seconds)
    note = (f"check: {summary.passed} of {len(units)} translation unit compiles pass after hipify alone "
            f"({compilation.toolchain.describe()}); {summary.count('confirmed')} errors confirm findings, "
            f"{summary.count('miss')} misses")
    return PassResult(findings=(*labelled, *misses), notes=(note,)), summary


def _with_arch(error: CompileError, arch: str) -> CompileError:
    archs = error.archs if arch in error.archs else (*error.archs, arch)
    return CompileError(meaning=error.meaning, path=error.path, line=error.line, column=error.column,
                        message=error.message, why=error.why, rules=error.rules, archs=archs)


def _unit(rel: str, arch: str, compiled: compiler.Compiled, errors: list[CompileError]) -> CompiledUnit:
    porting = sum(1 for e in errors if e.meaning in PORTING)
    if compiled.ok and not errors:
        return CompiledUnit(path=rel, arch=arch, status="passed", errors=0)
    if porting:
        return CompiledUnit(path=rel, arch=arch, status="failed", errors=porting)
    reason = next((e.why for e in errors), "") or compiled.failure or "the compiler failed without an error message"
    return CompiledUnit(path=rel, arch=arch, status="not-checked", errors=0, reason=reason)


def _on(finding: Finding, lines: set[tuple[str, int]]) -> bool:
    return any((finding.path, line) in lines for line in range(finding.line, max(finding.end_line, finding.line) + 1))


def _misses(errors: list[CompileError], rules: RuleBase, source_line: Callable[[str, int], str]) -> list[Finding]:
    rule = next((r for r in rules.rules if r.matcher.kind == "construct" and MISS_CONSTRUCT in r.matcher.exact), None)
    if rule is None:
        return []
    return [Finding(rule=rule.id, path=e.path, line=e.line, column=e.column, end_line=e.line, end_column=e.column,
                    symbol=e.message[:120], message=f"hip-clang ({', '.join(e.archs)}): {e.message}; no finding "
                    "predicted it", hip=None, hipify="no", confidence=rule.confidence,
                    migration_class=rule.migration_class, source_line=source_line(e.path, e.line), compiler="miss",
                    targets=e.archs)
            for e in errors]


class _Lines:
    """Lines of the original files (a miss's fingerprint), each file read once, bounded."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, list[str]] = {}

    def __call__(self, rel: str, line: int) -> str:
        if rel not in self.files:
            try:
                self.files[rel] = read_regular(self.root / rel, LINES_BYTES).decode("utf-8", "replace").split("\n")
            except OSError:
                self.files[rel] = []
        lines = self.files[rel]
        return lines[line - 1] if 0 < line <= len(lines) else ""


def _libraries(errors: tuple[CompileError, ...]) -> list[str]:
    return sorted({e.why for e in errors if e.meaning == "not-checked"})


def elapsed(started: float) -> float:
    return round(time.perf_counter() - started, 3)
