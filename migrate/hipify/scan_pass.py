"""The hipify-perl pass of a scan: examine the C/C++/CUDA files, compare, merge into the findings.

scan.run calls `run_pass` after matching (before judging, so that classification and
effort see the measured hipify values) and `merge` to update the findings. Without
hipify-perl the scan does not call this at all and says so once."""
from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from migrate.hipify import tool as hipify
from migrate.hipify.compare import Coverage, Disagreement, FileComparison, compare_file, coverage_by_workload, rule_kinds
from migrate.model import Extraction, Finding, SourceFile, Target
from migrate.model_report import HipifyCoverage, HipifyDisagreement, HipifySummary, PassResult, Workload
from migrate.rulebase.load import RuleBase
from migrate.scan.match import RuleIndex
from migrate.scan.readfile import read_inside, tree_of
from migrate.settings import Settings

MAX_COMPARED_BYTES = 64 << 20  # a file is compared with what hipify-perl made of it only up to this size

EXAMINED_KINDS = frozenset({"cuda", "cpp"})  # what hipify-perl reads (.hip is already HIP; Python is not C)


@dataclass(frozen=True, slots=True)
class HipifyPass:
    tool: hipify.Tool
    comparisons: dict[str, FileComparison] = field(default_factory=dict)  # by relative path
    seconds: float = 0.0
    warnings_checked: bool = True  # False after a -quiet-warnings pass: no false alarms or silent misses
    error: str | None = None  # hipify-perl failed: the scan goes on from the rule base

    @property
    def disagreements(self) -> tuple[Disagreement, ...]:
        return tuple(d for c in self.comparisons.values() for d in c.disagreements)

    def coverage(self, workloads: Iterable[Workload]) -> dict[str, Coverage]:
        """Workload name -> hipify coverage (converted CUDA references / all CUDA references)."""
        return coverage_by_workload(self.comparisons, workloads)

    def summary(self, workloads: Iterable[Workload]) -> HipifySummary | None:
        """The report's hipify block, once the workloads are known; None after a failed run."""
        if self.error:
            return None
        return HipifySummary(
            version=self.tool.version, seconds=self.seconds, warnings_checked=self.warnings_checked,
            coverage={name: HipifyCoverage(references=c.references, converted=c.converted)
                      for name, c in self.coverage(workloads).items()},
            disagreements=tuple(HipifyDisagreement(kind=d.kind, path=d.path, line=d.line, symbol=d.symbol,
                                                   rule=d.rule, hipify=d.hipify) for d in self.disagreements))

    def note(self) -> str:
        """One line for the report's notes."""
        version = self.tool.version or "unknown version"
        if self.error:
            return f"hipify-perl ({version}, {self.tool.path}) failed; findings come from the rule base only: {self.error}"
        mode = "" if self.warnings_checked else " with -quiet-warnings (conversions only, no warnings)"
        return f"hipify-perl {version} ({self.tool.path}) examined {len(self.comparisons)} files{mode}"


def run(settings: Settings, root: Path, scanned: Sequence[tuple[SourceFile, Extraction]],
        findings: Sequence[Finding], rules: RuleBase) -> tuple[PassResult, HipifyPass | None]:
    """The pass as the pipeline runs it: findings with hipify's measured values merged in, the
    note saying what was used, and the pass itself (its summary needs the workloads)."""
    try:
        tool = hipify.find(settings.hipify)
    except hipify.HipifyError as exc:  # found, but it does not run (its `-version` fails)
        broken = HipifyPass(tool=hipify.Tool(path=hipify.locate(settings.hipify), version=None),
                            error=str(exc).splitlines()[0])
        return PassResult(findings=tuple(findings), notes=(broken.note(),)), None
    if tool is None:
        return PassResult(findings=tuple(findings), notes=("hipify-perl not found: findings come from the rule base",)), None
    done = run_pass(tool, root, scanned, findings, rules, rocm=settings.rocm, arch=settings.arch[0],
                    jobs=settings.jobs, quiet=not settings.hipify_warnings)
    merged = findings if done.error else merge(findings, done, settings.arch)
    return PassResult(findings=tuple(merged), notes=(done.note(),)), done


def run_pass(tool: hipify.Tool, root: Path, scanned: Sequence[tuple[SourceFile, Extraction]],
             findings: Sequence[Finding], rules: RuleBase, *, rocm: str, arch: str, jobs: int = 1,
             quiet: bool = False) -> HipifyPass:
    """Run `hipify-perl -examine` over the scanned C/C++/CUDA files (relative to `root`, `jobs`
    processes) and compare each file with its findings. A failure is reported, not raised."""
    started = time.perf_counter()
    files = [(f, e) for f, e in scanned if f.kind in EXAMINED_KINDS]
    try:
        examined = hipify.examine_many(tool, [f.rel for f, _ in files], cwd=root, jobs=jobs, quiet=quiet)
    except hipify.HipifyError as exc:
        return HipifyPass(tool=tool, seconds=time.perf_counter() - started, error=str(exc).splitlines()[0])
    index = RuleIndex(rules, Target(rocm=rocm, arch=(arch,)))
    kinds = rule_kinds(rules.rules)
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    comparisons = {}
    for file, extraction in files:
        try:
            text = read_inside(file.path, tree_of(file), MAX_COMPARED_BYTES).decode("utf-8", errors="replace")
        except OSError:
            continue
        comparisons[file.rel] = compare_file(
            file.rel, text, by_path.get(file.rel, []), examined.get(file.rel, hipify.FileExamine(path=file.rel)),
            kinds=kinds, index=index, extraction=extraction, comments_converted=not tool.masks_comments)
    return HipifyPass(tool=tool, comparisons=comparisons, seconds=round(time.perf_counter() - started, 3),
                      warnings_checked=not quiet)


def merge(findings: Sequence[Finding], result: HipifyPass, archs: Sequence[str]) -> list[Finding]:
    """The findings with hipify's measured value in `hipify`, plus the findings hipify reported
    that the rule base did not (their message says "reported by hipify-perl"; they apply to
    every architecture in `archs`, the scan's targets)."""
    measured = {_key(v.finding): v.hipify for c in result.comparisons.values() for v in c.verdicts}
    out = [replace(f, hipify=measured.get(_key(f), f.hipify)) for f in findings]
    known = {_key(f) for f in findings}
    out += [replace(f, targets=tuple(archs)) for c in result.comparisons.values() for f in c.new_findings
            if _key(f) not in known]
    return out


def _key(f: Finding) -> tuple[str, str, int, int, str]:
    return (f.rule, f.path, f.line, f.column, f.symbol)
