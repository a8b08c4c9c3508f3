"""The `lint` command: parse the options, resolve Settings, call migrate.lint, map to an exit code.
Only click is imported up front; everything else is imported when the command runs."""
from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from migrate.cli import outputs
from migrate.cli.errors import UsageError
from migrate.safetext import terminal

if TYPE_CHECKING:
    from migrate.lint.run import LintResult
    from migrate.rulebase.load import RuleBase
    from migrate.settings import Settings

T = TypeVar("T")

LINT_CLASSES = ("minor-adaptation", "migration-required", "incompatible")
FORMATS = ("text", "json", "sarif")
DEFAULTS = {"fail_on": "migration-required"}




RULES_HELP = "ids, names or id prefixes, comma-separated"


EPILOG = """\b
Examples:
  rocm-migrate lint src/reduce.cu                    one line per finding
  rocm-migrate lint --select HIP4 --ignore kernel-definition
                                                     device-code rules but kernel definitions
  rocm-migrate lint -f sarif -o lint.sarif           for code scanning
  rocm-migrate lint --write-baseline .rocm-migrate-baseline.json

\b
Exit codes: 0 nothing at or above --fail-on, 1 something is, 2 usage or input error,
3 internal error."""


@click.command(epilog=EPILOG)
@click.argument("files", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--select", multiple=True, metavar="RULES", help=f"Only these rules: {RULES_HELP}.")
@click.option("--ignore", multiple=True, metavar="RULES", help=f"Not these rules: {RULES_HELP}.")
@click.option("--per-file-ignores", multiple=True, metavar="GLOB:RULES", help="Ignore rules in matching files.")
@click.option("--fail-on", type=click.Choice(LINT_CLASSES),
              help="Exit 1 when a finding of this class or worse remains (default migration-required).")
@click.option("--target-arch", "arch", multiple=True,
              help="GPU architecture(s), repeatable or comma-separated (default gfx942).")
@click.option("--rocm", help="ROCm version to check for (default 7.2).")
@click.option("--exclude", multiple=True, help="Gitignore-style pattern to leave out, also for named files.")
@outputs.options(FORMATS)
@click.option("--statistics", is_flag=True, help="Print how often each rule fired instead of the findings.")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path),
              help="Report only findings this baseline does not account for.")
@click.option("--write-baseline", type=click.Path(dir_okay=False, path_type=Path),
              help="Record today's findings in this file.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the per-file extraction cache, nor replay an earlier run.")
@click.option("--rules-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), help="Use these rules.")
@click.option("-q", "--quiet", is_flag=True, help="No warnings or summary line on stderr.")
@click.option("-v", "--verbose", is_flag=True, help="Also the configuration file used and a summary line when "
              "nothing was found.")
def lint(files: tuple[Path, ...], select: tuple[str, ...], ignore: tuple[str, ...], per_file_ignores: tuple[str, ...],
         fail_on: str | None, arch: tuple[str, ...], rocm: str | None, exclude: tuple[str, ...],
         formats: tuple[str, ...], output: str | None, text_output: str | None, json_output: str | None,
         sarif_output: str | None, statistics: bool, baseline: Path | None, write_baseline: Path | None,
         no_cache: bool, rules_dir: Path | None, quiet: bool, verbose: bool) -> None:
    """Check FILES (default: the tree under .) for CUDA ties: `path:line:col: RULE message`.

    Exits 1 when a finding at or above --fail-on remains, 2 on a usage or input error."""
    from migrate import settings as config
    from migrate.lint import run as linting
    from migrate.scan import cache

    if baseline and write_baseline:
        raise UsageError("use either --baseline or --write-baseline")
    jobs_out = outputs.destinations(formats, output, {"text": text_output, "json": json_output,
                                                      "sarif": sarif_output})
    if statistics and any(name == "sarif" for name, _ in jobs_out):
        raise UsageError("--statistics works with --format text or json")
    cwd = Path.cwd()
    settings = _settings(files, cwd, quiet=quiet, given={
        "select": config.split_list(select) or None, "ignore": config.split_list(ignore),
        "per_file_ignores": per_file_ignores, "fail_on": fail_on, "arch": config.split_list(arch),
        "rocm": rocm, "exclude": exclude, "no_cache": no_cache,
    })
    rules = _rules(rules_dir, cache.default_dir())
    if verbose and not quiet:
        click.echo(f"rocm-migrate: configuration: {terminal(str(settings.config_file or 'none (defaults)'))}", err=True)
    known = _baseline(baseline)
    result = _guarded(lambda: linting.lint(files, settings, rules, cwd=cwd, baseline=known,
                                           baseline_root=baseline.parent if baseline else None))
    if write_baseline:
        _write_baseline(write_baseline, result, cwd)
        return
    for skipped in () if quiet else result.skipped:
        click.echo(f"rocm-migrate: warning: {terminal(skipped.path)}: skipped: {terminal(skipped.reason)}", err=True)
    for name, destination in jobs_out:
        outputs.write(_render(result, rules, settings, fmt=name, statistics=statistics, root=cwd), destination)
    fail_on = settings.fail_on or DEFAULTS["fail_on"]
    if not quiet and (result.findings or verbose):  # quiet when there is nothing to say, as pre-commit hooks are
        click.echo(_summary(result, fail_on), err=True)
    if result.failing(settings.fail_on or DEFAULTS["fail_on"]):
        sys.exit(1)


def _settings(files: tuple[Path, ...], cwd: Path, *, quiet: bool, given: dict[str, Any]) -> Settings:
    from migrate import settings as config
    from migrate.scan import cache

    start = Path(os.path.commonpath([f.resolve() for f in files])) if files else cwd
    no_cache = given.pop("no_cache")
    try:
        given["per_file_ignores"] = config.parse_per_file_ignores(given["per_file_ignores"])
        given["cache_dir"] = None if no_cache else cache.default_dir()
        settings = config.load(start, given, defaults=DEFAULTS)
    except config.SettingsError as exc:
        raise UsageError(str(exc)) from None
    for warning in () if quiet else settings.warnings:
        click.echo(f"rocm-migrate: warning: {terminal(warning)}", err=True)
    return settings


def _rules(rules_dir: Path | None, cache_dir: Path | None) -> RuleBase:
    from migrate.rulebase import precompiled as rulecache
    from migrate.rulebase.load import RuleError

    try:
        return rulecache.load(rules_dir, cache_dir)
    except RuleError as exc:
        raise UsageError(str(exc)) from None


def _baseline(path: Path | None) -> Counter[str] | None:
    from migrate.lint.baseline import BaselineError, read

    if path is None:
        return None
    try:
        return read(path)
    except BaselineError as exc:
        raise UsageError(str(exc)) from None


def _guarded(run: Callable[[], T]) -> T:
    """Run the lint; a bad selector or target is a usage error."""
    from migrate.lint.selection import SelectorError
    from migrate.rulebase.targets import TargetError

    try:
        return run()
    except (SelectorError, TargetError) as exc:
        raise UsageError(str(exc)) from None


def _write_baseline(path: Path, result: LintResult, cwd: Path) -> None:
    from migrate.lint.baseline import BaselineError, write

    try:
        count = write(path, result.findings, cwd=cwd)
    except BaselineError as exc:
        raise UsageError(str(exc)) from None
    click.echo(f"rocm-migrate: wrote {count} findings to {path}", err=True)


def _render(result: LintResult, rules: RuleBase, settings: Settings, *, fmt: str, statistics: bool,
            root: Path) -> str:
    from migrate.lint import report as out
    from migrate.model import Target

    fail_on = settings.fail_on or DEFAULTS["fail_on"]
    if fmt == "sarif":
        try:
            text = out.sarif(result, rules, target=Target(rocm=settings.rocm, arch=settings.arch), root=str(root))
        except out.FormatUnavailable as exc:
            raise UsageError(str(exc)) from None
    elif fmt == "json":
        text = out.json_text(result, rules, fail_on=fail_on, statistics_only=statistics)
    else:
        text = out.statistics(result, rules) if statistics else out.text(result)
    return text


def _summary(result: LintResult, fail_on: str) -> str:
    extra = [f"{n} {what}" for n, what in ((result.suppressed, "suppressed inline"),
                                           (result.baselined, "in the baseline")) if n]
    count = len(result.findings)
    found = (f"{result.files} file{'s' if result.files != 1 else ''} checked; {count} finding{'s' if count != 1 else ''}, "
             f"{len(result.failing(fail_on))} at or above {fail_on}")
    return f"rocm-migrate: {found}" + (f" ({', '.join(extra)})" if extra else "")
