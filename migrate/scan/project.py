"""One project's scan, the stages in order: discover -> extract and match (per file, cached) -> late passes
-> workloads -> Report."""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from migrate import __version__, vcs
from migrate.extract.run import Progress
from migrate.model import Extraction, Finding, SourceFile, Target
from migrate.model_report import PassResult, Report
from migrate.rulebase.load import RuleBase
from migrate.scan.analyse import Outcome, analyse_all, skipped
from migrate.scan.cache import Known
from migrate.scan.discover import Discovery, discover
from migrate.scan.layout import DEVICE_SOURCE_SUFFIXES, generators, left_in_backend_files
from migrate.scan.match import capped_notes, indexes, merge_targets
from migrate.scan.readfile import BINARY_KIND
from migrate.settings import Settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from migrate.hipclang.check_pass import Compilation
    from migrate.hipify.scan_pass import HipifyPass
    from migrate.model_report import CompileSummary


def scan_project(targets: list[Path], settings: Settings, rules: RuleBase, *, progress: Progress | None = None,
                 found: Discovery | None = None, known: dict[str, Known] | None = None,
                 compiled: Compilation | None = None, meanwhile: Callable[[], object] | None = None) -> Report:
    """`found` and `known`: the targets' discovery and what was learnt of its files; `meanwhile`: the
    caller's own work that needs no file's result, run with loading the later stages (`load_later_stages`)."""
    started = time.perf_counter()
    scanned_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    found = found or discover(targets, include_vendored=settings.include_vendored, exclude=settings.exclude)

    def later() -> None:
        load_later_stages()
        # every rule built now, while the workers analyse (the rule base builds a rule on first use, and nothing before
        # the fork reads all 460): judge and the costs read them all first in the serial tail, ~8 ms of it
        rules.rules  # noqa: B018 (a property: building the rules is the point)
        if meanwhile is not None:
            meanwhile()

    outcomes = analyse_all(found.files, settings, rules, keep_extractions=_needs_facts(settings), progress=progress,
                           known=known, meanwhile=later)
    from migrate.workloads import assemble, components, fact_index, parts, route
    from migrate.workloads import calibration as effort_calibration
    from migrate.workloads.classify import hipified_by_build
    from migrate.workloads.costs import project_costs, with_part_costs
    from migrate.workloads.estimate import EffortModel, rule_hours
    from migrate.workloads.graph import DependencyGraph
    from migrate.workloads.verdict import judge

    outcomes = beside_sources(outcomes)
    scanned = [(o.file, o.result) for o in outcomes if o.ok and o.result is not None]
    findings = merge_targets([r for _, r in scanned], settings.arch,
                             left_in_backend_files(rules, [f.rel for f in found.files]),
                             paths=[f.rel for f, _ in scanned],
                             indexes=indexes(rules, rocm=settings.rocm, archs=settings.arch))
    findings, over = _within_findings_budget(findings)
    hipify_result, hipify_pass = _hipify(settings, found.root, [(o.file, o.extraction) for o in outcomes
                                                                if o.ok and o.extraction is not None], findings, rules)
    precise_result = _precise(settings, found.root, hipify_result.findings, rules)
    precise_result, compile_summary = _compile(compiled, precise_result, rules)
    stack = _stack(settings, [(f, r.kept()) for f, r in scanned], precise_result.findings, rules)
    facts = fact_index.indexed((f.rel, r.facts) for f, r in scanned)  # each kind's facts listed once
    specs = assemble.workloads([f for f, _ in scanned], facts, root_name=found.root.name or "root",
                               declared=settings.workloads)
    model = EffortModel().with_overrides(settings.effort)
    kinds = {f.rel: f.kind for f, _ in scanned}
    found_findings = [*precise_result.findings, *stack.findings]
    project = parts.build(facts, kinds, found_findings, parts.words(rules.directory),
                          build_kinds=hipified_by_build((s.kind, s.files) for s in specs))
    workloads, judged = judge(specs, DependencyGraph(specs, facts, project.optional_files()), found_findings,
                              archs=settings.arch, model=model, rules=rules, calibration=effort_calibration.load(),
                              parts=project, facts=facts, file_kinds=kinds)
    workloads = components.attach(workloads, judged, facts, rules)
    workloads = route.attach(workloads, judged, facts, archs=settings.arch, rules_dir=rules.directory)
    files = {f.rel: (f.kind, r.lines) for f, r in scanned}
    costs = project_costs((), found.root.name or "root", workloads, judged, files, model, effort_calibration.load(),
                          generators=generators(scanned))
    workloads = with_part_costs(workloads, judged, files, costs, effort_calibration.load(), model)
    optional = {w.name for w in workloads if w.optional}
    efforts = {r.id: (r.effort_per_occurrence, r.effort_first_use) for r in rules.rules}
    hand = rule_hours([f for f in judged if f.workload not in optional and f.cls != "native"], model,
                      efforts.__getitem__, effort_calibration.load())
    notes = [*settings.warnings, *found.notes, *hipify_result.notes, *precise_result.notes,
             *(f"{f.rel}: {n}" for f, r in scanned for n in r.notes), *capped_notes(judged), *over,
             *_budget_notes(outcomes)]
    return Report(
        tool_version=__version__, rules_version=rules.version, target=Target(rocm=settings.rocm, arch=settings.arch),
        root=str(found.root), files_scanned=len(scanned), lines=sum(r.lines for _, r in scanned),
        seconds=round(time.perf_counter() - started, 3),
        workloads=tuple(workloads), findings=tuple(sorted(judged, key=lambda f: f.sort_key)),
        skipped=tuple(sorted([*found.skipped, *skipped(outcomes)], key=lambda s: s.path)),
        notes=tuple(_relative_notes(notes, found.root)),
        commit=vcs.head_commit(found.root) if len(targets) == 1 and targets[0].is_dir() else None,
        scanned_at=scanned_at,
        repository_prefix=vcs.checkout_prefix(found.root),
        hipify=hipify_pass.summary(workloads) if hipify_pass else None,
        rules=rules.infos({f.rule for f in judged}),
        stack=stack.block,
        project_costs=costs, precise=settings.precise, timing=settings.timing, compile=compile_summary,
        rule_hours=hand,
    )


BUILD_OUTPUT = "binary file (build output of the project's own CUDA or HIP source, which is read instead)"


def beside_sources(outcomes: list[Outcome]) -> list[Outcome]:
    """A prebuilt binary in a project with CUDA or HIP source of its own is that source's build output
    (layout.left_beside_sources): skipped with that reason, so it neither reports its device code nor
    makes a workload of its folder (InteropUnityCUDA's Assets/Runtime/Plugin DLLs)."""
    if not any(o.file.rel.lower().endswith(DEVICE_SOURCE_SUFFIXES) for o in outcomes):
        return outcomes
    return [Outcome(o.file, None, BUILD_OUTPUT) if o.file.kind == BINARY_KIND and o.ok else o for o in outcomes]


def load_later_stages() -> None:
    """Import the stages after the files' analysis (workloads, verdicts, costs, the stack's matrix, the plan).
    `analyse_all` runs this while its worker processes analyse the files: the parent of a parallel first scan
    only waits for their rows then, and these modules (with pathspec, YAML, packaging) no longer delay the
    workers' start (docs/decisions/2026-12-06-later-stages-load-while-workers-analyse.md)."""
    from migrate.stack import assess, matrix  # noqa: F401
    from migrate.workloads import (  # noqa: F401
        assemble,
        calibration,
        classify,
        components,
        costs,
        estimate,
        graph,
        parts,
        plan,
        route,
        verdict,
    )


def _needs_facts(settings: Settings) -> bool:
    """A hipify-perl pass reads every fact of the files it compares (the fast path keeps only
    matched results): it is run when turned on and hipify-perl is where the scan looks for it."""
    from migrate.hipify import where

    return where.scan_runs(settings)


@dataclass(frozen=True, slots=True)
class StackPass:
    block: dict[str, Any]
    findings: list[Finding]


def _stack(settings: Settings, scanned: Sequence[tuple[SourceFile, Extraction]], findings: Sequence[Finding],
           rules: RuleBase) -> StackPass:
    """The pinned stack against the compatibility matrix, for the scan's ROCm release and GPUs."""
    from migrate.stack import assess, matrix

    report = assess.assess(matrix.load(), {f.rel: e for f, e in scanned}, [f for f, _ in scanned],
                           rocm=[settings.rocm], arch=list(settings.arch), findings=findings)
    return StackPass(block=report.to_json(), findings=assess.to_findings(report, rules))


def _hipify(settings: Settings, root: Path, scanned: Sequence[tuple[SourceFile, Extraction]],
            findings: Sequence[Finding], rules: RuleBase) -> tuple[PassResult, HipifyPass | None]:
    """hipify-perl's view of the C/C++/CUDA files, when it is not turned off."""
    if not settings.use_hipify:
        return PassResult(findings=tuple(findings)), None
    from migrate.hipify import scan_pass

    return scan_pass.run(settings, root, scanned, findings, rules)


def _precise(settings: Settings, root: Path, findings: Sequence[Finding], rules: RuleBase) -> PassResult:
    if not settings.precise:
        return PassResult(findings=tuple(findings))
    from migrate.precise import scan_pass

    return scan_pass.run(settings, root, findings, rules)


def _compile(compiled: Compilation | None, result: PassResult, rules: RuleBase) -> tuple[PassResult, CompileSummary | None]:
    """`check`: hip-clang's errors over the converted copy, explained against the findings."""
    if compiled is None:
        return result, None
    from migrate.hipclang import check_pass

    passed, summary = check_pass.run(compiled, result.findings, rules)
    return PassResult(findings=passed.findings, notes=(*result.notes, *passed.notes)), summary
MAX_SCAN_FINDINGS = 1_000_000  # a scan's findings past this are left out (with a note), whatever the files


def _within_findings_budget(findings: list[Finding]) -> tuple[list[Finding], list[str]]:
    if len(findings) <= MAX_SCAN_FINDINGS:
        return findings, []
    kept = sorted(findings, key=lambda f: f.sort_key)[:MAX_SCAN_FINDINGS]
    return kept, [f"the scan's budget of {MAX_SCAN_FINDINGS} findings was reached: {len(findings) - len(kept)} "
                  "further findings are left out"]


def _budget_notes(outcomes: Sequence[Outcome]) -> list[str]:
    """One note when the scan's time or memory budget left files unanalysed (each is under skipped)."""
    from migrate.extract.budget import SCAN_OVER

    left = sum(1 for o in outcomes if (o.reason or "").startswith(SCAN_OVER)
               or (o.result is not None and (o.result.error or "").startswith(SCAN_OVER)))
    return [f"the scan's time or memory budget ran out: {left} file(s) were not analysed (listed under skipped)"] \
        if left else []


def _relative_notes(notes: list[str], root: Path) -> list[str]:
    """Notes without the scanned tree's absolute path (a tool's message may carry it): the report
    of one tree is the same wherever the tree lies."""
    prefixes = [p for p in dict.fromkeys(str(p).rstrip("/") for p in (root, root.resolve())) if len(p) > 1]
    out = []
    for note in notes:
        for prefix in prefixes:
            note = note.replace(prefix + "/", "").replace(prefix, ".")
        out.append(note)
    return out
