"""`rocm-migrate check PATH --out DIR`: convert, compile the converted copy with hip-clang, report.

Heavy imports stay inside the command so that importing this module costs nothing."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from migrate.cli import outputs
from migrate.cli.errors import UsageError
from migrate.safetext import terminal

FORMATS = ("text", "json", "html", "markdown", "sarif", "csv")
EPILOG = """\b
Examples:
  rocm-migrate check . --out ported/                        convert, compile for gfx942, summary
  rocm-migrate check . --out ported/ --target-arch gfx90a,gfx942 -f json -o check.json
  rocm-migrate check . --out ported/ --hip-compiler /opt/rocm/bin/hipcc

\b
The compiler: --hip-compiler, else $ROCM_PATH/bin/hipcc, hipcc or amdclang++ on PATH, else the
pip-only toolchain of the `check` extra (front end only).
Exit codes: 0 done, 2 usage or input error (no hipify-perl, no HIP compiler), 3 internal error."""


@click.command("check", epilog=EPILOG)
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", "out", metavar="DIR", type=click.Path(path_type=Path), required=True,
              help="Write the converted copy here (as convert does).")
@click.option("--force", is_flag=True, help="Write into DIR even if it is not empty.")
@outputs.options(FORMATS)
@click.option("--target-arch", "arch", multiple=True,
              help="GPU architecture(s) to compile for, repeatable or comma-separated  [default: gfx942]")
@click.option("--rocm", help="ROCm release to assess for  [default: the newest listed, rules/targets/gpus.yaml]")
@click.option("--hip-compiler", type=click.Path(path_type=Path),
              help="hipcc, amdclang++ or a clang with HIP support; 'pip' for the [check] extra's toolchain.")
@click.option("--hipify", "hipify_path", type=click.Path(path_type=Path),
              help="The hipify-perl to run (default: $HIPIFY_PERL, $ROCM_PATH/bin, /opt/rocm/bin, PATH).")
@click.option("--compile-commands", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="compile_commands.json of the source tree (default: the tree's own, if any).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Compiler and hipify-perl processes in parallel.")
@click.option("--exclude", multiple=True, help="Gitignore-style pattern to leave out of the copy's conversion (repeatable).")
@click.option("--rules-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), help="Use these rules.")
@click.option("-q", "--quiet", is_flag=True, help="No notes on stderr.")
def check(path: Path, out: Path, force: bool, formats: tuple[str, ...], output: str | None, rules_dir: Path | None,
          quiet: bool, **given: Any) -> None:
    """Convert PATH into DIR, compile each translation unit of the copy with hip-clang, and report
    which compile after hipify alone and what every compiler error means for the port."""
    extra = {name: given.pop(f"{name}_output") for name in FORMATS}
    jobs_out = outputs.destinations(formats, output, extra)
    from migrate.cli.rules import load_rules
    from migrate.hipclang import check as checking
    from migrate.hipclang import toolchain as hip

    destination, tool, settings = _prepare(path, out, force, given)
    compiler = hip.find(given["hip_compiler"])
    if isinstance(compiler, str):
        raise UsageError(compiler)
    checked = checking.run(path, destination, tool=tool, compiler=compiler, settings=settings,
                           rules=load_rules(rules_dir), database=given["compile_commands"])
    from migrate.cli.scan import _render

    for name, where in jobs_out:
        outputs.write(_render(checked.report, name, where, sarif_level="minor-adaptation", sarif_max=5000,
                              show_plan=False, show_info=False), where)
    if not quiet:
        outputs.notes(checked.report.notes, verbose=False)
        click.echo(f"rocm-migrate: converted into {terminal(str(destination))}; {compiler.describe()}", err=True)


def _prepare(path: Path, out: Path, force: bool, given: dict[str, Any]) -> tuple[Path, Any, Any]:
    from migrate import settings as config
    from migrate.hipify import convert as converting
    from migrate.hipify import tool as hipify
    from migrate.rulebase import targets as gpus
    from migrate.scan import cache

    overrides = {"arch": tuple(a for item in given["arch"] for a in item.split(",") if a), "rocm": given["rocm"],
                 "jobs": given["jobs"], "cache_dir": cache.default_dir(), "exclude": given["exclude"]}
    try:
        destination = converting.check_paths(path, out, force=force)
        tool = hipify.load(given["hipify_path"])
        settings = config.load(path.resolve(), overrides)
        gpus.load().check_release(settings.rocm)
        gpus.load().resolve(settings.arch, settings.rocm)
    except hipify.HipifyNotFound as exc:
        raise UsageError(f"{exc}; check converts first and does not fake a conversion") from None
    except (converting.ConvertError, hipify.HipifyError, config.SettingsError, gpus.TargetError) as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    return destination, tool, settings
