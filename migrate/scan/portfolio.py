"""A portfolio scan: several repositories, each scanned alone (its own settings, import resolution and
workloads), then merged into one report whose paths are relative to the repositories' common folder.

Each project's part of the merged report is its solo report with every path put under the project's
folder; a workload whose name another project already uses is named `name (folder/root)`."""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from migrate.model import Finding, Skipped, class_rank
from migrate.model_report import HipifySummary, Project, Report, TargetVerdict, is_elision, required_class
from migrate.rulebase.load import RuleBase
from migrate.scan.project import scan_project
from migrate.settings import Settings


class PortfolioError(Exception):
    """Projects that cannot share one report; str() is one line."""


def is_portfolio(targets: Sequence[Path]) -> bool:
    return len(targets) > 1 and all(t.is_dir() for t in targets)


def reaches_fail_on(report: Report, fail_ons: Sequence[str | None]) -> bool:
    """Whether a project (the whole report when it is one) reaches its own --fail-on / fail-on class."""
    classes = [required_class(w for w in report.workloads if w.name in p.workloads)
               for p in report.projects] or [report.migration_class]
    return any(limit and class_rank(cls) >= class_rank(limit) for cls, limit in zip(classes, fail_ons, strict=False))


def run(projects: Sequence[tuple[Path, Settings]], rules: RuleBase,
        progress: Callable[[int, int], None] | None = None) -> Report:
    """Scan each (folder, settings) on its own and merge the reports."""
    started = time.perf_counter()
    folders = [folder.resolve() for folder, _ in projects]
    targets = {(s.rocm, s.arch) for _, s in projects}
    if len(targets) > 1:
        raise PortfolioError("the projects' configuration files name different targets (rocm, target-arch); "
                             "give --rocm and --target-arch for the whole portfolio")
    common = Path(os.path.commonpath(folders))
    taken: set[str] = set()
    parts: list[tuple[Report, Project]] = []
    for folder, (_, settings) in zip(folders, projects, strict=True):
        solo = scan_project([folder], settings, rules, progress=progress)
        prefix = folder.relative_to(common).as_posix() if folder != common else "."
        rebased = rebase(solo, prefix, taken)
        taken |= {w.name for w in rebased.workloads}
        parts.append((rebased, Project(name=folder.name, root=prefix, workloads=tuple(w.name for w in rebased.workloads),
                                       commit=solo.commit)))
    return merge(parts, common, seconds=round(time.perf_counter() - started, 3))


def rebase(report: Report, prefix: str, taken: set[str] = frozenset()) -> Report:  # type: ignore[assignment]
    """The report with every path under `prefix` and workload names that clash with `taken` qualified."""
    def path(p: str) -> str:
        return p if prefix == "." else f"{prefix}/{p}" if p != "." else prefix

    names = {w.name: w.name for w in report.workloads}
    for w in report.workloads:
        if w.name in taken:
            names[w.name] = f"{w.name} ({path(w.root)})"

    def finding(f: Finding) -> Finding:
        return replace(f, path=path(f.path), workload=names.get(f.workload, f.workload))

    def verdict(v: TargetVerdict) -> TargetVerdict:
        chain = tuple(step if is_elision(step) else path(step) for step in v.chain)
        return replace(v, reasons=tuple(finding(f) for f in v.reasons), chain=chain)

    files = {f for w in report.workloads for f in w.files} | {s.path for s in report.skipped}
    workloads = tuple(replace(w, name=names[w.name], root=path(w.root), files=tuple(path(f) for f in w.files),
                              verdicts=tuple(verdict(v) for v in w.verdicts),
                              depends_on=tuple(names.get(d, d) for d in w.depends_on),
                              rocm_path=tuple(path(e) for e in w.rocm_path),
                              optional_parts=tuple(replace(o, root=path(o.root)) for o in w.optional_parts),
                              components=tuple(replace(c, findings=tuple(finding(f) for f in c.findings),
                                                       evidence=tuple(path(e) for e in c.evidence))
                                               for c in w.components))
                      for w in report.workloads)
    notes = tuple(path(n) if n.split(": ", 1)[0] in files else n for n in report.notes)
    return replace(report, workloads=workloads, findings=tuple(finding(f) for f in report.findings),
                   skipped=tuple(Skipped(path=path(s.path), reason=s.reason) for s in report.skipped),
                   notes=notes, hipify=_rebase_hipify(report.hipify, path, names),
                   stack=_rebase_stack(report.stack, path, prefix))


def merge(parts: Sequence[tuple[Report, Project]], root: Path, *, seconds: float) -> Report:
    reports = [r for r, _ in parts]
    first = reports[0]
    notes: list[str] = []
    for note in (n for r in reports for n in r.notes):
        if note not in notes:
            notes.append(note)
    rules = {info.id: info for r in reports for info in r.rules}
    return replace(
        first, root=str(root), files_scanned=sum(r.files_scanned for r in reports), lines=sum(r.lines for r in reports),
        seconds=seconds, workloads=tuple(sorted((w for r in reports for w in r.workloads), key=lambda w: w.name)),
        findings=tuple(sorted((f for r in reports for f in r.findings), key=lambda f: f.sort_key)),
        skipped=tuple(sorted((s for r in reports for s in r.skipped), key=lambda s: s.path)),
        notes=tuple(notes), projects=tuple(p for _, p in parts), rules=tuple(rules[k] for k in sorted(rules)),
        hipify=_merge_hipify([r.hipify for r in reports]), commit=None,
        stack=_merge_stack([r.stack for r in reports]),
        project_costs=tuple(replace(c, name=p.name) for r, p in parts for c in r.project_costs),
        precise=any(r.precise for r in reports),
        rule_hours=_summed(r.rule_hours for r in reports),
    )


def _summed(tables: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """Each rule's expected hand hours over the projects (each project's are rounded already)."""
    out: dict[str, float] = {}
    for table in tables:
        for rule, hours in table.items():
            out[rule] = round(out.get(rule, 0.0) + hours, 2)
    return dict(sorted(out.items()))


STACK_LISTS = ("pins", "images", "python", "floating", "no_rocm_build")


def _rebase_stack(block: Mapping[str, Any], path: Callable[[str], str], project: str) -> dict[str, Any]:
    """The stack block with its paths under the project's folder and each target marked with the project."""
    if not block:
        return {}
    lists = {key: [{**item, "path": path(item["path"])} for item in block.get(key, ())] for key in STACK_LISTS}
    targets = [{**t, "project": project, "frameworks": [{**f, "path": path(f["path"])} for f in t["frameworks"]]}
               for t in block.get("targets", ())]
    return {**block, **lists, "targets": targets}


def _merge_stack(blocks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    used = [b for b in blocks if b]
    if not used:
        return {}
    merged: dict[str, Any] = {key: [item for b in used for item in b.get(key, ())] for key in STACK_LISTS}
    merged["cuda"] = sorted({v for b in used for v in b.get("cuda", ())})
    merged["rocm_pinned"] = all(b.get("rocm_pinned") for b in used)
    merged["targets"] = [t for b in used for t in b.get("targets", ())]
    merged["notes"] = list(dict.fromkeys(n for b in used for n in b.get("notes", ())))
    return merged


def _rebase_hipify(block: HipifySummary | None, path: Callable[[str], str],
                   names: Mapping[str, str]) -> HipifySummary | None:
    if block is None:
        return None
    return replace(block, coverage={names.get(k, k): v for k, v in block.coverage.items()},
                   disagreements=tuple(replace(d, path=path(d.path)) for d in block.disagreements))


def _merge_hipify(blocks: Sequence[HipifySummary | None]) -> HipifySummary | None:
    used = [b for b in blocks if b is not None]
    if not used:
        return None
    return HipifySummary(version=used[0].version, seconds=sum(b.seconds for b in used),
                         warnings_checked=all(b.warnings_checked for b in used),
                         coverage=dict(sorted((k, v) for b in used for k, v in b.coverage.items())),
                         disagreements=tuple(d for b in used for d in b.disagreements))
