"""The precise pass of a scan: libclang over the translation units that have compile commands.

Fast findings in files the compiler read get `precise` = confirmed / fast-only / unchecked, and
the uses only the compiler saw (hidden by macros or templates) are added as precise-only."""
from __future__ import annotations

import tempfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from migrate.model import Finding, Target
from migrate.model_report import PassResult
from migrate.rulebase.load import RuleBase
from migrate.scan.match import RuleIndex
from migrate.settings import Settings

if TYPE_CHECKING:
    from migrate.precise.analyse import PreciseResult
    from migrate.precise.clang import Toolchain
    from migrate.precise.compile_commands import Command


def run(settings: Settings, root: Path, findings: Sequence[Finding], rules: RuleBase) -> PassResult:
    """Never raises: what is missing (libclang, headers, compile commands) becomes one note."""
    from migrate.precise import analyse as precise

    toolchain = precise.toolchain(settings.cuda_path)
    if isinstance(toolchain, str):
        return PassResult(findings=tuple(findings), notes=(f"precise mode off: {toolchain}",))
    explicit = Path(settings.compile_commands) if settings.compile_commands else None
    commands = precise.commands_for(root, explicit)
    if isinstance(commands, str):
        return PassResult(findings=tuple(findings), notes=(f"precise mode off: {commands}",))
    inside, outside = _inside(commands, root)
    with tempfile.TemporaryDirectory(prefix="rocm-migrate-vfs-") as folder:
        overlay = precise.boundary(root, toolchain, Path(folder)) if inside else None
        work = [(command, root, toolchain, overlay) for command in inside]
        if settings.jobs > 1 and len(work) > 1:
            with ProcessPoolExecutor(max_workers=settings.jobs) as pool:
                results = list(pool.map(_analyse, work))
        else:
            results = [_analyse(item) for item in work]
    notes = [r for r in results if isinstance(r, str)]
    good = [r for r in results if not isinstance(r, str)]
    notes += [f"precise: {r.path} did not parse ({'; '.join(r.errors[:2])}); fast results kept" for r in good if not r.ok]
    if any(not r.ok for r in good) and toolchain.header_note():
        notes.append(f"precise: {toolchain.header_note()}")
    notes += _flag_notes(good)
    index = RuleIndex(rules, Target(rocm=settings.rocm, arch=settings.arch[:1]))
    comparison = precise.compare(findings, good, rules=rules, index=index)
    labelled = [replace(f, precise=comparison.labels.get(f)) for f in findings]
    hidden = {(pf.path, pf.fact.line, pf.symbol): pf for pf in comparison.precise_only}
    for finding in precise.to_findings([r for r in good if r.ok], index):
        pf = hidden.get((finding.path, finding.line, finding.symbol))
        if pf is not None:
            labelled.append(precise.with_macro_note(replace(finding, precise="precise-only",
                                                            targets=tuple(settings.arch)), pf))
    for finding in precise.rejected_findings(good, index):
        labelled.append(replace(finding, precise="precise-only", targets=tuple(settings.arch)))
    notes.insert(0, f"precise mode: {len(good)} translation units; "
                    + ", ".join(f"{k} {v}" for k, v in comparison.counts.items()))
    if outside:
        notes.append(f"precise: {outside} compile command(s) name a source file outside the scanned tree; not parsed")
    return PassResult(findings=tuple(labelled), notes=tuple(notes))


def _inside(commands: Sequence[Command], root: Path) -> tuple[list[Command], int]:
    """The commands whose source file is inside the scanned tree (the tree is the boundary: a
    database may name any file on the machine), and how many were left out."""
    top = root.resolve()
    inside = [c for c in commands if c.file.is_relative_to(top)]
    return inside, len(commands) - len(inside)


def _analyse(item: tuple[Command, Path, Toolchain, Path | None]) -> PreciseResult | str:
    from migrate.precise import analyse as precise

    command, root, toolchain, overlay = item
    return precise.analyse_command(command, root, tc=toolchain, overlay=overlay)


def _flag_notes(results: Sequence[PreciseResult]) -> list[str]:
    """The flags the compilation database's allow-list dropped, each note once with its count of units."""
    counts: dict[str, int] = {}
    for result in results:
        for note in dict.fromkeys(result.notes):
            if note.startswith("dropped") and ("allow-list" in note or "outside the scanned tree" in note):
                counts[note] = counts.get(note, 0) + 1
    return [f"precise: {note} (in {count} translation unit(s))" for note, count in counts.items()]
