#!/usr/bin/env python3
"""rocm-migrate against the tool it wraps, on the same trees, measured alternately.

    python benchmarks/vs_hipify.py PATH... [--hipify PATH] [--repeat 5] [--jobs N] [--no-warnings-pass]

Each round runs, for each tree one after the other: a first scan (an empty cache directory, what a
user's first run pays), a cold scan (`--no-cache`, default or given --jobs), a `--jobs 1` cold scan,
hipify-perl `-examine` (and `-quiet-warnings -examine`) in one process over the C/C++/CUDA files
the scan reads, and a warm rescan with nothing changed. Prints the medians (wall and CPU time, the
load average at the start of every run), rocm-migrate's first scan against hipify-perl, and the
cold/warm ratio. The scans use `--no-hipify` (they are timed on their own) and write JSON to a
temporary file; they run with Python's bytecode cached, as an installed tool does (measure.installed_env).
Alternating the runs spreads the machine's other load over all of them.
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

CODE = Path(__file__).resolve().parent.parent  # the checkout whose code is timed
FIRST = "rocm-migrate scan, first (empty cache dir)"
COLD = "rocm-migrate scan, cold (--no-cache)"
SERIAL = "rocm-migrate scan, cold, --jobs 1"
WARM = "rocm-migrate scan, warm (nothing changed)"
BEFORE = "--before's code: scan, first (empty cache dir)"
EXAMINE = "hipify-perl -examine"
QUIET = "hipify-perl -quiet-warnings -examine"


def hipify_files(root: Path) -> list[str]:
    """The files `scan` gives hipify-perl: C/C++/CUDA sources, relative to the root."""
    from migrate.hipify.scan_pass import EXAMINED_KINDS
    from migrate.scan.discover import discover

    found = discover([root], include_vendored=False, exclude=())
    return [f.rel for f in found.files if f.kind in EXAMINED_KINDS]


def commands(root: Path, tmp: Path, args: argparse.Namespace) -> dict[str, list[str]]:
    scan = [sys.executable, "-m", "migrate", "scan", str(root), "--no-hipify", "-f", "json",
            "-o", str(tmp / "report.json")]
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    out = {FIRST: [*scan, *jobs], COLD: [*scan, "--no-cache", *jobs], SERIAL: [*scan, "--no-cache", "--jobs", "1"],
           WARM: [*scan, *jobs]}
    if args.before:
        out[BEFORE] = [*scan, *jobs]
    if args.hipify:
        files = hipify_files(root)
        hipify = ["perl", args.hipify]
        out[QUIET] = [*hipify, "-quiet-warnings", "-examine", *files]
        if not args.no_warnings_pass:
            out[EXAMINE] = [*hipify, "-examine", *files]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", type=Path, nargs="+")
    parser.add_argument("--hipify", default=os.environ.get("HIPIFY_PERL") or shutil.which("hipify-perl"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, help="--jobs for the first, cold and warm scans (default: the scan's)")
    parser.add_argument("--before", type=Path, help="a checkout of other code (an older commit): its first scan too")
    parser.add_argument("--no-warnings-pass", action="store_true",
                        help="time hipify-perl only with -quiet-warnings (the 2024 warning pass takes minutes)")
    args = parser.parse_args()
    roots = [p.resolve() for p in args.paths]
    if args.hipify:  # hipify-perl runs in each tree's folder: a relative path would not be found there
        args.hipify = str(Path(args.hipify).resolve())
    rows: dict[Path, dict[str, list[measure.Run]]] = {root: {} for root in roots}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        caches = {root: tmp / f"cache-{n}" for n, root in enumerate(roots)}
        first = {root: tmp / f"first-{n}" for n, root in enumerate(roots)}
        planned = {root: commands(root, tmp, args) for root in roots}
        for root in roots:  # bytecode compiled, the warm scan's cache filled
            measure.run(planned[root][WARM], cwd=str(CODE),
                        env=measure.installed_env({**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(caches[root])}))
        for _ in range(args.repeat):
            for root in roots:
                for name, command in planned[root].items():
                    shutil.rmtree(first[root], ignore_errors=True)
                    cache = first[root] if name in (FIRST, BEFORE) else caches[root]
                    env = measure.installed_env({**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(cache)})
                    if name == BEFORE:
                        # the older code first; the rest of the path (installed libraries) kept, this checkout left out
                        kept = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and Path(p).resolve() != CODE]
                        env["PYTHONPATH"] = os.pathsep.join([str(args.before.resolve()), *kept])
                    # `python -m` puts the working directory first on sys.path: a scan runs in its code's folder
                    cwd = str(root) if name.startswith("hipify") else str(args.before.resolve() if name == BEFORE else CODE)
                    rows[root].setdefault(name, []).append(measure.run(command, env=env, cwd=cwd))
    broken = 0
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{len(os.sched_getaffinity(0))} cores usable (of {os.cpu_count()}); load average now {load}")
    for root in roots:
        found = rows[root]
        print(f"{root.name}: {len(hipify_files(root))} C/C++/CUDA files for hipify-perl")
        for name, runs in found.items():
            failed = [r.returncode for r in runs if r.returncode not in (0, 1)]
            broken += bool(failed)
            print(f"  {name:<44} {measure.describe(runs)}" + (f" FAILED {failed}" if failed else ""))
        first_scan, cold = measure.median(found[FIRST]), measure.median(found[COLD])
        serial, warm = measure.median(found[SERIAL]), measure.median(found[WARM])
        if BEFORE in found:
            print(f"  --before's first scan / this first scan: {measure.median(found[BEFORE]) / first_scan:.2f}x")
        print(f"  cold default jobs vs --jobs 1: {serial / cold:.2f}x   first/warm: {first_scan / warm:.1f}x   "
              f"cold/warm: {cold / warm:.1f}x")
        for name in (EXAMINE, QUIET):
            if name in found:
                if any(r.returncode not in (0, 1) for r in found[name]):
                    print(f"  {name} / rocm-migrate first scan: not compared ({name} failed)")
                else:
                    print(f"  {name} / rocm-migrate first scan: {measure.median(found[name]) / first_scan:.2f}x")
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
