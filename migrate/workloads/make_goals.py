"""Code only a goal outside make's default builds: the rules make's default goal does not reach (extract/text/
make_goals.py), the sources only they name and the variables only they use. Such a goal runs when the user asks
for it (`make cuda29`), as a switch off by default does: an optional part, with the default goal as evidence."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from migrate.model import Fact
from migrate.workloads.build_sources import named_files
from migrate.workloads.fact_index import of_kind
from migrate.workloads.switches import Region

GOAL_PREFIX = "make goal "  # the switch of a goal outside the default: `make goal cuda29 of src/cuckaroo/Makefile`
UNKNOWN_GOAL = "*"


@dataclass(frozen=True, slots=True)
class Goals:
    """Goals outside make's default build: their lines, the files only they name, and why each is optional."""

    regions: tuple[Region, ...] = ()
    gated: Mapping[str, Region] = field(default_factory=dict)  # file -> the first rule that names it
    switches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # switch -> evidence


def switch_name(goal: str, makefile: str) -> str:
    return f"{GOAL_PREFIX}{goal} of {makefile}"


def outside_default_goal(facts: Mapping[str, Sequence[Fact]]) -> Goals:
    """The rules each Makefile's default goal does not reach, less the goals a recipe anywhere asks make for
    (`$(MAKE) -C solvers cuda`: built when that recipe runs; a goal read from a variable, `*`, keeps every one); and
    the files every build file that names them names only inside such rules (`cuda29: ... mean.cu` /
    `$(NVCC) -o $@ mean.cu`). A file a CMake list, a rule the default goal reaches or a plain make assignment names
    stays required."""
    asked = {f.name for _, f in of_kind(facts, "make_call")}
    if UNKNOWN_GOAL in asked:
        return Goals()
    regions: list[Region] = []
    switches: dict[str, tuple[str, ...]] = {}
    for path in sorted(facts):
        for f in facts[path]:
            if f.kind == "make_goal_only" and f.name not in asked:
                name = switch_name(f.name, path)
                regions.append(Region(path, f.line, f.end_line, name,
                                      f"`{f.name}` is a goal make's {f.text} does not reach"))
                switches.setdefault(name, (f"{path}: make's {f.text} does not reach `{f.name}`; only "
                                           f"`make {f.name}` builds it",))
    if not regions:
        return Goals()
    by_path: dict[str, list[Region]] = {}
    for r in regions:
        by_path.setdefault(r.path, []).append(r)
    files = frozenset(facts)
    sites: dict[str, list[Region | None]] = {}  # file -> the goal rule of each place a build file names it
    for path, items in facts.items():
        for f in items:
            if f.kind == "build_source":
                rule = next((r for r in by_path.get(path, ()) if r.start <= f.line <= r.end), None)
                for name in named_files(path, f, files):
                    sites.setdefault(name, []).append(rule)
    gated = {name: found[0] for name, found in sorted(sites.items())
             if found and all(r is not None for r in found) and found[0] is not None}
    return Goals(tuple(regions), gated, switches)
