"""rocm-migrate inventory: merge per-repository JSON reports into one inventory, optionally scanning
a list of repositories on Dask first."""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from migrate.cli.errors import UsageError
from migrate.model import CLASSES
from migrate.safetext import terminal


@click.command(epilog="""\b
Examples:
  rocm-migrate inventory --scan repos.txt --out inv/     scan each repository on Dask, then merge
  rocm-migrate inventory reports/*.json --owners owners.csv --out inv/

\b
Exit codes: 0 done, 1 some repositories failed (each recorded with its error; the rest
are in the inventory), 2 usage or input error, 3 internal error.""")
@click.argument("reports", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--scan", "scan_list", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Scan the repositories in this list first (a path or git URL per line, optionally a name).")
@click.option("--out", "-o", "out", type=click.Path(file_okay=False, path_type=Path), default=Path("inventory"),
              show_default=True, help="Folder for repos/*.json, scan-log.jsonl and inventory.{json,csv,html}.")
@click.option("--owners", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="CSV with 'repo' and 'owner' (or 'team') columns.")
@click.option("--scheduler", metavar="tcp://HOST:PORT", help="A running Dask scheduler (default: a LocalCluster).")
@click.option("--workers", type=click.IntRange(min=1), help="LocalCluster worker processes (default: one per core).")
@click.option("--target-arch", "arch", multiple=True, help="GPU architecture(s) to scan for (default gfx942).")
@click.option("--rocm", help="ROCm version to scan for (default: the newest listed, rules/targets/gpus.yaml).")
@click.option("--no-hipify", is_flag=True, help="Do not run hipify-perl in the scans.")
@click.option("--no-cache", is_flag=True, help="Scans neither read nor write the extraction cache.")
@click.option("--rules-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), help="Use these rules.")
@click.option("--repo-timeout", type=click.FloatRange(min=1), default=3600, show_default=True, metavar="SECONDS",
              help="End one repository's scan after this long (recorded as its error).")
@click.option("--repo-memory", type=click.IntRange(min=256), default=8192, show_default=True, metavar="MIB",
              help="End one repository's scan past this much memory (recorded as its error).")
@click.option("-q", "--quiet", is_flag=True, help="No progress or summary lines on stderr.")
def inventory(reports: tuple[Path, ...], scan_list: Path | None, out: Path, owners: Path | None,
              scheduler: str | None, workers: int | None, arch: tuple[str, ...], rocm: str | None,
              no_hipify: bool, no_cache: bool, rules_dir: Path | None, repo_timeout: float, repo_memory: int,
              quiet: bool) -> None:
    """Merge scan reports (files or folders of *.json) into one inventory in --out.

    With --scan LIST, first scan every repository of LIST on Dask (one task per repository; a
    repository whose report in --out/repos matches its commit and the rules version is skipped),
    then merge --out/repos with REPORTS. Exit codes: 0 done, 1 some repository failed to scan,
    2 usage or input error."""
    from migrate.inventory import merge

    started = time.perf_counter()
    failed_scans = 0
    if scan_list is not None:
        failed_scans = _scan(scan_list, out, scheduler, workers, {"arch": tuple(a for i in arch for a in i.split(",") if a),
                                                                  "rocm": rocm, "use_hipify": False if no_hipify else None},
                             rules_dir, not no_cache, limits=(repo_timeout, repo_memory), quiet=quiet)
        reports = (*reports, out / "repos")
    if not reports:
        raise UsageError("give report files or folders, or --scan LIST")
    try:
        records = list(merge.read_reports(reports))
        owner_map = merge.read_owners(owners) if owners else {}
    except merge.InventoryError as exc:
        raise UsageError(str(exc)) from None
    built = merge.build(records, owner_map, _titles(rules_dir))
    _write_outputs(built, out)
    totals = built.totals()
    classes = ", ".join(f"{totals['by_class'][c]['repos']} {c}" for c in CLASSES)
    if not quiet:
        click.echo(f"{totals['repos']} repositories ({classes}, {totals['failed']} failed) -> "
                   f"{out / 'inventory.html'} ({time.perf_counter() - started:.1f} s)", err=True)
    if failed_scans:
        sys.exit(1)


def _scan(scan_list: Path, out: Path, scheduler: str | None, workers: int | None, overrides: dict[str, Any],
          rules_dir: Path | None, use_cache: bool, *, limits: tuple[float, int], quiet: bool) -> int:
    from migrate.inventory import cluster, fanout, repolist
    from migrate.inventory.worker import ScanOptions

    try:
        specs = repolist.read(scan_list)
    except repolist.RepoListError as exc:
        raise UsageError(str(exc)) from None
    options = ScanOptions(overrides={k: v for k, v in overrides.items() if v not in (None, ())},
                          rules_dir=str(rules_dir) if rules_dir else None, use_cache=use_cache,
                          repo_seconds=limits[0], repo_memory_mib=limits[1])
    started = time.perf_counter()
    try:
        tally = fanout.run(specs, out, options, scheduler=scheduler, workers=workers,
                           progress=(lambda *_: None) if quiet else _progress_line)
    except cluster.ClusterError as exc:
        raise UsageError(str(exc)) from None
    wall = time.perf_counter() - started
    peak = max(tally.peak_rss_mb.values(), default=0.0)
    if quiet:
        return tally.counts.get("failed", 0)
    click.echo(f"scanned {tally.total} repositories in {wall:.1f} s: "
               + ", ".join(f"{n} {k}" for k, n in sorted(tally.counts.items()))
               + f"; {tally.total / wall * 60:.1f} repos/min, {tally.lines / wall:,.0f} lines/s, "
               f"peak worker memory {peak:.0f} MiB", err=True)
    return tally.counts.get("failed", 0)


def _progress_line(outcome: dict[str, Any], tally: Any) -> None:
    detail = outcome.get("error") or f"{outcome.get('seconds', 0):.1f} s"
    click.echo(terminal(f"[{tally.done}/{tally.total}] {outcome['name']}: {outcome['status']} ({detail})"), err=True)


def _titles(rules_dir: Path | None) -> dict[str, str]:
    from migrate.rulebase import precompiled
    from migrate.rulebase.load import RuleError
    from migrate.scan import cache

    try:
        return {r.id: r.title for r in precompiled.load(rules_dir, cache.default_dir()).rules}
    except RuleError:
        return {}


def _write_outputs(built: Any, out: Path) -> None:
    from migrate.inventory import html, render

    out.mkdir(parents=True, exist_ok=True)
    for name, text in (("inventory.json", render.render_json(built)), ("inventory.csv", render.render_csv(built)),
                       ("inventory.html", html.render(built))):
        try:
            (out / name).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {out / name}: {exc.strerror or exc}") from None
