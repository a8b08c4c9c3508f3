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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from migrate.model import Fact, Finding, class_rank, evolve
from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir
from migrate.scan.layout import hip_twinned
from migrate.workloads import ported
from migrate.workloads.assemble import resolve_sources
from migrate.workloads.ported import Evidence

C_FAMILIES = ("HIP0", "HIP1", "HIP2", "HIP3", "HIP4", "HIP5")
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".cuh", ".inl")
HEADER_DEPTH = 3  # headers included only by gated headers, this many levels down
MODULE_DEPTH = 4  # modules imported only by optional modules, this many levels down
SECTIONS = ("folders", "scratch_folders", "switches")
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
    known: Words | None = None

    def part(self, finding: Finding) -> Part | None:
        """The optional part a finding belongs to, or None where it is required."""
        known = self.known or words()
        path = finding.path
        if (root := optional_root(path, known)) is not None:
            what = "scratch space" if root in known.scratch else "a folder a package does not need to run"
            return Part(root, (f"{root}/: {what} (rules/workloads/optional.yaml)",))
        if path in self.optional_modules:
            return Part(path, (self.optional_modules[path],))
        if path in self.unbuilt:
            return Part(f"{path} (built by nothing)", (self.unbuilt[path],))
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
        if finding.path in self.hip_twinned:
            return evolve(finding, status="ported")
        if self.rocm_path and finding.path not in self.left_out_of_hip and \
                (finding.path in self.hip_aware or optional_root(finding.path, self.known or words()) is None):
            return evolve(finding, status="ported")
        if finding.status != "optional" and self.part(finding) is not None:
            return evolve(finding, status="optional")
        return finding

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
            "gated": {k: region(r) for k, r in parts.gated.items()}, "unbuilt": dict(parts.unbuilt)}


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
        known=known)


def build(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], findings: Iterable[Finding],
          known: Words | None = None) -> ProjectParts:
    """A project's parts from its files' facts (paths relative to its root) and its findings."""
    known = known or words()
    collected = ported.collect(facts, kinds)
    evidence = ported.rocm_path(collected, has_cuda_sources="cuda" in kinds.values())
    regions = _regions(facts)
    gated = _gated(facts, regions)
    declared = _declared(facts)
    probe = ProjectParts(regions=regions, gated=gated, known=known)
    for _ in range(HEADER_DEPTH):
        more = _gated_headers(facts, probe)
        if not more:
            break
        gated.update(more)
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
              if f.kind == "build_switch" and f.text.endswith(" always-defined")}  # extract/python/extractor.py
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
    left_out, subprojects = _left_out(facts, known) if evidence else ({}, frozenset[str]())
    return ProjectParts(rocm_path=evidence, left_out_of_hip=left_out, hip_subprojects=subprojects,
                        hip_aware=frozenset(e.path for e in collected if e.strength == "source"),
                        hip_twinned=hip_twinned(kinds),
                        optional_modules=_optional_modules(facts), switches=switches, regions=regions, gated=gated,
                        unbuilt=_unbuilt(facts), known=known)


def _regions(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[_Region, ...]]:
    out: dict[str, tuple[_Region, ...]] = {}
    for path, items in facts.items():
        found = tuple(_Region(path, f.line, f.end_line, f.name, f.text) for f in items if f.kind == "switch_branch")
        if found:
            out[path] = found
    return out


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


def _unbuilt(facts: Mapping[str, Sequence[Fact]]) -> dict[str, str]:
    """CUDA sources no build compiles: a .cu file that no build file names (nor any glob or extension
    source list) and no file includes, beside a .cu file of the same folder that a build file names by
    name (a source left out of, or commented out of, an explicit list); and the headers only such files
    include. A project whose build names no source of a folder says nothing about that folder."""
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
    includers: dict[str, set[str]] = {}  # basename -> the files that include it
    for path, items in facts.items():
        for f in items:
            if f.kind == "include":
                includers.setdefault(posixpath.basename(f.name), set()).add(path)
    siblings: dict[str, str] = {}  # folder -> the first .cu file a build names there by name
    for source in sorted(explicit):
        if source.endswith(UNBUILT_SUFFIXES):
            siblings.setdefault(posixpath.dirname(source), source)
    out: dict[str, str] = {}
    for path in sorted(files):
        if not path.endswith(UNBUILT_SUFFIXES) or path in named or includers.get(posixpath.basename(path)):
            continue
        sibling = siblings.get(posixpath.dirname(path))
        if sibling is not None:
            out[path] = f"{named[sibling]} names {sibling} beside it; no build file names {path} and nothing includes it"
    for _ in range(HEADER_DEPTH):
        more = {}
        for header in files - set(out) - set(named):
            if header.endswith(HEADER_SUFFIXES) and (by := includers.get(posixpath.basename(header))) \
                    and by <= set(out) and header not in by:
                more[header] = f"included only by sources no build compiles ({', '.join(sorted(by))})"
        if not more:
            break
        out.update(more)
    return out


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
    for _ in range(MODULE_DEPTH):
        found = {module: seen[0][2] for module, seen in imports.items()
                 if module not in out and all(optional or importer in out for optional, importer, _ in seen)}
        if not found:
            break
        out.update({m: f"{where} imports it only in an optional scope (a fallback, an opt-in, a loader or back end "
                       "picked by configuration) or from an optional module" for m, where in found.items()})
    return out


def _join(folder: str, name: str) -> str:
    return posixpath.normpath(posixpath.join(folder, name)) if folder else posixpath.normpath(name)


def _prefixes(path: str) -> Iterable[str]:
    yield path
    parts = path.split("/")
    for i in range(len(parts) - 1, 0, -1):
        yield "/".join(parts[:i]) + "/"


def _declared(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[str, str]]:
    """Switch -> (where it is declared, its default) from CMake option() and the like."""
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(facts):
        for f in facts[path]:
            if f.kind == "build_switch" and f.name not in out:
                default, _, command = f.text.partition(" ")
                out[f.name] = (f"{path}:{f.line} {command}({f.name})", default)
    return out

