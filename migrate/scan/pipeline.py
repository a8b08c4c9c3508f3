"""A scan's entry: one project (`scan.project`) or several folders, each its own project and the
reports merged (`scan.portfolio`); the finished report with its migration plan."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from migrate.extract.run import Progress
from migrate.model_report import Report
from migrate.rulebase.load import RuleBase
from migrate.scan import portfolio
from migrate.scan.cache import Known
from migrate.scan.discover import Discovery
from migrate.scan.project import scan_project
from migrate.settings import Settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from migrate.hipclang.check_pass import Compilation


def run(targets: list[Path], settings: Settings, rules: RuleBase, *, progress: Progress | None = None,
        found: Discovery | None = None, known: dict[str, Known] | None = None,
        compiled: Compilation | None = None, meanwhile: Callable[[], object] | None = None) -> Report:
    """One project; several folders are a portfolio, each folder its own project (migrate.scan.portfolio).
    `found` and `known`: the targets' discovery and what was learnt of its files (for one project);
    `meanwhile`: the caller's work that needs no file's result, run while one project's files are analysed."""
    if portfolio.is_portfolio(targets):
        if known:
            known.clear()  # each project discovers and reads its own files
        report = portfolio.run([(t, settings) for t in targets], rules, progress=progress)
    else:
        report = scan_project(targets, settings, rules, progress=progress, found=found, known=known, compiled=compiled,
                              meanwhile=meanwhile)
    return with_plan(report)


def with_plan(report: Report) -> Report:
    """The finished report with its migration plan, built once for every renderer."""
    from migrate.workloads import plan

    return replace(report, plan=plan.build(report))
