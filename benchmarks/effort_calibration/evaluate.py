"""Re-estimate every measured port with rocm-migrate itself and compare with its measured hand work.

    python benchmarks/effort_calibration/evaluate.py --set s9   # a held-out set kept in its own files
                                                                # (measurements-s9.yaml; fit.py never reads it)
    python benchmarks/effort_calibration/evaluate.py --set s9 --measured-only  # its measured hours, no scan
    python benchmarks/effort_calibration/evaluate.py            # Markdown table, held-out ports first
    python benchmarks/effort_calibration/evaluate.py fit        # one split only (fit or test)

Needs the base trees ports.py unpacked (PORTS_WORK). Runs `python -m migrate scan BASE --format json
--no-hipify` with this checkout's code and reads `effort.hand_work_hours` (the headline less the
plan's assumed validation steps: what a measured port measures) and the largest line of each
estimate. Measured hours are measured hand lines (code + build) at the model's hours per line.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORK = Path(os.environ.get("PORTS_WORK", "/tmp/cache-30/ports"))


def estimate(tree: Path) -> dict[str, Any]:
    run = subprocess.run([sys.executable, "-m", "migrate", "scan", str(tree), "--format", "json", "--no-hipify", "-q"],
                         capture_output=True, text=True, check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return dict(json.loads(run.stdout))


def load_ports(measurements: Path, splits: list[str]) -> list[dict[str, Any]]:
    """The measured ports of a measurements file in the splits asked for (all when none)."""
    return [p for p in yaml.safe_load(measurements.read_text())["ports"] if not splits or p["split"] in splits]


def measurement_source(argv: list[str]) -> tuple[Path, list[str] | None]:
    """measurements.yaml, or with `--set NAME` a held-out set in its own files (measurements-NAME.yaml), whose
    missing base trees are unpacked from their mirrors as ports.py did; `--measured-only` prints the set's
    measured hours, scans nothing and gives no arguments back (None)."""
    if "--set" not in argv:
        return HERE / "measurements.yaml", argv
    at = argv.index("--set")
    measurements = HERE / f"measurements-{argv[at + 1]}.yaml"
    rest = [a for a in argv[:at] + argv[at + 2:] if a != "--measured-only"]
    ports = load_ports(measurements, rest)
    hours_per_line = yaml.safe_load((ROOT / "rules" / "effort" / "calibrated.yaml").read_text())["productivity"][
        "hours_per_line"]
    if "--measured-only" in argv:
        print("| split | port | shape | measured h (code + build lines) |\n|---|---|---|---|")
        for port in ports:
            code = sum(f["hand_lines"] for f in port["files"])
            build = sum(b["hand_lines"] for b in port["build_files"])
            print(f"| {port['split']} | {port['name']} | {port['shape']} | {(code + build) * hours_per_line:.1f} "
                  f"({code:.0f} + {build:.0f}) |")
        return measurements, None
    sys.path.insert(0, str(HERE))
    import ports as manifest_tools  # the unpacking ports.py measured from

    manifest_tools.WORK = WORK
    for port in ports:
        manifest_tools.base_tree(port)
    return measurements, rest


def largest_line(report: dict[str, Any]) -> tuple[str, float]:
    items = [(i["item"], i["hours"]) for p in report["effort"]["projects"] for i in p["effort_breakdown"]]
    items += [(i["item"], i["hours"]) for w in report["workloads"] if not w.get("optional")
              for i in w.get("effort_breakdown", [])]
    return max(items, key=lambda kv: kv[1], default=("", 0.0))


def main(argv: list[str]) -> int:
    measurements, rest = measurement_source(argv)
    if rest is None:
        return 0
    argv = rest
    hours_per_line = yaml.safe_load((ROOT / "rules" / "effort" / "calibrated.yaml").read_text())["productivity"][
        "hours_per_line"]
    ports = [p for p in yaml.safe_load(measurements.read_text())["ports"]
             if not argv or p["split"] in argv]
    rows = ["| split | port | shape | measured h (code + build lines) | estimated hand work h low / likely / high | "
            "likely / measured | inside | largest line of the estimate |", "|---|---|---|---|---|---|---|---|"]
    score = {"test": [0, 0, 0], "fit": [0, 0, 0]}
    for port in sorted(ports, key=lambda p: (p["split"] != "test", p["name"])):
        code = sum(f["hand_lines"] for f in port["files"])
        build = sum(b["hand_lines"] for b in port["build_files"])
        measured = (code + build) * hours_per_line
        report = estimate(WORK / port["name"] / "base")
        hand = report["effort"]["hand_work_hours"]
        factor = hand["likely"] / measured if measured else float("inf")
        inside = hand["low"] <= measured <= hand["high"]
        label, top = largest_line(report)
        tally = score[port["split"]]
        tally[0] += 1
        tally[1] += 0.5 <= factor <= 2.0
        tally[2] += inside
        rows.append(f"| {port['split']} | {port['name']} | {port['shape']} | {measured:.1f} ({code:.0f} + {build:.0f}) | "
                    f"{hand['low']:.1f} / {hand['likely']:.1f} / {hand['high']:.1f} | {factor:.2f} | "
                    f"{'yes' if inside else 'no'} | {label} ({top:.1f} h) |")
    print("\n".join(rows))
    for split, (n, within, inside) in ((s, v) for s, v in score.items() if v[0]):
        print(f"\n{split}: likely within a factor of 2 of measured for {within} of {n}; measured inside low–high for "
              f"{inside} of {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
