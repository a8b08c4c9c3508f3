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
A second figure adds the optional parts of required workloads (a build switch's CUDA back end, each costed
as a port of its own: `optional_parts[].effort_hours`), for ports whose GPU code sits behind such a switch
(spatter, MMseqs2): the headline leaves them out by design, so a port of that part is compared with both.
Since s19 each port is also compared with its own figure, named in the last column (decision
2026-12-06-s19-effort-optional-part-ports): where the port changed files of optional parts with hours of their own
(the report's `optional_parts[].files`) on a base with no ROCm path, that hand work belongs to those parts and the port
is compared with the headline plus those parts (bricklib-hip, covfie-53; until s20 only where the headline had no
porting hand work, since s20 beside the required code's CUDA too: octotiger-389, cuda-battery-5); otherwise with the
headline. The summary line counts all three ways.
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
REPORTS = os.environ.get("EVALUATE_REPORTS")  # a folder to keep each base's JSON report in (ports.py --facts reads it)


def estimate(tree: Path) -> dict[str, Any]:
    run = subprocess.run([sys.executable, "-m", "migrate", "scan", str(tree), "--format", "json", "--no-hipify", "-q"],
                         capture_output=True, text=True, check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return dict(json.loads(run.stdout))


def load_ports(measurements: Path, splits: list[str]) -> list[dict[str, Any]]:
    """The measured ports of a measurements file in the splits asked for (all when none)."""
    return [p for p in yaml.safe_load(measurements.read_text())["ports"] if not splits or p["split"] in splits]


def measurement_source(argv: list[str]) -> tuple[Path, list[str] | None]:
    """measurements.yaml, or with `--set NAME` a held-out set in its own files (measurements-NAME.yaml) (main
    unpacks the missing base trees, unpack_bases); `--measured-only` prints the set's measured hours, scans
    nothing and gives no arguments back (None)."""
    if "--set" not in argv:
        return HERE / "measurements.yaml", argv
    at = argv.index("--set")
    measurements = HERE / f"measurements-{argv[at + 1]}.yaml"
    rest = [a for a in argv[:at] + argv[at + 2:] if a != "--measured-only"]
    if "--measured-only" in argv:
        ports = load_ports(measurements, rest)
        hours_per_line = yaml.safe_load((ROOT / "rules" / "effort" / "calibrated.yaml").read_text())["productivity"][
            "hours_per_line"]
        print("| split | port | shape | measured h (code + build lines) |\n|---|---|---|---|")
        for port in ports:
            code = sum(f["hand_lines"] for f in port["files"])
            build = sum(b["hand_lines"] for b in port["build_files"])
            print(f"| {port['split']} | {port['name']} | {port['shape']} | {(code + build) * hours_per_line:.1f} "
                  f"({code:.0f} + {build:.0f}) |")
        return measurements, None
    return measurements, rest


def unpack_bases(ports: list[dict[str, Any]]) -> None:
    """Unpack the base trees missing under PORTS_WORK from their mirrors, as ports.py did (the s9 ports joined
    measurements.yaml in s10; their trees may be under another PORTS_WORK)."""
    sys.path.insert(0, str(HERE))
    import ports as manifest_tools  # the unpacking ports.py measured from

    manifest_tools.WORK = WORK
    for port in ports:
        manifest_tools.base_tree(port)


def largest_line(report: dict[str, Any]) -> tuple[str, float]:
    items = [(i["item"], i["hours"]) for p in report["effort"]["projects"] for i in p["effort_breakdown"]]
    items += [(i["item"], i["hours"]) for w in report["workloads"] if not w.get("optional")
              for i in w.get("effort_breakdown", [])]
    return max(items, key=lambda kv: kv[1], default=("", 0.0))


def optional_parts(report: dict[str, Any]) -> dict[str, float]:
    """The optional parts of required workloads, summed (low, likely, high hours)."""
    parts = [p["effort_hours"] for w in report["workloads"] if not w.get("optional")
             for p in w.get("optional_parts", ()) if "effort_hours" in p]
    return {k: sum(p[k] for p in parts) for k in ("low", "likely", "high")}


def compared_parts(report: dict[str, Any], port: dict[str, Any]) -> list[dict[str, Any]]:
    """The optional parts a port is compared with (s19, decision 2026-12-06-s19-effort-optional-part-ports, as
    fit.py's `compared_parts`): where the port changed files of optional parts with hours of their own (a build
    switch's CUDA back end) of a base with no ROCm path, those parts, compared with the headline plus them; until s20
    only where the headline had no porting hand work (the base's required code has no CUDA), since s20 beside the
    required code's CUDA too (decision 2026-12-06-s20-effort-parts-beside-code). Otherwise none: the headline."""
    if any(f.get("status") == "ported" for f in report["findings"]) or \
            any(w.get("rocm_path") for w in report["workloads"] if not w.get("optional")):
        return []
    changed = {record["path"].partition(" -> ")[0] for record in port["files"] + port["build_files"]
               if record["hand_lines"]}
    return [part for w in report["workloads"] if not w.get("optional") for part in w.get("optional_parts", ())
            if part.get("effort_hours", {}).get("likely") and changed & set(part.get("files", ()))]


def main(argv: list[str]) -> int:
    measurements, rest = measurement_source(argv)
    if rest is None:
        return 0
    argv = rest
    hours_per_line = yaml.safe_load((ROOT / "rules" / "effort" / "calibrated.yaml").read_text())["productivity"][
        "hours_per_line"]
    ports = load_ports(measurements, argv)
    unpack_bases(ports)
    rows = ["| split | port | shape | measured h (code + build lines) | estimated hand work h low / likely / high | "
            "likely / measured | inside | largest line of the estimate | with optional parts: likely / measured, "
            "inside | compared with: likely / measured, inside |", "|---|---|---|---|---|---|---|---|---|---|"]
    score = {"test": [0, 0, 0, 0, 0, 0, 0], "fit": [0, 0, 0, 0, 0, 0, 0]}
    for port in sorted(ports, key=lambda p: (p["split"] != "test", p["name"])):
        code = sum(f["hand_lines"] for f in port["files"])
        build = sum(b["hand_lines"] for b in port["build_files"])
        measured = (code + build) * hours_per_line
        report = estimate(WORK / port["name"] / "base")
        if REPORTS:
            Path(REPORTS).mkdir(parents=True, exist_ok=True)
            (Path(REPORTS) / f"{port['name']}.json").write_text(json.dumps(report))
        hand = report["effort"]["hand_work_hours"]
        factor = hand["likely"] / measured if measured else float("inf")
        inside = hand["low"] <= measured <= hand["high"]
        label, top = largest_line(report)
        extra = optional_parts(report)
        whole = {k: hand[k] + extra[k] for k in extra}
        factor_whole = whole["likely"] / measured if measured else float("inf")
        inside_whole = whole["low"] <= measured <= whole["high"]
        parts = compared_parts(report, port)
        compared = {k: hand[k] + sum(p["effort_hours"][k] for p in parts) for k in ("low", "likely", "high")}
        factor_compared = compared["likely"] / measured if measured else float("inf")
        inside_compared = compared["low"] <= measured <= compared["high"]
        tally = score[port["split"]]
        tally[0] += 1
        tally[1] += 0.5 <= factor <= 2.0
        tally[2] += inside
        tally[3] += 0.5 <= factor_whole <= 2.0
        tally[4] += inside_whole
        tally[5] += 0.5 <= factor_compared <= 2.0
        tally[6] += inside_compared
        rows.append(f"| {port['split']} | {port['name']} | {port['shape']} | {measured:.1f} ({code:.0f} + {build:.0f}) | "
                    f"{hand['low']:.1f} / {hand['likely']:.1f} / {hand['high']:.1f} | {factor:.2f} | "
                    f"{'yes' if inside else 'no'} | {label} ({top:.1f} h) | "
                    + (f"{factor_whole:.2f}, {'yes' if inside_whole else 'no'} |" if extra["likely"] else "- |")
                    + (f" optional part {', '.join(p['root'] for p in parts)}: {compared['likely']:.1f} h, "
                       f"{factor_compared:.2f}, {'yes' if inside_compared else 'no'} |" if parts else " headline |"))
    print("\n".join(rows))
    for split, (n, within, inside, within_whole, inside_whole, within_compared, inside_compared) in (
            (s, v) for s, v in score.items() if v[0]):
        print(f"\n{split}: likely within a factor of 2 of measured for {within} of {n}; measured inside low–high for "
              f"{inside} of {n}; with the optional parts added: {within_whole} and {inside_whole} of {n}; each compared "
              f"with its own figure (the headline plus the optional parts it ports): "
              f"{within_compared} and {inside_compared} of {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
