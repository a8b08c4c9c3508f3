#!/usr/bin/env python3
"""Time full scans of a tree: cold (no cache), warm (cache) and with N jobs.

    python benchmarks/scan_speed.py PATH [--repeat 3] [--jobs 1 2]

Prints files, lines, findings and the best wall time of each configuration, measured
around the real CLI in a subprocess (start-up and rule loading included).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time


def run(path: str, jobs: int, cache_dir: str | None) -> tuple[float, dict]:
    args = [sys.executable, "-m", "migrate", "scan", path, "-f", "json", "--jobs", str(jobs)]
    env_cache = {"ROCM_MIGRATE_CACHE_DIR": cache_dir} if cache_dir else {}
    if cache_dir is None:
        args.append("--no-cache")
    import os

    started = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True, check=True, env={**os.environ, **env_cache})
    return time.perf_counter() - started, json.loads(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    for jobs in args.jobs:
        cold = min(run(args.path, jobs, None)[0] for _ in range(args.repeat))
        with tempfile.TemporaryDirectory() as cache:
            run(args.path, jobs, cache)
            warm_runs = [run(args.path, jobs, cache) for _ in range(args.repeat)]
        report = warm_runs[0][1]["summary"]
        warm = min(t for t, _ in warm_runs)
        print(f"jobs={jobs}: {report['files_scanned']} files, {report['lines']} lines, "
              f"{report['findings']} findings; cold {cold:.2f}s, warm (cached) {warm:.2f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
