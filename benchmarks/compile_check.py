"""`rocm-migrate check` on real projects: how many translation units pass hip-clang's front end after
hipify alone, and what share of the compiler's porting errors a finding predicted (recall against the
compiler).

    python benchmarks/compile_check.py /work/repos/karpathy+llm.c '/work/repos/NVIDIA+cuda-samples::Samples/[1-8]_*' \\
        --hip-compiler pip --target-arch gfx942 --out /tmp/check-bench

Per project it runs the real CLI (`python -m migrate check PATH --out OUT/NAME -f json`) and prints one
Markdown row: units (translation unit x architecture), checked (not stopped by a missing header or an
unknown target), passing after hipify alone, porting errors (distinct lines), predicted by a finding,
newer-ROCm errors, misses, seconds. Nothing of the projects is executed; only the converted copies are
compiled, with the allow-listed flags."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HEADER = ("| project | units | checked | pass after hipify | porting errors | predicted by a finding | newer ROCm | "
          "misses | not checked (top reason) | s |\n|---|---|---|---|---|---|---|---|---|---|")


def run_one(spec: str, out: Path, args: argparse.Namespace) -> str:
    """`spec` is a folder, optionally with `::GLOB,GLOB` to leave out (gitignore syntax, as --exclude)."""
    where, _, globs = spec.partition("::")
    path = Path(where)
    name = path.name
    dest = out / name.replace("/", "_")
    report = out / (dest.name + ".json")
    argv = [sys.executable, "-m", "migrate", "check", str(path), "--out", str(dest), "--force", "-f", "json",
            "-o", str(report), "--target-arch", args.target_arch, "-j", str(args.jobs), "-q",
            *(word for glob in globs.split(",") if glob for word in ("--exclude", glob))]
    if args.hip_compiler:
        argv += ["--hip-compiler", args.hip_compiler]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        return f"| {name} | failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode} |"
    block = json.loads(report.read_text(encoding="utf-8"))["compile"]
    counts = block["errors_by_meaning"]
    porting = counts["confirmed"] + counts["miss"]
    reasons: dict[str, int] = {}
    for unit in block["unit_results"]:
        if unit["status"] == "not-checked":
            reasons[unit["reason"][:70]] = reasons.get(unit["reason"][:70], 0) + 1
    top = max(reasons.items(), key=lambda kv: kv[1])[0] if reasons else ""
    share = f"{counts['confirmed']} ({counts['confirmed'] / porting:.0%})" if porting else "0"
    return (f"| {name} | {block['units']} | {block['checked']} | {block['passed']} | {porting} | {share} | "
            f"{counts['newer-rocm']} | {counts['miss']} | {top} | {seconds:.0f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="folders, each optionally PATH::GLOB,GLOB to leave out")
    parser.add_argument("--out", type=Path, default=Path("/tmp/rocm-migrate-check-bench"))
    parser.add_argument("--hip-compiler", default="")
    parser.add_argument("--target-arch", default="gfx942")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    print(HEADER, flush=True)
    for path in args.paths:
        print(run_one(path, args.out, args), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
