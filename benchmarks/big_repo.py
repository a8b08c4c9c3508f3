#!/usr/bin/env python3
"""A repository of a million lines and more, built from a fetched project, and the cold scan of it.

    python benchmarks/big_repo.py SOURCE OUT [--lines 1200000] [--repeat 3] [--jobs N]

SOURCE is a checkout of a real project (NVIDIA/cuda-samples, say): its scanned files are
copied into OUT/copy-N/ until OUT holds at least --lines lines; each copy's C/C++/CUDA files
get a one-line comment naming the copy, so no two files have the same content and nothing is
served twice from one cache row. Nothing of it belongs in the repository. Then OUT is scanned
cold (`--no-hipify`, JSON to a temporary file) --repeat times each way of --ways, and the wall time
and peak memory (resident memory of the scan and its workers together) are printed:

    no-cache     `--no-cache`: nothing read from or written to a cache
    first-scan   a user's first scan: the cache on, in a fresh folder each run (ROCM_MIGRATE_CACHE_DIR),
                 so every file's row and the report are written to it
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

import measure

MARKED = frozenset({"cuda", "cpp", "hip"})


def build(source: Path, out: Path, lines: int) -> tuple[int, int]:
    """Fill `out` with copies of `source`'s scanned files; (files, lines) written."""
    from migrate.scan.discover import discover

    found = discover([source], include_vendored=False, exclude=())
    originals = [(f, f.path.read_bytes()) for f in found.files]
    per_copy = sum(data.count(b"\n") + 1 for _, data in originals)
    if not originals or per_copy == 0:
        raise SystemExit(f"{source}: nothing to copy")
    if out.exists():
        shutil.rmtree(out)
    written = total = copy = 0
    while total < lines:
        base = out / f"copy-{copy}"
        for file, data in originals:
            target = base / file.rel
            target.parent.mkdir(parents=True, exist_ok=True)
            mark = f"// copy {copy}\n".encode() if file.kind in MARKED else b""
            target.write_bytes(mark + data)
            written += 1
            total += data.count(b"\n") + 1 + (1 if mark else 0)
        copy += 1
    return written, total


WAYS = ("no-cache", "first-scan")


def _measure(way: str, args: argparse.Namespace) -> None:
    """--repeat scans of OUT one way; a first scan each with a cache folder of its own, fresh."""
    if way not in WAYS:
        raise SystemExit(f"--ways: {way!r} is none of {', '.join(WAYS)}")
    command = [sys.executable, "-m", "migrate", "scan", str(args.out), "--no-hipify", "-f", "json"]
    if way == "no-cache":
        command.append("--no-cache")
    if args.jobs:
        command += ["--jobs", str(args.jobs)]
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            # no-cache: the rule cache as this shell has it (as before); first-scan: nothing cached at all
            env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(Path(tmp) / "cache")} if way == "first-scan" else None
            runs.append(measure.run([*command, "-o", str(Path(tmp) / "r.json")], env=env, sample=True))
    failed = [r.returncode for r in runs if r.returncode]
    print(f"{way}: cold scan: {measure.describe(runs)}")
    print(f"{way}: peak memory (scan and workers, summed RSS): median "
          f"{sorted(r.peak_mb for r in runs)[len(runs) // 2]:.0f} MB, max {max(r.peak_mb for r in runs):.0f} MB"
          + (f"; exit codes {failed}" if failed else ""))
    print(f"{way}: peak memory (scan and workers, summed PSS: pages shared after fork counted once): median "
          f"{sorted(r.peak_pss_mb for r in runs)[len(runs) // 2]:.0f} MB, max {max(r.peak_pss_mb for r in runs):.0f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--lines", type=int, default=1_200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--keep", action="store_true", help="reuse OUT if it exists")
    parser.add_argument("--ways", default="no-cache,first-scan", help="comma-separated: no-cache, first-scan")
    args = parser.parse_args()
    if not (args.keep and args.out.exists()):
        files, lines = build(args.source.resolve(), args.out, args.lines)
        print(f"built {args.out}: {files} files, {lines} lines")
    for way in args.ways.split(","):
        _measure(way, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
