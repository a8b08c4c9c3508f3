"""Build switches and the code they gate: the branches of `#ifdef USE_X` / CMake `if(USE_X)`, the files and
folders a branch adds, functions and modules reached only there, macros only a switch's build defines, where
each switch is declared and its default, and the switch every CUDA translation unit is built under."""
from __future__ import annotations

import bisect
import fnmatch
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from migrate.model import Fact
from migrate.rulebase.name_lists import name_list
from migrate.vocabulary import (
    C_SOURCE_KINDS,
    COMMENTED_OUT_DEFINE,
    DEFINED_PREFIX,
    ENVIRONMENT_PREFIX,
    HOST_LANGUAGE,
    MAKE_UNSET,
    PARSE_ARGUMENTS,
)
from migrate.workloads.build_sources import file_glob, included_by, join, named_by_make, named_files, prefixes, recipe_folders
from migrate.workloads.configured import configured_switches
from migrate.workloads.fact_index import each_of_kinds, of_kind, of_kinds
from migrate.workloads.optional_words import Words, detection, feature, is_platform, off_by_default, optional_root

CUDA_UNITS = (".cu",)  # CUDA translation units: what nvcc compiles
CMAKE_FILES = ("CMakeLists.txt", ".cmake")
ENABLING_COMMANDS = frozenset({"project", "enable_language"})  # the CMake commands that enable a language
TOP_CMAKE = "CMakeLists.txt"  # the build file a plain `cmake <project>` configures
BUILD_KINDS = frozenset({"cmake", "makefile"})  # files whose `-DX` flags define macros for what they compile
DEFINE_FLAG = re.compile(r"^-D\s*([A-Za-z_]\w*)")


@dataclass(frozen=True, slots=True)
class Region:
    """A stretch of a file (lines start..end) that a switch turns on, and the line that says so."""

    path: str
    start: int
    end: int
    switch: str
    text: str


STAB_MIN = 32  # a file with fewer branches is read branch by branch; more are indexed once (Stab)


class Stab:
    """The branches around each line of one file, read from an index built once: sorted boundaries, and for each
    stretch between two of them the branches that cover it, in the file's order. A CMakeLists.txt with 4,000
    `if(OPTn)` branches read all of them again for each of its sources and lines (quadratic in the branches)."""

    def __init__(self, regions: tuple[Region, ...]) -> None:
        events: dict[int, list[tuple[int, int]]] = {}
        for i, r in enumerate(regions):
            if r.start <= r.end:  # a branch that ends before it starts is around no line
                events.setdefault(r.start, []).append((1, i))
                events.setdefault(r.end + 1, []).append((-1, i))
        self.points = sorted(events)
        self.covering: list[tuple[Region, ...]] = []
        active: set[int] = set()
        for point in self.points:
            for step, i in events[point]:
                if step < 0:
                    active.discard(i)
            active.update(i for step, i in events[point] if step > 0)
            self.covering.append(tuple(regions[i] for i in sorted(active)))

    def around(self, line: int) -> tuple[Region, ...]:
        at = bisect.bisect_right(self.points, line) - 1
        return self.covering[at] if at >= 0 else ()


_STABS: dict[int, tuple[tuple[Region, ...], Stab]] = {}
# the text of a make conditional's branch (extract/text/buildfiles.py: `make: MODE=cudav1`)
MAKE_BRANCH = "make: "


def branches_at(regions: Sequence[Region], line: int) -> Sequence[Region]:
    """The branches of one file around a line, in the file's order: a scan of a few, a Stab of many (kept for the
    same tuple of branches: a project's readings ask again for each of its findings)."""
    if len(regions) < STAB_MIN or not isinstance(regions, tuple):
        return [r for r in regions if r.start <= line <= r.end]
    kept = _STABS.get(id(regions))
    if kept is None or kept[0] is not regions:
        if len(_STABS) >= 256:
            _STABS.clear()
        kept = _STABS[id(regions)] = (regions, Stab(regions))
    return kept[1].around(line)


def switches_around(regions: Mapping[str, tuple[Region, ...]], gated: Mapping[str, Region], path: str, *,
                    line: int, memo: dict[str, list[Region]] | None = None) -> list[Region]:
    """Every switch branch around a line, innermost first, then the CMake branches that add its file (gates).
    `memo`: each file's gates, kept for a loop over many lines while `regions` and `gated` do not change
    (a project's findings: gates walked each folder above the file again for every one of them)."""
    here = regions.get(path)  # most files have no switch branch: no sort to make
    inside = sorted(branches_at(here, line), key=lambda r: -r.start) if here else []
    if memo is None:
        return inside + gates(regions, gated, path)
    added = memo.get(path)
    if added is None:
        added = memo[path] = gates(regions, gated, path)
    return inside + added


GATE_DEPTH = 4  # build files that add build files that add a source: deeper chains are not followed


def gates(regions: Mapping[str, tuple[Region, ...]], gated: Mapping[str, Region], path: str,
          depth: int = 0) -> list[Region]:
    """The CMake branches that add a file or a folder above it, each followed by the branches around it in its own build
    file and those that add that build file: a source listed in an inner branch is built only when every branch
    around the listing holds (https://cmake.org/cmake/help/latest/command/if.html). PixarAnimationStudios/OpenSubdiv
    7d0ab553 opensubdiv/osd/CMakeLists.txt:334-362 lists cudaD3D11VertexBuffer.cpp under `if( DXSDK_FOUND )` (:354)
    inside `if( CUDA_FOUND )`: no CUDA toolkit, no such source, whatever the DirectX SDK."""
    out: list[Region] = []
    for prefix in prefixes(path):
        r = gated.get(prefix)
        if r is None:
            continue
        out.append(r)
        out.extend(sorted((x for x in branches_at(regions.get(r.path, ()), r.start) if r.end <= x.end and x != r),
                          key=lambda x: -x.start))
        if depth < GATE_DEPTH and r.path != path:
            out.extend(gates(regions, gated, r.path, depth + 1))
    return out if depth or len(out) < 2 else list(dict.fromkeys(out))


def regions_of(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[Region, ...]]:
    found: dict[str, list[Region]] = {}
    for path, f in of_kind(facts, "switch_branch"):
        found.setdefault(path, []).append(Region(path, f.line, f.end_line, f.name, f.text))
    return {path: tuple(items) for path, items in found.items()}


def extend(regions: dict[str, tuple[Region, ...]], more: Iterable[Region]) -> bool:
    """Add the regions not there yet; whether any was."""
    added = False
    for region in more:
        here = regions.get(region.path, ())
        if not any((r.start, r.end, r.switch) == (region.start, region.end, region.switch) for r in here):
            regions[region.path] = (*here, region)
            added = True
    return added


def common_switch(sites: Sequence[Sequence[Region]]) -> Region | None:
    """The first branch around the first site whose switch is around every site, or None."""
    if not sites or not all(sites):
        return None
    common = set.intersection(*({r.switch for r in site} for site in sites))
    return next((r for r in sites[0] if r.switch in common), None)


def around(regions: Mapping[str, tuple[Region, ...]], path: str, line: int) -> list[Region]:
    return list(branches_at(regions.get(path, ()), line))


def called_only_under(facts: Mapping[str, Sequence[Fact]],
                       regions: Mapping[str, tuple[Region, ...]]) -> list[Region]:
    """The body of a CMake function() or macro() every call of which sits in one switch's branch is in that
    branch too: what it defines and compiles happens only when the switch is on
    (https://cmake.org/cmake/help/latest/command/function.html)."""
    bodies: list[tuple[str, str, int, int]] = []  # (file, name, first line, last line)
    calls: dict[str, list[tuple[str, int]]] = {}
    commands: dict[str, list[Fact]] = {}
    for path, f in of_kind(facts, "cmake"):
        if f.role == "command":
            commands.setdefault(path, []).append(f)
    for path, items in commands.items():
        opened: tuple[str, int] | None = None
        for f in sorted(items, key=lambda f: f.line):
            calls.setdefault(f.name, []).append((path, f.line))
            if f.name in ("function", "macro") and f.text:
                opened = (f.text.lower(), f.line)
            elif f.name in ("endfunction", "endmacro") and opened is not None:
                bodies.append((path, opened[0], opened[1], f.line))
                opened = None
    out = []
    for path, name, first, last in bodies:
        sites = [(p, n) for p, n in calls.get(name, []) if not (p == path and first <= n <= last)]
        branch = common_switch([around(regions, p, n) for p, n in sites])
        if branch is not None:
            out.append(Region(path, first, last, branch.switch,
                               f"{name}() is called only in {branch.path}:{branch.start} {branch.text}"))
    return out


# The folder of the CMake file being read (https://cmake.org/cmake/help/latest/variable/CMAKE_CURRENT_LIST_DIR.html)
# or being processed: a path under it is a path relative to that file.
FOLDER_VARIABLE = re.compile(r"^\$\{(?:CMAKE_CURRENT_LIST_DIR|CMAKE_CURRENT_SOURCE_DIR)\}/")


def loaded_only_under(facts: Mapping[str, Sequence[Fact]],
                       regions: Mapping[str, tuple[Region, ...]]) -> dict[str, Region]:
    """A CMake module every load of which sits in one switch's branch: `FindX.cmake` loaded by find_package(X)
    (https://cmake.org/cmake/help/latest/command/find_package.html#search-modes), or a module include()d by
    name or path, or another CMake file include()d by its path (flashlight's `if (FL_USE_CUDNN)` /
    `include(${CMAKE_CURRENT_LIST_DIR}/backend/cudnn/CMakeLists.txt)`). What it sets, checks and compiles happens
    only when the switch is on (gated_by_build gives the sources it names the same branch)."""
    loads: dict[str, list[tuple[str, int]]] = {}  # module stem -> (file, line) of each load
    by_path: dict[str, list[tuple[str, int]]] = {}  # a file include()d by its path -> (file, line) of each load
    for path, f in of_kind(facts, "cmake"):
        if f.name.startswith("find_package:"):
            loads.setdefault("Find" + f.name.partition(":")[2], []).append((path, f.line))
        elif f.name == "include" and f.role == "command" and f.text:
            stem = posixpath.basename(f.text).removesuffix(".cmake")
            loads.setdefault(stem, []).append((path, f.line))
            named = FOLDER_VARIABLE.sub("", f.text)
            if not named.endswith(".cmake") and "${" not in named:
                by_path.setdefault(join(posixpath.dirname(path), named), []).append((path, f.line))
    out = {}
    for path in facts:
        sites = by_path.get(path) or (loads.get(posixpath.basename(path).removesuffix(".cmake"))
                                      if path.endswith(".cmake") else None)
        if sites:
            branch = common_switch([around(regions, p, n) for p, n in sites])
            if branch is not None:
                out[path] = branch
    return out


def define_flags(items: Iterable[Fact]) -> Iterable[tuple[Fact, str]]:
    """The `-DX` flags among a file's facts (`-DX` as one flag, or `-D` with `X` as its text), with the macro."""
    for f in items:
        if f.kind == "flag" and (m := DEFINE_FLAG.match(f.text if f.name == "-D" else f.name)):
            yield f, m.group(1)


def _build_defines(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], regions: Mapping[str, tuple[Region, ...]],
                   gated: Mapping[str, Region]) -> Iterable[tuple[str, list[Region], Fact, str]]:
    """Every `-DX` of a build file (BUILD_KINDS): (path, the switch branches that add its folder, the flag, X)."""
    for path, items in _by_path(of_kind(facts, "flag")).items():  # define_flags reads flags only
        if kinds.get(path) in BUILD_KINDS:
            added_by = gates(regions, gated, path)
            for f, macro in define_flags(items):
                yield path, added_by, f, macro


def _by_path(placed: Iterable[tuple[str, Fact]]) -> dict[str, list[Fact]]:
    """(file, fact) pairs grouped by file, in their order."""
    out: dict[str, list[Fact]] = {}
    for path, f in placed:
        out.setdefault(path, []).append(f)
    return out


def required_results(facts: Mapping[str, Sequence[Fact]],
                     keep: Callable[[str, Fact], bool] = lambda path, f: True) -> set[str]:
    """`X_FOUND` for each `find_package(X REQUIRED)` that `keep` accepts: a detection such a call makes always true
    (the configuration stops without X) is no opt-in."""
    return {f.name.partition(":")[2].upper() + "_FOUND" for path, f in of_kind(facts, "cmake")
            if f.name.startswith("find_package:") and f.text.endswith(" REQUIRED)") and keep(path, f)}


def compiler_results(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[Region, ...]],
                     gated: Mapping[str, Region], known: Words) -> set[str]:
    """The detection results an unconditional CUDA language makes always true (rules/workloads/optional.yaml
    `detection.compiler_results`: CMAKE_CUDA_COMPILER, CUDA_FOUND, CUDAToolkit_FOUND), where the project's top
    CMakeLists.txt enables CUDA (`project(x LANGUAGES CXX CUDA)`, `enable_language(CUDA)`) outside every switch's
    branch: CMake stops where no CUDA compiler works, so no configure sees them false. Only the top file: a nested
    one may be a project of its own that no configure of the top reads (workloads/reach.py)."""
    for f in facts.get(TOP_CMAKE, ()):
        if f.kind != "cmake" or f.name != "language:CUDA" or switches_around(regions, gated, TOP_CMAKE, line=f.line):
            continue
        command = max((c for c in facts[TOP_CMAKE] if c.kind == "cmake" and c.role == "command" and c.line <= f.line),
                      key=lambda c: c.line, default=None)
        if command is not None and command.name.lower() in ENABLING_COMMANDS:
            return set(known.compiler_results)
    return set()


def defined_only_under(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                        regions: Mapping[str, tuple[Region, ...]], gated: Mapping[str, Region],
                        known: Words | None = None) -> list[Region]:
    """A macro the build defines (`add_definitions(-DX)`, `target_compile_definitions(t X)`, make's
    `CXXFLAGS += -DX`) only in one switch's branch, and no source #defines, is on exactly when that switch is:
    its `#ifdef X` branches are that switch's branches too. A build file of a folder the build adds only in a
    switch's branch (`gated`) defines it only under that switch too. With `known`, branches on different
    detections of NVIDIA's toolkit count as one (ddemidov/vexcl 1bfbcb33 CMakeLists.txt:166 and :183 define
    VEXCL_BACKEND_CUDA under `if (CUDA_FOUND)` on old CMake and `if (CUDAToolkit_FOUND)` on new: both are true only
    where the toolkit is installed)."""
    sites: dict[str, list[list[Region]]] = {}
    for path, added_by, f, macro in _build_defines(facts, kinds, regions, gated):
        sites.setdefault(macro, []).append(around(regions, path, f.line) + added_by)
    defined = {f.name for _, f in of_kind(facts, "defined")}
    required = required_results(facts)

    def branch_of(sites: list[list[Region]]) -> Region | None:
        if (branch := common_switch(sites)) is not None or known is None:
            return branch
        found = [next((r for r in site if detection(r.switch, known) and r.switch.upper() not in required), None)
                 for site in sites]
        return found[0] if found and all(r is not None for r in found) else None

    by_macro = {macro: branch for macro, around in sites.items()
                if macro not in defined and (branch := branch_of(around)) is not None and branch.switch != macro}
    return [Region(r.path, r.start, r.end, branch.switch,
                    f"{r.text} ({r.switch} is defined only in {branch.path}:{branch.start} {branch.text})")
            for items in regions.values() for r in items if (branch := by_macro.get(r.switch)) is not None]


def defined_by_build(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                     regions: Mapping[str, tuple[Region, ...]], gated: Mapping[str, Region]) -> set[str]:
    """Macros a build file defines (`add_definitions(-DX)`, make's `CXXFLAGS += -DX`) outside every switch's
    branch, in a file the build does not add only under a switch: the default build defines them, so their
    `#ifdef X` branches are not off by default (trtllm's `add_definitions(-DENABLE_FP8)` under a CUDA-version
    test, which is no switch). Only macros a preprocessor branch tests: a `-DX` defines X for the compiler, and
    CMake's `if(X)` or make's `ifeq ($(X),1)` read the build tool's own variable X, which no compile flag sets
    (NervanaSystems/ngraph f677a119 contrib/docker/Makefile:86 hands `-DNGRAPH_GPU_ENABLE=TRUE` to the cmake of
    its GPU image; the top CMakeLists.txt:137 declares the option FALSE, and only CMake reads it)."""
    tested = {f.name for path, f in of_kind(facts, "switch_branch") if kinds.get(path) in C_SOURCE_KINDS}
    return {macro for path, added_by, f, macro in _build_defines(facts, kinds, regions, gated)
            if macro in tested and not added_by and not around(regions, path, f.line)}


def set_only_under(facts: Mapping[str, Sequence[Fact]], regions: dict[str, tuple[Region, ...]],
                   gated: Mapping[str, Region], known: Words,
                   hard: Mapping[str, tuple[str, str]] | None = None, *,
                   declared: Mapping[str, tuple[str, str]] | None = None) -> dict[str, tuple[str, str]]:
    """A CMake variable the project sets to a true value (`set(X_CUDA_ENABLED ON)`) only inside switches'
    branches, and that is no option or cache entry a user sets nor a `-DX` a script passes, is on exactly when
    those switches are (rules/workloads/optional.yaml `switches.on_values`); a set() to another variable's value may
    be true, so it counts as such a site (buildaworldnet/IrrlichtBAW 9033b2a9 source/Irrlicht/CMakeLists.txt:52-54
    `if (IRR_COMPILE_WITH_CUDA)` `set(_IRR_COMPILE_WITH_CUDA_ ${IRR_COMPILE_WITH_CUDA})`, then `#cmakedefine
    _IRR_COMPILE_WITH_CUDA_` in a configured header): its `if(X)` branches become theirs, the one of them off by default
    (a detection result, an option declared OFF) when there is one. Returns those variables: name -> (the switch off by default
    they follow, where the variable is set true). `declared`: the project's declared_switches, when the caller has
    them."""
    user_set = {f.name for _, f in of_kind(facts, "build_switch") if not f.text.endswith(f" {MAKE_UNSET}")}
    # a `-DX` a script or CI job passes sets the variable; one in CMake's own files (target_compile_definitions(t X),
    # add_definitions(-DX)) defines the C macro X, not the CMake variable (DrTimothyAldenDavis/GraphBLAS e3f309cc
    # CMakeLists.txt:66 `set(GRAPHBLAS_HAS_CUDA ON)` only under `if(SUITESPARSE_HAS_CUDA AND GRAPHBLAS_USE_CUDA)`,
    # :298 target_compile_definitions(GraphBLAS PRIVATE "GRAPHBLAS_HAS_CUDA") under the same test)
    user_set |= {macro for path, f in of_kind(facts, "flag") if not path.endswith(CMAKE_FILES)
                 for _, macro in define_flags((f,))}
    sites: dict[str, list[tuple[str, int, set[str]]]] = {}
    for path, f in of_kind(facts, "switch_value"):
        if (f.text in known.on or f.text.startswith("${")) and f.name not in user_set \
                and not detection(f.name, known):  # a find module's own `set(CUDA_FOUND TRUE)`: still a detection
            # `set(X ${Y})` may be true (Y's value is not known here): a site as a true constant is
            under = {r.switch for r in switches_around(regions, gated, path, line=f.line)} - {f.name}
            sites.setdefault(f.name, []).append((path, f.line, under))
    declared = declared_switches(facts) if declared is None else declared

    def off(switch: str) -> bool:
        return detection(switch, known) or (switch in declared and off_by_default(declared[switch][1], known)) \
            or switch in (hard or {})

    chosen: dict[str, tuple[str, str]] = {}  # variable -> (the switch its branches become, where it is set true)
    for name, found in sites.items():
        common = sorted(set.intersection(*(s for _, _, s in found)))
        if common:  # a switch off in every configuration first (`hard`: SuiteSparse's GRAPHBLAS_USE_CUDA)
            pick = next((s for s in common if s in (hard or {})), None) or next((s for s in common if off(s)), common[0])
            chosen[name] = (pick, f"{found[0][0]}:{found[0][1]}")
    for name in list(chosen):  # a chain of such variables ends at the switch the first one is set under
        seen = {name}
        while (switch := chosen[name][0]) in chosen and switch not in seen:
            seen.add(switch)
            chosen[name] = (chosen[switch][0], chosen[name][1])
    # only where that switch is off by default: a branch on a switch that is on says no more than the variable
    chosen = {name: pick for name, pick in chosen.items() if off(pick[0])}
    for path, branches in regions.items():
        regions[path] = tuple(Region(r.path, r.start, r.end, chosen[r.switch][0],
                                     f"{r.text} ({r.switch} is set true only in {chosen[r.switch][1]}, where "
                                     f"{chosen[r.switch][0]} is on)") if r.switch in chosen else r for r in branches)
    return chosen


def follow_defaults(declared: Mapping[str, tuple[str, str]],
                    chosen: Mapping[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Options whose default is such a variable (`set(RTK_USE_CUDA_DEFAULT OFF)`, `set(RTK_USE_CUDA_DEFAULT ON)` only
    under `if(CMAKE_CUDA_COMPILER)`, then `option(RTK_USE_CUDA "..." ${RTK_USE_CUDA_DEFAULT})`): CMake reads the
    default when option() runs, so the option is on exactly where that switch is, and its default is that switch's."""
    out = dict(declared)
    for name, (where, default) in declared.items():
        variable = default[2:-1] if default.startswith("${") and default.endswith("}") else ""
        if variable in chosen:
            switch, set_at = chosen[variable]
            out[name] = (f"{where} ({variable} is set true only in {set_at}, where {switch} is on)", f"${{{switch}}}")
    return out


def _inside(fact: Fact, regions: Sequence[Region]) -> Region | None:
    return next(iter(branches_at(regions, fact.line)), None)


def gated_by_build(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[Region, ...]],
                   loaded: Mapping[str, Region], known: Words | None = None, *,
                   declared: Mapping[str, tuple[str, str]] | None = None) -> dict[str, Region]:
    """Files and folders (`dir/`) that CMake or make adds only in a switch's branch, relative to the project: one
    that a target outside every branch names too (an example's default target and its `if(BUILD_STATIC)` twin)
    is built by default. A glob outside the branches does not count: decord globs every source for its IDE's
    source groups, while only `if(USE_CUDA)` builds the .cu files. `loaded`: CMake files loaded only in a switch's
    branch (loaded_only_under): what they name outside their own branches is built in that one. A glob outside the
    branches whose variable every use of which sits in one switch's branch (`used_only_under`) adds its files in
    that branch, unless another glob lists them too. `declared`: the project's declared_switches, when the caller has
    them."""
    out: dict[str, Region] = {}
    ungated: list[tuple[str, Fact]] = []
    globs: list[tuple[str, Fact]] = []
    files = frozenset(facts)
    recipes: dict[str, frozenset[str]] = {}  # a Makefile's recipe folders, found once per file
    for path, f in of_kinds(facts, "cmake_subdirectory", "build_source"):
        region = (_inside(f, regions[path]) if path in regions else None) or loaded.get(path)
        if region is None:
            if not (f.kind == "build_source" and file_glob(f)):
                ungated.append((path, f))  # a glob outside every switch (an IDE's source_group) builds nothing itself
            else:
                globs.append((path, f))
            continue
        folders = None
        if region.text.startswith(MAKE_BRANCH):
            folders = recipes.get(path)
            if folders is None:
                folders = recipes[path] = recipe_folders(path, facts[path])
        for name in _added(path, f, files, folders):
            out[name] = region
    named, ungated = _named_by_gated_folders(facts, out, ungated, globs, files, known, declared)
    out.update(named)
    used = used_only_under(facts, regions, globs, known)
    if used:
        listed: dict[str, int] = {}
        for path, f in globs:
            for name in _added(path, f, files):
                listed[name] = listed.get(name, 0) + 1
        out.update({name: region for name, region in used.items() if listed.get(name) == 1})
    if out:  # most projects gate nothing: their ungated sources are not expanded
        built: set[str] = set()
        for path, f in ungated:
            for name in _added(path, f, files):
                out.pop(name, None)
                built.add(name)
        # what a source built outside every branch #includes outside its own branches is compiled with it; asked only
        # while a gated source is left, as it reads every include of the project
        if out:
            for name in included_by(built, facts, files,
                                    lambda p, f: p in regions and _inside(f, regions[p]) is not None):
                out.pop(name, None)
    return out


def _named_by_gated_folders(facts: Mapping[str, Sequence[Fact]], gated: Mapping[str, Region],
                            ungated: list[tuple[str, Fact]], globs: Sequence[tuple[str, Fact]], files: frozenset[str],
                            known: Words | None, declared: Mapping[str, tuple[str, str]] | None,
                            ) -> tuple[dict[str, Region], list[tuple[str, Fact]]]:
    """Sources outside a folder CMake adds only in a switch's branch that the folder's own CMake files name
    (`${CMAKE_CURRENT_SOURCE_DIR}/../utils/utils_gpu.cu` in a `-gpu` folder added under `if(BUILD_11DOF_GPU)`,
    uwsbel/low-fidelity-dynamic-models 992faca6 wheeled_vehicle_models/11dof-gpu/CMakeLists.txt:40-43): compiled
    only where such a folder is built, so gated by its branch; of several such folders, by the branch of one whose
    switch is not declared off by default where there is one (that build compiles it by default). Returns those
    sources with their branches, and `ungated` less the facts that named them. A file a glob outside every branch lists
    stays as it was (a default target may compile it)."""
    folders = {name: region for name, region in gated.items() if name.endswith("/")}
    if not folders:
        return {}, ungated
    globbed = {name for path, f in globs for name in _added(path, f, files)}
    found: dict[str, list[Region]] = {}
    kept: list[tuple[str, Fact]] = []
    for path, f in ungated:
        region = next((folders[p] for p in prefixes(path) if p in folders), None) \
            if f.kind == "build_source" and path.endswith(CMAKE_FILES) else None
        if region is None:
            kept.append((path, f))
            continue
        for name in _added(path, f, files):
            if name not in globbed and not any(p in folders for p in prefixes(name)):
                found.setdefault(name, []).append(region)
    if known is None or not found:
        declared = {}
    elif declared is None:
        declared = declared_switches(facts)

    def on(r: Region) -> bool:
        return known is None or r.switch not in declared or not off_by_default(declared[r.switch][1], known)
    return {name: next((r for r in regions if on(r)), regions[0]) for name, regions in found.items()}, kept


def used_only_under(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[Region, ...]],
                    globs: Sequence[tuple[str, Fact]], known: Words | None) -> dict[str, Region]:
    """Files of a glob outside every branch (`file(GLOB_RECURSE CUDA_SOURCES src/*.cu)`) whose variable is read only
    inside one switch's branches (`source_variable_use`: `add_executable(cfd3d ${SOURCES} ${CUDA_SOURCES})` under
    `if(${CUDAToolkit_FOUND})`, chrismile/cfd3d 5943ae78 CMakeLists.txt:14, :53, :63), with that branch: the target
    compiles them only when the switch is on. With `known`, branches on different detections of NVIDIA's toolkit
    count as one (`if(${CUDA_FOUND})` on old CMake, `if(${CUDAToolkit_FOUND})` on new). A variable never read in its
    file (a subdirectory may read it) says nothing."""
    files = frozenset(facts)
    out: dict[str, Region] = {}
    for path, f in globs:
        variable = f.text.partition(" ")[2]
        sites = [around(regions, path, u.line) for u in facts[path] if u.kind == "source_variable_use" and u.name == variable]
        if not sites or not all(sites):
            continue
        branch = common_switch(sites)
        if branch is None and known is not None:
            found = [next((r for r in site if detection(r.switch, known)), None) for site in sites]
            branch = found[0] if all(r is not None for r in found) else None
        if branch is not None:
            out.update(dict.fromkeys(named_files(path, f, files), branch))
    return out


def _added(path: str, f: Fact, files: frozenset[str], recipes: frozenset[str] | None = None) -> list[str]:
    """The folder (`dir/`) an add_subdirectory adds or the files a build_source fact names; `recipes`: the recipe
    folders of the Makefile that names it in a branch of make (they resolve a bare name: build_sources.named_by_make)."""
    if f.kind == "cmake_subdirectory":
        return [join(posixpath.dirname(path), f.name) + "/"]
    if recipes is not None:
        return named_by_make(path, f, files, recipes)
    return named_files(path, f, files)


# Commands that build nothing: a CMakeLists.txt whose every other command sits in one switch's branch builds its
# folder only when the switch is on (https://cmake.org/cmake/help/latest/command/if.html).
NON_BUILDING = frozenset({"if", "elseif", "else", "endif", "find_package", "message", "cmake_minimum_required",
                          "include", "include_guard", "return", "cmake_policy"})
# ... nor do `set` and `option` ahead of the branch: they name values (a subsystem's name, its switch) before a guard
# clause that returns when the switch is off.
NAMING_ONLY = frozenset({"set", "option"})
_NO_WORK = NON_BUILDING | NAMING_ONLY  # made once: `wrapped_folders` made the union again for every command


def wrapped_folders(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[Region, ...]]) -> dict[str, Region]:
    """Folders (`dir/`) whose CMakeLists.txt does all its work in one switch's branch (`if(CUDAToolkit_FOUND)` around
    the whole file): the folder's code is built only when that switch is on."""
    out: dict[str, Region] = {}
    for path, items in facts.items():
        if posixpath.basename(path) != "CMakeLists.txt" or path not in regions:
            continue
        lines = [f.line for f in items if f.kind == "cmake" and f.role == "command"
                 and f.name not in _NO_WORK]
        wrapping = [r for r in regions[path] if lines and all(r.start < n <= r.end for n in lines)]
        if wrapping and (folder := posixpath.dirname(path)):
            out[folder + "/"] = max(wrapping, key=lambda r: r.start)  # the innermost
    return out


def never_set(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], known: Words,
              variants: Iterable[str] = ()) -> dict[str, tuple[str, str]]:
    """CMake switches a user asks for (USE_X, WITH_X: rules/workloads/optional.yaml `request_words`) that an
    if() tests and no file of the project sets (no option(), set(), cache entry, nor a `-DX=...` that a script,
    setup.py or CI job passes): off by default, as an undefined variable is false. Not a value switch
    (`if(USE_BACKEND STREQUAL "X")`: its variable is set in another file, or its default is the file's set()).
    `variants`: scripts for an NVIDIA build beside plain ones (alternatives.build_variants): the plain one is the
    default build, so a `-D USE_CUDA=YES` only a variant passes is the opt-in, not a default.
    `if(DEFINED X)` (the switch `DEFINED X`) is false exactly where nothing sets X; for it a -DX in CMake's own files
    (add_definitions(-DUSE_CUDA) in its branch) defines the C macro, not the CMake variable.
    `if(DEFINED ENV{CUDA})` (the switch `DEFINED ENV{CUDA}`) is false where the user's environment does not set the
    variable, unless the project's CMake sets it (`set(ENV{CUDA} ...)`): a CI job that exports it builds a variant."""
    set_names = {f.text if f.kind == "cmake" else f.name for _, f in each_of_kinds(facts, "cmake", "build_switch")
                 if (f.kind == "cmake" and f.name == "set" and f.role == "command")
                 or (f.kind == "build_switch" and not f.text.endswith(f" {MAKE_UNSET}"))}
    # cmake_parse_arguments(arg ...) sets arg_USE_CUDA where a caller passes USE_CUDA (a prefix not known: any name)
    parsed = tuple(f"{f.text}_" if f.text and "$" not in f.text else "" for _, f in of_kind(facts, "cmake")
                   if f.name == PARSE_ARGUMENTS and f.role == "command")
    # `if(DEFINED AER_GPU)` with any name: only the user's `-DAER_GPU=...` defines a variable nothing of the project
    # sets (CESGA-Quantum-Spain/cunqa 10bc5a81 CMakeLists.txt:323, enable_language(CUDA) inside), unless it is a
    # result a find_package() sets (`<Package>_...`)
    found = tuple(f"{f.name.partition(':')[2].upper()}_" for _, f in of_kind(facts, "cmake")
                  if f.name.startswith("find_package:")) or ("\0",)
    skipped = frozenset(variants)
    flags = [(kinds.get(path), macro) for path, f in of_kind(facts, "flag") if path not in skipped
             for _, macro in define_flags((f,))]
    passed = set_names | {macro for kind, macro in flags if kind != "cmake"}  # to cmake, by a script, setup.py or CI
    set_names |= {macro for _, macro in flags}
    # a name built from a variable (`set(PROJ_USE_${lang} ...)` in a helper) may set any switch of its shape
    # (not a name that is one variable, `set(${out} ... PARENT_SCOPE)` in a helper: that sets the name its caller passes)
    shapes = [shape for name in set_names if "${" in name and (shape := re.sub(r"\$\{[^}]*\}", "*", name)).strip("*")]
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(facts):
        if kinds.get(path) != "cmake":
            continue
        for f in facts[path]:
            # `if(DEFINED USE_CUDA)` is false exactly where nothing sets USE_CUDA (cmakelists.DEFINED_PREFIX)
            name = f.name.removeprefix(DEFINED_PREFIX)
            if f.kind == "switch_branch" and name not in (passed if name != f.name else set_names) and f.name not in out \
                    and " STREQUAL " not in f.text and " " not in name \
                    and not any(fnmatch.fnmatchcase(name, shape) for shape in shapes) \
                    and not name.startswith(parsed) \
                    and not name.startswith(known.reserved) \
                    and (any(word in known.request_words for word in name.split("_")[:-1])
                         or (name != f.name and "_" in name and "{" not in name and not name.upper().startswith(found))
                         or (name != f.name and name.startswith(ENVIRONMENT_PREFIX)
                             and not configures_cmake_only(facts[path], f, known))):
                out[f.name] = (f"{path}:{f.line} {f.text} (no build file sets {name})", "OFF")
    return out


BRANCH_ENDS = frozenset({"elseif", "else", "endif"})  # the command that closes a branch, on its last line


def configures_cmake_only(items: Sequence[Fact], branch: Fact, known: Words) -> bool:
    """Whether a branch's commands only set CMake's own variables (`set(CMAKE_CUDA_ARCHITECTURES $ENV{CUDA_ARCH})`,
    `set(CMAKE_CUDA_COMPILER "$ENV{CUDA_PATH}/bin/nvcc")`) or print: such a branch picks how the compiler runs, the
    same build with or without it, and adds no part (beehive-lab/TornadoVM 06616ddd
    tornado-drivers/cutlass-jni/src/main/cpp/CMakeLists.txt:11, :32)."""
    commands = [c for c in items if c.kind == "cmake" and c.role == "command" and branch.line < c.line <= branch.end_line
                and not (c.line == branch.end_line and c.name.lower() in BRANCH_ENDS)]
    return bool(commands) and all(c.name.lower() == "message" or (c.name.lower() == "set" and c.text.startswith(known.reserved))
                                  for c in commands)


def make_unset(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, tuple[str, str]]:
    """make variables a user asks for (ENABLE_CUDA, USE_X: rules/workloads/optional.yaml `request_words`) that a
    Makefile tests for an on value and no build file of the project declares or assigns: a variable make never
    assigned is empty (https://www.gnu.org/software/make/manual/html_node/Conditional-Syntax.html), so its branch is
    in no default `make`; the user turns it on (`make ENABLE_CUDA=1`, inikep/lzbench ef6505cd Makefile:1073)."""
    declared = {f.name for _, f in of_kind(facts, "build_switch") if not f.text.endswith(f" {MAKE_UNSET}")}
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(facts):
        for f in facts[path]:
            if f.kind == "build_switch" and f.text.endswith(f" {MAKE_UNSET}") and f.name not in declared \
                    and f.name not in out and not f.name.startswith(known.reserved) \
                    and any(word in known.request_words for word in f.name.split("_")[:-1]):
                out[f.name] = (f"{path}:{f.line} make({f.name}), which no build file of the project assigns,", "OFF")
    return out


def detected_switches(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[Region, ...]],
                      gated: Mapping[str, Region], declared: Mapping[str, tuple[str, str]],
                      known: Words) -> dict[str, tuple[str, str]]:
    """Branches on a detection result true only where NVIDIA's toolkit is installed (`if(CUDAToolkit_FOUND)`,
    `if(CMAKE_CUDA_COMPILER)` after check_language(CUDA): rules/workloads/optional.yaml `detection`): off by
    default on a machine without it. Not where the project makes the detection required: a find_package(X
    REQUIRED) stops the configuration when X is missing, unless it sits in an optional folder or in the branch of
    a switch `declared` off by default; CMAKE_CUDA_COMPILER is a detection only where the project calls
    check_language(). None where no CMake target is built outside a detection's branch."""
    def off(switch: str) -> bool:
        return switch in declared and off_by_default(declared[switch][1], known)

    # a tree every target of which is built only on a detection (the CUDA back end's own folder, scanned alone)
    # has no build without it: there the detection is the build, not an optional part of it
    def on_detection(path: str, line: int, depth: int = 0) -> bool:  # also through the subdirectory that adds it
        around = switches_around(regions, gated, path, line=line)
        return any(detection(r.switch, known) for r in around) or (depth < 4 and any(
            on_detection(r.path, r.start, depth + 1) for r in around if r.path != path))

    targets = [(path, f.line) for path, f in of_kind(facts, "cmake_target") if optional_root(path, known) is None]
    if all(on_detection(path, line) for path, line in targets):
        return {}

    required = required_results(facts, lambda path, f: optional_root(path, known) is None and not any(
        off(r.switch) for r in switches_around(regions, gated, path, line=f.line)))
    required |= compiler_results(facts, regions, gated, known)
    checked = any(f.name == "check_language" for _, f in of_kind(facts, "cmake"))
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(facts):
        for f in facts[path]:
            if f.kind != "switch_branch" or f.name in out or not detection(f.name, known) \
                    or f.name.upper() in required or (f.name.upper() == "CMAKE_CUDA_COMPILER" and not checked) \
                    or (_builds(facts[path], f) and _else_builds_nothing(facts[path], f.end_line)):
                continue
            out[f.name] = (f"{path}:{f.line} {f.text} (a detection result: false where NVIDIA's toolkit is not "
                           "installed)", "OFF")
    return out


def _builds(items: Sequence[Fact], branch: Fact) -> bool:
    """Whether a branch builds something itself: a target (add_executable, add_library ...) or a folder it adds. One
    that only configures (enable_language, find_package, `set(X_HAS_CUDA ON)` for later lists to read) is no build of
    its own, so an else() beside it that only reports says nothing about a build without its condition
    (singhpratech/duckdbgpumetaldbram beea73dd CMakeLists.txt:53-87: the CPU back end is built after the endif())."""
    return any(branch.line < f.line < branch.end_line and (f.kind == "cmake_target" or (
        f.kind == "cmake" and f.role == "command" and f.name == "add_subdirectory")) for f in items)


def _else_builds_nothing(items: Sequence[Fact], end: int) -> bool:
    """Whether the branch ending on line `end` is followed by an else() that only reports (`else() message("Building
    for CPU (not implemented)")`): then the project has no build without the branch's condition."""
    commands = sorted((f for f in items if f.kind == "cmake" and f.role == "command" and f.line > end),
                      key=lambda f: f.line)
    if not commands or commands[0].name != "else" or commands[0].line != end + 1:
        return False
    depth = 0
    for f in commands[1:]:
        if f.name == "if":
            depth += 1
        elif f.name == "endif":
            if depth == 0:
                return True
            depth -= 1
        elif f.name not in NON_BUILDING:
            return False
    return True


def quiet_finds(facts: Mapping[str, Sequence[Fact]], switches: Mapping[str, tuple[str, ...]],
                declared: Mapping[str, tuple[str, str]], known: Words) -> list[Region]:
    """The line of each find_package(X) without REQUIRED whose result (X_FOUND) turns on only an optional switch
    (`if(CUDA_FOUND)`, `option(AF_BUILD_CUDA ... ${CUDA_FOUND})`): a machine without X finds nothing and goes on,
    so the search goes with that switch's part."""
    by_result: dict[str, str] = {}  # X_FOUND (upper case) -> the optional switch it turns on
    for name in sorted(switches):
        default = declared.get(name, ("", ""))[1]
        if detection(name, known):
            by_result.setdefault(name.upper(), name)
        elif detection(default, known):
            by_result.setdefault(default[2:-1].upper(), name)
    for _, f in of_kind(facts, "switch_cleared"):  # each detection that turns the option off serves it alone
        tested = f.text.partition(" ")[2]
        if f.name in switches and detection(declared.get(f.name, ("", ""))[1], known) and detection(tested, known):
            by_result.setdefault(tested.upper(), f.name)
    out = []
    for path, items in facts.items():
        module = posixpath.basename(path)
        if module.startswith("Find") and module.endswith(".cmake") and items \
                and (switch := by_result.get(module[4:-6].upper() + "_FOUND")) is not None:
            # the project's own find module (cmake/FindCUDA.cmake): what it searches for serves only the switch
            out.append(Region(path, 1, max(f.end_line for f in items), switch,
                              f"{module} finds {module[4:-6]}, whose result turns on {switch} only"))
        for f in items:
            if f.kind == "cmake" and f.name.startswith("find_package:") and not f.text.endswith(" REQUIRED)") \
                    and (switch := by_result.get(f.name.partition(":")[2].upper() + "_FOUND")) is not None:
                out.append(Region(path, f.line, f.line, switch, f"{f.text} without REQUIRED: its result turns on {switch}"))
    return out


def declared_on_detection(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[Region, ...]],
                          gated: Mapping[str, Region], known: Words) -> dict[str, tuple[str, str]]:
    """Switches declared true only inside a detection's branch and false elsewhere (OpenMM and its plugins:
    `IF(CUDAToolkit_FOUND) SET(NN_BUILD_CUDA_LIB ON CACHE BOOL ...) ELSE SET(NN_BUILD_CUDA_LIB OFF CACHE BOOL ...)`):
    the default is that detection's, as for `option(X ... ${CUDA_FOUND})`. Not where a find_package(... REQUIRED)
    outside optional folders makes the detection always true."""
    sites: dict[str, list[tuple[str, int, str]]] = {}
    for path in sorted(facts):
        for f in facts[path]:
            if f.kind == "build_switch" and not f.text.endswith(f" {MAKE_UNSET}"):
                sites.setdefault(f.name, []).append((path, f.line, f.text.partition(" ")[0].upper()))
    required = required_results(facts, lambda path, f: optional_root(path, known) is None) \
        | compiler_results(facts, regions, gated, known)
    out: dict[str, tuple[str, str]] = {}
    for name, found in sites.items():
        on = [(path, line) for path, line, value in found if value in known.on]
        if not on or len(on) == len(found) or any(v not in known.on | known.off for _, _, v in found):
            continue
        common = set.intersection(*({r.switch for r in switches_around(regions, gated, path, line=line)
                                     if detection(r.switch, known) and r.switch.upper() not in required}
                                    for path, line in on))
        if common:
            switch = sorted(common)[0]
            out[name] = (f"{on[0][0]}:{on[0][1]} set({name}) (true only where {switch} is, false elsewhere)",
                         f"${{{switch}}}")
    return out


def cleared_unless_detected(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, tuple[str, str]]:
    """Options on by default that the file declaring them turns off where a detection fails (`option(GPU_VERSION ...
    ON)`, then `find_package(CUDA 8.0)` and `if(NOT ${CUDA_FOUND}) set(GPU_VERSION off) endif()`: shadowzhougit/THUNDER
    bb55b392 CMakeLists.txt:60,249-262): what the branches on the option build is built only where NVIDIA's toolkit is
    found, so the default is that detection's. Only a set() in the declaring file (a plain set() in a subdirectory
    changes that directory's copy, not the option the parent tests: https://cmake.org/cmake/help/latest/command/set.html),
    and not where a find_package(... REQUIRED) outside optional folders makes the detection always true."""
    declared: dict[tuple[str, str], str] = {}  # (file, switch) -> its default, as the file's first declaration says
    for path, f in of_kind(facts, "build_switch"):
        declared.setdefault((path, f.name), f.text.partition(" ")[0].upper())
    required = required_results(facts, lambda path, f: optional_root(path, known) is None)
    out: dict[str, tuple[str, str]] = {}
    for path, f in of_kind(facts, "switch_cleared"):
        value, _, tested = f.text.partition(" ")
        if f.name in out or value not in known.off or declared.get((path, f.name)) not in known.on \
                or not detection(tested, known) or tested.upper() in required:
            continue
        out[f.name] = (f"{path}:{f.line} set({f.name} {value}) where {tested} is false (a detection result: false "
                       f"where NVIDIA's toolkit is not installed)", f"${{{tested}}}")
    return out


def from_found_packages(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, tuple[str, str]]:
    """GPU-platform switches a function hands up from a package it finds (`switch_from_package`: legate-sparse's
    `option(Legion_USE_CUDA ON)`, then get_legate.cmake's `rapids_find_package(legate ...)` and `set(Legion_USE_CUDA
    ${Legion_USE_CUDA} PARENT_SCOPE)`): the option's default yields to the installed package's setting, and a package
    installed where NVIDIA's toolkit is not was built without CUDA, so the switch is off there. Only a switch the project
    declares itself (a build_switch fact) whose feature is the GPU platform (CUDA, GPU)."""
    declared = {f.name for _, f in of_kind(facts, "build_switch")}
    out: dict[str, tuple[str, str]] = {}
    for path, f in of_kind(facts, "switch_from_package"):
        named = feature(f.name, known)
        if f.name in out or f.name not in declared or named is None or not is_platform(named, known):
            continue
        package, _, function = f.text.partition(" ")
        out[f.name] = (f"{path}:{f.line} set({f.name} ${{{f.name}}} PARENT_SCOPE) after {function}() finds {package}: "
                       f"the installed {package}'s setting, built without CUDA where NVIDIA's toolkit is not; read as",
                       "OFF")
    return out


def declared_switches(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[str, str]]:
    """Switch -> (where it is declared, its default) from CMake option() and the like, and make variables a configure
    substitution leaves empty (workloads/configured.py). A `// #define X` left commented out (a config header's)
    yields to any other declaration of X (an option(), a make assignment)."""
    out: dict[str, tuple[str, str]] = {}
    commented: dict[str, tuple[str, str]] = {}
    for path in sorted(facts):
        for f in facts[path]:
            if f.kind == "build_switch" and f.name not in out and not f.text.endswith(f" {MAKE_UNSET}"):
                default, _, command = f.text.partition(" ")
                into = commented if command == COMMENTED_OUT_DEFINE else out
                into.setdefault(f.name, (f"{path}:{f.line} {command}({f.name})", default))
    for name, declared in configured_switches(facts).items():  # `X = @x@` in a Makefile.in: configure's value
        out.setdefault(name, declared)
    return {**out, **{k: v for k, v in commented.items() if k not in out}}


def defined_toggles(facts: Mapping[str, Sequence[Fact]]) -> set[str]:
    """Toggles a source leaves commented out (`//#define FULLCHECK`) that another file of the project does
    #define: compiled there, so not off by default."""
    toggles = {f.name for _, f in of_kind(facts, "build_switch") if f.text.endswith(f" {COMMENTED_OUT_DEFINE}")}
    if not toggles:
        return set()
    return {f.name for _, f in of_kind(facts, "toggle_define") if f.name in toggles}


def cuda_build_switch(kinds: Mapping[str, str], gated: Mapping[str, Region], switches: Mapping[str, tuple[str, ...]],
                       unbuilt: Mapping[str, str], known: Words, *,
                       facts: Mapping[str, Sequence[Fact]] | None = None,
                       regions: Mapping[str, tuple[Region, ...]] | None = None) -> str | None:
    """The optional switch the project's CUDA translation units are built under, when every one of them (outside
    folders a package does not need, and sources no build compiles) is built only under an optional switch: then
    nothing but that switch's build runs nvcc. None when any is required, or there is none. A project with no
    required CUDA translation unit whose CMake enables the CUDA language (`enable_language(CUDA)`, `project(... CUDA)`)
    only under optional switches has that switch too: CMake's CUDA settings take effect only where the language is
    enabled (NVIDIAGameWorks/Falcor eb540f67 CMakeLists.txt:129 sets CMAKE_CUDA_ARCHITECTURES, :137 enables CUDA only
    under `if(CMAKE_CUDA_COMPILER)` after check_language(CUDA))."""
    counts: dict[str, int] = {}
    for path in sorted(kinds):
        if not path.endswith(CUDA_UNITS) or optional_root(path, known) is not None or path in unbuilt:
            continue
        on = [r.switch for r in gates(regions or {}, gated, path) if r.switch in switches]
        if not on:
            return None
        counts[on[0]] = counts.get(on[0], 0) + 1
    if not counts and facts is not None and regions is not None:
        return language_switch(facts, regions, gated, switches, known)
    return max(counts, key=lambda name: (counts[name], name)) if counts else None


def language_switch(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[Region, ...]],
                    gated: Mapping[str, Region], switches: Mapping[str, tuple[str, ...]], known: Words) -> str | None:
    """The optional switch every place the project's CMake enables the CUDA language (outside optional folders) sits
    under, or None (none enables it, or one does outside every optional switch)."""
    sites = [[r for r in switches_around(regions, gated, path, line=f.line) if r.switch in switches]
             for path, items in facts.items() if optional_root(path, known) is None
             for f in items if f.kind == "cmake" and f.name == "language:CUDA"]
    branch = common_switch(sites)
    return branch.switch if branch is not None else None


def compiled_only_under(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                        regions: Mapping[str, tuple[Region, ...]], gated: Mapping[str, Region],
                        switches: Mapping[str, tuple[str, ...]], known: Words) -> dict[str, Region]:
    """CUDA translation units that only CMake names, in a project whose every way of compiling CUDA (FindCUDA's
    cuda_add_* commands, rules/workloads/optional.yaml `detection.cmake_commands`; the CUDA language enabled by
    project() or enable_language()) sits in one optional switch's branch: those sources are compiled only when that
    switch is on, even where an unconditional source list names them. CMake compiles a .cu source only with the CUDA
    language enabled or by FindCUDA's commands (https://cmake.org/cmake/help/latest/command/enable_language.html).
    zhihu/cuBERT CMakeLists.txt:89-106 lists the .cu files beside the .cpp ones; :109-115 `if (cuBERT_ENABLE_GPU)
    cuda_add_library(...) else() add_library(...)`, and the CUDA language is never enabled. ska-telescope/ska-sdp-func
    af116bc9 CMakeLists.txt:47-53 `find_package(CUDAToolkit 7.0)` then `if (CUDAToolkit_FOUND) enable_language(CUDA)`,
    and each folder's .cu files go into a list only :95 `if (CUDAToolkit_FOUND)` adds to the library. Where the build
    compiles CUDA as a language (no FindCUDA command), a project that gives a source another language
    (`set_source_files_properties(x.cu PROPERTIES LANGUAGE CXX)`: that compiler builds it in every configure) gives
    none, and a .cu file that a target command outside every optional branch lists by name (`add_library(_cpu
    cpu/Tracer.cc cpu/bvh.cu)`) stays required: the author wrote it into a target every build makes. path -> that
    branch."""
    found = [(path, f) for path, items in facts.items() if kinds.get(path) == "cmake" and optional_root(path, known) is None
             for f in items if f.kind == "cmake" and (f.name == "language:CUDA"
                                                      or (f.role == "command" and f.name in known.cuda_commands))]
    findcuda = any(f.name in known.cuda_commands for _, f in found)
    if not found or (not findcuda and _cu_as_host_language(facts, kinds)):
        return {}
    branch = common_switch([[r for r in switches_around(regions, gated, path, line=f.line) if r.switch in switches]
                            for path, f in found])
    if branch is None:
        return {}
    files = frozenset(facts)
    # where CUDA is compiled as a language, a target the default build makes that lists a .cu file by name is meant
    # to compile it (the author builds it with CUDA in mind): that file stays required
    in_target = set() if findcuda else {
        join(posixpath.dirname(path), item)
        for path, f in of_kind(facts, "cmake_target")
        if not any(r.switch in switches for r in switches_around(regions, gated, path, line=f.line))
        for item in f.text.split("\n") if item.endswith(CUDA_UNITS)}
    named_by: dict[str, set[str]] = {}
    for path, items in facts.items():
        for f in items:
            if f.kind == "build_source":
                for name in named_files(path, f, files):
                    named_by.setdefault(name, set()).add(kinds.get(path, ""))
    why = Region(branch.path, branch.start, branch.end, branch.switch,
                 f"{branch.text} (the project compiles CUDA only in this branch)")
    return {path: why for path in sorted(kinds) if path.endswith(CUDA_UNITS) and optional_root(path, known) is None
            and named_by.get(path) == {"cmake"} and path not in in_target and not any(p in gated for p in prefixes(path))}


def _cu_as_host_language(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> bool:
    """Whether the project's CMake gives a source a host language (`LANGUAGE CXX`): it may compile .cu files so."""
    return any(f.name == HOST_LANGUAGE and kinds.get(path) == "cmake" for path, f in of_kind(facts, "cmake"))


def portable_backends(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[Region, ...]],
                      gated: Mapping[str, Region], declared: Mapping[str, tuple[str, str]], known: Words) -> dict[str, str]:
    """Options on by default whose code (a branch, or a file or folder only the branch adds) includes the header of a GPU
    interface AMD GPUs run too (rules/workloads/optional.yaml `portable_backends`): option -> where. Folders a
    package does not need are left out (a test's OpenCL include is no back end)."""
    out: dict[str, str] = {}
    for path in sorted(facts):
        if optional_root(path, known) is not None:
            continue
        for f in facts[path]:
            if f.kind != "include" or f.name not in known.portable_headers:
                continue
            for r in switches_around(regions, gated, path, line=f.line):
                if r.switch in declared and declared[r.switch][1].upper() in known.on:
                    out.setdefault(r.switch, f"{path}:{f.line} includes {f.name} (built under {r.path}:{r.start} {r.text})")
    return out


def either_switches(regions: dict[str, tuple[Region, ...]], gated: dict[str, Region],
                    switches: Mapping[str, tuple[str, ...]]) -> None:
    """A branch on `A OR B` of switches (extract/text/cmakelists.py EITHER) is on when any of them is: it is the
    first one's optional part when every one of them is optional, and stays no switch's otherwise (one of them on by
    default builds it by default)."""
    def resolved(r: Region) -> Region:
        names = r.switch.split(" OR ")
        if len(names) < 2 or not all(n in switches for n in names):
            return r
        return Region(r.path, r.start, r.end, names[0], f"{r.text} (each of {', '.join(names)} is optional)")
    for path, items in regions.items():
        regions[path] = tuple(resolved(r) for r in items)
    for name, r in gated.items():
        gated[name] = resolved(r)


def compile_passes(regions: Mapping[str, tuple[Region, ...]], carrier: str, known: Words) -> list[Region]:
    """Branches on a macro only a CUDA compile defines (`#ifdef __CUDACC__`, `__CUDA_ARCH__`: rules/workloads/
    optional.yaml `compile_pass`), as branches of the switch every CUDA compile of the project is under."""
    return [Region(r.path, r.start, r.end, carrier,
                    f"{r.text} (only a CUDA compile defines {r.switch}, and every CUDA source is built under {carrier})")
            for items in regions.values() for r in items if r.switch in known.compile_pass]


def cuda_genexes(facts: Mapping[str, Sequence[Fact]], carrier: str, known: Words) -> list[Region]:
    """Generator expressions that apply only to CUDA sources (`$<$<COMPILE_LANGUAGE:CUDA>:...>`, rules/workloads/
    optional.yaml `compile_pass.generator_expressions`), over all their lines, as branches of the switch every CUDA
    compile of the project is under: what they pass (`-Xcompiler=/bigobj`) reaches only that build."""
    return [Region(path, f.line, f.end_line, carrier,
                   f"$<$<{f.name}>:...> (applies only to CUDA sources, and every CUDA source is built under {carrier})")
            for path, items in facts.items() for f in items if f.kind == "cmake_genex" and f.name in known.cuda_genex]


def found_only_under(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[Region, ...]],
                     gated: Mapping[str, Region], switches: Mapping[str, tuple[str, ...]], known: Words) -> dict[str, Region]:
    """Packages found only with NVIDIA's toolkit (rules/workloads/optional.yaml `detection.packages`: CUDA, CUDAToolkit)
    every find_package() of which (outside folders a package does not need) sits in one optional switch's branch:
    package -> that branch. Their result variables (`CUDA_VERSION`, `CUDA_TOOLKIT_ROOT_DIR`, set by FindCUDA:
    https://cmake.org/cmake/help/latest/module/FindCUDA.html) hold a value only where that switch is on, wherever the
    project reads them (AcademySoftwareFoundation/OpenShadingLanguage ad63273a src/cmake/externalpackages.cmake:111
    finds CUDA only under `if (OSL_USE_OPTIX)`, OFF; src/cmake/testing.cmake:104 reads CUDA_TOOLKIT_ROOT_DIR)."""
    sites: dict[str, list[list[Region]]] = {}
    for path, items in facts.items():
        if optional_root(path, known) is not None:
            continue
        for f in items:
            if f.kind == "cmake" and f.name.startswith("find_package:") \
                    and (package := f.name.partition(":")[2]) in known.detected_packages:
                # not the find's own line (quiet_finds gives it its result's switch: `find_package(CUDA)` run by
                # every build, whose CUDA_FOUND then turns a branch on, finds for every build)
                sites.setdefault(package, []).append(
                    [r for r in switches_around(regions, gated, path, line=f.line) if r.switch in switches
                     and not (r.path == path and r.start == r.end == f.line)])
    return {package: branch for package, found in sites.items() if (branch := common_switch(found)) is not None}




def never_defined(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], known: Words) -> dict[str, tuple[str, str]]:
    """Macros a user asks for (USE_X, WITH_X, GPU_ENABLE_X: rules/workloads/optional.yaml `request_words`) that a
    C/C++/CUDA source tests (`#ifdef`, `#if`, `#elif`) and that nothing of the project defines: no `#define` (but one
    to 0, below), no `-DX` of a build file, script or CI job, no build variable or option of that name (a configured
    header may carry it), no extension a setup.py builds (its `define_macros` may). Undefined, the macro is false
    (C17 6.10.1: an identifier left in an #if expression is replaced by 0), so its branch is in no default build. A
    compiler's macro written without its underscores (`#ifdef NVCC`: rules/names/device.yaml `compiler_lookalike_macros`)
    is read the same way, as nvcc defines __NVCC__, not NVCC:
    hanjingo/high-jump 4e363022 hj/hardware/gpu.h:645 `#elif GPU_ENABLE_CUDA`, which no file defines (tests and benchs
    define CUDA_ENABLE). A switch every `#define` of which gives 0 (`#define USE_CUDA 0`), tested only by value
    (`#if USE_CUDA`, never `#ifdef`), is hard-coded off the same way."""
    if of_kind(facts, "extension") or not any(kinds.get(path) in BUILD_KINDS for path in facts):
        return {}  # a setup.py's define_macros may define it; with no build file, the user's flags do
    defined: dict[str, set[str]] = {}  # macro -> the values its #defines give it
    named: set[str] = set()  # names a build file, script or option gives a value to
    for _, f in each_of_kinds(facts, "switch_define", "toggle_define", "build_switch", "switch_value", "cmake", "flag"):
        if f.kind == "switch_define":
            defined.setdefault(f.name, set()).add(f.text)
        elif f.kind in ("toggle_define", "build_switch", "switch_value") and not f.text.endswith(f" {MAKE_UNSET}"):
            named.add(f.name)
        elif f.kind == "cmake" and f.name == "set" and f.role == "command":
            named.add(f.text)
        elif f.kind == "flag":
            named.update(macro for _, macro in define_flags((f,)))
    out: dict[str, tuple[str, str]] = {}
    tests: dict[str, list[tuple[str, Fact]]] = {}
    lookalikes = name_list("device", "compiler_lookalike_macros")
    for path in sorted(facts):
        if kinds.get(path) in C_SOURCE_KINDS:
            for f in facts[path]:
                if f.kind == "switch_branch" and not f.name.startswith("_") and not f.name.startswith(known.reserved) \
                        and (any(word in known.request_words for word in f.name.split("_")[:-1])
                             or f.name in lookalikes):
                    tests.setdefault(f.name, []).append((path, f))
    for name, sites in tests.items():
        if name in named:
            continue
        values = defined.get(name)
        path, first = sites[0]
        if values is None:
            out[name] = (f"{path}:{first.line} {first.text} (nothing in the project defines {name})", "OFF")
        elif values <= {"0"} and all(_value_test(f.text) for _, f in sites):
            out[name] = (f"{path}:{first.line} {first.text} (every #define of {name} gives it 0)", "OFF")
    return out


def _value_test(directive: str) -> bool:
    """Whether a directive tests a macro's value (`#if X`, `#elif X && Y`), not whether it is defined."""
    head = directive.lstrip("#").strip()
    return head.startswith(("if ", "elif ")) and "defined" not in head


def hard_off(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], known: Words) -> dict[str, tuple[str, str]]:
    """CMake switches a file sets to a false constant in no block (`set(GRAPHBLAS_USE_CUDA OFF)` at its top level) before
    it tests them, and that the project never sets true: the plain variable hides any cache entry or `-DX=ON` of the
    same name (https://cmake.org/cmake/help/latest/command/set.html#set-normal-variable; policy CMP0126), so every
    configuration reads it false. DrTimothyAldenDavis/SuiteSparse 038d6635 GraphBLAS/CMakeLists.txt:43-45 ("CUDA is under
    development for now, and not deployed in production": `set ( GRAPHBLAS_USE_CUDA OFF )`, the ON line commented out)."""
    true_set = {f.name for _, f in of_kind(facts, "switch_value") if f.text.upper() not in known.off}
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(facts):
        if kinds.get(path) != "cmake":
            continue
        offs = {f.name: f for f in facts[path] if f.kind == "switch_value" and f.role == "top"
                and f.text.upper() in known.off and f.name not in true_set}
        for f in facts[path]:
            if f.kind == "switch_branch" and f.name in offs and offs[f.name].line < f.line and f.name not in out:
                off = offs[f.name]
                out[f.name] = (f"{path}:{off.line} set({f.name} {off.text}) in no block, before {path}:{f.line} "
                               f"{f.text}", "OFF")
    return out
