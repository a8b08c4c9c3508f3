#!/usr/bin/env python3
"""Check that the fast paths write the same bytes as the slow one, on real trees.

    python benchmarks/same_output.py TREE... [--against GIT-REF] [--no-cli]

For each tree: the slow path (every fact kept, as a hipify-perl pass needs; one process; no
cache), a parallel cold scan into a fresh cache, and the warm rescan from that cache render
JSON, SARIF, CSV and Markdown; all must be byte-identical. With --against, the command line of
an older commit (exported with `git archive` into a temporary folder) writes the same formats
for comparison; only the timing lines ("seconds") are left out of that comparison, since they
differ from run to run. Unless --no-cli, this tree's command line also writes every format cold
(`--no-cache`, default jobs), cold with `--jobs 1`, into a fresh cache (the report cache stores)
and warm (the report cache's hit; HTML, which it does not keep, from the per-file cache): all
byte-identical but for the time (the text's one line, the HTML's "scanned in"). Exits 1 on any difference.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FORMATS = ("json", "sarif", "csv", "markdown")
CLI_FORMATS = ("json", "sarif", "csv")


def rendered(tree: Path, *, jobs: int, cache: Path | None, full: bool) -> dict[str, str]:
    from migrate.cli.rules import load_rules
    from migrate.render import renderer
    from migrate.scan import analyse, pipeline, project
    from migrate.settings import Settings

    real = analyse.analyse_all
    project.analyse_all = lambda *a, **k: real(*a, **{**k, "keep_extractions": full})  # type: ignore[assignment]
    try:
        report = pipeline.run([tree], Settings(jobs=jobs, cache_dir=cache, use_hipify=False), load_rules(None))
    finally:
        project.analyse_all = real  # type: ignore[assignment]
    report = dataclasses.replace(report, seconds=0.0, scanned_at="")
    return {name: renderer(name)(report) for name in FORMATS}


def cli_outputs(code: Path, tree: Path, out: Path) -> dict[str, str]:
    args = [sys.executable, "-m", "migrate", "scan", str(tree), "--no-cache", "--no-hipify", "-q"]
    for n, name in enumerate(CLI_FORMATS):  # one --format; every further one as --FORMAT-output
        args += ["-f", name, "-o", str(out / f"r.{name}")] if n == 0 else [f"--{name}-output", str(out / f"r.{name}")]
    env = {**os.environ, "PYTHONPATH": str(code), "ROCM_MIGRATE_CACHE_DIR": str(out / "cache")}
    subprocess.run(args, env=env, cwd=code, check=True, stdout=subprocess.DEVNULL)
    return {name: _untimed((out / f"r.{name}").read_text()) for name in CLI_FORMATS}


CACHED_FORMATS = ("json", "sarif", "csv", "markdown", "text")  # what the report cache keeps


def cli_paths(tree: Path, out: Path) -> dict[str, dict[str, bytes]]:
    """Every format's bytes from the CLI: cold, cold with --jobs 1, stored into a fresh cache, warm."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ROCM_MIGRATE_CACHE_DIR": str(out / "cache")}
    runs: dict[str, dict[str, bytes]] = {}
    for run, extra in (("cold", ["--no-cache"]), ("cold --jobs 1", ["--no-cache", "--jobs", "1"]), ("stored", []),
                       ("warm", [])):
        folder = out / run.replace(" ", "_")
        folder.mkdir()
        cached = ["-f", "json", "-o", str(folder / "r.json")]
        for name in CACHED_FORMATS[1:]:
            cached += [f"--{name}-output", str(folder / f"r.{name}")]
        for args in (cached, ["-f", "html", "-o", str(folder / "r.html")]):
            subprocess.run([sys.executable, "-m", "migrate", "scan", str(tree), "--no-hipify", "-q", *args, *extra],
                           env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        runs[run] = {p.suffix[1:]: p.read_bytes() for p in sorted(folder.iterdir())}
        runs[run]["text"] = b"\n".join(line for line in runs[run]["text"].split(b"\n") if not line.startswith(b"Scanned "))
        runs[run]["html"] = re.sub(rb"scanned in [0-9.]+ s", b"scanned in - s", runs[run]["html"])  # its one time
    return runs


def _untimed(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if '"seconds":' not in line and '"scanned_at":' not in line)


def export(ref: str, into: Path) -> Path:
    archive = into / "code.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), ref], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "code", filter="data")
    return into / "code"


def _compare(title: str, outputs: Mapping[str, str | bytes], reference: Mapping[str, str | bytes]) -> int:
    """Print whether each format's output equals the reference's; the number that differ."""
    differ = [name for name in reference if outputs[name] != reference[name]]
    sizes = ", ".join(f"{name} {len(text.encode() if isinstance(text, str) else text)} B" for name, text in reference.items())
    print(f"{title}: " + (f"DIFFERENT in {differ}" if differ else f"byte-identical ({sizes})"))
    return len(differ)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--against", metavar="GIT-REF", help="also compare with this commit's command line")
    parser.add_argument("--no-cli", action="store_true", help="leave out the command line's cold/stored/warm check")
    args = parser.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        old = export(args.against, Path(tmp)) if args.against else None
        for n, tree in enumerate(t.resolve() for t in args.trees):
            slow = rendered(tree, jobs=1, cache=None, full=True)
            cache = Path(tmp) / f"cache-{n}"
            paths = {"parallel cold": rendered(tree, jobs=os.cpu_count() or 1, cache=cache, full=False),
                     "warm": rendered(tree, jobs=os.cpu_count() or 1, cache=cache, full=False)}
            if old is not None:
                out = Path(tmp) / f"old-{n}"
                out.mkdir()
                new_out = Path(tmp) / f"new-{n}"
                new_out.mkdir()
                before, now = cli_outputs(old, tree, out), cli_outputs(ROOT, tree, new_out)
                same = [name for name in CLI_FORMATS if before[name] == now[name]]
                print(f"{tree.name}: {args.against} vs this tree's CLI: same {same}, "
                      f"different {[n for n in CLI_FORMATS if n not in same]}")
                failures += len(CLI_FORMATS) - len(same)
            if not args.no_cli:
                out = Path(tmp) / f"cli-{n}"
                out.mkdir()
                runs = cli_paths(tree, out)
                first = runs["cold"]
                for label, outputs in runs.items():
                    failures += _compare(f"{tree.name}: CLI {label} vs CLI cold", outputs, first)
            for label, outputs in paths.items():
                failures += _compare(f"{tree.name}: {label} vs slow path", outputs, slow)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
