"""The project around the linted files, as a scan of it sees it: its ROCm path, the files its HIP build
leaves out and its optional parts (workloads/parts.py), so that `lint --fail-on` and `scan` give every
finding the same class. The project's files are read as a scan reads them (analyse.analyse_all, cached
by content), and an unchanged tree is not read again: the stat cache gives its digests."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from migrate.model import Finding, evolve
from migrate.rulebase.load import RuleBase
from migrate.settings import Settings
from migrate.workloads.parts import ProjectParts


def root_of(targets: Sequence[Path], lint_root: Path) -> Path | None:
    """The nearest project root above the targets: the lint root (the working directory or the
    configuration file's folder) where it holds them all, else the nearest folder with `.git`."""
    paths = [t.resolve() for t in targets]
    top = lint_root.resolve()
    if paths and all(p == top or top in p.parents for p in paths):
        return top
    if not paths:
        return None
    start = paths[0] if paths[0].is_dir() else paths[0].parent
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder if all(p == folder or folder in p.parents for p in paths) else None
    return None


def parts_of(root: Path, settings: Settings, rules: RuleBase) -> ProjectParts:
    """The project's parts, from every file a scan of `root` reads."""
    from migrate.analyse import analyse_all
    from migrate.cache import Cache
    from migrate.discover import discover
    from migrate.match import indexes, left_in_backend_files, merge_targets
    from migrate.statcache import Digests
    from migrate.workloads import parts

    found = discover([root], include_vendored=settings.include_vendored, exclude=settings.exclude)
    digests = Digests(Cache(settings.cache_dir), f"{found.root}\0{settings.max_file_size}", started=found.started_ns)
    for file in found.files:
        digests.digest(file, settings.max_file_size)
    digests.save()
    outcomes = analyse_all(found.files, settings, rules, known=digests.known)
    scanned = [(o.file, o.result) for o in outcomes if o.ok and o.result is not None]
    findings = merge_targets([r for _, r in scanned], settings.arch,
                             left_in_backend_files(rules, [f.rel for f in found.files]),
                             paths=[f.rel for f, _ in scanned],
                             indexes=indexes(rules, rocm=settings.rocm, archs=settings.arch))
    return parts.build({f.rel: r.facts for f, r in scanned}, {f.rel: f.kind for f, _ in scanned}, findings,
                       parts.words(rules.directory))


def with_status(findings: Sequence[Finding], project: ProjectParts, root: Path, cwd: Path) -> list[Finding]:
    """Lint's findings (paths relative to `cwd`) with the status a scan of `root` gives them."""
    out = []
    for f in findings:
        try:
            rel = (cwd / f.path).resolve().relative_to(root).as_posix()
        except ValueError:
            out.append(f)
            continue
        out.append(evolve(project.apply(evolve(f, path=rel)), path=f.path))
    return out
