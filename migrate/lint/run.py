"""lint: the findings of a few files, quickly. Per file: extract -> match -> select/ignore ->
inline suppressions; then the baseline. It never loads the workload pipeline (assemble,
graph, verdict) nor the renderers, so a pre-commit run starts fast."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from migrate.lint import suppression
from migrate.lint.baseline import new_findings
from migrate.cache import Cache, key
from migrate.discover import discover
from migrate.extract import EXTRACTOR_VERSION, cacheable, extract
from migrate.match import RuleIndex, match_file, portable_namespaces
from migrate.model import Extraction, Finding, Skipped, SourceFile, Target, class_rank
from migrate.readfile import read
from migrate.rulebase.load import RuleBase
from migrate.lint.selection import RuleFilter
from migrate.settings import Settings

NOT_A_KIND = "not a file kind rocm-migrate scans"


@dataclass(frozen=True, slots=True, kw_only=True)
class LintResult:
    findings: tuple[Finding, ...]  # sorted; paths relative to the working directory
    skipped: tuple[Skipped, ...]
    files: int
    lines: int
    suppressed: int = 0
    baselined: int = 0

    def failing(self, threshold: str) -> list[Finding]:
        """The findings at or above a class threshold."""
        rank = class_rank(threshold)
        return [f for f in self.findings if class_rank(f.migration_class) >= rank]


def lint(targets: Sequence[Path], settings: Settings, rules: RuleBase, *, cwd: Path,
         baseline: Counter[str] | None = None, baseline_root: Path | None = None) -> LintResult:
    """Lint files and directories (directories are walked like a scan). Raises
    selection.SelectorError for an unknown --select/--ignore entry and targets.TargetError for an
    unknown architecture."""
    root = settings.config_file.parent if settings.config_file else cwd
    checker = Checker(rules, settings)
    files, skipped = collect(targets or [cwd], settings, root=root, cwd=cwd)
    cache = Cache(settings.cache_dir)
    read = [(file, *_extracted(file, settings.max_file_size, cache)) for file in files]
    skipped += [Skipped(path=display(f.path, cwd), reason=reason) for f, _, _, reason in read if reason]
    done = [(f, data, ex) for f, data, ex, reason in read if not reason]
    portable = portable_namespaces(ex for _, _, ex in done)
    findings: list[Finding] = []
    suppressed = 0
    for file, data, extraction in done:
        found, hidden = checker.check(display(file.path, cwd), file.kind, data, extraction, portable=portable,
                                      where=display(file.path, root))
        findings += found
        suppressed += hidden
    baselined = 0
    if baseline is not None:
        findings, baselined = new_findings(findings, baseline, cwd=cwd, root=baseline_root or cwd)
    return LintResult(findings=tuple(sorted(findings, key=lambda f: f.sort_key)),
                      skipped=tuple(sorted(skipped, key=lambda s: s.path)), files=len(done),
                      lines=sum(ex.lines for _, _, ex in done), suppressed=suppressed, baselined=baselined)


class Checker:
    """Matching, rule selection and suppression for one file at a time."""

    def __init__(self, rules: RuleBase, settings: Settings) -> None:
        self.rules = rules
        self.filter = RuleFilter(rules, settings)
        self.indexes = [RuleIndex(rules, Target(rocm=settings.rocm, arch=(arch,))) for arch in settings.arch]
        self.applicable = applicable(rules, self.indexes)

    def check(self, rel: str, kind: str, data: bytes, extraction: Extraction, *,
              portable: frozenset[str] = frozenset(), where: str = "") -> tuple[list[Finding], int]:
        """A file's findings after select/ignore and suppression, and how many were suppressed."""
        return check_file(rel, kind, data, extraction, self.indexes, self.rules, portable=portable,
                          enabled=lambda rule_id: rule_id in self.applicable and self.filter.enabled(rule_id, where))


def check_file(rel: str, kind: str, data: bytes, extraction: Extraction, indexes: Sequence[RuleIndex],
               rules: RuleBase, *, portable: frozenset[str] = frozenset(),
               enabled: Callable[[str], bool] | None = None) -> tuple[list[Finding], int]:
    """match_file over every target's index, merged, then the rule filter and the suppressions.
    `enabled(rule_id)` says which rules are on; by default, those in force for the indexes' targets."""
    if enabled is None:
        enabled = applicable(rules, indexes).__contains__
    merged: dict[tuple, Finding] = {}
    for index in indexes:
        for finding in match_file(rel, extraction, index, portable):
            merged.setdefault((finding.rule, finding.cell, finding.line, finding.column, finding.symbol), finding)
    findings = [f for f in merged.values() if enabled(f.rule)]
    marks = suppression.parse(kind, data)
    if not marks:
        return findings, 0
    outcome = suppression.apply(rel, findings, marks, rules, enabled)
    return [*outcome.kept, *outcome.meta], outcome.suppressed


def applicable(rules: RuleBase, indexes: Sequence[RuleIndex]) -> set[str]:
    """Ids of the rules in force for at least one of the indexes' targets."""
    return {r.id for r in rules.rules if any(r.applies_to(i.target.rocm, i.archs) for i in indexes)}


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


def display(path: Path, base: Path) -> str:
    """A path relative to `base` with '/', or absolute when it is not under it."""
    try:
        return path.relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _extracted(file: SourceFile, max_size: int, cache: Cache) -> tuple[bytes, Extraction | None, str | None]:
    data, reason = read(file, max_size)
    if data is None:
        return b"", None, reason
    cache_key = key(file.kind, data, EXTRACTOR_VERSION)
    extraction = cache.get(cache_key)
    if extraction is None:
        extraction = extract(file.kind, data)
        if cacheable(extraction):
            cache.put_many([(cache_key, extraction)])
    return data, extraction, extraction.error
