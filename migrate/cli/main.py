"""The command line: thin click commands that build Settings and call the library."""
from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from migrate import __version__
from migrate.cli.convert import convert
from migrate.cli.errors import UsageError
from migrate.cli.inventory import inventory
from migrate.cli.lint import lint
from migrate.cli.stack import stack
from migrate.cli.validate import validate
from migrate.model import CLASSES
from migrate.rulebase.docs import FAMILIES
from migrate.safetext import terminal, terminal_lines, unicode_text

if TYPE_CHECKING:
    from migrate.rulebase.load import RuleBase
    from migrate.settings import Settings

FORMATS = ("terminal", "json", "html", "markdown", "sarif", "csv")




def _load_rules(rules_dir: Path | None) -> RuleBase:
    """The rule base, from the precompiled cache when the rule files are unchanged (whatever
    --no-cache says: that is about the per-file caches; the rules are validated once per change)."""
    from migrate import cache
    from migrate.rulebase import precompiled as rulecache
    from migrate.rulebase.load import RuleError

    try:
        return rulecache.load(rules_dir, cache.default_dir())
    except RuleError as exc:
        raise UsageError(str(exc)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rocm-migrate")
def cli() -> None:
    """Assess what it takes to move CUDA code to AMD ROCm/HIP."""


cli.add_command(lint)
cli.add_command(convert)
cli.add_command(validate)
cli.add_command(inventory)
cli.add_command(stack)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "-f", "formats", multiple=True, type=click.Choice(FORMATS),
              help="Output format (repeatable with -o).")
@click.option("-o", "--output", "outputs", multiple=True, help="Write to FILE ('-' for stdout); one per --format.")
@click.option("--json", "json_file", metavar="FILE", help="Also write the JSON report to FILE.")
@click.option("--html", "html_file", metavar="FILE", help="Also write the HTML report to FILE.")
@click.option("--markdown", "markdown_file", metavar="FILE", help="Also write the Markdown summary to FILE.")
@click.option("--sarif", "sarif_file", metavar="FILE", help="Also write SARIF 2.1.0 to FILE.")
@click.option("--csv", "csv_file", metavar="FILE", help="Also write one CSV row per finding to FILE.")
@click.option("--sarif-level", type=click.Choice(CLASSES), default="minor-adaptation", show_default=True,
              help="SARIF: only findings of at least this class.")
@click.option("--sarif-max", type=click.IntRange(min=1), default=5000, show_default=True,
              help="SARIF: at most this many results (worst class first).")
@click.option("--plan", "show_plan", is_flag=True, help="Print the migration plan after the terminal summary.")
@click.option("--target-arch", "arch", multiple=True,
              help="GPU architecture(s) to assess for, repeatable or comma-separated (default gfx942).")
@click.option("--rocm", help="ROCm version to assess for (default 7.2).")
@click.option("--fail-on", type=click.Choice(CLASSES), help="Exit 1 if the repository's class is at least this.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Parallel extraction processes.")
@click.option("--include-vendored", is_flag=True, default=None, help="Also scan third_party/, build/ ... trees.")
@click.option("--exclude", multiple=True, help="Gitignore-style pattern to leave out (repeatable).")
@click.option("--max-file-size", type=click.IntRange(min=1), help="Skip files larger than this many bytes.")
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
def scan(paths: tuple[Path, ...], formats: tuple[str, ...], outputs: tuple[str, ...], json_file: str | None,
         html_file: str | None, markdown_file: str | None, sarif_file: str | None, csv_file: str | None,
         sarif_level: str, sarif_max: int, show_plan: bool, arch: tuple[str, ...],
         rocm: str | None, fail_on: str | None, jobs: int | None, include_vendored: bool | None,
         exclude: tuple[str, ...], max_file_size: int | None, no_cache: bool, hipify_path: str | None,
         no_hipify: bool, hipify_warnings: bool, precise: bool, compile_commands: str | None,
         cuda_path: str | None, rules_dir: Path | None, timing: bool) -> None:
    """Scan PATHS (default: .) and report every CUDA tie with its ROCm equivalent."""
    from migrate import cache, portfolio, reportcache
    from migrate import settings as config
    from migrate.render import renderer

    targets = list(paths) or [Path(".")]
    arch = tuple(a for item in arch for a in item.split(",") if a)
    extra = {"json": json_file, "html": html_file, "markdown": markdown_file, "sarif": sarif_file, "csv": csv_file}
    if outputs and len(outputs) != len(formats):
        raise UsageError("give one -o/--output per --format")
    jobs_out = list(zip(formats, outputs, strict=False)) if outputs else [(f, "-") for f in formats]
    jobs_out += [(name, path) for name, path in extra.items() if path]
    if not jobs_out:
        jobs_out = [("terminal", "-")]
    overrides = {
        "arch": arch, "rocm": rocm, "fail_on": fail_on, "jobs": jobs, "exclude": exclude,
        "include_vendored": include_vendored, "max_file_size": max_file_size,
        "cache_dir": None if no_cache else cache.default_dir(),
        "hipify": hipify_path, "use_hipify": False if no_hipify else None,
        "hipify_warnings": True if hipify_warnings else None,
        "precise": True if precise else None, "compile_commands": compile_commands, "cuda_path": cuda_path,
        "timing": True if timing else None,
    }
    try:  # a portfolio (several folders): each folder's own configuration file, the command line on top
        per_root = [(t, config.load(t.resolve(), overrides)) for t in targets] if portfolio.is_portfolio(targets) else []
        settings = per_root[0][1] if per_root else config.load(targets[0].resolve(), overrides)
    except config.SettingsError as exc:
        raise UsageError(str(exc)) from None
    from migrate.rulebase import targets as gpus

    try:
        gpus.load().resolve(settings.arch, settings.rocm)
    except gpus.TargetError as exc:
        raise UsageError(str(exc)) from None
    for warning in dict.fromkeys(w for s in [s for _, s in per_root] or [settings] for w in s.warnings):
        click.echo(f"rocm-migrate: warning: {terminal(warning)}", err=True)
    default_sarif = (sarif_level, sarif_max) == ("minor-adaptation", 5000)  # the report cache renders with defaults
    if not per_root and default_sarif and reportcache.applies(settings, [name for name, _ in jobs_out]):
        _scan_cached(targets, settings, rules_dir, jobs_out)
        return
    rules = _load_rules(rules_dir)
    with _progress() as progress:
        try:
            from migrate import pipeline as scanning

            report = portfolio.run(per_root, rules, progress) if per_root else scanning.run(targets, settings, rules, progress)
        except portfolio.PortfolioError as exc:
            raise UsageError(str(exc)) from None
    for name, destination in jobs_out:
        render = renderer(name)
        if name == "sarif":
            render = functools.partial(render, min_class=sarif_level, limit=sarif_max)
        elif name == "terminal" and show_plan:
            render = functools.partial(render, plan=True)
        color = name == "terminal" and destination == "-" and sys.stdout.isatty()
        if name == "json":  # written as it is rendered, the findings one by one
            from migrate.render import json_report

            _write(json_report.chunks(report), destination)
            continue
        _write(render(report, color=True) if color else render(report), destination)
    if portfolio.reaches_fail_on(report, [s.fail_on for _, s in per_root] or [settings.fail_on]):
        sys.exit(1)


def _scan_cached(targets: list[Path], settings: Settings, rules_dir: Path | None,
                 jobs_out: list[tuple[str, str]]) -> None:
    """A scan whose reports may come from the report cache (migrate.reportcache)."""
    from migrate import reportcache
    from migrate.model import class_rank

    with _progress() as progress:
        done = reportcache.scan(targets, settings, rules_dir, lambda: _load_rules(rules_dir),
                                [name for name, _ in jobs_out], progress)
    for name, destination in jobs_out:
        _write(done.texts[name], destination)
    if settings.fail_on and class_rank(done.migration_class) >= class_rank(settings.fail_on):
        sys.exit(1)


@contextlib.contextmanager
def _progress() -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr for interactive runs; nothing when stderr is not a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("extracting", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def _write(text: str | Iterable[str], destination: str) -> None:
    """Write a report, given whole or in pieces (written as they come)."""
    parts = (unicode_text(part) for part in ([text] if isinstance(text, str) else text))
    if destination == "-":
        for part in parts:
            click.echo(part, nl=False)
        return
    try:
        with open(destination, "w", encoding="utf-8") as out:
            for part in parts:
                out.write(part)
    except OSError as exc:
        raise UsageError(f"cannot write {destination}: {exc.strerror or exc}") from None


@cli.command("rules")
@click.option("--family", type=click.Choice(sorted(set(FAMILIES.values()))), help="Only this family.")
@click.option("--class", "class_", type=click.Choice(CLASSES), help="Only rules of this class.")
@click.option("--rules-dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
def list_rules(family: str | None, class_: str | None, rules_dir: Path | None) -> None:
    """List the rules: id, name, class and title."""
    from migrate.rulebase.docs import family as family_of

    for rule in _load_rules(rules_dir).rules:
        if (family is None or family_of(rule) == family) and (class_ is None or rule.migration_class == class_):
            click.echo(f"{rule.id:<9} {rule.name:<48} {rule.migration_class:<19} {rule.title}")


@cli.command()
@click.argument("rule")
@click.option("--rules-dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
def explain(rule: str, rules_dir: Path | None) -> None:
    """Show one rule (by id or name)."""
    from migrate.rulebase.docs import terminal

    found = _load_rules(rules_dir).get(rule)
    if found is None:
        raise UsageError(f"no rule with id or name {rule!r} (see 'rocm-migrate rules')")
    click.echo(terminal(found))


def main(argv: list[str] | None = None) -> int:
    try:
        cli.main(args=argv, prog_name="rocm-migrate", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except UsageError as exc:
        exc.show()
        return exc.exit_code
    except click.ClickException as exc:  # usage errors
        exc.show()
        return 2
    except click.exceptions.Abort:
        return 130
    except Exception as exc:
        return internal_error(exc)
    return 0


INTERNAL_ERROR = 3
TRACEBACK_VARIABLE = "ROCM_MIGRATE_TRACEBACK"


def internal_error(exc: BaseException) -> int:
    """One line on stderr (the traceback too when $ROCM_MIGRATE_TRACEBACK is set) and exit code 3."""
    import os
    import traceback

    if os.environ.get(TRACEBACK_VARIABLE):
        click.echo(terminal_lines("".join(traceback.format_exception(exc))), err=True, nl=False)
    message = " ".join(str(exc).split())[:300]
    click.echo(f"rocm-migrate: internal error: {type(exc).__name__}: {terminal(message)} (a bug in rocm-migrate: "
               f"please report it; set {TRACEBACK_VARIABLE}=1 for the traceback)", err=True)
    return INTERNAL_ERROR
