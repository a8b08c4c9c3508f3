#!/usr/bin/env python3
"""First scans (an empty cache directory) of one tree by several checkouts of the code, alternated round by round:
wall time and CPU time (user+sys of the scan's whole process tree, which a shared machine's load inflates far less).

    python benchmarks/first_scan_cpu.py TREE --code DIR [--code DIR ...] [--repeat 3] [--pin 0,1] [--site DIR]

Each DIR is a checkout (or `git archive`) of the code with its migrate/, rules/ and templates/; each runs once
first to cache its bytecode (in a folder of its own). Prints every run, then the medians per code and --jobs
(default and 1), with the JSON report's size (the reports of equal code are the same size)."""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def one(code: Path, tree: Path, jobs: list[str], pin: str | None, site: str) -> tuple[float, float, int]:
    import time

    cache = Path(tempfile.mkdtemp(prefix="first-scan-cpu-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=os.pathsep.join(p for p in (str(code), site) if p), ROCM_MIGRATE_CACHE_DIR=str(cache),
               PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / f"first-scan-cpu-pyc-{abs(hash(str(code)))}"))
    command = [sys.executable, "-m", "migrate", "scan", str(tree), "--no-hipify", "-f", "json", "-o", str(cache / "r.json"),
               *jobs]
    if pin:
        command = ["taskset", "-c", pin, *command]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    size = (cache / "r.json").stat().st_size
    shutil.rmtree(cache)
    return wall, cpu, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--code", type=Path, action="append", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pin", help="taskset -c CPUS for every scan")
    parser.add_argument("--site", default="", help="a folder of installed dependencies to put on PYTHONPATH")
    args = parser.parse_args()
    codes = [c.resolve() for c in args.code]
    for code in codes:
        one(code, args.tree, ["--jobs", "1"], args.pin, args.site)
    runs: dict[tuple[Path, str], list[tuple[float, float, int]]] = {}
    for round_ in range(args.repeat):
        for jobs in ([], ["--jobs", "1"]):
            for code in codes:
                wall, cpu, size = one(code, args.tree, jobs, args.pin, args.site)
                runs.setdefault((code, " ".join(jobs) or "default"), []).append((wall, cpu, size))
                print(f"round {round_} {code} jobs={' '.join(jobs) or 'default'}: wall {wall:.2f} s, cpu {cpu:.2f} s, "
                      f"json {size} B, load {os.getloadavg()[0]:.1f}", flush=True)
    print("medians:")
    for (code, jobs), rows in runs.items():
        print(f"  {code} jobs={jobs}: wall {statistics.median(r[0] for r in rows):.2f} s, "
              f"cpu {statistics.median(r[1] for r in rows):.2f} s ({len(rows)} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
