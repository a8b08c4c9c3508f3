"""The `lint` command's click declaration: its options and help. The work is cli/lint_run.py's
(click-free), which cli/lint_args.py calls directly for the command lines a pre-commit hook gives."""
from __future__ import annotations

from pathlib import Path

import click

from migrate.cli import outputs
from migrate.cli.lint_run import FORMATS, LINT_CLASSES, LintOptions, run

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
@click.option("--rocm", help="ROCm version to check for (default: the newest listed, rules/targets/gpus.yaml).")
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
    run(LintOptions(files=files, select=select, ignore=ignore, per_file_ignores=per_file_ignores, fail_on=fail_on,
                    arch=arch, rocm=rocm, exclude=exclude, formats=formats, output=output, text_output=text_output,
                    json_output=json_output, sarif_output=sarif_output, statistics=statistics, baseline=baseline,
                    write_baseline=write_baseline, no_cache=no_cache, rules_dir=rules_dir, quiet=quiet,
                    verbose=verbose))
