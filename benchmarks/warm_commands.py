#!/usr/bin/env python3
"""Warm `lint` and `stack` of a tree against a warm `scan` of the same tree (issue 35: lint within
2x of a warm scan, stack no slower than one). Each command runs twice to fill its caches, then the
commands are alternated run by run (the load drifts alike for all) and each one's median wall and
CPU time printed, with the load average at every start:

    python benchmarks/warm_commands.py PATH [--repeat 5] [--commands scan lint stack]

Runs in a new process each time around the real CLI (`python -m migrate` from this checkout, bytecode
cached as an installed tool has it), with a cache directory of its own; no network is used.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "scan": ["scan", "{path}", "-f", "json", "-q"],
    "lint": ["lint", "{path}", "-f", "json", "-q"],
    "stack": ["stack", "{path}", "-f", "json", "-q"],
}


def _instructions(command: list[str], env: dict[str, str]) -> int | None:
    """Instructions of a warm run (valgrind's cachegrind): the second of two, as valgrind's variables
    are in the environment that a stored command's key covers."""
    measure.instructions(command, env=env, cwd=str(ROOT))
    return measure.instructions(command, env=env, cwd=str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--commands", nargs="+", choices=sorted(COMMANDS), default=["scan", "lint", "stack"])
    parser.add_argument("--instructions", action="store_true", help="also each warm command's instructions (valgrind)")
    args = parser.parse_args()
    path = str(args.path.resolve())
    with tempfile.TemporaryDirectory() as tmp:
        path_env = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        env = measure.installed_env({**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(Path(tmp) / "cache"),
                                     "PYTHONPATH": path_env})
        commands = {name: [sys.executable, "-m", "migrate", *(a.format(path=path) for a in COMMANDS[name])]
                    for name in args.commands}
        print(f"{path}: {os.cpu_count()} CPUs, {args.repeat} alternated runs each after two that fill the caches; "
              f"load average now {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        first = {name: measure.run(command, env=env, cwd=str(ROOT)) for name, command in commands.items()}
        for name, run in first.items():
            print(f"  {name:<6} first run {run.seconds:.2f} s (exit {run.returncode})")
        # a first run with workers is not stored whole (migrate.scan.replay): the second, warm one is
        for command in commands.values():
            measure.run(command, env=env, cwd=str(ROOT))
        runs: dict[str, list[measure.Run]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                runs[name].append(measure.run(command, env=env, cwd=str(ROOT)))
        for name in commands:
            print(f"  {name:<6} warm: {measure.describe(runs[name])}")
        if args.instructions:
            counts = {name: _instructions(command, env) for name, command in commands.items()}
            print("  instructions (cachegrind, independent of the load): " + ", ".join(
                f"{name} {'n/a' if n is None else f'{n / 1e6:,.0f} M'}" for name, n in counts.items()))
            if counts.get("scan"):
                print("  " + ", ".join(f"{name} / warm scan {n / counts['scan']:.2f}x"
                                       for name, n in counts.items() if name != "scan" and n))
        if "scan" in runs:
            scan = measure.median(runs["scan"])
            for name in (n for n in runs if n != "scan"):
                print(f"  {name} / warm scan: {measure.median(runs[name]) / scan:.2f}x wall, "
                      f"{measure.median_cpu(runs[name]) / max(measure.median_cpu(runs['scan']), 1e-9):.2f}x CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
