"""The `lint` command's work once its options are read (by click in cli/lint.py, or by
cli/lint_args.py for the command lines a pre-commit hook gives): Settings resolved, the rules
loaded, migrate.lint called, the outputs written, the exit code. Nothing here imports click, so
that a lint of one file does not pay for it; an error to show imports it (cli.errors)."""
from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from migrate.cli import outputs
from migrate.cli.echo import echo
from migrate.cli.outputs import usage_error
from migrate.safetext import terminal

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from migrate.lint.run import LintResult
    from migrate.rulebase.load import RuleBase
    from migrate.settings import Settings

    T = TypeVar("T")


LINT_CLASSES = ("minor-adaptation", "migration-required", "incompatible")
FORMATS = ("text", "json", "sarif")
DEFAULTS = {"fail_on": "migration-required"}


@dataclass(frozen=True, slots=True, kw_only=True)
class LintOptions:
    """The lint command line, read (click's parameter names and defaults)."""

    files: tuple[Path, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[str, ...] = ()
    fail_on: str | None = None
    arch: tuple[str, ...] = ()
    rocm: str | None = None
    exclude: tuple[str, ...] = ()
    formats: tuple[str, ...] = ()
    output: str | None = None
    text_output: str | None = None
    json_output: str | None = None
    sarif_output: str | None = None
    statistics: bool = False
    baseline: Path | None = None
    write_baseline: Path | None = None
    no_cache: bool = False
    rules_dir: Path | None = None
    quiet: bool = False
    verbose: bool = False


def main(options: LintOptions) -> int:
    """run(options), its exit code; an error is shown as cli.main.main shows it."""
    try:
        run(options)
    except (Exception, KeyboardInterrupt) as exc:
        from migrate.cli.main import shown

        return shown(exc)
    return 0


def run(options: LintOptions) -> None:
    """Lint; exits 1 (SystemExit) when a finding at or above --fail-on remains; raises
    cli.errors.UsageError on a usage or input error."""
    from migrate import settings as config
    from migrate.lint import run as linting
    from migrate.scan import cache

    o = options
    if o.baseline and o.write_baseline:
        raise usage_error("use either --baseline or --write-baseline")
    jobs_out = outputs.destinations(o.formats, o.output, {"text": o.text_output, "json": o.json_output,
                                                          "sarif": o.sarif_output})
    if o.statistics and any(name == "sarif" for name, _ in jobs_out):
        raise usage_error("--statistics works with --format text or json")
    cwd = Path.cwd()
    settings = _settings(o.files, cwd, quiet=o.quiet, given={
        "select": config.split_list(o.select) or None, "ignore": config.split_list(o.ignore),
        "per_file_ignores": o.per_file_ignores, "fail_on": o.fail_on, "arch": config.split_list(o.arch),
        "rocm": o.rocm, "exclude": o.exclude, "no_cache": o.no_cache,
    })
    rules = _rules(o.rules_dir, cache.default_dir())
    if o.verbose and not o.quiet:
        echo(f"rocm-migrate: configuration: {terminal(str(settings.config_file or 'none (defaults)'))}", err=True)
    known = _baseline(o.baseline)
    baseline = o.baseline
    result = _guarded(lambda: linting.lint(o.files, settings, rules, cwd=cwd, baseline=known,
                                           baseline_root=baseline.parent if baseline else None))
    if o.write_baseline:
        _write_baseline(o.write_baseline, result, cwd)
        return
    for skipped in () if o.quiet else result.skipped:
        echo(f"rocm-migrate: warning: {terminal(skipped.path)}: skipped: {terminal(skipped.reason)}", err=True)
    for name, destination in jobs_out:
        outputs.write(_render(result, rules, settings, fmt=name, statistics=o.statistics, root=cwd), destination)
    fail_on = settings.fail_on or DEFAULTS["fail_on"]
    if not o.quiet and (result.findings or o.verbose):  # quiet when there is nothing to say, as pre-commit hooks are
        echo(_summary(result, fail_on), err=True)
    if result.failing(fail_on):
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
        raise usage_error(str(exc)) from None
    for warning in () if quiet else settings.warnings:
        echo(f"rocm-migrate: warning: {terminal(warning)}", err=True)
    return settings


def _rules(rules_dir: Path | None, cache_dir: Path | None) -> RuleBase:
    from migrate.rulebase import precompiled as rulecache
    from migrate.rulebase.load import RuleError

    try:
        return rulecache.load(rules_dir, cache_dir)
    except RuleError as exc:
        raise usage_error(str(exc)) from None


def _baseline(path: Path | None) -> Counter[str] | None:
    from migrate.lint.baseline import BaselineError, read

    if path is None:
        return None
    try:
        return read(path)
    except BaselineError as exc:
        raise usage_error(str(exc)) from None


def _guarded(run: Callable[[], T]) -> T:
    """Run the lint; a bad selector or target is a usage error."""
    from migrate.lint.selection import SelectorError
    from migrate.rulebase.targets import TargetError

    try:
        return run()
    except (SelectorError, TargetError) as exc:
        raise usage_error(str(exc)) from None


def _write_baseline(path: Path, result: LintResult, cwd: Path) -> None:
    from migrate.lint.baseline import BaselineError, write

    try:
        count = write(path, result.findings, cwd=cwd)
    except BaselineError as exc:
        raise usage_error(str(exc)) from None
    echo(f"rocm-migrate: wrote {count} findings to {path}", err=True)


def _render(result: LintResult, rules: RuleBase, settings: Settings, *, fmt: str, statistics: bool,
            root: Path) -> str:
    from migrate.lint import report as out
    from migrate.model import Target

    fail_on = settings.fail_on or DEFAULTS["fail_on"]
    if fmt == "sarif":
        try:
            text = out.sarif(result, rules, target=Target(rocm=settings.rocm, arch=settings.arch), root=str(root))
        except out.FormatUnavailable as exc:
            raise usage_error(str(exc)) from None
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
