"""Code only a goal outside make's default builds: the rules make's default goal does not reach (extract/text/
make_goals.py), the sources only they name and the variables only they use. Such a goal runs when the user asks
for it (`make cuda29`), as a switch off by default does: an optional part, with the default goal as evidence.

A default goal that needs a prerequisite no rule of the Makefile makes and no file or folder of the project is (nor a
source make's built-in rules make it from, `x` from `x.c`) fails: make stops with "No rule to make target `cuda',
needed by `all'" (eliazonta/SpMV's `all: sequential cuda` where the CUDA rule is `parallel:`). Such a Makefile has no
default build the user gets by running `make`: every goal is one the user names, and none is optional for lying
outside the default (https://www.gnu.org/software/make/manual/html_node/Error-Messages.html).

A conditional branch taken only when make's command line names a goal (`make_goal_test`, extract/text/
make_goal_tests.py: MAKECMDGOALS is empty in a plain `make`) is such a goal's code too, and so is the source of a
stem its assignments name (`make_stem`: `FILES += mmc_optix_host`, the .c/.cpp/.cu of that stem in the Makefile's
folder, compiled by a pattern rule of an included file) where no other build file names that source.

A source a goal outside the default names is no optional part where a file the default build compiles `#include`s it
(`kalman.cu`, which `kalman.o: kalman.cu` compiles, includes `matrix_kernel.cu` and `invert.cpp`, which only the
unreached `matrix_kernel.o:` / `invert.o:` rules name): the preprocessor pastes it into that translation unit, so
the default build compiles it (https://gcc.gnu.org/onlinedocs/cpp/Include-Operation.html)."""
from __future__ import annotations

import posixpath
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from migrate.model import Fact
from migrate.workloads.build_sources import included_by, named_files
from migrate.workloads.fact_index import of_kind
from migrate.workloads.switches import Region

GOAL_PREFIX = "make goal "  # the switch of a goal outside the default: `make goal cuda29 of src/cuckaroo/Makefile`
UNKNOWN_GOAL = "*"
STEM_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")  # what a pattern rule compiles an object of a stem from


@dataclass(frozen=True, slots=True)
class Goals:
    """Goals outside make's default build: their lines, the files only they name, and why each is optional."""

    regions: tuple[Region, ...] = ()
    gated: Mapping[str, Region] = field(default_factory=dict)  # file -> the first rule that names it
    switches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # switch -> evidence


def switch_name(goal: str, makefile: str) -> str:
    return f"{GOAL_PREFIX}{goal} of {makefile}"


def outside_default_goal(facts: Mapping[str, Sequence[Fact]], known: Collection[str] = ()) -> Goals:
    """The rules each Makefile's default goal does not reach, less the goals a recipe anywhere asks make for
    (`$(MAKE) -C solvers cuda`: built when that recipe runs; a goal read from a variable, `*`, keeps every one); and
    the files every build file that names them names only inside such rules (`cuda29: ... mean.cu` /
    `$(NVCC) -o $@ mean.cu`). A file a CMake list, a rule the default goal reaches or a plain make assignment names
    stays required. A Makefile whose default goal fails for want of a rule (`make_no_rule` facts whose name is no
    file or folder of `known` nor the stem of one, module docstring) gives none."""
    asked = {f.name for _, f in of_kind(facts, "make_call")}
    if UNKNOWN_GOAL in asked:
        return Goals()
    broken = _failing_default(facts, frozenset(known) | frozenset(facts))
    regions: list[Region] = []
    switches: dict[str, tuple[str, ...]] = {}
    for path in sorted(facts):
        for f in facts[path]:
            if f.kind == "make_goal_only" and f.name not in asked and path not in broken:
                name = switch_name(f.name, path)
                regions.append(Region(path, f.line, f.end_line, name,
                                      f"`{f.name}` is a goal make's {f.text} does not reach"))
                switches.setdefault(name, (f"{path}: make's {f.text} does not reach `{f.name}`; only "
                                           f"`make {f.name}` builds it",))
    for path, f in of_kind(facts, "make_goal_test"):
        goals = f.text.split()
        if path in broken or any(g in asked for g in goals):
            continue
        name = switch_name(f.name, path)
        regions.append(Region(path, f.line, f.end_line, name, f"taken only when make's command line names "
                                                              f"{' or '.join(f'`{g}`' for g in goals)}"))
        switches.setdefault(name, (f"{path}:{f.line}: a branch taken only when make's command line names "
                                   f"{', '.join(goals)} (MAKECMDGOALS); `make` alone names no goal",))
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
                rule = _inside(by_path.get(path, ()), f.line)
                for name in named_files(path, f, files):
                    sites.setdefault(name, []).append(rule)
            elif f.kind == "make_stem" and (rule := _inside(by_path.get(path, ()), f.line)) is not None:
                stem = posixpath.join(posixpath.dirname(path), f.name)
                for name in (stem + suffix for suffix in STEM_SUFFIXES if stem + suffix in files):
                    sites.setdefault(name, []).append(rule)
    gated = {name: found[0] for name, found in sorted(sites.items())
             if found and all(r is not None for r in found) and found[0] is not None}
    if gated:  # a source a built one #includes is compiled with it (module docstring): read only where it matters
        built = {name for name, found in sites.items() if any(r is None for r in found)}
        included = included_by(built, facts, files | frozenset(known))
        gated = {name: rule for name, rule in gated.items() if name not in included}
    return Goals(tuple(regions), gated, switches)


def _inside(regions: Sequence[Region], line: int) -> Region | None:
    return next((r for r in regions if r.start <= line <= r.end), None)


def _failing_default(facts: Mapping[str, Sequence[Fact]], files: frozenset[str]) -> set[str]:
    """The Makefiles whose default goal needs a prerequisite nothing makes (module docstring)."""
    needed = list(of_kind(facts, "make_no_rule"))
    if not needed:
        return set()
    folders = {posixpath.dirname(p) for p in files}
    for path in list(folders):
        while path:
            path = posixpath.dirname(path)
            folders.add(path)
    stems = {posixpath.splitext(p)[0] for p in files}
    out: set[str] = set()
    for path, f in needed:
        wanted = posixpath.normpath(posixpath.join(posixpath.dirname(path), f.name))
        if f.name.startswith(("/", "~")) or wanted.startswith("../"):
            continue  # a tool installed outside the project (`/opt/sgxsdk/bin/x64/sgx_edger8r`): not known here
        if wanted not in files and wanted not in folders and wanted not in stems:
            out.add(path)
    return out
