"""`rocm-migrate scan`: the click command; the pipeline does the work."""
from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from migrate.cli import outputs
from migrate.cli.errors import UsageError
from migrate.model import CLASSES
from migrate.safetext import terminal

if TYPE_CHECKING:
    from migrate.model_report import Report
    from migrate.rulebase.load import RuleBase
    from migrate.scan.reportcache import TextOptions
    from migrate.settings import Settings

FORMATS = ("text", "json", "html", "markdown", "sarif", "csv")
FAIL_CLASSES = CLASSES[1:]  # every scan is at least native: --fail-on native would always fail
# Allocations between young-generation collections (the interpreter's: 700). A scan makes few reference
# cycles: on cuda-samples (--jobs 1) collecting cost 0.56-0.58 s of ~8.9 s CPU, 0.07-0.09 s with this, and the peak
# memory stayed 135.3 MB (135.8). Set before the workers fork, so they collect as rarely.
SCAN_GC_THRESHOLD = 100_000
# The scan's own process does not collect at all while the command runs (the workers it forks collect as before, with
# SCAN_GC_THRESHOLD): what it holds lives to the end, and a first scan of cuda-samples made no cycle to collect in it.
# Each young collection walks the young containers, the report's big lists and dicts among them: 33 collections,
# ~80 ms CPU of that process at load 10, 2 of them in the serial tail (docs/decisions/2026-12-06-s25-scan-parent-no-gc.md).
_PAUSED = [False]  # the collector is off in this process for a scan: a forked child turns it on again


def _collect_in_child() -> None:
    if _PAUSED[0]:
        _PAUSED[0] = False
        gc.enable()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_collect_in_child)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic collection in this process within the block (one that was on before); children forked meanwhile
    collect, with this process's thresholds. At its end what the block made counts as old: turned on with a young
    generation of millions, the collector would walk them all at the next allocation (44 ms after a --jobs 1 scan
    of cuda-samples, load 10): freeze and unfreeze put every tracked object in the oldest generation and start
    the counts at 0."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    _PAUSED[0] = True
    try:
        yield
    finally:
        _PAUSED[0] = False
        gc.freeze()
        gc.unfreeze()
        gc.enable()
EPILOG = """\b
Examples:
  rocm-migrate scan                                   summary of the tree under .
  rocm-migrate scan . -f json -o report.json          the JSON report
  rocm-migrate scan . --html-output report.html --sarif-output r.sarif
  rocm-migrate scan . --target-arch gfx942,gfx1100 --rocm 7.0
  rocm-migrate scan repoA repoB                       a portfolio, each folder its own project
  rocm-migrate scan . --fail-on incompatible          for CI

\b
Exit codes: 0 done, 1 the --fail-on class was reached, 2 usage or input error,
3 internal error."""


@click.command(epilog=EPILOG)
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@outputs.options(FORMATS, legacy=True)
@click.option("--sarif-level", type=click.Choice(CLASSES), default="minor-adaptation", show_default=True,
              help="SARIF: only findings of at least this class.")
@click.option("--sarif-max", type=click.IntRange(min=1), default=5000, show_default=True,
              help="SARIF: at most this many results (worst class first).")
@click.option("--plan", "show_plan", is_flag=True, help="Print the migration plan after the text summary.")
@click.option("--show-info", is_flag=True, help="Also list info findings (hints) in the text and HTML findings lists.")
@click.option("--target-arch", "arch", multiple=True,
              help="GPU architecture(s) to assess for, repeatable or comma-separated  [default: gfx942]")
@click.option("--rocm", help="ROCm release to assess for  [default: the newest listed, rules/targets/gpus.yaml]")
@click.option("--fail-on", type=click.Choice(FAIL_CLASSES), help="Exit 1 if a project's class is at least this.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Parallel processes  [default: the CPU count]")
@click.option("--include-vendored", is_flag=True, default=None, help="Also scan third_party/, build/ ... trees.")
@click.option("--exclude", multiple=True, help="Gitignore-style pattern to leave out (repeatable).")
@click.option("--max-file-size", type=click.IntRange(min=1), help="Skip larger files  [default: 5 MiB]")
@click.option("--max-scan-seconds", type=click.FloatRange(min=1), help="Stop analysing files after this long; the "
              "rest are listed as skipped  [default: 1800]")
@click.option("--no-cache", is_flag=True, help="Do not read or write the per-file cache (extraction and findings).")
@click.option("--hipify", "hipify_path", metavar="PATH", help="hipify-perl to use (default: $HIPIFY_PERL, "
              "$ROCM_PATH/bin, /opt/rocm/bin, PATH).")
@click.option("--no-hipify", is_flag=True, help="Do not run hipify-perl even where it is installed.")
@click.option("--hipify-warnings", is_flag=True, help="Let hipify-perl report its warnings (slow with old versions).")
@click.option("--precise", is_flag=True, help="Also parse translation units with libclang (needs compile commands).")
@click.option("--compile-commands", type=click.Path(exists=True, dir_okay=False), help="compile_commands.json to use.")
@click.option("--cuda-path", type=click.Path(exists=True, file_okay=False), help="CUDA toolkit for --precise.")
@click.option("--rules-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), help="Use these rules.")
@click.option("--timing", is_flag=True, help="Put elapsed times in the JSON report (two runs then differ).")
@click.option("-q", "--quiet", is_flag=True, help="No notes, warnings, progress or summary line on stderr.")
@click.option("-v", "--verbose", is_flag=True, help="Every note and skipped file on stderr.")
def scan(paths: tuple[Path, ...], formats: tuple[str, ...], output: str | None, sarif_level: str, sarif_max: int,
         show_plan: bool, show_info: bool, rules_dir: Path | None, quiet: bool, verbose: bool, **given: Any) -> None:
    """Scan PATHS (default: .) and report every CUDA tie with its ROCm equivalent."""
    gc.set_threshold(SCAN_GC_THRESHOLD)
    with _collector_paused():
        _scan(paths, formats, output, sarif_level, sarif_max, show_plan, show_info, rules_dir, quiet, verbose, given)


def _scan(paths: tuple[Path, ...], formats: tuple[str, ...], output: str | None, sarif_level: str, sarif_max: int,
          show_plan: bool, show_info: bool, rules_dir: Path | None, quiet: bool, verbose: bool,
          given: dict[str, Any]) -> None:
    extra = {name: given.pop(f"{name}_output") or given.pop(f"{name}_legacy", None) for name in FORMATS}
    jobs_out = outputs.destinations(formats, output, extra)
    targets = list(paths) or [Path(".")]
    per_root, settings = _settings(targets, given)  # its warnings are notes of the report, said once below
    from migrate.scan import reportcache

    default_sarif = (sarif_level, sarif_max) == ("minor-adaptation", 5000)  # the report cache renders with defaults
    text = _plain_text(jobs_out)
    if not per_root and default_sarif and text is not None \
            and reportcache.applies(settings, [name for name, _ in jobs_out]):
        _scan_cached(targets, settings, rules_dir, jobs_out, reportcache.TextOptions(text, show_plan, show_info),
                     quiet=quiet, verbose=verbose)
        return
    from migrate.cli.rules import load_rules

    report = _run(targets, per_root, settings, load_rules(rules_dir), quiet=quiet)
    for name, destination in jobs_out:
        outputs.write(_render(report, name, destination, sarif_level=sarif_level, sarif_max=sarif_max,
                              show_plan=show_plan, show_info=show_info), destination)
    if not quiet:
        _say(report, verbose=verbose)
    from migrate.scan import portfolio

    if portfolio.reaches_fail_on(report, [s.fail_on for _, s in per_root] or [settings.fail_on]):
        sys.exit(1)


def _settings(targets: list[Path], given: dict[str, Any]) -> tuple[list[tuple[Path, Settings]], Settings]:
    """Each project's settings (a portfolio: each folder's own configuration file), the command line on top."""
    from migrate import settings as config
    from migrate.rulebase import targets as gpus
    from migrate.scan import cache

    overrides = {
        "arch": tuple(a for item in given["arch"] for a in item.split(",") if a), "rocm": given["rocm"],
        "fail_on": given["fail_on"], "jobs": given["jobs"], "exclude": given["exclude"],
        "include_vendored": given["include_vendored"], "max_file_size": given["max_file_size"],
        "cache_dir": None if given["no_cache"] else cache.default_dir(),
        "hipify": given["hipify_path"], "use_hipify": False if given["no_hipify"] else None,
        "hipify_warnings": True if given["hipify_warnings"] else None, "precise": True if given["precise"] else None,
        "compile_commands": given["compile_commands"], "cuda_path": given["cuda_path"],
        "timing": True if given["timing"] else None, "max_scan_seconds": given["max_scan_seconds"],
    }
    try:
        per_root = [(t, config.load(t.resolve(), overrides)) for t in targets] if _portfolio(targets) else []
        settings = per_root[0][1] if per_root else config.load(targets[0].resolve(), overrides)
        gpus.load().check_release(settings.rocm)
        gpus.load().resolve(settings.arch, settings.rocm)
    except (config.SettingsError, gpus.TargetError) as exc:
        raise UsageError(str(exc)) from None
    return per_root, settings


def _portfolio(targets: list[Path]) -> bool:
    if len(targets) < 2:  # one target is never a portfolio (and a scan need not import it then)
        return False
    from migrate.scan import portfolio

    return portfolio.is_portfolio(targets)


def _run(targets: list[Path], per_root: list[tuple[Path, Settings]], settings: Settings, rules: RuleBase, *,
         quiet: bool) -> Report:
    from migrate.scan import pipeline, portfolio

    with _progress(quiet) as progress:
        try:
            if per_root:
                return pipeline.with_plan(portfolio.run(per_root, rules, progress))
            return pipeline.run(targets, settings, rules, progress=progress)
        except portfolio.PortfolioError as exc:
            raise UsageError(str(exc)) from None


def _plain_text(jobs_out: list[tuple[str, str]]) -> int | None:
    """The width of the text outputs when none is coloured (the report cache keeps plain text
    only; a terminal's is coloured), else None; 100 when there is no text output."""
    widths = {outputs.color_and_width(destination) for name, destination in jobs_out if name == "text"}
    if any(color for color, _ in widths) or len(widths) > 1:
        return None
    return next(iter(widths))[1] if widths else 100


def _scan_cached(targets: list[Path], settings: Settings, rules_dir: Path | None, jobs_out: list[tuple[str, str]],
                 text: TextOptions, *, quiet: bool, verbose: bool) -> None:
    """A scan whose reports may come from the report cache (migrate.scan.reportcache); a hit says on
    stderr what the full scan said."""
    from migrate.model import class_rank
    from migrate.scan import reportcache

    def rules() -> RuleBase:
        from migrate.cli.rules import load_rules

        return load_rules(rules_dir)

    said: list[reportcache.Outputs] = []

    def write(done: reportcache.Outputs) -> None:  # while the stored report is open
        for name, destination in jobs_out:
            outputs.write_bytes(done.reports[name], destination)
        said.append(done)

    with _progress(quiet) as progress:
        reportcache.scan(targets, settings, rules_dir=rules_dir, load_rules=rules, formats=[name for name, _ in jobs_out],
                         write=write, progress=progress, text=text)
    done = said[0]
    if not quiet:
        _say_counts(done.said.notes, done.said.skipped, done.said.files_scanned, done.said.findings,
                    done.migration_class, verbose=verbose)
    if settings.fail_on and class_rank(done.migration_class) >= class_rank(settings.fail_on):
        sys.exit(1)


def _render(report: Report, name: str, destination: str, *, sarif_level: str, sarif_max: int,
            show_plan: bool, show_info: bool) -> str | Iterator[str]:
    from migrate.render import renderer

    if name == "json":  # written as it is rendered, the findings one by one
        from migrate.render import json_report

        return json_report.chunks(report)
    if name == "sarif":  # also in pieces, the results one by one
        from migrate.render import sarif_report

        return sarif_report.chunks(report, min_class=sarif_level, limit=sarif_max)
    if name == "csv":
        from migrate.render import csv_report

        return csv_report.chunks(report)
    if name == "text":
        color, width = outputs.color_and_width(destination)
        return renderer("terminal")(report, color=color, width=width, plan=show_plan, show_info=show_info)
    if name == "html":
        return renderer("html")(report, show_info=show_info)
    return renderer(name)(report)


def _say(report: Report, *, verbose: bool) -> None:
    """The notes and skipped files the text summary does not show, and one summary line, on stderr."""
    _say_counts(report.notes, [(s.path, s.reason) for s in report.skipped], report.files_scanned,
                len(report.findings), report.migration_class, verbose=verbose)


def _say_counts(notes: Sequence[str], skipped: Sequence[tuple[str, str]], files_scanned: int, findings: int,
                migration_class: str, *, verbose: bool) -> None:
    outputs.notes(notes, verbose=verbose)
    if verbose:
        for path, reason in skipped:
            click.echo(f"rocm-migrate: skipped: {terminal(path)}: {terminal(reason)}", err=True)
    listed = f", {len(skipped)} skipped{'' if verbose else ' (-v lists them)'}" if skipped else ""
    noted = f"; {len(notes)} note{'s' if len(notes) != 1 else ''}" if notes else ""
    click.echo(f"rocm-migrate: {files_scanned} file{'s' if files_scanned != 1 else ''} scanned{listed}; "
               f"{findings} finding{'s' if findings != 1 else ''}; class {migration_class}{noted}", err=True)


@contextlib.contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr for interactive runs; nothing when stderr is not a terminal."""
    if quiet or not sys.stderr.isatty() or os.environ.get("TERM") == "dumb":
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("extracting", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
