"""`rocm-migrate convert PATH --out DIR`: the click command (registered by migrate.cli).

Heavy imports stay inside the command so that importing this module costs nothing."""
from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click

from migrate.cli.errors import UsageError
from migrate.safetext import terminal

EPILOG = """\b
Examples:
  rocm-migrate convert . --out ../ported        copy, hipify, diff and the hand work left
  rocm-migrate convert . --in-place --yes       convert the tree itself (asks without --yes)

\b
Exit codes: 0 done, 2 usage or input error (hipify-perl not installed, output folder
inside the source or not empty), 3 internal error."""


@click.command("convert", epilog=EPILOG)
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", "out", metavar="DIR", type=click.Path(path_type=Path), help="Write the converted copy here.")
@click.option("--force", is_flag=True, help="Write into DIR even if it is not empty.")
@click.option("--in-place", "in_place", is_flag=True, help="Convert PATH itself (asks first).")
@click.option("--yes", "-y", is_flag=True, help="Do not ask before converting in place.")
@click.option("--hipify", "hipify_path", type=click.Path(path_type=Path),
              help="The hipify-perl to run (default: $HIPIFY_PERL, $ROCM_PATH/bin, /opt/rocm/bin, PATH).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="hipify-perl processes in parallel.")
@click.option("--hipify-warnings", is_flag=True, help="Let hipify-perl report its warnings (slow with old versions).")
@click.option("--rules-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), help="Use these rules.")
@click.option("-q", "--quiet", is_flag=True, help="No progress, warnings or summary on stderr.")
def convert(path: Path, out: Path | None, force: bool, in_place: bool, yes: bool, hipify_path: Path | None,
            jobs: int | None, hipify_warnings: bool, rules_dir: Path | None, quiet: bool) -> None:
    """Copy PATH to DIR, run hipify-perl on its CUDA/C++ files, and write a diff and the hand work left."""
    from migrate import settings as config
    from migrate.hipify import convert as converting
    from migrate.hipify import tool as hipify
    from migrate.rulebase import precompiled
    from migrate.rulebase.load import RuleError
    from migrate.scan import cache

    try:
        destination = converting.check_paths(path, out, force=force, in_place=in_place)
        tool = hipify.load(hipify_path)
        settings = config.load(path.resolve(), {"jobs": jobs, "cache_dir": cache.default_dir(),
                                                "hipify_warnings": True if hipify_warnings else None})
        rules = precompiled.load(rules_dir, cache.default_dir())
    except hipify.HipifyNotFound as exc:
        raise UsageError(f"{exc}; convert needs it and does not fake a conversion") from None
    except (converting.ConvertError, hipify.HipifyError, config.SettingsError, RuleError) as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    if in_place and not yes:
        if not sys.stdin.isatty():
            raise UsageError(f"--in-place rewrites the files under {path}: confirm with --yes")
        click.confirm(f"Rewrite the CUDA/C++ files under {path} in place with hipify-perl?", abort=True, err=True)
    with _progress(quiet) as progress:
        result = converting.run(path, destination, tool, settings, rules, in_place=in_place, progress=progress)
    if quiet:
        return
    click.echo(f"hipify-perl {tool.version or ''} rewrote {len(result.changed)} of {len(result.files)} "
               f"CUDA/C++ files into {destination} in {result.seconds:.1f} s", err=True)
    click.echo(f"diff: {result.diff_path}", err=True)
    todo, review = len(result.todo), len(result.review)
    click.echo(f"hand work left: {todo} finding{'' if todo == 1 else 's'}, {review} hipify "
               f"{'rewrite or warning' if review == 1 else 'rewrites or warnings'} to review, in {result.todo_path}",
               err=True)
    for rel, error in result.failed:
        click.echo(f"rocm-migrate: warning: hipify-perl failed on {terminal(rel)}: {terminal(error.splitlines()[0])}",
                   err=True)


@contextlib.contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr for interactive runs; nothing when stderr is not a terminal or with -q."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("hipify-perl", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
