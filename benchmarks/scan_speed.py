#!/usr/bin/env python3
"""Time full scans of a tree, each run a new process around the real CLI (start-up and rule
loading included), JSON to stdout (discarded):

    python benchmarks/scan_speed.py PATH [--repeat 3] [--jobs 1 2] [--only cold first miss warm]

- cold: `--no-cache`, nothing read from or written to any cache;
- first: an empty cache directory each run (the report cache misses, no row is cached);
- miss: the per-file rows and the stat entries are warm, the report cache misses (each run
  gives another `--exclude` pattern that matches nothing: the report's key changes, the rows'
  keys do not);
- warm: the report cache hits.

Prints each configuration's median, every run's time and the load average when it started
(other work on the machine shows there).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure

CONFIGS = ("cold", "first", "miss", "warm")


def command(path: str, jobs: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "migrate", "scan", path, "-f", "json", "--jobs", str(jobs), "-q", *extra]


def runs(config: str, path: str, jobs: int, repeat: int) -> list[measure.Run]:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(cache)}
        if config == "cold":
            return [measure.run(command(path, jobs, "--no-cache"), env=env) for _ in range(repeat)]
        if config == "first":
            out = []
            for _ in range(repeat):
                shutil.rmtree(cache, ignore_errors=True)
                out.append(measure.run(command(path, jobs), env=env))
            return out
        measure.run(command(path, jobs), env=env)  # rows, stat entries and one report stored
        if config == "miss":
            return [measure.run(command(path, jobs, "--exclude", f"no-such-file-{n}.bench"), env=env)
                    for n in range(repeat)]
        return [measure.run(command(path, jobs), env=env) for _ in range(repeat)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--only", nargs="+", choices=CONFIGS, default=list(CONFIGS))
    args = parser.parse_args()
    print(f"{args.path}: {os.cpu_count()} CPUs, {args.repeat} runs each")
    for jobs in args.jobs:
        for config in args.only:
            found = runs(config, args.path, jobs, args.repeat)
            failed = [r.returncode for r in found if r.returncode not in (0, 1)]
            print(f"jobs={jobs} {config:5}: {measure.describe(found)}" + (f" FAILED {failed}" if failed else ""),
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
