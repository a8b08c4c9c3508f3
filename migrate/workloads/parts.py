"""The parts of a project: which are optional, and which its HIP build leaves out, from the facts of its
files and its findings. Scan (workloads/verdict.py) and lint (lint/project.py) read the same answer.

Optional, each with the evidence that makes it so (the words are data: rules/workloads/optional.yaml):
- a folder a package does not need (tests/, examples/, benchmarks/), or scratch space at the top (dev/);
- a module the project imports only in an optional scope (an ImportError fallback, an env-var opt-in,
  a loader a dispatch table picks): every import of it from another file of the project is optional;
- code a build switch turns on (`#ifdef USE_CUDNN`, CMake `if(BUILD_CUTLASS)` and the sources and
  subdirectories it adds), when the switch is off by default or the project has GPU code of its own
  outside every switch. A switch of the GPU platform itself (GGML_USE_CUDA) is never optional.

A project with a ROCm path (workloads/ported.py) has its findings marked `ported`, except in the files its
HIP build leaves out: sources CMake names only in a branch a HIP build skips (`if(NOT USE_ROCM)`), files
that stop a HIP build with `#error` on the HIP side of a guard, and sub-projects built on their own without
a ROCm path. The project runs on ROCm without them, so they are optional parts with their own class: not
credited, and not deciding the class of a project that already runs there."""
from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from migrate.model import Fact, Finding, Status, class_rank, evolve
from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir
from migrate.scan.layout import hip_twinned
from migrate.vocabulary import ALWAYS_DEFINED, COMMENTED_OUT_DEFINE
from migrate.workloads import ported
from migrate.workloads.assemble import resolve_sources
from migrate.workloads.ported import Evidence

C_FAMILIES = ("HIP0", "HIP1", "HIP2", "HIP3", "HIP4", "HIP5")
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".cuh", ".inl")
HEADER_DEPTH = 3  # headers included only by gated headers, this many levels down
MODULE_DEPTH = 4  # modules imported only by optional modules, this many levels down
CALL_DEPTH = 3  # functions called only by such functions, this many levels down
SECTIONS = ("folders", "scratch_folders", "switches", "compile_pass", "templates")
CUDA_UNITS = (".cu",)  # CUDA translation units: what nvcc compiles
BUILD_KINDS = frozenset({"cmake", "makefile"})  # files whose `-DX` flags define macros for what they compile
DEFINE_FLAG = re.compile(r"^-D\s*([A-Za-z_]\w*)")
GLOB_CHARS = frozenset("*?[")


class DataError(ValueError):
    """rules/workloads/optional.yaml is missing a source or a list."""


@dataclass(frozen=True, slots=True)
class Words:
    """What names a part optional (rules/workloads/optional.yaml)."""

    folders: frozenset[str]
    prefixes: tuple[str, ...]
    scratch: frozenset[str]
    switch_words: frozenset[str]
    suffix_words: frozenset[str]
    request_words: frozenset[str]
    compile_pass: frozenset[str]
    cuda_settings: tuple[str, ...]
    templates: frozenset[str]
    platform_words: frozenset[str]
    off: frozenset[str]


@lru_cache(maxsize=4)
def words(directory: Path | None = None) -> Words:
    path = (directory or default_rules_dir()) / "workloads" / "optional.yaml"
    data = datafile.read(path) if path.is_file() else None
    if not isinstance(data, dict) or any(not str((data.get(s) or {}).get("source", "")).startswith("https://")
                                         for s in SECTIONS):
        raise DataError(f"{path}: each of {', '.join(SECTIONS)} needs a source URL")

    def names(section: str, key: str) -> list[str]:
        value = data[section].get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise DataError(f"{path}: {section}.{key}: a list of names")
        return value

    return Words(folders=frozenset(n.lower() for n in names("folders", "names")),
                 prefixes=tuple(names("folders", "prefixes")),
                 scratch=frozenset(n.lower() for n in names("scratch_folders", "names")),
                 switch_words=frozenset(names("switches", "words")),
                 suffix_words=frozenset(names("switches", "suffix_words")),
                 request_words=frozenset(names("switches", "request_words")),
                 compile_pass=frozenset(names("compile_pass", "names")),
                 cuda_settings=tuple(names("compile_pass", "cmake_prefixes")),
                 templates=frozenset(names("templates", "markers")),
                 platform_words=frozenset(names("switches", "platform_words")),
                 off=frozenset(n.upper() for n in names("switches", "off_values")))


def optional_root(path: str, known: Words | None = None) -> str | None:
    """The optional folder a file sits in (`tests`, `pkg/experimental`, a top-level `dev`), or None."""
    known = known or words()
    parts = posixpath.dirname(path).split("/")
    if len(parts) > 1 and parts[0].lower() in known.scratch:
        return parts[0]
    for i, part in enumerate(parts):
        lower = part.lower()
        if lower in known.folders or lower.startswith(known.prefixes):
            return "/".join(parts[:i + 1])
    return None


def feature(switch: str, known: Words) -> str | None:
    """What a switch turns on (USE_CUDNN -> CUDNN, CAFFE_WITH_NCCL -> NCCL, GGML_USE_CUDA -> CUDA,
    X_CUTLASS_ENABLED -> X_CUTLASS), or None when the name has no switch word."""
    tokens = switch.split("_")
    for i, token in enumerate(tokens[:-1]):
        if token in known.switch_words:
            return "_".join(tokens[i + 1:])
    if len(tokens) > 1 and tokens[-1] in known.suffix_words:  # the project's prefix stays: GGML_CUDA_ENABLED
        return next((t for t in tokens[:-1] if t in known.platform_words), "_".join(tokens[:-1]))
    return None


def is_platform(switch_feature: str, known: Words) -> bool:
    """Whether a switch's feature is the GPU platform itself (CUDA, GPU), not a library or kernel family."""
    return switch_feature.split("_", maxsplit=1)[0] in known.platform_words


@dataclass(frozen=True, slots=True)
class Part:
    """An optional part: its name (a folder, a module, `build switch USE_CUDNN`) and what makes it optional."""

    root: str
    evidence: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Region:
    path: str
    start: int
    end: int
    switch: str
    text: str


@dataclass(frozen=True, slots=True)
class ProjectParts:
    """One project's parts; `apply` gives a finding its status (paths relative to the project root)."""

    rocm_path: tuple[Evidence, ...] = ()
    left_out_of_hip: Mapping[str, str] = field(default_factory=dict)  # path -> why the HIP build skips it
    hip_subprojects: frozenset[str] = frozenset()  # folders with a build of their own that has no ROCm path
    hip_aware: frozenset[str] = frozenset()  # files with HIP branches or HIP includes of their own
    hip_twinned: frozenset[str] = frozenset()  # CUDA members of a back-end family whose HIP member is there
    optional_modules: Mapping[str, str] = field(default_factory=dict)  # path -> the optional import of it
    switches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # optional switch -> evidence
    regions: Mapping[str, tuple[_Region, ...]] = field(default_factory=dict)  # path -> switch branches in it
    gated: Mapping[str, _Region] = field(default_factory=dict)  # file or folder/ -> the CMake branch adding it
    unbuilt: Mapping[str, str] = field(default_factory=dict)  # path -> why no build compiles it
    cuda_build: str = ""  # the optional switch every CUDA translation unit is built under, if there is one
    optional_includes: Mapping[str, str] = field(default_factory=dict)  # header -> the optional files including it
    included_by_required: frozenset[str] = frozenset()  # files of optional folders that required code includes
    known: Words | None = None

    def part(self, finding: Finding) -> Part | None:
        """The optional part a finding belongs to, or None where it is required."""
        known = self.known or words()
        path = finding.path
        if (root := optional_root(path, known)) is not None and path not in self.included_by_required:
            what = "scratch space" if root in known.scratch else "a folder a package does not need to run"
            return Part(root, (f"{root}/: {what} (rules/workloads/optional.yaml)",))
        if path in self.optional_modules:
            return Part(path, (self.optional_modules[path],))
        if path in self.unbuilt:
            return Part(f"{path} (built by nothing)", (self.unbuilt[path],))
        if path in self.optional_includes:
            return Part(f"{path} (included by optional code only)", (self.optional_includes[path],))
        if path in self.left_out_of_hip:
            folder = next((p for p in _prefixes(path) if p.rstrip("/") in self.hip_subprojects), None)
            root = f"{folder.rstrip('/')} (a build of its own without ROCm)" if folder else \
                f"{path} (left out of the HIP build)"
            return Part(root, (self.left_out_of_hip[path],))
        optional = [r for r in self._switches(path, finding.line) if r.switch in self.switches]
        if optional:  # of switches set on one line (a cmake command), the GPU platform's first
            first = optional[0]
            region = next((r for r in optional if (r.path, r.start, r.end) == (first.path, first.start, first.end)
                           and is_platform(feature(r.switch, known) or "", known)), first)
            return Part(f"build switch {region.switch}",
                        (*self.switches[region.switch], f"{region.path}:{region.start} {region.text}"))
        if self.cuda_build in self.switches and (finding.symbol in known.compile_pass
                                                  or finding.symbol.startswith(known.cuda_settings)):
            return Part(f"build switch {self.cuda_build}",
                        (*self.switches[self.cuda_build], f"{path}:{finding.line} {finding.symbol}: takes effect only "
                         f"where CUDA is compiled, and every CUDA source is built under {self.cuda_build}"))
        if finding.status == "optional":
            return Part(f"{path} (optional scope)", (f"{path}:{finding.line}: an optional import or opt-in",))
        return None

    def optional_files(self) -> frozenset[str]:
        """Files that are optional as a whole: modules only optional code imports."""
        return frozenset(self.optional_modules)

    def apply(self, finding: Finding) -> Finding:
        """The finding with its status: `ported` where the ROCm path covers its file (a test or benchmark
        only when it has HIP branches of its own: a CUDA-only microbenchmark is not ported by the project's
        HIP build), `optional` in an optional part, else as it came."""
        status = self.status(finding)
        return finding if status == finding.status else evolve(finding, status=status)

    def status(self, finding: Finding) -> Status:
        """The status `apply` gives the finding."""
        if finding.path in self.hip_twinned:
            return "ported"
        if self.rocm_path and finding.path not in self.left_out_of_hip and \
                (finding.path in self.hip_aware or optional_root(finding.path, self.known or words()) is None):
            return "ported"
        if finding.status != "optional" and self.part(finding) is not None:
            return "optional"
        return finding.status

    def _switches(self, path: str, line: int) -> list[_Region]:
        """Every switch branch around a line, innermost first, then the CMake branches that add its file."""
        around = sorted((r for r in self.regions.get(path, ()) if r.start <= line <= r.end), key=lambda r: -r.start)
        return around + [self.gated[prefix] for prefix in _prefixes(path) if prefix in self.gated]


def to_json(parts: ProjectParts) -> dict[str, Any]:
    """The parts as JSON (lint keeps them in the cache, keyed by the project's content)."""
    def region(r: _Region) -> list[Any]:
        return [r.path, r.start, r.end, r.switch, r.text]

    return {"rocm_path": [[e.path, e.line, e.strength, e.text] for e in parts.rocm_path],
            "left_out_of_hip": dict(parts.left_out_of_hip), "hip_subprojects": sorted(parts.hip_subprojects),
            "optional_modules": dict(parts.optional_modules),
            "hip_aware": sorted(parts.hip_aware), "hip_twinned": sorted(parts.hip_twinned),
            "switches": {k: list(v) for k, v in parts.switches.items()},
            "regions": {k: [region(r) for r in v] for k, v in parts.regions.items()},
            "gated": {k: region(r) for k, r in parts.gated.items()}, "unbuilt": dict(parts.unbuilt),
            "cuda_build": parts.cuda_build, "optional_includes": dict(parts.optional_includes),
            "included_by_required": sorted(parts.included_by_required)}


def from_json(data: Any, known: Words | None = None) -> ProjectParts:
    """Parts read back from `to_json`; raises ValueError (or a KeyError/TypeError) on another shape."""
    def region(item: Any) -> _Region:
        path, start, end, switch, text = item
        if not (isinstance(path, str) and isinstance(start, int) and isinstance(end, int)
                and isinstance(switch, str) and isinstance(text, str)):
            raise ValueError("not a switch branch")
        return _Region(path, start, end, switch, text)

    def strings(mapping: Any) -> dict[str, str]:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
            raise ValueError("not a mapping of strings")
        return dict(mapping)

    return ProjectParts(
        rocm_path=tuple(Evidence(str(p), int(n), str(s), str(t)) for p, n, s, t in data["rocm_path"]),
        left_out_of_hip=strings(data["left_out_of_hip"]), optional_modules=strings(data["optional_modules"]),
        hip_subprojects=frozenset(str(p) for p in data.get("hip_subprojects", [])),
        hip_aware=frozenset(str(p) for p in data["hip_aware"]),
        hip_twinned=frozenset(str(p) for p in data.get("hip_twinned", [])),
        switches={str(k): tuple(str(e) for e in v) for k, v in data["switches"].items()},
        regions={str(k): tuple(region(r) for r in v) for k, v in data["regions"].items()},
        gated={str(k): region(r) for k, r in data["gated"].items()}, unbuilt=strings(data.get("unbuilt", {})),
        cuda_build=str(data.get("cuda_build", "")), optional_includes=strings(data.get("optional_includes", {})),
        included_by_required=frozenset(str(p) for p in data.get("included_by_required", [])), known=known)


def build(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], findings: Iterable[Finding],
          known: Words | None = None) -> ProjectParts:
    """A project's parts from its files' facts (paths relative to its root) and its findings."""
    known = known or words()
    collected = ported.collect(facts, kinds)
    evidence = ported.rocm_path(collected, has_cuda_sources="cuda" in kinds.values())
    regions = _regions(facts)
    for _ in range(CALL_DEPTH):  # a function called only in a switch's branch, and the functions it calls
        if not _extend(regions, _called_only_under(facts, regions)):
            break
    _extend(regions, _defined_only_under(facts, kinds, regions))
    gated = _gated(facts, regions) | _loaded_only_under(facts, regions)
    declared = {**_never_set(facts, kinds, known), **_declared(facts)}
    probe = ProjectParts(regions=regions, gated=gated, known=known)
    _gate_headers(facts, probe, gated)
    uses: dict[str, list[Finding]] = {}
    outside = False  # GPU code of the project's own outside every feature switch (a platform one's is its own)
    for f in findings:
        around = probe._switches(f.path, f.line)
        for region in around:
            uses.setdefault(region.switch, []).append(f)
        features = [feature(r.switch, known) for r in around]
        in_feature = any(x is not None and not is_platform(x, known) for x in features)
        if not in_feature and f.rule.startswith(C_FAMILIES) and optional_root(f.path, known) is None \
                and class_rank(f.migration_class) >= class_rank("migration-required"):
            outside = True
    switches: dict[str, tuple[str, ...]] = {}
    always = {f.name for items in facts.values() for f in items
              if f.kind == "build_switch" and f.text.endswith(f" {ALWAYS_DEFINED}")}
    always |= _defined_toggles(facts)
    for name in sorted(set(uses) - always):
        where, default = declared.get(name, ("", ""))
        # a switch declared off by default without a switch word (`-DGROUPED_GEMM_CUTLASS` on an opt-in) turns on itself
        turns_on = feature(name, known) or (name if where and default.upper() in known.off else None)
        if turns_on is None:
            continue
        said = (f"{where} default {default}",) if where else ()
        if where and default.upper() in known.off:
            switches[name] = (*said, f"{name} is off by default: the default build has none of its code")
        elif outside and not is_platform(turns_on, known):
            switches[name] = (*said, f"the project's own GPU code builds without {name}")
    unbuilt = _unbuilt(facts, known)
    carrier = _cuda_build_switch(kinds, gated, switches, unbuilt, known)
    if carrier is not None and _extend(regions, _compile_passes(regions, carrier, known)):
        for path, r in list(gated.items()):  # a header included only under `#ifdef __CUDACC__` is the switch's too
            if r.switch in known.compile_pass:
                gated[path] = next(x for x in regions[r.path] if (x.start, x.end, x.switch) == (r.start, r.end, carrier))
        _gate_headers(facts, probe, gated)  # headers included only under `#ifdef __CUDACC__` go with it
    left_out, subprojects = _left_out(facts, known) if evidence else ({}, frozenset[str]())
    return ProjectParts(rocm_path=evidence, left_out_of_hip=left_out, hip_subprojects=subprojects,
                        hip_aware=frozenset(e.path for e in collected if e.strength == "source"),
                        hip_twinned=hip_twinned(kinds),
                        optional_modules=_optional_modules(facts) | _loaded_only_by_optional(facts, known),
                        switches=switches, regions=regions, gated=gated,
                        unbuilt=unbuilt, cuda_build=carrier or "",
                        optional_includes=_optional_includes(facts, known),
                        included_by_required=_included_by_required(facts, known), known=known)


def _included_by_required(facts: Mapping[str, Sequence[Fact]], known: Words) -> frozenset[str]:
    """Files of optional folders that code outside them includes, to HEADER_DEPTH levels (fast.cu's
    top-level matmul.cu including examples/matmul/matmul_12.cuh): the required build compiles them, so
    the folder's name does not make them optional. An include reaches the files whose path ends with it; one
    that a file outside optional folders answers (its own `utils.h`) reaches no test's `utils.h`."""
    by_base: dict[str, list[str]] = {}
    for path in facts:
        by_base.setdefault(posixpath.basename(path), []).append(path)
    found: set[str] = set()
    frontier = [p for p in facts if optional_root(p, known) is None]
    for _ in range(HEADER_DEPTH):
        reached: set[str] = set()
        for path in frontier:
            for f in facts[path]:
                if f.kind != "include":
                    continue
                name = f.name.replace("\\", "/").lstrip("./")
                named = [p for p in by_base.get(posixpath.basename(name), ()) if p == name or p.endswith("/" + name)]
                if all(optional_root(p, known) is not None for p in named):
                    reached.update(p for p in named if p not in found)
        found |= reached
        frontier = sorted(reached)
    return frozenset(found)


def _cuda_build_switch(kinds: Mapping[str, str], gated: Mapping[str, _Region], switches: Mapping[str, tuple[str, ...]],
                       unbuilt: Mapping[str, str], known: Words) -> str | None:
    """The optional switch the project's CUDA translation units are built under, when every one of them (outside
    folders a package does not need, and sources no build compiles) is built only under an optional switch: then
    nothing but that switch's build runs nvcc. None when any is required, or there is none."""
    counts: dict[str, int] = {}
    for path in sorted(kinds):
        if not path.endswith(CUDA_UNITS) or optional_root(path, known) is not None or path in unbuilt:
            continue
        on = [gated[p].switch for p in _prefixes(path) if p in gated and gated[p].switch in switches]
        if not on:
            return None
        counts[on[0]] = counts.get(on[0], 0) + 1
    return max(counts, key=lambda name: (counts[name], name)) if counts else None


def _compile_passes(regions: Mapping[str, tuple[_Region, ...]], carrier: str, known: Words) -> list[_Region]:
    """Branches on a macro only a CUDA compile defines (`#ifdef __CUDACC__`, `__CUDA_ARCH__`: rules/workloads/
    optional.yaml `compile_pass`), as branches of the switch every CUDA compile of the project is under."""
    return [_Region(r.path, r.start, r.end, carrier,
                    f"{r.text} (only a CUDA compile defines {r.switch}, and every CUDA source is built under {carrier})")
            for items in regions.values() for r in items if r.switch in known.compile_pass]




def _defined_toggles(facts: Mapping[str, Sequence[Fact]]) -> set[str]:
    """Toggles a source leaves commented out (`//#define FULLCHECK`) that another file of the project does
    #define: compiled there, so not off by default."""
    toggles = {f.name for items in facts.values() for f in items
               if f.kind == "build_switch" and f.text.endswith(f" {COMMENTED_OUT_DEFINE}")}
    if not toggles:
        return set()
    return {f.name for items in facts.values() for f in items if f.kind == "toggle_define" and f.name in toggles}


def _regions(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[_Region, ...]]:
    out: dict[str, tuple[_Region, ...]] = {}
    for path, items in facts.items():
        found = tuple(_Region(path, f.line, f.end_line, f.name, f.text) for f in items if f.kind == "switch_branch")
        if found:
            out[path] = found
    return out


def _extend(regions: dict[str, tuple[_Region, ...]], more: Iterable[_Region]) -> bool:
    """Add the regions not there yet; whether any was."""
    added = False
    for region in more:
        here = regions.get(region.path, ())
        if not any((r.start, r.end, r.switch) == (region.start, region.end, region.switch) for r in here):
            regions[region.path] = (*here, region)
            added = True
    return added


def _common_switch(sites: Sequence[Sequence[_Region]]) -> _Region | None:
    """The first branch around the first site whose switch is around every site, or None."""
    if not sites or not all(sites):
        return None
    common = set.intersection(*({r.switch for r in site} for site in sites))
    return next((r for r in sites[0] if r.switch in common), None)


def _around(regions: Mapping[str, tuple[_Region, ...]], path: str, line: int) -> list[_Region]:
    return [r for r in regions.get(path, ()) if r.start <= line <= r.end]


def _called_only_under(facts: Mapping[str, Sequence[Fact]],
                       regions: Mapping[str, tuple[_Region, ...]]) -> list[_Region]:
    """The body of a CMake function() or macro() every call of which sits in one switch's branch is in that
    branch too: what it defines and compiles happens only when the switch is on
    (https://cmake.org/cmake/help/latest/command/function.html)."""
    bodies: list[tuple[str, str, int, int]] = []  # (file, name, first line, last line)
    calls: dict[str, list[tuple[str, int]]] = {}
    for path, items in facts.items():
        opened: tuple[str, int] | None = None
        for f in sorted((f for f in items if f.kind == "cmake" and f.role == "command"), key=lambda f: f.line):
            calls.setdefault(f.name, []).append((path, f.line))
            if f.name in ("function", "macro") and f.text:
                opened = (f.text.lower(), f.line)
            elif f.name in ("endfunction", "endmacro") and opened is not None:
                bodies.append((path, opened[0], opened[1], f.line))
                opened = None
    out = []
    for path, name, first, last in bodies:
        sites = [(p, n) for p, n in calls.get(name, []) if not (p == path and first <= n <= last)]
        branch = _common_switch([_around(regions, p, n) for p, n in sites])
        if branch is not None:
            out.append(_Region(path, first, last, branch.switch,
                               f"{name}() is called only in {branch.path}:{branch.start} {branch.text}"))
    return out


def _loaded_only_under(facts: Mapping[str, Sequence[Fact]],
                       regions: Mapping[str, tuple[_Region, ...]]) -> dict[str, _Region]:
    """A CMake module every load of which sits in one switch's branch: `FindX.cmake` loaded by find_package(X)
    (https://cmake.org/cmake/help/latest/command/find_package.html#search-modes), or a module include()d by
    name or path. What it sets and checks happens only when the switch is on."""
    loads: dict[str, list[tuple[str, int]]] = {}  # module stem -> (file, line) of each load
    for path, items in facts.items():
        for f in items:
            if f.kind == "cmake" and f.name.startswith("find_package:"):
                loads.setdefault("Find" + f.name.partition(":")[2], []).append((path, f.line))
            elif f.kind == "cmake" and f.name == "include" and f.role == "command" and f.text:
                stem = posixpath.basename(f.text).removesuffix(".cmake")
                loads.setdefault(stem, []).append((path, f.line))
    out = {}
    for path in facts:
        if path.endswith(".cmake") and (sites := loads.get(posixpath.basename(path).removesuffix(".cmake"))):
            branch = _common_switch([_around(regions, p, n) for p, n in sites])
            if branch is not None:
                out[path] = branch
    return out


def _loaded_only_by_optional(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, str]:
    """CMake modules include()d only from folders a package does not need (a test helper in cmake/)."""
    loads: dict[str, list[str]] = {}
    for path, items in facts.items():
        for f in items:
            if f.kind == "cmake" and f.name == "include" and f.role == "command" and f.text:
                loads.setdefault(posixpath.basename(f.text).removesuffix(".cmake"), []).append(f"{path}:{f.line}")
    return {path: f"include()d only from folders a package does not need ({', '.join(sites[:3])})"
            for path in facts if path.endswith(".cmake") and optional_root(path, known) is None
            and (sites := loads.get(posixpath.basename(path).removesuffix(".cmake")))
            and all(optional_root(site.partition(":")[0], known) is not None for site in sites)}


def _defined_only_under(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                        regions: Mapping[str, tuple[_Region, ...]]) -> list[_Region]:
    """A macro the build defines (`add_definitions(-DX)`, `target_compile_definitions(t X)`, make's
    `CXXFLAGS += -DX`) only in one switch's branch, and no source #defines, is on exactly when that switch is:
    its `#ifdef X` branches are that switch's branches too."""
    sites: dict[str, list[list[_Region]]] = {}
    for path, items in facts.items():
        if kinds.get(path) not in BUILD_KINDS:
            continue
        for f in items:
            if f.kind == "flag" and (m := DEFINE_FLAG.match(f.text if f.name == "-D" else f.name)):
                sites.setdefault(m.group(1), []).append(_around(regions, path, f.line))
    defined = {f.name for items in facts.values() for f in items if f.kind == "defined"}
    by_macro = {macro: branch for macro, around in sites.items()
                if macro not in defined and (branch := _common_switch(around)) is not None and branch.switch != macro}
    return [_Region(r.path, r.start, r.end, branch.switch,
                    f"{r.text} ({r.switch} is defined only in {branch.path}:{branch.start} {branch.text})")
            for items in regions.values() for r in items if (branch := by_macro.get(r.switch)) is not None]


def _inside(fact: Fact, regions: Sequence[_Region]) -> _Region | None:
    return next((r for r in regions if r.start <= fact.line <= r.end), None)


def _gated(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[_Region, ...]]) -> dict[str, _Region]:
    """Files and folders (`dir/`) that CMake or make adds only in a switch's branch, relative to the project."""
    out: dict[str, _Region] = {}
    files = frozenset(facts)
    for path, items in facts.items():
        if path not in regions:
            continue
        here = posixpath.dirname(path)
        for f in items:
            region = _inside(f, regions[path])
            if region is None:
                continue
            if f.kind == "cmake_subdirectory":
                out[_join(here, f.name) + "/"] = region
            elif f.kind == "build_source":
                for source in _named(path, f, files):
                    out[source] = region
    return out


def _named(path: str, source: Fact, files: frozenset[str]) -> list[str]:
    """The project files a `build_source` fact of a build file names. A relative name in a CMake module
    (`cmake/CUDA.cmake`, include()d by a CMakeLists) resolves against the including folder
    (CMAKE_CURRENT_SOURCE_DIR, https://cmake.org/cmake/help/latest/command/include.html): the module's own
    folder or the nearest one above it where the file is. A glob (`*.cu`, GLOB_RECURSE) expands over the
    project's files (https://cmake.org/cmake/help/latest/command/file.html#glob)."""
    here = posixpath.dirname(path)
    bases = [here]
    if path.endswith(".cmake") and here:
        parts = here.split("/")
        bases += ["/".join(parts[:i]) for i in range(len(parts) - 1, -1, -1)]
    if not any(c in source.name for c in GLOB_CHARS):
        return next(([_join(b, source.name)] for b in bases if _join(b, source.name) in files),
                    [_join(here, source.name)])
    recurse = source.text.startswith("GLOB_RECURSE")
    for base in bases:
        folder = _join(base, posixpath.dirname(source.name)) if posixpath.dirname(source.name) else base
        name = posixpath.basename(source.name)
        found = sorted(f for f in files if fnmatch.fnmatchcase(posixpath.basename(f), name)
                       and (fnmatch.fnmatchcase(posixpath.dirname(f), folder)
                            or (recurse and (folder in ("", ".") or f.startswith(folder + "/")))))
        if found:
            return found
    return []


def _gate_headers(facts: Mapping[str, Sequence[Fact]], probe: ProjectParts, gated: dict[str, _Region]) -> None:
    """Adds to `gated` (the probe's own) the headers a switch's code alone includes, to HEADER_DEPTH levels."""
    for _ in range(HEADER_DEPTH):
        more = _gated_headers(facts, probe)
        if not more:
            break
        gated.update(more)


def _gated_headers(facts: Mapping[str, Sequence[Fact]], probe: ProjectParts) -> dict[str, _Region]:
    """Headers every #include of which sits in one switch's code (a branch or a gated file): gated by it."""
    by_name: dict[str, list[str]] = {}
    for path in facts:
        if path.endswith(HEADER_SUFFIXES) and path not in probe.gated:
            by_name.setdefault(posixpath.basename(path), []).append(path)
    seen: dict[str, list[list[_Region]]] = {}
    for path, items in facts.items():
        for f in items:
            if f.kind != "include" or posixpath.basename(f.name) not in by_name:
                continue
            local = _join(posixpath.dirname(path), f.name)
            found = [p for p in by_name[posixpath.basename(f.name)] if p == local or p.endswith("/" + f.name)]
            header = local if local in found else max(found, key=lambda p: len(posixpath.commonprefix([p, path])),
                                                      default=None)
            if header is not None and header != path:
                seen.setdefault(header, []).append(probe._switches(path, f.line))
    out: dict[str, _Region] = {}
    for header, sites in seen.items():
        common = set.intersection(*({r.switch for r in site} for site in sites))
        first = next((r for r in sites[0] if r.switch in common), None)
        if first is not None:
            out[header] = first
    return out


def _left_out(facts: Mapping[str, Sequence[Fact]], known: Words) -> tuple[dict[str, str], frozenset[str]]:
    """Files a HIP build does not compile: named by CMake only in branches a HIP build skips, stopped
    with #error on the HIP side of a guard, or built by a sub-project of their own with no ROCm path (its
    folder is returned too). Beside a HIP branch of the same file (`if(USE_ROCM)` with its own source list),
    the branch of the CUDA platform's switch (`if(USE_CUDA)`) is one a HIP build skips."""
    listed: dict[str, list[tuple[bool, str]]] = {}  # file -> (named in a CUDA-only branch?, where) per mention
    twins: set[str] = set()  # sources a HIP branch names by their hipified name (src/devices/hip/x-hip.hip)
    out: dict[str, str] = {}
    files = frozenset(facts)
    for path, items in facts.items():
        cuda_only = [(f.line, f.end_line) for f in items if f.kind == "backend_branch" and f.name == "cuda"]
        hip_only = [(f.line, f.end_line) for f in items if f.kind == "backend_branch" and f.name == "hip"]
        if hip_only:
            cuda_only += [(f.line, f.end_line) for f in items
                          if f.kind == "switch_branch" and feature(f.name, known) in known.platform_words]
        for f in items:
            if f.kind == "build_source" and f.text != "make rule":  # a Makefile's rule builds for its own back end
                skipped = any(a <= f.line <= b for a, b in cuda_only)
                for source in _named(path, f, files):
                    listed.setdefault(source, []).append((skipped, f"{path}:{f.line}"))
                    if any(a <= f.line <= b for a, b in hip_only):
                        twins.add(_cuda_twin(source))
            elif f.kind == "hip_rejected" and path not in out:
                out[path] = f"{path}:{f.line} {f.text.strip()} (a HIP build stops here)"
    for source, mentions in listed.items():
        if all(skipped for skipped, _ in mentions) and source not in twins:
            out.setdefault(source, f"{mentions[0][1]} names {source} only where a HIP build does not")
    subprojects = _own_builds_without_rocm(facts, listed)
    for path, folder in subprojects.items():
        out.setdefault(path, f"{folder}/setup.py builds {folder} on its own, with no ROCm path")
    return out, frozenset(subprojects.values())


UNBUILT_SUFFIXES = (".cu",)


def _unbuilt(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, str]:
    """CUDA sources no build compiles: a .cu file that no build file names (nor any glob or extension
    source list) and no file includes, beside a .cu file of the same folder that a build file names by
    name (a source left out of, or commented out of, an explicit list), or named as a template a code generator
    renders (`x.tmpl.cu`, rules/workloads/optional.yaml `templates`); and the headers only such files include.
    A project whose build names no source of a folder says nothing about that folder."""
    files = frozenset(facts)
    named: dict[str, str] = {}  # file -> where a build names it
    explicit: set[str] = set()
    if any(f.kind == "extension" and not f.text for items in facts.values() for f in items):
        return {}  # an extension whose sources are not known could build any of them
    for path, items in facts.items():
        for f in items:
            if f.kind == "build_source":
                for source in _named(path, f, files):
                    named.setdefault(source, f"{path}:{f.line}")
                    if not any(c in f.name for c in GLOB_CHARS):
                        explicit.add(source)
            elif f.kind == "extension":
                named.update(dict.fromkeys(resolve_sources(f.text, posixpath.dirname(path), files), f"{path}:{f.line}"))
    includers = _includers(facts)
    siblings: dict[str, str] = {}  # folder -> the first .cu file a build names there by name
    for source in sorted(explicit):
        if source.endswith(UNBUILT_SUFFIXES):
            siblings.setdefault(posixpath.dirname(source), source)
    out: dict[str, str] = {}
    for path in sorted(files):
        template = bool(set(posixpath.basename(path).lower().split(".")[1:-1]) & known.templates)
        if not path.endswith(UNBUILT_SUFFIXES + (HEADER_SUFFIXES if template else ())) or path in named \
                or includers.get(posixpath.basename(path)):
            continue
        sibling = siblings.get(posixpath.dirname(path))
        if template:
            out[path] = f"{path} is a template a code generator renders (its name says so); no build file names it"
        elif sibling is not None:
            out[path] = f"{named[sibling]} names {sibling} beside it; no build file names {path} and nothing includes it"
    candidates = [p for p in sorted(files - set(out) - set(named)) if p.endswith(HEADER_SUFFIXES)]
    _close_over_includes(out, candidates, includers, lambda p: p in out,
                         "included only by sources no build compiles")
    return out


COMPILED_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")


def _optional_includes(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, str]:
    """Headers that only files of optional folders include (a benchmark's tester.h and the timer and tensor
    helpers it includes), to HEADER_DEPTH levels: optional with them, as _gated_headers does for a switch's
    files. Only in a project with a compiled source of its own outside those folders: a header-only library's
    headers are its product, which its tests and examples are the only files to include."""
    if not any(p.endswith(COMPILED_SUFFIXES) and optional_root(p, known) is None for p in facts):
        return {}
    includers = _includers(facts)
    headers = [p for p in facts if p.endswith(HEADER_SUFFIXES) and optional_root(p, known) is None]
    out: dict[str, str] = {}
    _close_over_includes(out, headers, includers, lambda p: p in out or optional_root(p, known) is not None,
                         "included only by optional files")
    return out


def _includers(facts: Mapping[str, Sequence[Fact]]) -> dict[str, set[str]]:
    """Each included file name (its basename) -> the files that include it."""
    out: dict[str, set[str]] = {}
    for path, items in facts.items():
        for f in items:
            if f.kind == "include":
                out.setdefault(posixpath.basename(f.name), set()).add(path)
    return out


def _close_over_includes(out: dict[str, str], headers: Sequence[str], includers: Mapping[str, set[str]],
                         inside: Callable[[str], bool], why: str) -> None:
    """Adds to `out`, to HEADER_DEPTH levels, each of `headers` that some other file includes and that only
    files `inside` (which may read `out`) include, with `why` and its includers."""
    for _ in range(HEADER_DEPTH):
        more = {}
        for header in headers:
            by = includers.get(posixpath.basename(header), set()) - {header}
            if header not in out and by and all(inside(p) for p in by):
                more[header] = f"{why} ({', '.join(sorted(by))})"
        if not more:
            break
        out.update(more)


def _own_builds_without_rocm(facts: Mapping[str, Sequence[Fact]],
                             listed: Mapping[str, list[tuple[bool, str]]]) -> dict[str, str]:
    """Files of a sub-project (path -> its folder): a folder below the root with a setup.py of its own that compiles an
    extension, and no ROCm build evidence under it (HIP branches in sources copied from the parent are
    none): detectron2's projects/TensorMask builds its op with a setup.py that never asks for HIP. The
    root's HIP build does not reach them unless a build file outside the folder names them as sources.
    A setup.py that compiles nothing (a pure Python package whose GPU sources are generated or built
    otherwise) makes no sub-project: there is no build of its own to lack a ROCm path."""
    scripts = sorted(posixpath.dirname(p) for p, items in facts.items()
                     if posixpath.basename(p) == "setup.py" and "/" in p
                     and any(f.kind == "extension" for f in items))
    out: dict[str, str] = {}
    for folder in scripts:
        inside = [p for p in facts if p.startswith(folder + "/")]
        if any(_builds_for_rocm(p, f) for p in inside for f in facts[p]):
            continue
        for path in inside:
            named_outside = any(not where.startswith(folder + "/") for _, where in listed.get(path, []))
            if not named_outside:
                out.setdefault(path, folder)
    return out


def _builds_for_rocm(path: str, fact: Fact) -> bool:
    """ROCm-path evidence of a build (CI, a package, a HIP branch of a build file, a setup.py that asks
    for HIP), as `ported.collect` ranks it; a HIP branch in a source is not."""
    return fact.kind == "rocm_path" and ported.fact_strength(path, fact) in {*ported.STRONG, "build"}


def _cuda_twin(path: str) -> str:
    """The CUDA file a hipified source is made from: hipify renames cuda to hip in paths and .cu to .hip
    (PyTorch's hipify_torch: src/devices/hip/fastllm-hip.hip from src/devices/cuda/fastllm-cuda.cu)."""
    stem, suffix = posixpath.splitext(path)
    return stem.replace("hip", "cuda") + (".cu" if suffix == ".hip" else suffix)


def _optional_modules(facts: Mapping[str, Sequence[Fact]]) -> dict[str, str]:
    """Project modules every import of which (from another file) sits in an optional scope or in a module
    that is optional itself: a loader's module, and what only that module imports."""
    from migrate.workloads.modules import ModuleIndex

    index = ModuleIndex(p for p in facts if p.endswith(".py"))
    imports: dict[str, list[tuple[bool, str, str]]] = {}  # module -> (optional scope?, importer, where)
    for path, items in facts.items():
        for f in items:
            if f.kind == "python_import" and f.guard not in ("hip", "cuda"):
                target = index.resolve(path, f.name)
                if target is not None and target != path:
                    imports.setdefault(target, []).append((f.guard == "optional", path, f"{path}:{f.line}"))
    out: dict[str, str] = {}
    for path, items in facts.items():  # imported nowhere but in a comment: switched off by hand
        for f in items:
            if f.kind == "commented_import" and (target := index.resolve(path, f.name)) is not None \
                    and target != path and target not in imports and target not in out:
                out[target] = f"{path}:{f.line} `{f.text}`: its only import is commented out"
    for _ in range(MODULE_DEPTH):
        found = {module: seen[0][2] for module, seen in imports.items()
                 if module not in out and all(optional or importer in out for optional, importer, _ in seen)}
        if not found:
            break
        out.update({m: f"{where} imports it only in an optional scope (a fallback, an opt-in, a loader or back end "
                       "picked by configuration) or from an optional module" for m, where in found.items()})
    return out | _loaded_only_by(facts, out)


def _loaded_only_by(facts: Mapping[str, Sequence[Fact]], modules: Mapping[str, str]) -> dict[str, str]:
    """The sources that only optional modules compile (`load(sources=[...])`, an extension they declare)."""
    files = frozenset(facts)
    by: dict[str, list[tuple[bool, str]]] = {}  # source -> (from an optional module?, where)
    for path, items in facts.items():
        for f in items:
            if f.kind != "extension" or not f.text:
                continue
            base = posixpath.dirname(path)
            for item in filter(None, f.text.split("\n")):
                # a path relative to where the program runs that names no file: the file of that name beside the loader
                beside = _join(base, posixpath.basename(item))
                found = resolve_sources(item, base, files) or ([beside] if beside in files else [])
                for source in found:
                    by.setdefault(source, []).append((path in modules, f"{path}:{f.line}"))
    return {source: f"compiled only by {seen[0][1]}, in a module that is optional" for source, seen in by.items()
            if source not in modules and all(optional for optional, _ in seen)}


def _join(folder: str, name: str) -> str:
    return posixpath.normpath(posixpath.join(folder, name)) if folder else posixpath.normpath(name)


def _prefixes(path: str) -> Iterable[str]:
    yield path
    parts = path.split("/")
    for i in range(len(parts) - 1, 0, -1):
        yield "/".join(parts[:i]) + "/"


def _never_set(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], known: Words) -> dict[str, tuple[str, str]]:
    """CMake switches a user asks for (USE_X, WITH_X: rules/workloads/optional.yaml `request_words`) that an
    if() tests and no file of the project sets (no option(), set(), cache entry, nor a `-DX=...` that a script,
    setup.py or CI job passes): off by default, as an undefined variable is false."""
    set_names = {f.text if f.kind == "cmake" else f.name for items in facts.values() for f in items
                 if (f.kind == "cmake" and f.name == "set" and f.role == "command") or f.kind == "build_switch"}
    # a -DX=ON a script, setup.py or CI job passes to cmake sets it too
    set_names |= {m.group(1) for items in facts.values() for f in items
                  if f.kind == "flag" and (m := DEFINE_FLAG.match(f.text if f.name == "-D" else f.name))}
    # a name built from a variable (`set(PROJ_USE_${lang} ...)` in a helper) may set any switch of its shape
    shapes = [re.sub(r"\$\{[^}]*\}", "*", name) for name in set_names if "${" in name]
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(facts):
        if kinds.get(path) != "cmake":
            continue
        for f in facts[path]:
            if f.kind == "switch_branch" and f.name not in set_names and f.name not in out \
                    and not any(fnmatch.fnmatchcase(f.name, shape) for shape in shapes) \
                    and any(word in known.request_words for word in f.name.split("_")[:-1]):
                out[f.name] = (f"{path}:{f.line} {f.text} (no build file sets {f.name})", "OFF")
    return out


def _declared(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[str, str]]:
    """Switch -> (where it is declared, its default) from CMake option() and the like."""
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(facts):
        for f in facts[path]:
            if f.kind == "build_switch" and f.name not in out:
                default, _, command = f.text.partition(" ")
                out[f.name] = (f"{path}:{f.line} {command}({f.name})", default)
    return out

