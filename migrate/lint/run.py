"""lint: the scan pipeline on a few files without the workload stages: the same reading,
cache, extraction and matching (extract.run, match.match_targets), then select/ignore, inline
suppressions and the baseline. It never loads the workload pipeline (assemble,
graph, verdict) nor the renderers, so a pre-commit run starts fast."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from migrate.extract.run import extract_all
from migrate.extract.run import skipped as skipped_files
from migrate.lint import project, suppression
from migrate.lint.baseline import new_findings
from migrate.lint.selection import RuleFilter
from migrate.model import Extraction, Fact, Finding, Skipped, SourceFile, class_rank, evolve
from migrate.rulebase.load import RuleBase
from migrate.scan.cache import Cache
from migrate.scan.discover import discover
from migrate.scan.layout import left_in_backend_files
from migrate.scan.match import RuleIndex, match_targets, merge_targets
from migrate.scan.match import indexes as target_indexes
from migrate.settings import Settings
from migrate.workloads.classify import judged

NOT_A_KIND = "not a file kind rocm-migrate scans"
SCAN_PATH_FROM = 32  # more files than this are read as a scan reads them (cached matches, in parallel)


@dataclass(frozen=True, slots=True, kw_only=True)
class LintResult:
    """What a lint found: findings, files skipped, counts of files, lines, suppressed and baselined findings."""

    findings: tuple[Finding, ...]  # sorted; paths relative to the working directory
    skipped: tuple[Skipped, ...]
    files: int
    lines: int
    suppressed: int = 0
    baselined: int = 0

    def failing(self, threshold: str) -> list[Finding]:
        """The findings at or above a class threshold."""
        rank = class_rank(threshold)
        return [f for f in self.findings if class_rank(f.cls) >= rank]


def lint(targets: Sequence[Path], settings: Settings, rules: RuleBase, *, cwd: Path,
         baseline: Counter[str] | None = None, baseline_root: Path | None = None) -> LintResult:
    """Lint files and directories (directories are walked like a scan): the scan's extract and
    match stages on these files, then rule selection, suppressions and the baseline. Raises
    selection.SelectorError for an unknown --select/--ignore entry and targets.TargetError for an
    unknown architecture."""
    root = settings.config_file.parent if settings.config_file else cwd
    checker = Checker(rules, settings)
    files, skipped = collect(targets or [cwd], settings, root=root, cwd=cwd)
    read = (_matched_as_a_scan if len(files) > SCAN_PATH_FROM else _matched)(files, settings, rules, cwd=cwd)
    skipped += read.skipped
    tree = backend_siblings([f.path for f, _ in read.files], root=root, cwd=cwd)
    leave = left_in_backend_files(rules, [*(display(f.path, cwd) for f, _ in read.files), *tree])
    by_path: dict[str, list[Finding]] = {}
    for finding in read.findings:
        if leave is None or not leave(finding):
            by_path.setdefault(finding.path, []).append(finding)
    findings: list[Finding] = []
    suppressed = 0
    for file, data in read.files:
        rel = display(file.path, cwd)
        found, hidden = checker.select(rel, file.kind, data(), by_path.get(rel, []), where=display(file.path, root))
        findings += found
        suppressed += hidden
    project_root = project.root_of(targets or [cwd], root, declared=settings.config_file is not None)
    kinds: dict[str, str] = {}
    if project_root is not None:  # ported and optional, and the workloads a build hipifies, as a scan says
        parts = project.parts_of(project_root, settings, rules)
        findings = project.with_status(findings, parts, project_root, cwd)
        kinds = project.build_kinds(findings, parts, project_root, cwd)
    findings = _as_the_project(findings, rules, read.facts)
    findings = judged(findings, kind_of=lambda f: kinds.get(f.path, "directory"),  # the effective class, as a scan
                      torch_hipified=_torch_hipified(rules) if kinds else frozenset())
    baselined = 0
    if baseline is not None:
        findings, baselined = new_findings(findings, baseline, cwd=cwd, root=baseline_root or cwd)
    return LintResult(findings=tuple(sorted(findings, key=lambda f: f.sort_key)),
                      skipped=tuple(sorted(skipped, key=lambda s: s.path)), files=len(read.files),
                      lines=read.lines, suppressed=suppressed, baselined=baselined)


def _torch_hipified(rules: RuleBase) -> frozenset[str]:
    from migrate.rulebase import alternatives

    return alternatives.torch_hipified(rules.directory, rules.version)


def _as_the_project(findings: list[Finding], rules: RuleBase, facts: Mapping[str, Sequence[Fact]]) -> list[Finding]:
    """The scan's project-wide rewrite decision (workloads.rewrite_project.whole_rewrites) over the linted
    files, with their facts as a scan has them (a kernel that calls an `mma.sync` helper is a rewrite kernel):
    kernels with no mechanical port that are all the linted code has are new development."""
    from migrate.rulebase import alternatives
    from migrate.workloads.rewrite_project import kernel_rules, whole_rewrites

    lanes = alternatives.rewrite_lanes(rules.directory, rules.version)
    return whole_rewrites(findings, lanes, kernel_rules(rules), facts) if lanes else findings


@dataclass(frozen=True, slots=True)
class _Read:
    """The linted files matched for every target, before select/ignore and suppression: findings with
    paths relative to the working folder, each file with a way to its bytes, what was skipped."""

    findings: list[Finding]
    files: list[tuple[SourceFile, Callable[[], bytes]]]
    skipped: list[Skipped]
    lines: int
    facts: dict[str, tuple[Fact, ...]]  # display path -> the facts a scan keeps (all but workloads.UNREAD_KINDS)


def _matched(files: Sequence[SourceFile], settings: Settings, rules: RuleBase, *, cwd: Path) -> _Read:
    """A few files: extracted (the extraction cache) and matched here; nothing heavy is imported."""
    outcomes = extract_all(files, max_file_size=settings.max_file_size, cache=Cache(settings.cache_dir),
                           jobs=settings.jobs, keep_data=True)
    done = [o for o in outcomes if o.ok and o.extraction is not None]
    findings = match_targets([(display(o.file.path, cwd), o.extraction) for o in done if o.extraction],
                             rules, rocm=settings.rocm, archs=settings.arch)
    from migrate.workloads import UNREAD_KINDS

    return _Read(findings, [(o.file, _given(o.data or b"")) for o in done],
                 skipped_files(outcomes, lambda f: display(f.path, cwd)),
                 sum(o.extraction.lines for o in done if o.extraction),
                 {display(o.file.path, cwd): tuple(f for f in o.extraction.facts if f.kind not in UNREAD_KINDS)
                  for o in done if o.extraction})


def _matched_as_a_scan(files: Sequence[SourceFile], settings: Settings, rules: RuleBase, *, cwd: Path) -> _Read:
    """Many files (a tree): read as a scan reads them (analyse: each file's matched candidates, cached by
    content, in parallel), so a warm lint of a tree costs what a warm scan does; the same findings as
    `_matched` (tests/test_lint.py holds them equal). Bytes are read again only for suppressions."""
    from migrate.scan.analyse import analyse_all
    from migrate.scan.readfile import read

    outcomes = analyse_all(files, settings, rules)
    done = [(o.file, o.result) for o in outcomes if o.ok and o.result is not None]
    shown = {file.rel: display(file.path, cwd) for file, _ in done}
    merged = merge_targets([r for _, r in done], settings.arch, paths=[file.rel for file, _ in done],
                           indexes=target_indexes(rules, rocm=settings.rocm, archs=settings.arch))

    def data(file: SourceFile) -> Callable[[], bytes]:
        return lambda: read(file, settings.max_file_size)[0] or b""

    return _Read([evolve(f, path=shown.get(f.path, f.path)) for f in merged], [(file, data(file)) for file, _ in done],
                 [Skipped(path=display(o.file.path, cwd), reason=o.reason or "not extracted")
                  for o in outcomes if not o.ok],
                 sum(r.lines for _, r in done), {shown[file.rel]: r.facts for file, r in done})


def _given(data: bytes) -> Callable[[], bytes]:
    return lambda: data


class Checker:
    """Rule selection and suppression over matched findings, one file at a time."""

    def __init__(self, rules: RuleBase, settings: Settings) -> None:
        self.rules = rules
        self.settings = settings
        self.filter = RuleFilter(rules, settings)
        self.applicable = applicable(rules, target_indexes(rules, rocm=settings.rocm, archs=settings.arch))

    def enabled(self, rule_id: str, where: str) -> bool:
        return rule_id in self.applicable and self.filter.enabled(rule_id, where)

    def select(self, rel: str, kind: str, data: bytes, findings: Sequence[Finding], *,
               where: str = "") -> tuple[list[Finding], int]:
        """A file's findings after select/ignore and suppression, and how many were suppressed."""
        return _suppress(rel, kind, data, findings, self.rules, lambda rule_id: self.enabled(rule_id, where))

    def check(self, rel: str, kind: str, data: bytes, extraction: Extraction, *,
              where: str = "") -> tuple[list[Finding], int]:
        """One file on its own: matched for every target, then selected and suppressed."""
        found = match_targets([(rel, extraction)], self.rules, rocm=self.settings.rocm, archs=self.settings.arch)
        return self.select(rel, kind, data, found, where=where)


def check_file(rel: str, kind: str, data: bytes, extraction: Extraction, indexes: Sequence[RuleIndex],
               rules: RuleBase, tree: Sequence[str] = (),
               others: Sequence[tuple[str, Extraction]] = ()) -> tuple[list[Finding], int]:
    """One file against the rules in force for the indexes' targets, with its suppressions (the
    rule fixtures' harness); `tree` names the other paths of its tree, `others` the files of it that
    the cross-file join (crossref) and the project-wide names (macros, lane-mask types) read with this
    one (their findings are not returned)."""
    archs = [arch for index in indexes for arch in index.target.arch]
    found = [f for f in match_targets([(rel, extraction), *others], rules, rocm=indexes[0].target.rocm, archs=archs,
                                      tree=tree) if f.path == rel]
    return _suppress(rel, kind, data, found, rules, applicable(rules, indexes).__contains__)


def _suppress(rel: str, kind: str, data: bytes, findings: Sequence[Finding], rules: RuleBase,
              enabled: Callable[[str], bool]) -> tuple[list[Finding], int]:
    kept = [f for f in findings if enabled(f.rule)]
    marks = suppression.parse(kind, data)
    if not marks:
        return kept, 0
    outcome = suppression.apply(rel, kept, marks, rules, enabled)
    return [*outcome.kept, *outcome.meta], outcome.suppressed


def applicable(rules: RuleBase, indexes: Sequence[RuleIndex]) -> set[str]:
    """Ids of the rules in force for at least one of the indexes' targets."""
    if all(index.rulebase is rules for index in indexes):  # each index knows its rules in force
        return set().union(*(index.in_force for index in indexes))
    ids = rules.ids
    return {ids[i] for index in indexes for i, on in enumerate(rules.in_force(index.target.rocm, index.archs)) if on}


def collect(targets: Sequence[Path], settings: Settings, *, root: Path,
            cwd: Path) -> tuple[list[SourceFile], list[Skipped]]:
    """The files to lint: given files as they are, directories walked; `exclude` (relative to
    `root`) applies to both. Skipped paths are relative to `cwd`, like the findings'."""
    found = discover(list(targets), include_vendored=settings.include_vendored)
    files = list(found.files)
    if settings.exclude:
        import pathspec

        spec = pathspec.GitIgnoreSpec.from_lines(settings.exclude)
        files = [f for f in files if not spec.match_file(display(f.path, root))]
    skipped = [Skipped(path=display(found.root / s.path, cwd), reason=s.reason)
               for s in found.skipped if s.reason != NOT_A_KIND]
    return files, skipped


def backend_siblings(paths: Sequence[Path], *, root: Path, cwd: Path) -> list[str]:
    """Paths on disk that may make a linted file one of the project's per-back-end family, as a scan
    of the whole tree would see them (layout.backend_files decides): the folders beside each `cuda`
    folder above the file, and the files beside a `cuda_x` file. Only folders inside
    `root` are listed, never above it; the paths are relative to `cwd`, like the findings'."""
    top = root.resolve()
    found: set[str] = set()
    folders: dict[Path, Path] = {}  # a folder as given -> resolved: the files of a tree share a few
    listed: set[tuple[Path, bool]] = set()
    for path in paths:
        if path.is_symlink():
            folder = path.resolve().parent
        else:  # path.resolve().parent, one resolve per folder
            folder = folders.get(path.parent) or folders.setdefault(path.parent, path.parent.resolve())
        if top not in folder.parents and folder != top:
            continue
        parts = folder.relative_to(top).parts
        cuda_stem = "cuda" in re.split(r"[_-]", path.name.split(".")[0].lower())
        wanted = [(top.joinpath(*parts[:i]), True) for i, part in enumerate(parts) if part.lower() == "cuda"]
        for where in [*wanted, *([(folder, False)] if cuda_stem else [])]:
            if where not in listed:
                listed.add(where)
                found |= _entries(where[0], cwd, folders=where[1])
    return sorted(found)


def _entries(folder: Path, cwd: Path, *, folders: bool) -> set[str]:
    """One folder's sub-folders (as `x/hip/`) or files; layout.backend_files decides which are named
    for another back end, as it does for a scan's paths."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return set()
    if folders:
        return {display(e, cwd) + "/" for e in entries if e.is_dir()}
    return {display(e, cwd) for e in entries if e.is_file()}


def display(path: Path, base: Path) -> str:
    """A path relative to `base` with '/', or absolute when it is not under it."""
    try:
        return path.relative_to(_resolved(base)).as_posix()
    except ValueError:
        return path.as_posix()


@lru_cache(maxsize=8)
def _resolved(base: Path) -> Path:
    return base.resolve()
