#!/usr/bin/env python3
"""Draw a precision sample of default-shown findings from scans of repositories outside every benchmark.

    python benchmarks/verdicts/precision_unseen.py --reports /tmp/28p --repos /work/repos \
        --commits /tmp/28p/commits.txt --per-project 13 --seed 2812 --out /tmp/28p/draw.csv

Reads `<owner>+<name>.json` scan reports, keeps the findings shown by default (`info` false),
shuffles each project's findings with the seed and takes `per-project` of them. Marks each finding
class-moving when it is among its workload's `reasons`, or its class equals its workload's class
and is above native. Writes a CSV (verdict and reason left empty, to be judged by reading the code)
and prints the code around each line for reading.

    python benchmarks/verdicts/precision_unseen.py --score benchmarks/verdicts/precision-unseen.csv

prints the share judged right: overall, of class-moving findings, per confidence and per rule family.
"""
from __future__ import annotations

import argparse
import csv
import json
import random
from pathlib import Path

FIELDS = ["repo", "commit", "path", "line", "rule", "class", "confidence", "class_moving", "verdict", "reason"]


def class_moving(finding: dict, workloads: dict[str, dict]) -> bool:
    workload = workloads.get(finding["workload"], {})
    if finding["id"] in workload.get("reasons", []):
        return True
    return finding["class"] != "native" and finding["class"] == workload.get("class")


def context(root: Path, finding: dict, around: int = 3) -> str:
    try:
        lines = (root / finding["path"]).read_text(errors="replace").split("\n")
    except OSError:
        return "(source not found)"
    lo, hi = max(0, finding["line"] - 1 - around), min(len(lines), finding["line"] + around)
    return "\n".join(f"{'>>' if i + 1 == finding['line'] else '  '}{i + 1:6} {lines[i][:160]}" for i in range(lo, hi))


FAMILIES = {"HIP0": "headers", "HIP1": "runtime", "HIP2": "driver", "HIP3": "libraries", "HIP4": "device",
            "HIP5": "asm", "HIP6": "python", "HIP7": "dependencies", "HIP8": "build", "HIP9": "containers"}


def share(rows: list[dict]) -> str:
    right = sum(r["verdict"] == "right" for r in rows)
    return f"{right}/{len(rows)} = {100 * right / len(rows):.1f} %" if rows else "0/0"


def score(path: Path) -> None:
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert all(r["verdict"] in ("right", "wrong") for r in rows), "every finding must be judged"
    print(f"projects {len({r['repo'] for r in rows})}, findings {len(rows)}")
    print(f"all shown by default: {share(rows)}")
    print(f"class-moving: {share([r for r in rows if r['class_moving'] == 'yes'])}")
    print(f"not class-moving: {share([r for r in rows if r['class_moving'] == 'no'])}")
    for level in ("high", "medium", "low"):
        print(f"confidence {level}: {share([r for r in rows if r['confidence'] == level])}")
    for prefix, name in FAMILIES.items():
        print(f"{prefix}xxx {name}: {share([r for r in rows if r['rule'].startswith(prefix)])}")


def recheck(path: Path, reports: Path) -> None:
    """Each judged finding against later scans of the same commits: `same` (shown, same class and status),
    `changed` (shown, another class, status or class-moving: judge it again), `hidden` (now info or gone)."""
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    loaded: dict[str, tuple[dict, dict]] = {}
    for row in rows:
        key = row["repo"].replace("/", "+", 1)
        if key not in loaded:
            report = json.loads((reports / f"{key}.json").read_text())
            loaded[key] = ({(f["path"], f["line"], f["rule"]): f for f in report["findings"]},
                           {w["name"]: w for w in report["workloads"]})
        findings, workloads = loaded[key]
        found = findings.get((row["path"], int(row["line"]), row["rule"]))
        if found is None or found.get("info"):
            state, now = "hidden", ""
        else:
            moving = "yes" if class_moving(found, workloads) else "no"
            status = found.get("status") or "-"  # compared when the CSV records it (fresh6 on); older CSVs have no column
            now = f"{found['class']} {status} moving={moving}"
            before = f"{row['class']} {row.get('status') or '-'} moving={row['class_moving']}"
            state = "same" if ((found["class"], moving) == (row["class"], row["class_moving"])
                               and row.get("status") in (None, status)) else "changed"
            now = now if state == "changed" else before
        print(f"{state:7} {row['verdict']:5} {row['repo']} {row['path']}:{row['line']} {row['rule']} {now}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--score", type=Path, help="a judged CSV: print the figures and stop")
    ap.add_argument("--recheck", type=Path, help="a judged CSV: compare it with the scans in --reports")
    ap.add_argument("--reports", type=Path)
    ap.add_argument("--repos", type=Path)
    ap.add_argument("--commits", type=Path, help="lines '<owner>+<name> <commit>'")
    ap.add_argument("--per-project", type=int, default=13)
    ap.add_argument("--seed", type=int, default=2812)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.score:
        score(args.score)
        return
    if args.recheck and args.reports:
        recheck(args.recheck, args.reports)
        return
    if not (args.reports and args.repos and args.commits and args.out):
        ap.error("--reports, --repos, --commits and --out are needed to draw a sample")
    commits = dict(line.split()[:2] for line in args.commits.read_text().splitlines() if line.strip())
    rng = random.Random(args.seed)
    rows = []
    for key in sorted(commits):
        report = json.loads((args.reports / f"{key}.json").read_text())
        workloads = {w["name"]: w for w in report["workloads"]}
        shown = [f for f in report["findings"] if not f.get("info")]
        rng.shuffle(shown)
        for finding in sorted(shown[: args.per_project], key=lambda f: (f["path"], f["line"])):
            rows.append({"repo": key.replace("+", "/", 1), "commit": commits[key], "path": finding["path"],
                         "line": finding["line"], "rule": finding["rule"], "class": finding["class"],
                         "confidence": finding["confidence"],
                         "class_moving": "yes" if class_moving(finding, workloads) else "no",
                         "verdict": "", "reason": ""})
            print(f"### {len(rows)} {key} {finding['path']}:{finding['line']} {finding['rule']} "
                  f"{finding['class']} {finding['confidence']} status={finding.get('status', '')} "
                  f"moving={rows[-1]['class_moving']} wl={finding['workload']}\n    {finding['message'][:200]}")
            print(context(args.repos / key, finding))
    with args.out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
