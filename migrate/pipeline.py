"""The scan pipeline: discover -> extract -> match -> assemble/classify -> Report."""
from __future__ import annotations

import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable

from migrate import __version__
from migrate.workloads import assemble
from migrate.cache import Cache, key
from migrate.discover import discover
from migrate.workloads.estimate import EffortModel
from migrate.extract import EXTRACTOR_VERSION, cacheable, extract
from migrate.workloads.graph import DependencyGraph
from migrate.match import MAX_FINDINGS_PER_FILE, RuleIndex, defined_names, match_file, portable_namespaces
from migrate.model import Extraction, Finding, Project, Report, Skipped, SourceFile, Target, Workload
from migrate.readfile import read
from migrate.rulebase.load import RuleBase
from migrate.settings import Settings
from migrate.workloads.verdict import judge

PARALLEL_THRESHOLD = 64  # below this many files, worker start-up costs more than it saves


@dataclass(frozen=True, slots=True)
class Outcome:
    file: SourceFile
    extraction: Extraction | None
    reason: str | None = None
    cache_key: str | None = None
    fresh: bool = False


def run(targets: list[Path], settings: Settings, rules: RuleBase,
        progress: Callable[[int, int], None] | None = None) -> Report:
    started = time.perf_counter()
    found = discover(targets, include_vendored=settings.include_vendored, exclude=settings.exclude)
    outcomes = extract_all(found.files, settings, progress)
    scanned = [o for o in outcomes if o.extraction is not None and not o.extraction.error]
    skipped = list(found.skipped) + [Skipped(path=o.file.rel, reason=o.reason or o.extraction.error)  # type: ignore[union-attr]
                                     for o in outcomes if o.extraction is None or o.extraction.error]
    facts = {o.file.rel: o.extraction.facts for o in scanned}  # type: ignore[union-attr]
    findings = match_targets(scanned, rules, settings)
    hipify_pass = _hipify_pass(settings, found.root, scanned, findings, rules)
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
    notes = list(settings.warnings) + list(found.notes) + _hipify_notes(settings, hipify_pass) + precise_notes
    notes += [f"{o.file.rel}: {n}" for o in scanned for n in o.extraction.notes]  # type: ignore[union-attr]
    notes += _capped_notes(findings)
    return Report(
        tool_version=__version__, rules_version=rules.version, target=Target(rocm=settings.rocm, arch=settings.arch),
        root=str(found.root), files_scanned=len(scanned), lines=sum(o.extraction.lines for o in scanned),  # type: ignore[union-attr]
        seconds=round(time.perf_counter() - started, 3),
        workloads=tuple(workloads), findings=tuple(sorted(findings, key=lambda f: f.sort_key)),
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        notes=tuple(notes),
        projects=_projects(targets, found.root, workloads),
        hipify=_hipify_summary(hipify_pass, workloads, settings.timing), timing=settings.timing,
        rules=rules.infos({f.rule for f in findings}),
    )


def _capped_notes(findings: list[Finding]) -> list[str]:
    per_file = Counter(f.path for f in findings if f.source == "rules")
    return [f"{path}: more than {MAX_FINDINGS_PER_FILE} findings; only the first {MAX_FINDINGS_PER_FILE} per target "
            "are reported" for path, count in sorted(per_file.items()) if count >= MAX_FINDINGS_PER_FILE]


def _hipify_pass(settings: Settings, root: Path, scanned: list[Outcome], findings: list[Finding], rules: RuleBase):
    """hipify-perl's view of the C/C++/CUDA files, when it is installed and not turned off."""
    if not settings.use_hipify:
        return None
    from migrate.hipify import tool as hipify
    from migrate.hipify import scan_pass as hipify_scan

    try:
        tool = hipify.find(settings.hipify)
    except hipify.HipifyError as exc:  # found, but it does not run (`-version` fails)
        broken = hipify.Tool(path=hipify.locate(settings.hipify), version=None)
        return hipify_scan.HipifyPass(tool=broken, error=str(exc).splitlines()[0])
    if tool is None:
        return None
    pairs = [(o.file, o.extraction) for o in scanned]
    return hipify_scan.run_pass(tool, root, pairs, findings, rules, rocm=settings.rocm,  # type: ignore[arg-type]
                                arch=settings.arch[0], jobs=settings.jobs, quiet=not settings.hipify_warnings)


def _hipify_notes(settings: Settings, hipify_pass) -> list[str]:  # noqa: ANN001 - HipifyPass | None
    if not settings.use_hipify:
        return []
    return [hipify_pass.note() if hipify_pass else "hipify-perl not found: findings come from the rule base"]


def _hipify_summary(hipify_pass, workloads: list[Workload], timing: bool) -> dict:  # noqa: ANN001 - HipifyPass | None
    if hipify_pass is None or hipify_pass.error:
        return {}
    coverage = hipify_pass.coverage(workloads)
    return {
        "version": hipify_pass.tool.version, "seconds": round(hipify_pass.seconds, 2) if timing else None,
        "warnings_checked": hipify_pass.warnings_checked,
        "coverage": {name: {"references": c.references, "converted": c.converted, "ratio": None if c.ratio is None else round(c.ratio, 3)}
                     for name, c in sorted(coverage.items())},
        "disagreements": [{"kind": d.kind, "path": d.path, "line": d.line, "symbol": d.symbol, "rule": d.rule,
                           "hipify": d.hipify} for d in hipify_pass.disagreements],
    }


def match_targets(scanned: list[Outcome], rules: RuleBase, settings: Settings) -> list[Finding]:
    """Findings for every target architecture, merged: each finding lists the targets it applies to."""
    portable = portable_namespaces(o.extraction for o in scanned)  # type: ignore[misc]
    defined = defined_names(o.extraction for o in scanned)  # type: ignore[misc]
    merged: dict[tuple, Finding] = {}
    archs: dict[tuple, list[str]] = {}
    for arch in settings.arch:
        index = RuleIndex(rules, Target(rocm=settings.rocm, arch=(arch,)))
        for outcome in scanned:
            for finding in match_file(outcome.file.rel, outcome.extraction, index,  # type: ignore[arg-type]
                                      portable, defined):
                key_ = (finding.rule, finding.path, finding.cell, finding.line, finding.column, finding.symbol)
                merged.setdefault(key_, finding)
                archs.setdefault(key_, []).append(arch)
    return [replace(f, targets=tuple(archs[k])) for k, f in merged.items()]


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


def extract_all(files: Iterable[SourceFile], settings: Settings,
                progress: Callable[[int, int], None] | None = None) -> list[Outcome]:
    """Read every file once; serve unchanged ones from the cache, extract the rest in parallel."""
    files = list(files)
    cache = Cache(settings.cache_dir)
    outcomes: list[Outcome | None] = []
    pending: list[tuple[int, str, SourceFile, bytes]] = []
    for file in files:
        data, reason = read(file, settings.max_file_size)
        if data is None:
            outcomes.append(Outcome(file, None, reason))
            continue
        cache_key = key(file.kind, data, EXTRACTOR_VERSION)
        cached = cache.get(cache_key)
        outcomes.append(Outcome(file, cached, cached.error, cache_key) if cached else None)
        if cached is None:
            pending.append((len(outcomes) - 1, cache_key, file, data))
    work = [(file.kind, data) for _, _, file, data in pending]
    if settings.jobs > 1 and len(work) >= PARALLEL_THRESHOLD:
        with ProcessPoolExecutor(max_workers=settings.jobs) as pool:
            results = list(_progress(pool.map(_extract, work, chunksize=max(1, len(work) // (settings.jobs * 8))),
                                     len(work), progress))
    else:
        results = list(_progress(map(_extract, work), len(work), progress))
    for (position, cache_key, file, _), extraction in zip(pending, results):
        outcomes[position] = Outcome(file, extraction, extraction.error, cache_key, fresh=True)
    cache.put_many([(o.cache_key, o.extraction) for o in outcomes  # type: ignore[union-attr]
                    if o.fresh and o.cache_key and o.extraction is not None and cacheable(o.extraction)])
    return outcomes  # type: ignore[return-value]


def _progress(results: Iterable[Extraction], total: int,
              progress: Callable[[int, int], None] | None) -> Iterable[Extraction]:
    for done, result in enumerate(results, start=1):
        if progress:
            progress(done, total)
        yield result


def _extract(item: tuple[str, bytes]) -> Extraction:
    return extract(*item)
