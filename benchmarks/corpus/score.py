#!/usr/bin/env python3
"""Score rocm-migrate's classes against the labelled corpus (corpus.yaml).

    python benchmarks/corpus/score.py --src /tmp/src/c13 [--only ID ...] [--reports DIR] [--verbose]

Each corpus workload is a scan of `<src>/<owner>+<name>/<path>` through the real CLI
(`python -m migrate scan ... -f json --no-hipify`). The predicted class is the class of the
named tool workload when the entry has `workload`, otherwise the report's summary class.
Prints one line per workload, the class exact-match rate, the confusion matrix (rows:
label, columns: predicted) and every error with the findings that decided it.
Checkouts whose commit differs from the corpus are scored but flagged.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

CLASSES = ("native", "minor-adaptation", "migration-required", "incompatible")
SHORT = {"native": "nat", "minor-adaptation": "min", "migration-required": "mig", "incompatible": "inc"}
HERE = Path(__file__).resolve().parent


def load(path: Path) -> list[dict]:
    return yaml.safe_load(path.read_text())["workloads"]


def scan(target: Path, out: Path) -> dict:
    if not out.exists():
        args = [sys.executable, "-m", "migrate", "scan", str(target), "-f", "json", "-o", str(out),
                "--no-hipify", "--jobs", os.environ.get("CORPUS_JOBS", "1")]
        done = subprocess.run(args, check=False, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            raise SystemExit(f"scan of {target} failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(out.read_text())


def predicted(entry: dict, report: dict) -> tuple[str, list[dict]]:
    """The class the tool gives the corpus workload, and the workloads that carry it."""
    workloads = report["workloads"]
    if entry.get("workload"):
        chosen = [w for w in workloads if w["name"] == entry["workload"]]
        if not chosen:
            raise SystemExit(f"{entry['id']}: no workload named {entry['workload']!r} "
                             f"(have {[w['name'] for w in workloads]})")
        return chosen[0]["class"], chosen
    cls = report["summary"]["class"]
    return cls, [w for w in workloads if w["class"] == cls and not w.get("optional")]


def reasons(report: dict, carriers: list[dict], limit: int = 4) -> list[str]:
    by_id = {f["id"]: f for f in report["findings"]}
    lines = []
    for w in carriers[:2]:
        for fid in w.get("reasons", [])[:limit]:
            f = by_id.get(fid)
            if f:
                lines.append(f"      {w['name']}: {f['path']}:{f['line']} {f['rule']} {f['symbol']} "
                             f"[{f.get('effective_class', f['class'])}, {f['confidence']}]")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus.yaml")
    parser.add_argument("--src", type=Path, required=True, help="folder holding <owner>+<name>/ checkouts")
    parser.add_argument("--reports", type=Path, default=None, help="keep (and reuse) JSON reports here")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--verbose", action="store_true", help="reasons for correct ones too")
    args = parser.parse_args()
    entries = [e for e in load(args.corpus) if not args.only or e["id"] in args.only]
    reports_dir = args.reports or Path(os.environ.get("TMPDIR", "/tmp")) / f"corpus-reports-{os.getpid()}"
    reports_dir.mkdir(parents=True, exist_ok=True)
    confusion = {a: dict.fromkeys(CLASSES, 0) for a in CLASSES}
    errors = 0
    for entry in entries:
        folder = args.src / entry["repo"].replace("/", "+")
        if not folder.is_dir():
            print(f"{entry['id']:36} MISSING checkout {folder}")
            continue
        report = scan(folder / entry["path"], reports_dir / f"{entry['id']}.json")
        cls, carriers = predicted(entry, report)
        confusion[entry["label"]][cls] += 1
        ok = cls == entry["label"]
        errors += not ok
        ported = [w["name"] for w in report["workloads"] if w.get("rocm_path")]
        print(f"{'ok ' if ok else 'ERR'} {entry['id']:34} label {SHORT[entry['label']]}  got {SHORT[cls]}"
              f"  findings {report['summary']['findings']:5}" + (f"  rocm-path: {', '.join(ported)}" if ported else ""))
        if not ok or args.verbose:
            print("\n".join(reasons(report, carriers)))
    scored = sum(sum(row.values()) for row in confusion.values())
    if not scored:
        return 2
    print(f"\nclass exact: {scored - errors}/{scored} = {100 * (scored - errors) / scored:.1f} %")
    print("confusion (rows: label, columns: predicted)")
    print(" " * 20 + "".join(f"{SHORT[c]:>6}" for c in CLASSES))
    for label in CLASSES:
        print(f"{label:20}" + "".join(f"{confusion[label][c]:>6}" for c in CLASSES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
