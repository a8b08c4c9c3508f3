"""check: convert a tree as `convert` does, compile each translation unit of the converted copy
with hip-clang for every target, and scan the source with the compiler's answer merged in.

Only the copy is compiled, with the project's flags filtered by the allow-list; the project's build
scripts are never run. Like `hipify/convert.py` it is a workflow, so it runs the pipeline."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from migrate.hipclang import check_pass, explain, units
from migrate.hipclang.toolchain import HipToolchain
from migrate.hipify import convert
from migrate.hipify import tool as hipify
from migrate.model_report import Report
from migrate.rulebase.load import RuleBase
from migrate.rulebase.name_lists import header_suffixes
from migrate.scan import pipeline
from migrate.scan.readfile import read_regular
from migrate.settings import Settings

FILE_BYTES = 64 << 20
HEADERS = header_suffixes()


@dataclass(frozen=True, slots=True)
class Checked:
    report: Report
    converted: convert.ConvertResult


def run(source: Path, destination: Path, *, tool: hipify.Tool, compiler: HipToolchain, settings: Settings,
        rules: RuleBase, database: Path | None = None, progress: Callable[[int, int], None] | None = None) -> Checked:
    """Convert `source` into `destination` (checked by convert.check_paths), compile, and scan."""
    converted = convert.run(source, destination, tool, settings, rules, progress=progress)
    src, copy = source.resolve(), destination.resolve()
    started = time.perf_counter()
    unit_list, flags_from = units.units(src, copy, list(converted.files), database=database)
    results, not_checked = check_pass.compile_units(compiler, copy, unit_list, settings.arch, jobs=settings.jobs)
    texts = {rel: (_read(src / rel), _read(copy / rel)) for rel in converted.changed}
    headers = {rel: _read(src / rel).decode("utf-8", "replace") for rel in converted.files if Path(rel).suffix in HEADERS}
    compilation = check_pass.Compilation(
        toolchain=compiler, source=src, copy=copy, archs=tuple(settings.arch), results=tuple(results),
        maps={rel: explain.original_lines(old, new) for rel, (old, new) in texts.items()},
        replaced={rel: found for rel, (old, new) in texts.items() if (found := explain.replaced_includes(old, new, headers))},
        flags_from=flags_from, not_checked=tuple(not_checked), seconds=check_pass.elapsed(started))
    report = pipeline.run([source], replace(settings, use_hipify=False), rules, compiled=compilation)
    return Checked(report=report, converted=converted)


def _read(path: Path) -> bytes:
    try:
        return read_regular(path, FILE_BYTES)
    except OSError:
        return b""
