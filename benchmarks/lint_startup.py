#!/usr/bin/env python3
"""Wall time of `rocm-migrate lint` on one small file, each run a new process.

    python benchmarks/lint_startup.py [--repeat 7] [--importtime] [--instructions] [--before CHECKOUT]

Rows: the interpreter alone, the CLI's --version, lint with an empty cache (rules parsed,
validated and precompiled), lint with the rule cache warm (the pre-commit case; the file's
text changes between runs so it is extracted every time), lint --no-cache, and a scan of
the same file for comparison. --importtime adds the slowest imports of a warm lint run
(`python -X importtime`). --instructions adds the instructions each run executes (valgrind's
cachegrind, where installed): a count that does not depend on the machine's load, for comparing
two versions of the code on a busy machine (`--before`: an older checkout, alternated with this one).
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import instructions as cachegrind

KERNEL = """#include <cuda_runtime.h>
__global__ void reduce(float* v, int n) {{
  float x = v[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffff, x, offset);
  if (threadIdx.x == 0) v[{run}] = x;
}}
"""


RACY_SECONDS = 3.5  # migrate.scan.replay.RACY_NS and a margin


def timed(args: list[str], env: dict[str, str]) -> float:
    return timed_cpu(args, env)[0]


def timed_cpu(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the process and its children)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # `python -m` puts the working directory first on sys.path: run in the folder of the code timed
    subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   cwd=env["PYTHONPATH"].split(os.pathsep)[0])
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime


def measure(name: str, repeat: int, make_args, env: dict[str, str], before=None) -> None:  # type: ignore[no-untyped-def]
    times, cpu = [], []
    for run in range(repeat):
        if before:
            before(run)
        wall, used = timed_cpu(make_args(), env)
        times.append(wall)
        cpu.append(used)
    print(f"{name:<44} min {min(times) * 1000:7.1f} ms   median {statistics.median(times) * 1000:7.1f} ms   "
          f"CPU median {statistics.median(cpu) * 1000:7.1f} ms")


def alternated(envs: dict[str, dict[str, str]], repeat: int, args: list[str],
               before: Callable[[int], None]) -> None:
    """The same command under each environment, one run of each in turn (load drifts alike for all)."""
    times: dict[str, list[float]] = {name: [] for name in envs}
    cpu: dict[str, list[float]] = {name: [] for name in envs}
    for run in range(repeat):
        for name, env in envs.items():
            before(run)
            wall, used = timed_cpu(args, env)
            times[name].append(wall)
            cpu[name].append(used)
    for name in envs:
        print(f"{name:<44} min {min(times[name]) * 1000:7.1f} ms   median "
              f"{statistics.median(times[name]) * 1000:7.1f} ms   CPU median {statistics.median(cpu[name]) * 1000:7.1f} ms"
              f"   (alternated)")


def instructions(args: list[str], env: dict[str, str]) -> int | None:
    """Instructions executed by one run of `args`, in the folder of the code measured (see timed_cpu)."""
    return cachegrind(args, env=env, cwd=env["PYTHONPATH"].split(os.pathsep)[0])


def importtime(source: Path, env: dict[str, str], top: int = 15) -> None:
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "migrate", "lint", str(source)],
                         env=env, capture_output=True, text=True, check=False,
                         cwd=env["PYTHONPATH"].split(os.pathsep)[0]).stderr
    rows = []
    for line in out.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            rows.append((int(cumulative), name.rstrip()))
    print(f"\nslowest imports of a warm lint run (cumulative, top {top}):")
    for cumulative, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative / 1000:7.1f} ms  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--importtime", action="store_true")
    parser.add_argument("--instructions", action="store_true", help="instructions per run (valgrind)")
    parser.add_argument("--before", type=Path, help="a checkout of other code (an older commit): its warm lint too")
    args = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "reduce.cu"
        source.write_text(KERNEL.format(run=0))
        cache = Path(tmp) / "cache"
        path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: bytecode cached
        env.update(ROCM_MIGRATE_CACHE_DIR=str(cache), PYTHONPATH=path,
                   PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / "rocm-migrate-bench-pycache"))
        lint = [sys.executable, "-m", "migrate", "lint", str(source)]

        def fresh_cache(run: int) -> None:
            subprocess.run(["rm", "-rf", str(cache)], check=True)

        def new_text(run: int) -> None:
            source.write_text(KERNEL.format(run=run + 1))

        print(f"python {sys.version.split()[0]}, {args.repeat} runs each, one {len(KERNEL)}-byte .cu file; "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        measure("python -c pass", args.repeat, lambda: [sys.executable, "-c", "pass"], env)
        measure("rocm-migrate --version", args.repeat, lambda: [sys.executable, "-m", "migrate", "--version"], env)
        measure("lint, empty cache (rules validated)", args.repeat, lambda: lint, env, fresh_cache)
        timed(lint, env)
        measure("lint, rule cache warm (pre-commit case)", args.repeat, lambda: lint, env, new_text)
        if args.before:
            before = {**env, "PYTHONPATH": str(args.before.resolve()), "ROCM_MIGRATE_CACHE_DIR": str(cache) + "-before"}
            timed(lint, before)
            alternated({"this code: lint, rule cache warm": env, "--before's code: lint, rule cache warm": before},
                       args.repeat, lint, new_text)
        # the same file again, nothing changed: served from the last run (migrate.scan.replay), once the
        # file and its folder are older than the racy-stamp margin
        source.write_text(KERNEL.format(run=0))
        time.sleep(RACY_SECONDS)
        timed(lint, env)
        measure("lint, nothing changed (replayed)", args.repeat, lambda: lint, env)
        measure("lint --no-cache", args.repeat, lambda: [*lint, "--no-cache"], env)
        measure("scan -f json --no-cache (for comparison)", args.repeat,
                lambda: [sys.executable, "-m", "migrate", "scan", str(source), "-f", "json", "--no-cache"], env)
        if args.instructions:
            print("\ninstructions executed (cachegrind; independent of the load):")
            rows = {"python -c pass": ([sys.executable, "-c", "pass"], env), "lint, rule cache warm": (lint, env)}
            if args.before:
                rows["--before's code: lint, rule cache warm"] = (lint, before)
            for name, (command, where) in rows.items():
                new_text(args.repeat + len(name))
                count = instructions(command, where)
                print(f"  {name:<42} {'valgrind not found' if count is None else f'{count / 1e6:8.1f} M'}")
            # valgrind's own variables are in the environment the key covers: its first run stores
            source.write_text(KERNEL.format(run=0))
            time.sleep(RACY_SECONDS)
            for name in ("lint, changed file (stored for the next)", "lint, nothing changed (replayed)"):
                count = instructions(lint, env)
                print(f"  {name:<42} {'valgrind not found' if count is None else f'{count / 1e6:8.1f} M'}")
        if args.importtime:
            importtime(source, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
