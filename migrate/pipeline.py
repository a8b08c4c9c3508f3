"""The scan pipeline: discover -> extract -> match -> assemble/classify -> Report."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from migrate import __version__
from migrate.workloads import assemble
from migrate.analyse import Outcome, analyse_all
from migrate.discover import discover
from migrate.workloads.estimate import EffortModel
from migrate.workloads.graph import DependencyGraph
from migrate.match import select
from migrate.model import Finding, Project, Report, Skipped, Target, Workload, evolve
from migrate.rulebase.load import RuleBase
from migrate.settings import Settings
from migrate.workloads.verdict import judge

def run(targets: list[Path], settings: Settings, rules: RuleBase,
        progress: Callable[[int, int], None] | None = None) -> Report:
    started = time.perf_counter()
    found = discover(targets, include_vendored=settings.include_vendored, exclude=settings.exclude)
    tool = _hipify_tool(settings)
    outcomes = analyse_all(found.files, settings, rules, keep_extractions=tool is not None, progress=progress)
    scanned = [o for o in outcomes if o.result is not None and not o.result.error]
    results = {o.file.rel: o.result for o in scanned if o.result is not None}
    skipped = list(found.skipped) + [Skipped(path=o.file.rel, reason=o.reason or _error(o))
                                     for o in outcomes if o.result is None or o.result.error]
    facts = {rel: r.facts for rel, r in results.items()}
    findings = match_targets(scanned, settings)
    hipify_pass = _hipify_pass(tool, settings, found.root, scanned, findings, rules)
    if hipify_pass is not None and not hipify_pass.error:
        from migrate.hipify import scan_pass as hipify_scan

        findings = hipify_scan.merge(findings, hipify_pass, settings.arch)
    precise_notes: list[str] = []
    if settings.precise:
        from migrate.precise import scan_pass as precise_pass

        result = precise_pass.run(settings, found.root, findings, rules)
        findings, precise_notes = result.findings, result.notes
    specs = assemble.workloads([o.file for o in scanned], facts, root_name=found.root.name or "root",
                               declared=settings.workloads)
    model = EffortModel().with_overrides(settings.effort)
    workloads, findings = judge(specs, DependencyGraph(specs, facts), findings, settings.arch, model, rules)
    notes = _hipify_notes(settings, hipify_pass) + precise_notes
    notes += [f"{rel}: {n}" for rel, r in results.items() for n in r.notes]
    return Report(
        tool_version=__version__, rules_version=rules.version, target=Target(rocm=settings.rocm, arch=settings.arch),
        root=str(found.root), files_scanned=len(scanned), lines=sum(r.lines for r in results.values()),
        seconds=round(time.perf_counter() - started, 3),
        workloads=tuple(workloads), findings=tuple(sorted(findings, key=lambda f: f.sort_key)),
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        notes=tuple(notes),
        projects=_projects(targets, found.root, workloads),
        hipify=_hipify_summary(hipify_pass, workloads),
        rules=rules.infos({f.rule for f in findings}),
    )


def _error(outcome: Outcome) -> str:
    return outcome.result.error if outcome.result is not None and outcome.result.error else "unreadable"


def _hipify_tool(settings: Settings):  # noqa: ANN202 - hipify.Tool | None
    """The hipify-perl to compare with, when it is installed and not turned off."""
    if not settings.use_hipify:
        return None
    from migrate.hipify import tool as hipify

    return hipify.find(settings.hipify)


def _hipify_pass(tool, settings: Settings, root: Path, scanned: list[Outcome],  # noqa: ANN001 - hipify.Tool | None
                 findings: list[Finding], rules: RuleBase):
    """hipify-perl's view of the C/C++/CUDA files."""
    if tool is None:
        return None
    from migrate.hipify import scan_pass as hipify_scan

    pairs = [(o.file, o.extraction) for o in scanned]
    return hipify_scan.run_pass(tool, root, pairs, findings, rules, rocm=settings.rocm,  # type: ignore[arg-type]
                                arch=settings.arch[0], jobs=settings.jobs, quiet=not settings.hipify_warnings)


def _hipify_notes(settings: Settings, hipify_pass) -> list[str]:  # noqa: ANN001 - HipifyPass | None
    if not settings.use_hipify:
        return []
    return [hipify_pass.note() if hipify_pass else "hipify-perl not found: findings come from the rule base"]


def _hipify_summary(hipify_pass, workloads: list[Workload]) -> dict:  # noqa: ANN001 - HipifyPass | None
    if hipify_pass is None or hipify_pass.error:
        return {}
    coverage = hipify_pass.coverage(workloads)
    return {
        "version": hipify_pass.tool.version, "seconds": round(hipify_pass.seconds, 2),
        "warnings_checked": hipify_pass.warnings_checked,
        "coverage": {name: {"references": c.references, "converted": c.converted, "ratio": None if c.ratio is None else round(c.ratio, 3)}
                     for name, c in sorted(coverage.items())},
        "disagreements": [{"kind": d.kind, "path": d.path, "line": d.line, "symbol": d.symbol, "rule": d.rule,
                           "hipify": d.hipify} for d in hipify_pass.disagreements],
    }


def match_targets(scanned: list[Outcome], settings: Settings) -> list[Finding]:
    """Findings for every target architecture, merged: each finding lists the targets it applies to."""
    results = [o.result for o in scanned if o.result is not None]
    portable = frozenset(name for r in results for name in r.portable)
    defined = frozenset(name for r in results for name in r.defined)
    merged: dict[tuple, Finding] = {}
    archs: dict[tuple, list[str]] = {}
    for position, arch in enumerate(settings.arch):
        for result in results:
            for finding in select(result.found[position], portable, defined):
                key_ = (finding.rule, finding.path, finding.cell, finding.line, finding.column, finding.symbol)
                merged.setdefault(key_, finding)
                archs.setdefault(key_, []).append(arch)
    return [evolve(f, targets=tuple(archs[k])) for k, f in merged.items()]


def _projects(targets: list[Path], root: Path, workloads: list[Workload]) -> tuple[Project, ...]:
    """A portfolio: several directories scanned together, each its own project."""
    folders = [t.resolve() for t in targets if t.is_dir()]
    if len(folders) < 2 or len(folders) != len(targets):
        return ()
    projects = []
    for folder in folders:
        rel = folder.relative_to(root).as_posix() if folder != root else "."
        names = tuple(w.name for w in workloads
                      if rel == "." or any(f == rel or f.startswith(rel + "/") for f in w.files))
        projects.append(Project(name=folder.name, root=rel, workloads=names))
    return tuple(projects)
