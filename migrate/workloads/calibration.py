"""The measured effort constants (rules/effort/calibrated.yaml): the rule families' fitted hand lines
(the families themselves are rulebase.families')."""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from migrate.model import Effort
from migrate.rulebase import families as rule_families
from migrate.rulebase.families import Family
from migrate.rulebase.load import default_rules_dir

SIZE_FACTOR_RANGE = (0.25, 2.0)


@dataclass(frozen=True, slots=True)
class Calibration:
    hours_per_line: float
    source: str
    url: str
    families: tuple[Family, ...]
    lines_first_occurrence: dict[str, float]  # only the families the measurements cover
    learning_rate: float  # the k-th occurrence in a project costs k^log2(rate) of the first
    build_lines_first_unit: float  # the build port: per kind of CUDA build use, plus one for the build system
    glue_lines_per_port: float  # hand lines no finding explains, once per first port with C/C++/CUDA findings (s17)
    twin_lines_first_file: float  # hand lines of the HIP twins of a per-back-end CUDA file, the first (learning curve)
    increment_lines: float  # median hand lines of an increment on a project that already builds on ROCm
    increments: int  # how many such increments were measured
    spread: tuple[float, float]  # measured / estimated over the fitting ports: lowest, highest
    spread_basis: str
    median_c_files: int  # C/C++/CUDA files with findings of the median measured project
    projects: tuple[str, ...]
    generator_lines_per_line: float = 0.0  # hand lines per line of a code generator's CUDA back end (CUDA in strings)
    no_c_code_lines: float = 0.0  # median hand lines of a first port whose base has findings but none in C/C++/CUDA
    no_c_code_ports: int = 0  # how many such ports were measured
    glue_ports: int = 0  # the first ports with C/C++/CUDA findings whose glue was measured
    lane_lines_per_lane: float = 0.0  # extra hand lines of a first port per rewrite lane its base's findings fall in (s18)
    lane_ports: int = 0  # the measured first ports whose base has findings of a rewrite lane
    build_lines_no_kind: float = 0.0  # the build port where no build finding names a kind of CUDA build use (s18)
    build_no_kind_ports: int = 0  # the measured first ports with C/C++/CUDA findings and no such build finding

    def size_factor(self, c_files: int) -> float:
        """Assumed fixed costs grow with the square root of a project's size relative to the measured ones."""
        return min(SIZE_FACTOR_RANGE[1], max(SIZE_FACTOR_RANGE[0], math.sqrt(c_files / max(1, self.median_c_files))))

    def family_of(self, rule: str) -> Family | None:
        return next((f for f in self.families if f.holds(rule)), None)

    def units(self, count: int, in_project: int) -> float:
        """`count` occurrences of a family that has `in_project` in its project, in first-occurrence
        units: the project's learning curve shared out evenly."""
        total = max(count, in_project)
        return count * _curve(self.learning_rate, total) / total if total else 0.0

    def curve(self, count: int) -> float:
        return _curve(self.learning_rate, count)

    def hours(self, lines: float, times: float = 1.0) -> Effort:
        """Hand lines to hours, with the measured spread of the whole model as the range."""
        likely = lines * self.hours_per_line * times
        return Effort(low=likely * self.spread[0], likely=likely, high=likely * self.spread[1])


@lru_cache(maxsize=256)
def _curve(learning_rate: float, total: int) -> float:
    """The learning curve's sum over `total` occurrences (asked for once per workload and family
    with the project's count: summed once per count, the same float)."""
    return float(sum(k ** math.log2(learning_rate) for k in range(1, total + 1)))


@lru_cache(maxsize=4)
def load(directory: Path | None = None) -> Calibration:
    folder = (directory or default_rules_dir()) / "effort"
    fitted = yaml.load((folder / "calibrated.yaml").read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return Calibration(
        hours_per_line=float(fitted["productivity"]["hours_per_line"]),
        source=str(fitted["productivity"]["source"]), url=str(fitted["productivity"]["url"]),
        families=rule_families.load(directory).families,
        lines_first_occurrence={name: float(v["lines_first_occurrence"]) for name, v in fitted["families"].items()},
        learning_rate=float(fitted["learning_rate"]),
        build_lines_first_unit=float(fitted["project"]["build_lines_first_unit"]),
        glue_lines_per_port=float(fitted["project"]["glue_lines_per_port"]),
        twin_lines_first_file=float(fitted["project"].get("twin_lines_first_file", 0.0)),
        increment_lines=float(fitted["project"].get("increment_lines", 0.0)),
        increments=int(fitted["project"].get("increments", 0)),
        spread=(float(fitted["spread"]["low"]), float(fitted["spread"]["high"])),
        spread_basis=str(fitted["spread"]["basis"]),
        median_c_files=int(fitted["project"]["median_c_files"]),
        projects=tuple(fitted["projects"]),
        generator_lines_per_line=float(fitted["project"].get("generator_lines_per_line", 0.0)),
        no_c_code_lines=float(fitted["project"].get("no_c_code_lines", 0.0)),
        no_c_code_ports=int(fitted["project"].get("no_c_code_ports", 0)),
        glue_ports=int(fitted["project"].get("glue_ports", 0)),
        lane_lines_per_lane=float(fitted["project"].get("lane_lines_per_lane", 0.0)),
        lane_ports=int(fitted["project"].get("lane_ports", 0)),
        build_lines_no_kind=float(fitted["project"].get("build_lines_no_kind") or 0.0),
        build_no_kind_ports=int(fitted["project"].get("build_no_kind_ports", 0)),
    )
