#!/usr/bin/env python3
"""rocm-migrate against the tool it wraps, on the same tree, measured alternately.

    python benchmarks/vs_hipify.py PATH [--hipify PATH] [--repeat 5] [--jobs N]

Each round runs, one after the other: a cold scan (`--no-cache`, default or given --jobs), a
`--jobs 1` cold scan, hipify-perl `-examine` (and `-quiet-warnings -examine`) in one process
over the C/C++/CUDA files the scan reads, and a warm rescan with nothing changed. Prints the
medians, rocm-migrate's speed against hipify-perl, and the cold/warm ratio. The scans use
`--no-hipify` (they are timed on their own) and write JSON to a temporary file. Alternating
the runs spreads the machine's other load over all of them; the load average at the start of
each run is printed beside it.
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


def hipify_files(root: Path) -> list[str]:
    """The files `scan` gives hipify-perl: C/C++/CUDA sources, relative to the root."""
    from migrate.discover import discover
    from migrate.hipify.scan_pass import EXAMINED_KINDS

    found = discover([root], include_vendored=False, exclude=())
    return [f.rel for f in found.files if f.kind in EXAMINED_KINDS]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--hipify", default=os.environ.get("HIPIFY_PERL") or shutil.which("hipify-perl"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, help="--jobs for the cold scan (default: the scan's default)")
    parser.add_argument("--no-warnings-pass", action="store_true",
                        help="time hipify-perl only with -quiet-warnings (the 2024 warning pass takes minutes)")
    args = parser.parse_args()
    root = args.path.resolve()
    scan = [sys.executable, "-m", "migrate", "scan", str(root), "--no-hipify", "-f", "json"]
    files = hipify_files(root)
    hipify = ["perl", args.hipify] if args.hipify else None
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(Path(tmp) / "cache")}
        out = ["-o", str(Path(tmp) / "report.json")]
        jobs = ["--jobs", str(args.jobs)] if args.jobs else []
        measure.run([*scan, *out], env=env)  # warms the rule cache and the result cache
        rows: dict[str, list[measure.Run]] = {}
        commands = {
            "rocm-migrate scan, cold (--no-cache)": [*scan, *out, "--no-cache", *jobs],
            "rocm-migrate scan, cold, --jobs 1": [*scan, *out, "--no-cache", "--jobs", "1"],
            "rocm-migrate scan, warm (nothing changed)": [*scan, *out, *jobs],
        }
        if hipify:
            commands["hipify-perl -quiet-warnings -examine"] = [*hipify, "-quiet-warnings", "-examine", *files]
            if not args.no_warnings_pass:
                commands["hipify-perl -examine"] = [*hipify, "-examine", *files]
        for _ in range(args.repeat):
            for name, command in commands.items():
                cwd = str(root) if name.startswith("hipify") else None
                rows.setdefault(name, []).append(measure.run(command, env=env, cwd=cwd))
    print(f"{root.name}: {len(files)} C/C++/CUDA files for hipify-perl; {os.cpu_count()} cores")
    for name, runs in rows.items():
        print(f"  {name:<44} {measure.describe(runs)}")
    cold = measure.median(rows["rocm-migrate scan, cold (--no-cache)"])
    serial = measure.median(rows["rocm-migrate scan, cold, --jobs 1"])
    warm = measure.median(rows["rocm-migrate scan, warm (nothing changed)"])
    print(f"  cold default jobs vs --jobs 1: {serial / cold:.2f}x   cold/warm: {cold / warm:.1f}x")
    for name in ("hipify-perl -examine", "hipify-perl -quiet-warnings -examine"):
        if name in rows:
            print(f"  {name} / rocm-migrate cold scan: {measure.median(rows[name]) / cold:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
