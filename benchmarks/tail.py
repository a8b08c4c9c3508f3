#!/usr/bin/env python3
"""The serial tail of a scan alone: every file's row from the cache, the report not (what a rescan after an edit
pays, less the edited files' analysis), by code, alternated round by round:

    python benchmarks/tail.py TREE [--code DIR ...] [--repeat 5]

One cold scan (`--jobs 2`) of TREE by the first --code fills a cache directory with the files' rows. Then each
run removes the stored reports and scans TREE (`--no-hipify -f json`) by one --code (a checkout or a `git archive`
with migrate/, rules/ and templates/; default: this one): the rows are hits wherever the codes share what a row's
key reads (the extractors, `scan/match.py`, `scan/layout.py`, the model; scan/analyse.py's `result_version`), so
the run is the report's key, the rows' reading and decoding, the repository-wide stages and the rendering, in one
process. Printed: each code's median wall and CPU time (the process's own: load inflates wall time), the load,
and whether each code's report is byte-identical to the first code's (the "seconds" lines left out).
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CODE = Path(__file__).resolve().parent.parent


def scan(code: Path, tree: Path, cache: Path, out: Path, jobs: str) -> tuple[float, float]:
    """(wall, CPU of the process tree) of one scan of `tree` by `code` into `out`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(ROCM_MIGRATE_CACHE_DIR=str(cache), PYTHONPATH=str(code))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "migrate", "scan", str(tree), "--no-hipify", "-f", "json", "-o", str(out),
                    "-q", "--jobs", jobs], env=env, check=True, cwd=cache.parent)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def timeless(path: Path) -> bytes:
    return re.sub(rb'\n *"seconds": [0-9.]+,?\n', b"\n", path.read_bytes())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--code", type=Path, action="append", help="a checkout to time (repeatable; default: this one)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    codes = [c.resolve() for c in (args.code or [CODE])]
    tree = args.tree.resolve()
    scratch = Path(tempfile.mkdtemp(prefix="tail-"))
    cache = scratch / "cache"
    try:
        scan(codes[0], tree, cache, scratch / "first.json", "2")
        times: dict[Path, list[tuple[float, float]]] = {code: [] for code in codes}
        same: dict[Path, bool] = {}
        for n in range(args.repeat + 1):  # round 0: each code's bytecode compiled, its timing left out
            for k, code in enumerate(codes):
                shutil.rmtree(cache / "reports", ignore_errors=True)
                load = os.getloadavg()[0]
                out = scratch / f"r{k}.json"
                wall, cpu = scan(code, tree, cache, out, "1")
                if n:
                    times[code].append((wall, cpu))
                    print(f"round {n} {code} (load {load:.1f}): wall {wall:.2f} s, cpu {cpu:.2f} s", flush=True)
                same[code] = timeless(out) == timeless(scratch / "r0.json")
        print(f"medians of {args.repeat} runs, {tree}, rows from the cache, the report not; load now "
              + " ".join(f"{x:.1f}" for x in os.getloadavg()))
        for code in codes:
            walls, cpus = [w for w, _ in times[code]], [c for _, c in times[code]]
            print(f"  {code!s:<50} wall {statistics.median(walls):6.2f} s  CPU {statistics.median(cpus):6.2f} s"
                  f"  (CPU runs: {' '.join(f'{c:.2f}' for c in cpus)})"
                  f"  report {'identical to the first code' if same[code] else 'DIFFERS from the first code'}")
        return 0 if all(same.values()) else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
