#!/usr/bin/env python3
"""A repository of a million lines and more, built from a fetched project, and the cold scan of it.

    python benchmarks/big_repo.py SOURCE OUT [--lines 1200000] [--repeat 3] [--jobs N]

SOURCE is a checkout of a real project (NVIDIA/cuda-samples, say): its scanned files are
copied into OUT/copy-N/ until OUT holds at least --lines lines; each copy's C/C++/CUDA files
get a one-line comment naming the copy, so no two files have the same content and nothing is
served twice from one cache row. Nothing of it belongs in the repository. Then OUT is scanned
cold (`--no-cache`, `--no-hipify`, JSON to a temporary file) --repeat times, and the wall time
and peak memory (resident memory of the scan and its workers together) are printed.
"""
from __future__ import annotations

import argparse
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--lines", type=int, default=1_200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--keep", action="store_true", help="reuse OUT if it exists")
    args = parser.parse_args()
    if not (args.keep and args.out.exists()):
        files, lines = build(args.source.resolve(), args.out, args.lines)
        print(f"built {args.out}: {files} files, {lines} lines")
    command = [sys.executable, "-m", "migrate", "scan", str(args.out), "--no-cache", "--no-hipify", "-f", "json"]
    if args.jobs:
        command += ["--jobs", str(args.jobs)]
    with tempfile.TemporaryDirectory() as tmp:
        runs = [measure.run([*command, "-o", str(Path(tmp) / "r.json")], sample=True) for _ in range(args.repeat)]
    failed = [r.returncode for r in runs if r.returncode]
    print(f"cold scan: {measure.describe(runs)}")
    print(f"peak memory (scan and workers, summed RSS): median {sorted(r.peak_mb for r in runs)[len(runs) // 2]:.0f} MB, "
          f"max {max(r.peak_mb for r in runs):.0f} MB" + (f"; exit codes {failed}" if failed else ""))
    print(f"peak memory (scan and workers, summed PSS: pages shared after fork counted once): median "
          f"{sorted(r.peak_pss_mb for r in runs)[len(runs) // 2]:.0f} MB, max {max(r.peak_pss_mb for r in runs):.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
