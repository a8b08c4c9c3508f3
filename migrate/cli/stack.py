"""`rocm-migrate stack [PATH]`: the pinned stack against the ROCm compatibility matrix, per target.

Heavy imports stay inside the command so that importing this module costs nothing."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from migrate.cli import outputs
from migrate.cli.errors import UsageError
from migrate.vocabulary import C_SOURCE_KINDS


def _split(items: tuple[str, ...]) -> list[str]:
    return [part.strip() for item in items for part in item.split(",") if part.strip()]


FORMATS = ("text", "json", "markdown")
EPILOG = """\b
Examples:
  rocm-migrate stack                                  the tree under ., newest release per GPU
  rocm-migrate stack . --rocm 7.2,7.0 --target-arch gfx90a,gfx942
  rocm-migrate stack . -f json -o stack.json --markdown-output stack.md

\b
Exit codes: 0 done, 2 usage or input error, 3 internal error."""


@click.command("stack", epilog=EPILOG)
@click.argument("path", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--rocm", multiple=True, help="ROCm release(s), comma-separated or repeated (default: the newest "
              "release that supports each GPU).")
@click.option("--target-arch", "arch", multiple=True, help="GPU architecture(s), comma-separated or repeated "
              "(default gfx942).")
@outputs.options(FORMATS)
@click.option("--details/--no-details", default=None, help="One table per target (default: only for a single target).")
@click.option("--exclude", multiple=True, help="Gitignore-style pattern to leave out (repeatable).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the extraction cache, nor replay an earlier run.")
@click.option("-q", "--quiet", is_flag=True, help="No summary line on stderr.")
def stack(path: Path | None, rocm: tuple[str, ...], arch: tuple[str, ...], formats: tuple[str, ...],
          output: str | None, details: bool | None, exclude: tuple[str, ...], no_cache: bool, quiet: bool,
          **extra: str | None) -> None:
    """Check PATH's pinned frameworks, Python, OS and images against ROCm's compatibility matrix."""
    from migrate import settings as config
    from migrate.scan import cache
    from migrate.stack import matrix as compat

    jobs_out = outputs.destinations(formats, output, {name: extra[f"{name}_output"] for name in FORMATS})
    root = path or Path(".")
    table = compat.load()
    releases = _split(rocm)
    unknown = [r for r in releases if table.release(r) is None]
    if unknown:
        known = ", ".join(v for r in table.releases for v in r.versions)
        raise UsageError(f"ROCm {', '.join(unknown)} not in the compatibility matrix (known: {known})")
    try:
        settings = config.load(root.resolve(), {"exclude": exclude, "use_hipify": False,
                                                "cache_dir": None if no_cache else cache.default_dir()})
    except config.SettingsError as exc:
        raise UsageError(str(exc)) from None
    gpus = _split(arch) or list(settings.arch)
    _check_archs(gpus)
    block = _assess(root, settings, table, releases, gpus)
    for name, destination in jobs_out:
        outputs.write(_render(block, name, len(block["targets"]) == 1 if details is None else details), destination)
    if not quiet:
        pins, targets = len(block.get("pins", [])), len(block["targets"])
        click.echo(f"rocm-migrate: stack: {pins} pin{'s' if pins != 1 else ''} checked against "
                   f"{targets} target{'s' if targets != 1 else ''}", err=True)


def _check_archs(gpus: list[str]) -> None:
    from migrate.rulebase import targets as catalogue

    known = catalogue.load()
    for gpu in gpus:
        try:
            known.resolve((gpu,), "99.0")
        except catalogue.TargetError as exc:
            raise UsageError(str(exc)) from None


def _assess(root: Path, settings: Any, table: Any, releases: list[str], gpus: list[str]) -> dict[str, Any]:
    from migrate.cli.rules import load_rules
    from migrate.extract.run import extract_all, extracted
    from migrate.scan.cache import Cache
    from migrate.scan.discover import discover
    from migrate.scan.match import match_targets
    from migrate.stack import assess

    found = discover([root], include_vendored=settings.include_vendored, exclude=settings.exclude)
    # pins, images and Python requirements come from manifests, build and container files: the stack
    # never reads C/C++/CUDA sources, the slow part of a scan
    files = [f for f in found.files if f.kind not in C_SOURCE_KINDS]
    scanned = extracted(extract_all(files, max_file_size=settings.max_file_size,
                                    cache=Cache(settings.cache_dir), jobs=settings.jobs))
    findings = match_targets([(f.rel, e) for f, e in scanned], load_rules(None), rocm=table.releases[0].version,
                             archs=gpus)
    report = assess.assess(table, {f.rel: e for f, e in scanned}, [f for f, _ in scanned], rocm=releases,
                           arch=gpus, findings=findings)
    return report.to_json()


def _render(block: dict[str, Any], fmt: str, details: bool) -> str:
    """`fmt` is one of FORMATS ("terminal" is read as "text" by the outputs)."""
    if fmt == "json":
        return json.dumps(block, indent=2, ensure_ascii=False) + "\n"
    from migrate.render import stack_view  # rich: not for JSON

    if fmt == "markdown":
        return stack_view.markdown(block)
    return stack_view.terminal(block, detail=details)
