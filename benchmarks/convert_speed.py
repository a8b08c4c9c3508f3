#!/usr/bin/env python3
"""`rocm-migrate convert` against one hipify-perl run over the same files, measured alternately.

    python benchmarks/convert_speed.py PATH --hipify PATH [--repeat 3]

Each round: `hipify-perl -quiet-warnings FILE...` in one process over the C/C++/CUDA files
convert gives it (output discarded), then `rocm-migrate convert PATH --out TMP` with the same
hipify-perl (its default: -quiet-warnings, one process per share of the files). Prints both
medians and the difference; the goal is convert <= one hipify-perl run + 2 s.
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


def converted_files(root: Path) -> list[str]:
    from migrate.hipify.convert import HIPIFY_KINDS
    from migrate.scan.discover import discover

    return [f.rel for f in discover([root], include_vendored=False, exclude=()).files if f.kind in HIPIFY_KINDS]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--hipify", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = args.path.resolve()
    files = converted_files(root)
    hipify = ["perl", args.hipify, "-quiet-warnings", *files]
    hip: list[measure.Run] = []
    conv: list[measure.Run] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(Path(tmp) / "cache")}
        out = Path(tmp) / "out"
        command = [sys.executable, "-m", "migrate", "convert", str(root), "--out", str(out), "--hipify", args.hipify]
        measure.run(command, env=env)  # the rule cache, as on any machine after the first run
        for _ in range(args.repeat):
            hip.append(measure.run(hipify, cwd=str(root)))
            shutil.rmtree(out, ignore_errors=True)
            conv.append(measure.run(command, env=env))
    print(f"{root.name}: {len(files)} C/C++/CUDA files; {os.cpu_count()} cores")
    print(f"  hipify-perl -quiet-warnings, one process  {measure.describe(hip)}")
    print(f"  rocm-migrate convert                      {measure.describe(conv)}")
    print(f"  convert - hipify-perl: {measure.median(conv) - measure.median(hip):+.2f} s (goal: <= +2 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
