"""Run every hostile-repository case at full size and report exit code, time and peak memory.

    python benchmarks/hostile.py [--timeout S] [CASE...]

Each case (tests/hostile.py) is built in a temporary folder and scanned by the real CLI in a
subprocess limited to 4 GiB of address space; peak memory is the resident memory of the scan
and its workers together, sampled every 50 ms. A case is handled when `problems` is empty."""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HOSTILE_SCALE", "1")
from tests import hostile  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--json", action="store_true", help="one JSON object per case instead of a table")
    args = parser.parse_args()
    names = args.cases or [c.name for c in hostile.CASES]
    pythonpath = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    worst_time, worst_memory, failed = (0.0, ""), (0.0, ""), 0
    for name in names:
        case = next(c for c in hostile.CASES if c.name == name)
        with tempfile.TemporaryDirectory(prefix=f"hostile-{name}-") as work:
            result = hostile.run_case(case, Path(work), pythonpath=pythonpath, timeout=args.timeout)
            problems = hostile.problems(result, budget=args.timeout)
        failed += bool(problems)
        worst_time = max(worst_time, (result.seconds, name))
        worst_memory = max(worst_memory, (result.peak_mib, name))
        row = {"case": name, "exit": result.rc, "seconds": round(result.seconds, 2),
               "peak_mib": round(result.peak_mib), "problems": problems}
        print(json.dumps(row) if args.json else
              f"{name:32} exit {result.rc!s:>3} {result.seconds:7.1f} s {result.peak_mib:6.0f} MiB  {'; '.join(problems)}",
              flush=True)
    print(f"{len(names) - failed}/{len(names)} cases handled; worst time {worst_time[0]:.1f} s ({worst_time[1]}), "
          f"peak memory {worst_memory[0]:.0f} MiB ({worst_memory[1]})")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
