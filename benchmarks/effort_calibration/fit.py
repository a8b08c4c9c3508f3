"""Fit the effort model's constants to the measured ports (measurements.yaml).

    python benchmarks/effort_calibration/fit.py          # rewrite rules/effort/calibrated.yaml
    python benchmarks/effort_calibration/fit.py --check  # exit 1 when the committed file differs

Per rule family (rules/effort/families.yaml): hand lines of the first occurrence in a project,
with later occurrences following Wright's learning curve (the k-th costs k^log2(0.8) of the
first: a team that has fixed one cudaStreamCreate fixes the next faster, and the hundredth
by search and replace). Pooled over the projects (likely), with the lowest and highest
per-project value as the range. Per
project: hand lines of its build files, and hand lines no finding explains per 1,000 lines
of C/C++/CUDA with findings. Lines become hours with one published productivity figure:
COCOMO II.2000's nominal effort equation (below).
"""
from __future__ import annotations

import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MEASUREMENTS = HERE / "measurements.yaml"
FAMILIES = ROOT / "rules" / "effort" / "families.yaml"
OUTPUT = ROOT / "rules" / "effort" / "calibrated.yaml"

# COCOMO II.2000: PM = A * KSLOC^E with A = 2.94, E = 0.91 + 0.01 * sum(SF) = 1.0997 for the
# nominal scale factors (sum 18.97), and 152 hours per person-month. At 1 KSLOC that is
# 2.94 * 152 / 1000 = 0.447 hours per line, design, integration and test included.
PRODUCTIVITY = {
    "hours_per_line": round(2.94 * 152 / 1000, 3),
    "source": "COCOMO II.2000 Model Definition Manual (Boehm et al., USC Center for Software Engineering), "
              "nominal effort equation PM = 2.94 x KSLOC^1.0997, 152 hours per person-month, at 1 KSLOC",
    "url": "https://csse.usc.edu/csse/research/COCOMOII/cocomo2000.0/CII_modelman2000.0.pdf",
}
ONE_PROJECT_SPREAD = (0.5, 2.0)  # range of a family measured in a single project
LEARNING_RATE = 0.8  # Wright (1936): each doubling of the count costs 80 % per unit


def curve(n: float) -> float:
    """Sum of k^log2(LEARNING_RATE) for k = 1..n: what n occurrences cost in first-occurrence units."""
    return sum(k ** math.log2(LEARNING_RATE) for k in range(1, int(n) + 1))


def family_of(rule: str, families: list[dict[str, Any]]) -> str | None:
    for family in families:
        if rule in family.get("ids", ()) or any(rule.startswith(p) for p in family.get("prefixes", ())):
            return str(family["name"])
    return None


def _range(pooled: float, per_project: list[float]) -> dict[str, float]:
    if len(per_project) < 2:
        low, high = pooled * ONE_PROJECT_SPREAD[0], pooled * ONE_PROJECT_SPREAD[1]
    else:
        low, high = min(per_project), max(per_project)
    return {"low": round(min(low, pooled), 4), "likely": round(pooled, 4), "high": round(max(high, pooled), 4)}


def fit(measurements: dict[str, Any], families: list[dict[str, Any]]) -> dict[str, Any]:
    occurrences: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    hand: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    unexplained, kloc, build = {}, {}, {}
    for project in measurements["projects"]:
        name = project["name"]
        unexplained[name] = kloc[name] = 0.0
        for record in project["files"]:
            kloc[name] += record["lines"] / 1000
            for rule, (count, lines, _sites) in record["rules"].items():
                if rule == "unattributed":
                    unexplained[name] += lines
                    continue
                family = family_of(rule, families)
                if family is not None:
                    occurrences[family][name] += count
                    hand[family][name] += lines
        build[name] = float(sum(b["hand_lines"] for b in project["build_files"]))
    fitted: dict[str, Any] = {}
    for family in (str(f["name"]) for f in families):
        measured = {p: n for p, n in occurrences.get(family, {}).items() if n > 0}
        if not measured:
            continue
        total_n = sum(measured.values())
        total_lines = sum(hand[family][p] for p in measured)
        units = sum(curve(n) for n in measured.values())
        fitted[family] = {
            "lines_first_occurrence": _range(total_lines / units, [hand[family][p] / curve(n) for p, n in measured.items()]),
            "occurrences": int(total_n), "hand_lines": round(total_lines, 2), "projects": sorted(measured),
        }
    per_kloc = [unexplained[p] / kloc[p] for p in kloc if kloc[p]]
    return {
        "productivity": PRODUCTIVITY,
        "learning_rate": LEARNING_RATE,
        "families": fitted,
        "project": {
            "build_lines": _range(sum(build.values()) / len(build), list(build.values())),
            "unattributed_lines_per_kloc": _range(sum(unexplained.values()) / sum(kloc.values()), per_kloc),
            "median_kloc": round(sorted(kloc.values())[len(kloc) // 2], 3),
            "projects": sorted(kloc),
        },
    }


HEADER = ("# Generated by benchmarks/effort_calibration/fit.py from measurements.yaml: do not edit.\n"
          "# Hand lines per occurrence of each rule family, and per project, with their range.\n")


def render(result: dict[str, Any]) -> str:
    return HEADER + yaml.safe_dump(result, sort_keys=False, width=110)


def main(argv: list[str]) -> int:
    result = fit(yaml.safe_load(MEASUREMENTS.read_text()), yaml.safe_load(FAMILIES.read_text()))
    text = render(result)
    if "--check" in argv:
        if OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(ROOT)} is stale: run benchmarks/effort_calibration/fit.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
