"""Time `inventory` on N reports synthesised from real ones: each a copy of a real scan report
(cycled) under a new name and owner, with a seeded random share of its findings kept, so that
blockers and counts vary. Prints the time to read, merge and render each format.

    python benchmarks/inventory_merge.py /tmp/inv500/repos --count 5000 --out /tmp/inv5000
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import time
from pathlib import Path

from migrate.inventory import html, merge, render


def synthesise(sources: list[Path], count: int, folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    reports = [json.loads(p.read_bytes()) for p in sources]
    reports = [r for r in reports if "summary" in r]
    total = 0
    for n in range(count):
        report = dict(reports[n % len(reports)])
        rng = random.Random(n)
        keep = rng.uniform(0.3, 1.0)
        report["findings"] = [f for f in report["findings"] if rng.random() < keep]
        report["source"] = {**report["source"], "name": f"org{n % 40}/repo-{n:05d}", "url": f"https://git.example.com/{n}"}
        text = json.dumps(report, separators=(",", ":"))
        (folder / f"repo-{n:05d}.json").write_text(text)
        total += len(text)
    (folder.parent / "owners.csv").write_text("repo,owner\n" + "".join(
        f"org{n % 40}/repo-{n:05d},team-{n % 23}\n" for n in range(count)))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", type=Path, help="a folder of real scan reports (*.json)")
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    folder = args.out / "reports"
    if not folder.is_dir():
        size = synthesise(sorted(args.reports.glob("*.json")), args.count, folder)
        print(f"synthesised {args.count} reports, {size / 2**20:.0f} MiB")
    timings: dict[str, float] = {}
    started = time.perf_counter()
    records = list(merge.read_reports([folder]))
    timings["read"] = time.perf_counter() - started
    mark = time.perf_counter()
    built = merge.build(records, merge.read_owners(args.out / "owners.csv"))
    timings["merge"] = time.perf_counter() - mark
    for name, function in (("json", render.render_json), ("csv", render.render_csv), ("html", html.render)):
        mark = time.perf_counter()
        text = function(built)
        (args.out / f"inventory.{name}").write_text(text)
        timings[name] = time.perf_counter() - mark
        print(f"inventory.{name}: {len(text) / 2**20:.1f} MiB")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(" ".join(f"{k} {v:.2f} s" for k, v in timings.items()) + f"; total {sum(timings.values()):.2f} s; "
          f"{len(records)} repositories, {len(built.blockers)} blocking rules; peak memory {peak:.0f} MiB")


if __name__ == "__main__":
    main()
