"""estimate: a three-point effort estimate per workload and per project (docs/effort.md).

Findings of a rule family that the measured ports cover cost their fitted hand lines times
the cited hours per line (rules/effort/calibrated.yaml); other findings keep their rule's own
figures. Kernels that are variants of one another are reviewed once. Fixed costs (build
port, CI, performance check) belong to the project, scaled by its C/C++/CUDA size."""
from __future__ import annotations

import math
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import yaml

from migrate.model import NO_EFFORT, Effort, EffortItem, Finding
from migrate.rulebase.load import default_rules_dir
from migrate.workloads.calibration import Calibration

# Assumed (not measured) per project, by the project's class.
FIXED_COSTS = {
    "native": {"smoke test on ROCm": 1.0},
    "minor-adaptation": {"CI on ROCm": 2.0, "functional tests on ROCm": 2.0},
    "migration-required": {"CI on ROCm": 8.0, "performance check": 4.0},
    "incompatible": {"CI on ROCm": 8.0, "performance check": 8.0, "design of the replacements": 16.0},
}
UNCERTAINTY = {"native": (1.0, 1.5), "minor-adaptation": (0.8, 1.5), "migration-required": (0.7, 2.0),
               "incompatible": (0.6, 3.0)}
VALIDATION = "validation, assumed: "  # the label of the plan's assumed validation steps (not hand work)
VALIDATION_KIND = "validation, assumed"
KERNEL_STEM = re.compile(r"(_?v?\d+|_(naive|opt|optimized|fast|slow|simple|ref|baseline|vec|tiled))+$")


@dataclass(frozen=True)
class EffortModel:
    learning_rate: float = 0.8  # uncalibrated rules: each doubling of occurrences costs this fraction each
    hipify_factor: Mapping[str, float] = field(default_factory=lambda: {"yes": 0.5, "partial": 0.75, "no": 1.0})
    kernel_family: str = "kernel"  # rules/effort/families.yaml: reviewed once per group of variants
    kernel_review: float = 0.5  # used only with calibrated = false
    kernel_validation: float = 1.0  # numerical validation of the first group of kernel variants (assumed;
    # later groups follow the learning curve: the harness built for the first serves the rest)
    fixed: Mapping[str, Mapping[str, float]] = field(default_factory=lambda: FIXED_COSTS)  # per project
    uncertainty: Mapping[str, tuple[float, float]] = field(default_factory=lambda: UNCERTAINTY)
    calibrated: bool = True  # false: every finding costs its rule's own figures

    def with_overrides(self, table: Mapping[str, object]) -> EffortModel:
        """Apply `[tool.rocm-migrate.effort]` (already type-checked by settings)."""
        changes: dict[str, object] = {}
        for key, value in table.items():
            attr = key.replace("-", "_")
            if attr in ("fixed", "uncertainty", "hipify_factor"):
                given = value if isinstance(value, Mapping) else {}
                merged = {**getattr(self, attr), **{k: (tuple(v) if isinstance(v, list) else v) for k, v in given.items()}}
                changes[attr] = merged
            else:
                changes[attr] = tuple(value) if isinstance(value, list) else value
        return replace(self, **changes)  # type: ignore[arg-type]


class Rewrite(Protocol):
    """A rewrite component of a workload (a kernel with no mechanical port, rewritten on an AMD
    library): costed by its band (rules/effort/rewrite-bands.yaml) instead of its findings."""

    @property
    def title(self) -> str: ...
    @property
    def band(self) -> str | None: ...
    @property
    def findings(self) -> tuple[Finding, ...]: ...


@lru_cache(maxsize=4)
def rewrite_bands(directory: Path | None = None) -> dict[str, Effort]:
    """Hours of one rewrite component per band (assumed, with the lanes' definitions as source)."""
    folder = (directory or default_rules_dir()) / "effort"
    table = yaml.safe_load((folder / "rewrite-bands.yaml").read_text())["bands"]
    return {band: Effort(low=float(v["low"]), likely=float(v["likely"]), high=float(v["high"]))
            for band, v in table.items()}


@dataclass(frozen=True)
class Estimate:
    effort: Effort
    breakdown: tuple[EffortItem, ...]  # every contributor to the likely hours, largest first
    calibrated: float = 0.0  # likely hours that rest on measured constants
    validation: Effort = NO_EFFORT  # the assumed validation steps within effort
    rewrite: Effort = NO_EFFORT  # rewrite components' bands, apart from effort: a later milestone
    rewrite_breakdown: tuple[EffortItem, ...] = ()  # one item per rewrite component, largest first


def occurrence_weight(k: int, learning_rate: float) -> float:
    """Wright's learning curve: the k-th occurrence costs k^log2(rate) of the first."""
    return float(k ** math.log2(learning_rate))


def kernel_groups(kernels: Iterable[Finding]) -> set[tuple[str, str]]:
    """Kernels that are variants of one another (same folder, same name stem) form one group."""
    return {(posixpath.dirname(f.path), KERNEL_STEM.sub("", f.symbol) or f.symbol) for f in kernels}


def family_counts(findings: Iterable[Finding], calibration: Calibration) -> dict[str, int]:
    """Occurrences of each calibrated family in a project (kernels: groups of variants)."""
    by_family: dict[str, list[Finding]] = defaultdict(list)
    found = list(findings)
    family_of = {rule: calibration.family_of(rule) for rule in {f.rule for f in found}}  # each rule's, once
    for f in found:
        if (family := family_of[f.rule]) is not None:
            by_family[family.name].append(f)
    return {name: len(kernel_groups(fs)) if name == "kernel" else len(fs) for name, fs in by_family.items()}


class _Items:
    def __init__(self) -> None:
        self.items: dict[str, tuple[Effort, str, str]] = {}  # label -> effort, kind, name
        self.calibrated = 0.0

    def add(self, label: str, effort: Effort, calibrated: bool, *, kind: str, name: str | None = None) -> None:
        self.items[label] = (effort, kind, label if name is None else name)
        self.calibrated += effort.likely if calibrated else 0.0

    def spread(self, label: str, likely: float, factors: tuple[float, float], *, kind: str,
               name: str | None = None) -> None:
        self.add(label, Effort(low=likely * factors[0], likely=likely, high=likely * factors[1]), False, kind=kind,
                 name=name)

    def estimate(self) -> Estimate:
        ranked = sorted(self.items.items(), key=lambda kv: (-kv[1][0].likely, kv[0]))
        breakdown = tuple(EffortItem(label=label, hours=round(e.likely, 2), kind=kind, name=name)
                          for label, (e, kind, name) in ranked)
        efforts = [e for e, _, _ in self.items.values()]
        checks = [e for e, kind, _ in self.items.values() if kind == VALIDATION_KIND]
        return Estimate(Effort(low=sum(e.low for e in efforts), likely=sum(i.hours for i in breakdown),
                               high=sum(e.high for e in efforts)), breakdown, round(self.calibrated, 2),
                        Effort(low=sum(e.low for e in checks), likely=sum(round(e.likely, 2) for e in checks),
                               high=sum(e.high for e in checks)))


def estimate(findings: Sequence[Finding], own_class: str, model: EffortModel,
             rule_effort: Callable[[str], tuple[float, float]], rule_name: Callable[[str], str],
             calibration: Calibration, in_project: Mapping[str, int] | None = None,
             rewrites: Sequence[Rewrite] = ()) -> Estimate:
    """Effort of one workload from its own findings (its share of project costs is separate).
    `in_project`: occurrences of each family in the whole project (the learning curve's count).
    `rewrites`: its rewrite components, each costed by its band apart from the effort (`Estimate.rewrite`: the
    measured first ports left every rewrite component out of their first ROCm build, a later step); their
    findings are not costed in the effort either."""
    items, later = _Items(), _Items()
    rewritten = {f for r in rewrites for f in r.findings}
    bands = rewrite_bands() if rewrites else {}
    for r in rewrites:
        band = r.band if r.band in bands else "large"
        later.add(f"rewrite, assumed band: {r.title} ({band})", bands[band], False, kind="rewrite, assumed band")
    findings = [f for f in findings if f not in rewritten] if rewritten else list(findings)  # no hash of each for none
    factors = model.uncertainty.get(own_class, (1.0, 1.0))
    by_family: dict[str, list[Finding]] = defaultdict(list)
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    family_of = {rule: calibration.family_of(rule) if model.calibrated else None for rule in {f.rule for f in findings}}
    for finding in findings:
        family = family_of[finding.rule]
        if family is not None and family.name == "build":
            continue  # build files are the project's build port
        if family is not None and family.name in calibration.lines_first_occurrence:
            by_family[family.name].append(finding)
        else:
            by_rule[finding.rule].append(finding)
    titles = {f.name: f.title for f in calibration.families}
    for name, occurrences in sorted(by_family.items()):
        lines = calibration.lines_first_occurrence[name]
        total = (in_project or {}).get(name, 0)
        if name == model.kernel_family:
            groups = len(kernel_groups(occurrences))
            items.add(f"kernel: hand edits ×{groups} groups of variants ({len(occurrences)} kernels)",
                      calibration.hours(lines, calibration.units(groups, total)), True, kind=name)
            items.spread(f"{VALIDATION}kernel numerics ×{groups} (learning curve)",
                         model.kernel_validation * calibration.units(groups, total), factors, kind=VALIDATION_KIND)
        else:
            items.add(f"{name}: {titles[name]} ×{len(occurrences)}",
                      calibration.hours(lines, calibration.units(len(occurrences), total)), True, kind=name)
    kernels = 0
    for rule, occurrences in sorted(by_rule.items()):
        if (family := calibration.family_of(rule)) is not None and family.name == model.kernel_family:
            kernels = len(kernel_groups(occurrences))
            continue
        per_occurrence, first_use = rule_effort(rule)
        hours = first_use + sum(per_occurrence * model.hipify_factor.get(f.hipify, 1.0)
                                * occurrence_weight(k, model.learning_rate)
                                for k, f in enumerate(occurrences, start=1))
        items.spread(f"{rule} {rule_name(rule)} ×{len(occurrences)}", hours, factors,
                     kind=family.name if family is not None else rule)
    if kernels:
        items.spread(f"kernel review and validation ×{kernels}", kernels * (model.kernel_review + model.kernel_validation),
                     factors, kind="kernel review and validation")
    apart = later.estimate()
    return replace(items.estimate(), rewrite=apart.effort, rewrite_breakdown=apart.breakdown)


def project_estimate(project_class: str, *, c_files: int, build_findings: int, model: EffortModel,
                     calibration: Calibration, build_files: int = 0, build_kinds: int = 0, backend_files: int = 0,
                     backend_lines: int = 0, rocm_path: bool = False, generators: Mapping[str, int] | None = None,
                     python_or_build: bool = False, rewrite_lanes: Sequence[str] = ()) -> Estimate:
    """Costs a project has once, whatever its number of workloads and targets: where it has anything to
    port (any class but native), its port costs (`port_costs`: build port, glue, HIP twins, a code generator's
    HIP back end); where it
    already builds on ROCm (`rocm_path`), instead, the next increment of its ROCm side (the median measured
    increment; the findings it leaves to port are its workloads' costs, its ROCm build has the build system,
    the glue and the twins); where its findings lie in no C/C++/CUDA file and some in Python code or build files
    (`python_or_build`: a Triton, Python or build-only base), the median measured port of such a base in place of
    the build port; for a first port whose base has kernels of rewrite lanes (`rewrite_lanes`: their titles), the extra
    hand work measured on such first ports, per lane (`lane_cost`); and the plan's assumed validation steps (CI,
    performance check). The fitted figures and the
    leave-one-set-out scores behind each term are in docs/effort.md, not here: they change with every refit."""
    items = _Items()
    no_c_code = python_or_build and not c_files and not backend_files and not any((generators or {}).values())
    if project_class != "native" and model.calibrated and not rocm_path and no_c_code and calibration.no_c_code_lines:
        # findings, none in C/C++/CUDA: a Triton, Python or build-only base; its port is measured whole (s15)
        items.add(f"port of a base with no C/C++/CUDA finding (Python, Triton, build files; median of "
                  f"{calibration.no_c_code_ports} measured such ports: {calibration.no_c_code_lines:.0f} lines)",
                  calibration.hours(calibration.no_c_code_lines), True,
                  kind="no C/C++/CUDA port", name="port of a base with no C/C++/CUDA finding")
        lane_cost(items, rewrite_lanes, calibration)
    elif project_class != "native" and model.calibrated and not rocm_path:
        port_costs(items, c_files=c_files, build_findings=build_findings, calibration=calibration,
                   build_files=build_files, build_kinds=build_kinds, system=True, backend_files=backend_files,
                   backend_lines=backend_lines, generators=generators)
        lane_cost(items, rewrite_lanes, calibration)
    elif rocm_path and model.calibrated and calibration.increment_lines:
        items.add(f"next increment of the existing ROCm build (median of {calibration.increments} measured "
                  f"increments: {calibration.increment_lines:.0f} lines)",
                  calibration.hours(calibration.increment_lines), True,
                  kind="ROCm build increment", name="next increment of the existing ROCm build")
        twin_cost(items, backend_files, backend_lines, calibration)  # CUDA back-end files no HIP member has yet
    elif model.calibrated and not rocm_path:  # native: no CUDA the scan sees, but a generator may write it as text
        generator_cost(items, generators or {}, calibration)  # (StarPlat's DSL compiler: 1,435 h measured)
    size = calibration.size_factor(c_files)
    factors = model.uncertainty.get(project_class, (1.0, 1.0))
    for item, hours in model.fixed.get(project_class, {}).items():
        items.spread(f"{VALIDATION}{item} (size ×{size:.2f})", hours * size, factors, kind=VALIDATION_KIND,
                     name=f"{VALIDATION}{item}")
    return items.estimate()


def lane_cost(items: _Items, lanes: Sequence[str], calibration: Calibration) -> None:
    """A first port of a base whose findings fall in rewrite lanes (rules/alternatives/rewrites.yaml): the hand lines
    the other terms leave unexplained in the measured first ports of such bases, pooled per lane (s18). It is not the
    rewrite of the lane's kernels (a later milestone, costed apart by its band): the four such first ports examined in
    s11 changed no line of them."""
    if lanes and calibration.lane_lines_per_lane:
        items.add(f"first port of a base with rewrite-lane kernels ({len(lanes)} lane{'' if len(lanes) == 1 else 's'}: "
                  f"{', '.join(lanes)}; {calibration.lane_lines_per_lane:.0f} hand lines a lane beyond the findings, "
                  f"pooled over {calibration.lane_ports} measured such first ports; the rewrites themselves apart)",
                  calibration.hours(calibration.lane_lines_per_lane, len(lanes)), True,
                  kind="rewrite-lane base", name="first port of a base with rewrite-lane kernels")


def part_estimate(*, c_files: int, build_findings: int, build_files: int, calibration: Calibration,
                  system_ported: bool, build_kinds: int = 0, backend_files: int = 0, backend_lines: int = 0) -> Estimate:
    """What an optional part (a build switch's CUDA back end, a tests/ folder) costs beyond its findings:
    the port of its own build files, plus the build system itself where the required part has no build
    port to share (`system_ported` false: the project's required code has nothing to port), its glue
    and the HIP twins of its per-back-end files: the same constants as a project's."""
    items = _Items()
    port_costs(items, c_files=c_files, build_findings=build_findings, calibration=calibration,
               build_files=build_files, build_kinds=build_kinds, system=not system_ported, backend_files=backend_files,
               backend_lines=backend_lines)
    return items.estimate()


def port_costs(items: _Items, *, c_files: int, build_findings: int, calibration: Calibration, build_files: int,
               build_kinds: int, system: bool, backend_files: int, backend_lines: int,
               generators: Mapping[str, int] | None = None) -> None:
    """The build port, from what the build files contain (one unit for the build system plus one per kind of
    CUDA build use the build findings name, one rule each: CUDA language, imported targets, nvcc-only flags,
    CUDA libraries ...; a kind is changed once for the whole tree however many files repeat it, and counted at most
    once per build file that carries build findings, since s19: one Makefile with four kinds of nvcc use is one compiler
    line to change; where no build finding names a kind, the measured median of such first ports, since s18); the
    integration glue no finding explains (a compat header, include guards, dispatch branches), once for a port
    with C/C++/CUDA findings (the median measured first port's; per √file until s16); the HIP twins of CUDA files
    kept in a per-back-end layout (a `cuda/` folder beside `openmp/`: a port writes the HIP member of the family), a
    back end written once:
    per file on the learning curve (s12: per line priced a library's whole CUDA back end as one twin per
    file); the HIP back end of a code generator that writes CUDA as text (`generators`: file -> lines whose
    string literals carry CUDA device code, scan.layout.generator_lines), per such line (s13)."""
    named = build_kinds
    build_kinds = min(build_kinds, build_files)  # each build file changes at most once (s19): one compiler line
    if system and not build_kinds and calibration.build_lines_no_kind:  # the build system alone, measured (s18)
        items.add(f"build system port (no build finding names a kind of CUDA build use: the build system alone; "
                  f"{calibration.build_lines_no_kind:.1f} lines, the median of {calibration.build_no_kind_ports} "
                  f"measured first ports with none)",
                  calibration.hours(calibration.build_lines_no_kind), True,
                  kind="build system port", name="build system port")
    elif build_kinds or system:
        counted = f", counted once per build file: {build_kinds}" if named > build_kinds else ""
        items.add(f"build system port ({named} kind{'' if named == 1 else 's'} of CUDA build use "
                  f"({build_findings} build finding{'' if build_findings == 1 else 's'} in {build_files} "
                  f"file{'' if build_files == 1 else 's'}{counted}){' + the build system' if system else ''}; "
                  f"{calibration.build_lines_first_unit:.1f} lines the first, learning curve)",
                  calibration.hours(calibration.build_lines_first_unit, calibration.curve(build_kinds + system)), True,
                  kind="build system port", name="build system port")
    if c_files:  # once per port, whatever its size (s17: per √file until s16)
        items.add(f"integration glue no finding explains (compat header, include guards: "
                  f"{calibration.glue_lines_per_port:.1f} lines, the median of {calibration.glue_ports} measured first "
                  f"ports with C/C++/CUDA findings)",
                  calibration.hours(calibration.glue_lines_per_port), True,
                  kind="integration glue", name="integration glue no finding explains")
    twin_cost(items, backend_files, backend_lines, calibration)
    generator_cost(items, generators or {}, calibration)


def twin_cost(items: _Items, backend_files: int, backend_lines: int, calibration: Calibration) -> None:
    """The HIP twins of the CUDA files of a per-back-end layout that have no HIP member yet, a back end written
    once: per file on the learning curve."""
    if backend_files and calibration.twin_lines_first_file:
        items.add(f"HIP twins of {backend_files} CUDA back-end files ({backend_lines} lines; "
                  f"{calibration.twin_lines_first_file:.1f} hand lines the first file, learning curve)",
                  calibration.hours(calibration.twin_lines_first_file, calibration.curve(backend_files)), True,
                  kind="HIP twins", name="HIP twins of CUDA back-end files")


def generator_cost(items: _Items, generators: Mapping[str, int], calibration: Calibration) -> None:
    """The HIP back end of the code generators that write CUDA as text (file -> lines of CUDA device code in
    string literals, scan.layout.generator_lines), per such line (s13: fitted on StarPlat, OPS, yaksa, arbor)."""
    lines = sum(generators.values())
    if lines and calibration.generator_lines_per_line:
        count = len(generators)
        items.add(f"HIP back end of a code generator ({lines} lines of CUDA device code in string literals in "
                  f"{count} generator file{'' if count == 1 else 's'}; "
                  f"{calibration.generator_lines_per_line:.1f} hand lines each)",
                  calibration.hours(calibration.generator_lines_per_line, lines), True,
                  kind="code generator", name="HIP back end of a code generator")


def rule_hours(findings: Iterable[Finding], model: EffortModel, rule_effort: Callable[[str], tuple[float, float]],
               calibration: Calibration) -> dict[str, float]:
    """Expected hand hours of each rule's findings (required parts, not ported), for ranking: a
    calibrated family's project cost shared by its rules in proportion to their findings, a build
    rule's share of the build port beyond the build system itself (one kind of CUDA build use each), other
    rules their own figures."""
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if not f.status:
            by_rule[f.rule].append(f)
    family_total: dict[str, int] = defaultdict(int)  # findings per family
    family_rules: dict[str, int] = defaultdict(int)  # rules per family: the build family's kinds of CUDA build use
    build_paths: set[str] = set()  # the build files that carry them: a kind is counted at most once a file (s19)
    for rule, found in by_rule.items():
        family = calibration.family_of(rule) if model.calibrated else None
        if family is not None:
            family_total[family.name] += len(found)
            family_rules[family.name] += 1
            if family.name == "build":
                build_paths.update(f.path for f in found)
    out: dict[str, float] = {}
    for rule, found in by_rule.items():
        family = calibration.family_of(rule) if model.calibrated else None
        if family is not None and family.name == "build":
            kinds = family_rules["build"]
            counted = min(kinds, len(build_paths))
            port = calibration.build_lines_first_unit * (calibration.curve(counted + 1) - 1.0)
            out[rule] = port * calibration.hours_per_line / kinds  # the port beyond the build system, shared by its kinds
        elif family is not None and family.name in calibration.lines_first_occurrence:
            total = family_total[family.name]
            lines = calibration.lines_first_occurrence[family.name] * calibration.curve(total) * len(found) / total
            out[rule] = lines * calibration.hours_per_line
        else:
            per_occurrence, first_use = rule_effort(rule)
            out[rule] = first_use + sum(per_occurrence * model.hipify_factor.get(f.hipify, 1.0)
                                        * occurrence_weight(k, model.learning_rate) for k, f in enumerate(found, start=1))
    return {rule: round(hours, 2) for rule, hours in sorted(out.items())}
