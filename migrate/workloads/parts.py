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

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from migrate.model import Fact, Finding, Status, class_rank, evolve
from migrate.rulebase import families
from migrate.scan.layout import hip_members, hip_sides, hip_twinned, twin_stems
from migrate.vocabulary import ALWAYS_DEFINED, BUILD_FILE_KINDS
from migrate.workloads import (
    build_scopes,
    cargo_features,
    compiler_reach,
    compose_services,
    cpu_thrust,
    doc_sites,
    host_gates,
    library_guards,
    make_goals,
    make_variants,
    maven_profiles,
    ported,
    project_defines,
    reach,
)
from migrate.workloads.alternatives import build_variants, covering, nvidia_case_arms, run_time_alternatives
from migrate.workloads.amd_extensions import AmdBuilds, built_for_amd
from migrate.workloads.build_sources import prefixes
from migrate.workloads.config_defaults import config_defaults
from migrate.workloads.configure_probes import configure_probes
from migrate.workloads.embedded_hosts import optional_host_files
from migrate.workloads.extension_twins import unimported_twins
from migrate.workloads.extra_installs import extra_installs, install_of
from migrate.workloads.fact_index import of_kind
from migrate.workloads.hand_run_setups import built_by_hand
from migrate.workloads.host_tools import nvidia_host_branches
from migrate.workloads.includes import gate_headers, included_by_required, linked_by_required, optional_includes
from migrate.workloads.julia_packages import extension_files, unloaded_files
from migrate.workloads.left_out import left_out_of_hip
from migrate.workloads.make_backend_choice import twinned_branch_sources
from migrate.workloads.make_hip_branches import outside_hip_branches
from migrate.workloads.make_reached import unbuilt_by_make, unincluded_fragments
from migrate.workloads.on_demand import opted_in_scopes
from migrate.workloads.opt_in_images import WHAT as OPT_IN_WHAT
from migrate.workloads.opt_in_images import opt_in_images
from migrate.workloads.option_branches import branches_not_taken
from migrate.workloads.optional_imports import loaded_only_by_optional, optional_modules
from migrate.workloads.optional_words import (
    DataError,
    Words,
    alternative_runtime_folders,
    alternative_runtime_scopes,
    detection,
    feature,
    in_cuda_genex,
    is_platform,
    off_by_default,
    optional_root,
    sets_cuda_setting,
    words,
)
from migrate.workloads.ported import Evidence
from migrate.workloads.reached_files import compiled_by_scripts, only_programs, unlisted_by_vs_project, unreferenced
from migrate.workloads.sample_copies import copied_samples
from migrate.workloads.switches import (
    Region,
    called_only_under,
    cleared_unless_detected,
    compile_passes,
    compiled_only_under,
    cuda_build_switch,
    cuda_genexes,
    declared_on_detection,
    declared_switches,
    defined_by_build,
    defined_only_under,
    defined_toggles,
    detected_switches,
    either_switches,
    extend,
    follow_defaults,
    found_only_under,
    from_found_packages,
    gated_by_build,
    hard_off,
    loaded_only_under,
    make_unset,
    never_defined,
    never_set,
    portable_backends,
    quiet_finds,
    regions_of,
    set_only_under,
    switches_around,
    wrapped_folders,
)
from migrate.workloads.unbuilt import unbuilt_sources
from migrate.workloads.undeclared import undeclared_scopes
from migrate.workloads.unused import evidence as unused_evidence
from migrate.workloads.unused import unused_folders

__all__ = ["DataError", "Part", "ProjectParts", "Words", "build", "feature", "from_json", "is_platform",
           "optional_root", "to_json", "words"]

# C/C++ sources and headers a host compiler builds: a finding that holds only on some GPU targets (rules/workloads/
# optional.yaml `compile_pass.target_rules`: the FP8 maximum of gfx942, a wave size of 64) concerns such code only where
# it runs on a GPU
CMAKE_SUFFIXES = ("CMakeLists.txt", ".cmake")
HOST_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp")
CALL_DEPTH = 3  # functions called only by such functions, this many levels down


@dataclass(frozen=True, slots=True)
class Part:
    """An optional part: its name (a folder, a module, `build switch USE_CUDNN`) and what makes it optional."""

    root: str
    evidence: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProjectParts:
    """One project's parts; `apply` gives a finding its status (paths relative to the project root)."""

    rocm_path: tuple[Evidence, ...] = ()
    # the folders the ROCm path covers (build_scopes.WHOLE: all): the builds that hold its evidence
    rocm_scopes: tuple[str, ...] = (build_scopes.WHOLE,)
    rocm_unreached: tuple[str, ...] = ()  # nested builds in those folders that the ROCm path does not reach
    left_out_of_hip: Mapping[str, str] = field(default_factory=dict)  # path -> why the HIP build skips it
    hip_subprojects: frozenset[str] = frozenset()  # folders with a build of their own that has no ROCm path
    hip_aware: frozenset[str] = frozenset()  # files with HIP branches, HIP includes or a ROCm CI job of their own
    hip_twinned: frozenset[str] = frozenset()  # CUDA members of a back-end family whose HIP member is there
    hip_members: frozenset[str] = frozenset()  # ... whose own HIP member file is there (layout.hip_members)
    hip_sides: frozenset[str] = frozenset()  # files of a back-end family's HIP member (hip/ beside cuda/: layout.hip_sides)
    amd_builds: AmdBuilds = field(default_factory=AmdBuilds)  # extension builds compiled for an AMD target, and their sources
    # sources a Makefile names only away from the branches where it builds with hipcc (workloads/make_hip_branches.py):
    # not credited, status left to the other readings
    outside_hip_make: Mapping[str, str] = field(default_factory=dict)
    optional_modules: Mapping[str, str] = field(default_factory=dict)  # path -> the optional import of it
    switches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # optional switch -> evidence
    regions: Mapping[str, tuple[Region, ...]] = field(default_factory=dict)  # path -> switch branches in it
    gated: Mapping[str, Region] = field(default_factory=dict)  # file or folder/ -> the CMake branch adding it
    unbuilt: Mapping[str, str] = field(default_factory=dict)  # path -> why no build compiles it
    host_gates: Mapping[str, str] = field(default_factory=dict)  # path -> why its CUDA compiler gates are not taken
    cuda_build: str = ""  # the optional switch every CUDA translation unit is built under, if there is one
    compiler_switch: str = ""  # the optional switch every naming of nvcc in the build is under (compiler_reach)
    optional_includes: Mapping[str, str] = field(default_factory=dict)  # header -> the optional files including it
    # file -> the kind of its workload, where that workload's build hipifies it (classify.hipified_by_build)
    build_kinds: Mapping[str, str] = field(default_factory=dict)
    # container file -> the optional CUDA build it serves, or why it (or a script) is a deployment part of its own
    images: Mapping[str, str] = field(default_factory=dict)
    included_by_required: frozenset[str] = frozenset()  # files of optional folders that required code includes
    alternatives: Mapping[str, str] = field(default_factory=dict)  # folder of an NVIDIA-only runtime -> evidence
    unused: Mapping[str, str] = field(default_factory=dict)  # file -> its folder of code no longer used (legacy/)
    # optional switches off by default that turn on a feature, not the GPU platform (REALM_BUILD_CUHOOK, not USE_CUDA)
    off_features: frozenset[str] = frozenset()
    # Python file -> (first line, last line, evidence) of each function or branch that picks an NVIDIA-only runtime
    runtime_scopes: Mapping[str, tuple[tuple[int, int, str], ...]] = field(default_factory=dict)
    # a file, a folder/ or a path:line -> evidence: an NVIDIA part chosen at run time beside peers (workloads/alternatives.py)
    run_time: Mapping[str, str] = field(default_factory=dict)
    found_under: Mapping[str, Region] = field(default_factory=dict)  # CUDA -> the optional branch of its every find_package
    # Python file -> (first line, last line, evidence) of each `if` branch with an import that a run without command-line
    # options does not take (workloads/option_branches.py)
    unasked: Mapping[str, tuple[tuple[int, int, str], ...]] = field(default_factory=dict)
    # shell script -> (first line, last line, evidence) of each span that runs only where an NVIDIA tool is installed
    # (workloads/host_tools.py)
    nvidia_hosts: Mapping[str, tuple[tuple[int, int, str], ...]] = field(default_factory=dict)
    # file -> (folder/ of its part, evidence): a part with a build of its own that the default build does not reach
    # (workloads/reach.py)
    unreached: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # Python file -> (first line, last line, evidence) of each scope ((0, 0): the whole file) that imports a GPU package
    # the project's declared dependencies do not bring (workloads/undeclared.py)
    undeclared: Mapping[str, tuple[tuple[int, int, str], ...]] = field(default_factory=dict)
    # file outside the manifests -> (line, package, evidence) of each install of a package the manifests declare only
    # under an extra (workloads/extra_installs.py)
    extras: Mapping[str, tuple[tuple[int, str, str], ...]] = field(default_factory=dict)
    # C/C++/CUDA file -> (first line, last line, evidence) of each branch taken only while a macro every build of the
    # project defines is undefined (`#ifndef NO_CUDA`: workloads/project_defines.py)
    off_branches: Mapping[str, tuple[tuple[int, int, str], ...]] = field(default_factory=dict)
    # folder/ ("" for the project) -> evidence: the default build compiles Thrust there for the CPU (workloads/cpu_thrust.py)
    cpu_thrust: Mapping[str, str] = field(default_factory=dict)
    # Python file -> evidence: its CUDA strings are compiled only by host code that is all optional (embedded_hosts.py)
    optional_hosts: Mapping[str, str] = field(default_factory=dict)
    # the evidence that the scanned tree is a documentation site (workloads/doc_sites.py), "" where it is not
    doc_site: str = ""
    # Compose file -> (first line, last line, evidence) of each service whose image is an optional folder's Dockerfile
    # (workloads/compose_services.py)
    optional_services: Mapping[str, tuple[tuple[int, int, str], ...]] = field(default_factory=dict)
    known: Words | None = None

    def part(self, finding: Finding) -> Part | None:
        """The optional part a finding belongs to, or None where it is required."""
        known = self.known or words()
        path = finding.path
        if (root := optional_root(path, known)) is not None and path not in self.included_by_required:
            what = "scratch space" if root in known.scratch else "a folder a package does not need to run"
            return Part(root, (f"{root}/: {what} (rules/workloads/optional.yaml)",))
        if self.doc_site:
            return Part(f"{path.partition('/')[0]} ({doc_sites.WHAT})", (self.doc_site,))
        if path in self.unused:
            return Part(f"{self.unused[path]} (no longer used)", (unused_evidence(self.unused[path]),))
        if self.alternatives and (folder := next((p.rstrip("/") for p in prefixes(path)
                                                  if p.endswith("/") and p.rstrip("/") in self.alternatives), None)):
            return Part(folder, (self.alternatives[folder],))
        if path in self.optional_modules:
            return Part(path, (self.optional_modules[path],))
        if path in self.unreached:
            folder, why = self.unreached[path]
            return Part(f"{folder.rstrip('/')} (not reached by the default build)", (why,))
        if self.run_time and (key := covering(self.run_time, path, finding.line)) is not None:
            return Part(f"{key.rstrip('/')} (chosen at run time)", (self.run_time[key],))
        scope = next((s for s in self.runtime_scopes.get(path, ()) if s[0] <= finding.line <= s[1]), None)
        if scope is not None:
            return Part(f"{path}:{scope[0]}-{scope[1]} (an alternative runtime)", (scope[2],))
        branch = next((s for s in self.unasked.get(path, ()) if s[0] <= finding.line <= s[1]), None)
        if branch is not None:
            return Part(f"{path}:{branch[0]}-{branch[1]} (a command-line option's branch)", (branch[2],))
        service = next((s for s in self.optional_services.get(path, ()) if s[0] <= finding.line <= s[1]), None)
        if service is not None:
            return Part(f"{path}:{service[0]}-{service[1]} ({compose_services.WHAT})", (service[2],))
        host = next((s for s in self.nvidia_hosts.get(path, ()) if s[0] <= finding.line <= s[1]), None)
        if host is not None:
            return Part(f"{path}:{host[0]}-{host[1]} (runs only on an NVIDIA host)", (host[2],))
        needs = next((s for s in self.undeclared.get(path, ()) if s[0] == 0 or s[0] <= finding.line <= s[1]), None)
        if needs is not None:
            where = path if needs[0] == 0 else f"{path}:{needs[0]}-{needs[1]}"
            return Part(f"{where} (a package the install does not bring)", (needs[2],))
        if (extra := install_of(self.extras, path, finding.line, finding.symbol)) is not None:
            return Part(f"{path}:{extra[0]} (an extra's package)", (extra[2],))
        off = next((s for s in self.off_branches.get(path, ()) if s[0] <= finding.line <= s[1]), None)
        if off is not None:
            return Part(f"{path}:{off[0]}-{off[1]} (off in every build)", (off[2],))
        if path in self.unbuilt:
            return Part(f"{path} (built by nothing)", (self.unbuilt[path],))
        if self.cpu_thrust and cpu_thrust.is_thrust(finding, known) \
                and (folder := cpu_thrust.covering(self.cpu_thrust, path)) is not None:
            return Part(f"{folder.rstrip('/') or '.'} ({cpu_thrust.WHAT})", (self.cpu_thrust[folder],))
        if path in self.host_gates and finding.rule in known.gate_rules:
            return Part(f"{path} ({host_gates.WHAT})", (self.host_gates[path],))
        if path in self.images:
            why = self.images[path]
            what = OPT_IN_WHAT if why.endswith(OPT_IN_IMAGE) else \
                "a deployment script" if why.endswith(DEPLOYMENT_SCRIPT) else \
                "the optional CUDA build's environment" if why.endswith(BUILD_ENVIRONMENT) else \
                "an image for the optional CUDA build"
            return Part(f"{path} ({what})", (self.images[path],))
        if path in self.optional_includes:
            return Part(f"{path} (included by optional code only)", (self.optional_includes[path],))
        if path in self.left_out_of_hip:
            folder = next((p for p in prefixes(path) if p.rstrip("/") in self.hip_subprojects), None)
            root = f"{folder.rstrip('/')} (a build of its own without ROCm)" if folder else \
                f"{path} (left out of the HIP build)"
            return Part(root, (self.left_out_of_hip[path],))
        optional = [r for r in self._switches(path, finding.line) if r.switch in self.switches]
        if optional:  # of switches set on one line (a cmake command), the GPU platform's first
            first = optional[0]
            region = next((r for r in optional if (r.path, r.start, r.end) == (first.path, first.start, first.end)
                           and is_platform(feature(r.switch, known) or "", known)), first)
            name = region.switch if region.switch.startswith((make_goals.GOAL_PREFIX, make_variants.VARIANT_PREFIX)) \
                else f"build switch {region.switch}"
            return Part(name,
                        (*self.switches[region.switch], f"{region.path}:{region.start} {region.text}"))
        if self.cuda_build in self.switches and (finding.symbol in known.compile_pass
                                                  or finding.symbol.startswith(known.cuda_settings)
                                                  or (finding.symbol in known.cuda_properties
                                                      and path.endswith(CMAKE_SUFFIXES))
                                                  or in_cuda_genex(finding.source_line, finding.column, known)
                                                  or sets_cuda_setting(finding.source_line, known)):
            return Part(f"build switch {self.cuda_build}",
                        (*self.switches[self.cuda_build], f"{path}:{finding.line} {finding.symbol}: takes effect only "
                         f"where CUDA is compiled, and every CUDA source is built under {self.cuda_build}"))
        if self.cuda_build in self.switches and finding.rule in known.target_rules and path.endswith(HOST_SUFFIXES):
            return Part(f"build switch {self.cuda_build}",
                        (*self.switches[self.cuda_build], f"{path}:{finding.line} {finding.symbol}: holds only where code "
                         f"runs on {', '.join(finding.targets)} through HIP, and every CUDA source is built under "
                         f"{self.cuda_build}"))
        if self.compiler_switch in self.switches and finding.rule in known.nvcc_flag_rules \
                and not path.endswith(CMAKE_SUFFIXES):  # CMake gives a plain flag to every language's compiler
            return Part(f"build switch {self.compiler_switch}",
                        (*self.switches[self.compiler_switch], f"{path}:{finding.line} {finding.symbol}: a flag only nvcc "
                         f"takes, and the build names nvcc only under {self.compiler_switch}"))
        if self.cuda_build in self.switches and not path.endswith(CMAKE_SUFFIXES) \
                and (finding.rule in known.nvcc_flag_rules - known.compiler_rules
                     or finding.symbol in known.cuda_link_flags):
            # nvcc runs only on CUDA translation units, and the CUDA runtime is linked only for them (nvcc itself, as
            # a script's `nvcc --version`, is no flag: sphericart's install-cupy.sh picks a CuPy wheel by it)
            return Part(f"build switch {self.cuda_build}",
                        (*self.switches[self.cuda_build], f"{path}:{finding.line} {finding.symbol}: a flag of nvcc or of "
                         f"the CUDA runtime's link, and every CUDA source is built under {self.cuda_build}"))
        if path.endswith(CMAKE_SUFFIXES) and (found := next((r for p, r in self.found_under.items()
                                                              if finding.symbol.startswith(f"{p}_")), None)) is not None:
            return Part(f"build switch {found.switch}",
                        (*self.switches[found.switch], f"{path}:{finding.line} {finding.symbol}: a result of "
                         f"find_package({finding.symbol.partition('_')[0]}), which runs only under {found.path}:"
                         f"{found.start} {found.text}"))
        if path in self.optional_hosts and families.load().is_code(finding.rule, "c"):
            return Part(f"{path} (CUDA source of an optional host)", (self.optional_hosts[path],))
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
        if finding.path in self.hip_sides or finding.path in self.amd_builds.sources \
                or (finding.path, finding.line) in self.amd_builds.calls:  # what the project builds for AMD
            return "ported"
        if finding.path in self.hip_twinned or (
                self.rocm_path and finding.path not in self.left_out_of_hip and finding.path not in self.unused
                and finding.path not in self.outside_hip_make
                and self.credited(finding.path)
                and (finding.path in self.hip_aware or optional_root(finding.path, self.known or words()) is None)):
            # a feature the default build leaves off (REALM_BUILD_CUHOOK OFF), with no HIP side of its own (HIP
            # branches, or a HIP twin file of its own: Traccc's device/cuda/.../contiguous_on.cuh beside device/hip/...), is
            # in no default build, the HIP one neither: an optional part, not ported code
            if finding.path not in self.hip_aware and finding.path not in self.hip_members \
                    and any(r.switch in self.off_features for r in self._switches(finding.path, finding.line)):
                return "optional"
            return "ported"
        if finding.status != "optional" and self.part(finding) is not None:
            return "optional"
        return finding.status

    def credited(self, path: str) -> bool:
        """Whether the project's ROCm path covers a file: it lies under a build that holds ROCm evidence."""
        return bool(self.rocm_path) and build_scopes.inside(path, self.rocm_scopes) \
            and not any(path.startswith(root + "/") for root in self.rocm_unreached)

    def rocm_path_of(self, files: Iterable[str]) -> tuple[Evidence, ...]:
        """The ROCm path a workload of these files shows: the project's, where it covers one of them."""
        files = list(files)
        if not files:
            return self.rocm_path if build_scopes.WHOLE in self.rocm_scopes else ()
        return self.rocm_path if any(self.credited(p) for p in files) else ()

    def _switches(self, path: str, line: int) -> list[Region]:
        return switches_around(self.regions, self.gated, path, line=line)


def to_json(parts: ProjectParts) -> dict[str, Any]:
    """The parts as JSON (lint keeps them in the cache, keyed by the project's content)."""
    def region(r: Region) -> list[Any]:
        return [r.path, r.start, r.end, r.switch, r.text]

    return {"rocm_path": [[e.path, e.line, e.strength, e.text] for e in parts.rocm_path],
            "rocm_scopes": list(parts.rocm_scopes), "rocm_unreached": list(parts.rocm_unreached),
            "left_out_of_hip": dict(parts.left_out_of_hip), "hip_subprojects": sorted(parts.hip_subprojects),
            "optional_modules": dict(parts.optional_modules),
            "hip_aware": sorted(parts.hip_aware), "hip_twinned": sorted(parts.hip_twinned),
            "hip_members": sorted(parts.hip_members), "hip_sides": sorted(parts.hip_sides),
            "amd_sources": sorted(parts.amd_builds.sources),
            "amd_calls": sorted([p, n] for p, n in parts.amd_builds.calls),
            "outside_hip_make": dict(parts.outside_hip_make),
            "switches": {k: list(v) for k, v in parts.switches.items()},
            "regions": {k: [region(r) for r in v] for k, v in parts.regions.items()},
            "gated": {k: region(r) for k, r in parts.gated.items()}, "unbuilt": dict(parts.unbuilt),
            "cuda_build": parts.cuda_build, "compiler_switch": parts.compiler_switch,
            "optional_includes": dict(parts.optional_includes),
            "build_kinds": dict(parts.build_kinds), "images": dict(parts.images),
            "included_by_required": sorted(parts.included_by_required), "alternatives": dict(parts.alternatives),
            "unused": dict(parts.unused), "off_features": sorted(parts.off_features),
            "runtime_scopes": {k: [list(s) for s in v] for k, v in parts.runtime_scopes.items()},
            "run_time": dict(parts.run_time),
            "found_under": {k: region(r) for k, r in parts.found_under.items()},
            "unasked": {k: [list(s) for s in v] for k, v in parts.unasked.items()},
            "nvidia_hosts": {k: [list(s) for s in v] for k, v in parts.nvidia_hosts.items()},
            "unreached": {k: list(v) for k, v in parts.unreached.items()},
            "undeclared": {k: [list(s) for s in v] for k, v in parts.undeclared.items()},
            "extras": {k: [list(s) for s in v] for k, v in parts.extras.items()},
            "off_branches": {k: [list(s) for s in v] for k, v in parts.off_branches.items()},
            "cpu_thrust": dict(parts.cpu_thrust), "optional_hosts": dict(parts.optional_hosts),
            "doc_site": parts.doc_site,
            "optional_services": {k: [list(s) for s in v] for k, v in parts.optional_services.items()}}


def from_json(data: Any, known: Words | None = None) -> ProjectParts:
    """Parts read back from `to_json`; raises ValueError (or a KeyError/TypeError) on another shape."""
    def region(item: Any) -> Region:
        path, start, end, switch, text = item
        if not (isinstance(path, str) and isinstance(start, int) and isinstance(end, int)
                and isinstance(switch, str) and isinstance(text, str)):
            raise ValueError("not a switch branch")
        return Region(path, start, end, switch, text)

    def strings(mapping: Any) -> dict[str, str]:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
            raise ValueError("not a mapping of strings")
        return dict(mapping)

    return ProjectParts(
        rocm_path=tuple(Evidence(str(p), int(n), str(s), str(t)) for p, n, s, t in data["rocm_path"]),
        rocm_scopes=tuple(str(p) for p in data.get("rocm_scopes", [build_scopes.WHOLE])),
        rocm_unreached=tuple(str(p) for p in data.get("rocm_unreached", [])),
        left_out_of_hip=strings(data["left_out_of_hip"]), optional_modules=strings(data["optional_modules"]),
        hip_subprojects=frozenset(str(p) for p in data.get("hip_subprojects", [])),
        hip_aware=frozenset(str(p) for p in data["hip_aware"]),
        hip_twinned=frozenset(str(p) for p in data.get("hip_twinned", [])),
        hip_members=frozenset(str(p) for p in data.get("hip_members", [])),
        hip_sides=frozenset(str(p) for p in data.get("hip_sides", [])),
        amd_builds=AmdBuilds(frozenset(str(p) for p in data.get("amd_sources", [])),
                             frozenset((str(p), int(n)) for p, n in data.get("amd_calls", []))),
        outside_hip_make=strings(data.get("outside_hip_make", {})),
        switches={str(k): tuple(str(e) for e in v) for k, v in data["switches"].items()},
        regions={str(k): tuple(region(r) for r in v) for k, v in data["regions"].items()},
        gated={str(k): region(r) for k, r in data["gated"].items()}, unbuilt=strings(data.get("unbuilt", {})),
        cuda_build=str(data.get("cuda_build", "")), compiler_switch=str(data.get("compiler_switch", "")),
        optional_includes=strings(data.get("optional_includes", {})),
        build_kinds=strings(data.get("build_kinds", {})), images=strings(data.get("images", {})),
        included_by_required=frozenset(str(p) for p in data.get("included_by_required", [])),
        alternatives=strings(data.get("alternatives", {})), unused=strings(data.get("unused", {})),
        off_features=frozenset(str(s) for s in data.get("off_features", [])),
        runtime_scopes={str(k): tuple((int(a), int(b), str(c)) for a, b, c in v)
                        for k, v in data.get("runtime_scopes", {}).items()},
        run_time=strings(data.get("run_time", {})),
        found_under={str(k): region(r) for k, r in data.get("found_under", {}).items()},
        unasked={str(k): tuple((int(a), int(b), str(c)) for a, b, c in v) for k, v in data.get("unasked", {}).items()},
        nvidia_hosts={str(k): tuple((int(a), int(b), str(c)) for a, b, c in v)
                      for k, v in data.get("nvidia_hosts", {}).items()},
        unreached={str(k): (str(a), str(b)) for k, (a, b) in data.get("unreached", {}).items()},
        undeclared={str(k): tuple((int(a), int(b), str(c)) for a, b, c in v)
                    for k, v in data.get("undeclared", {}).items()},
        extras={str(k): tuple((int(a), str(b), str(c)) for a, b, c in v) for k, v in data.get("extras", {}).items()},
        off_branches={str(k): tuple((int(a), int(b), str(c)) for a, b, c in v)
                      for k, v in data.get("off_branches", {}).items()},
        cpu_thrust=strings(data.get("cpu_thrust", {})), optional_hosts=strings(data.get("optional_hosts", {})),
        doc_site=str(data.get("doc_site", "")),
        optional_services={str(k): tuple((int(a), int(b), str(c)) for a, b, c in v)
                           for k, v in data.get("optional_services", {}).items()},
        known=known)


def build(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], findings: Iterable[Finding],
          known: Words | None = None, *, build_kinds: Mapping[str, str] | None = None) -> ProjectParts:
    """A project's parts from its files' facts (paths relative to its root) and its findings; `build_kinds`:
    the files whose workload's build hipifies them (classify.hipified_by_build), kept for lint."""
    known = known or words()
    findings = list(findings)
    # a HIP build in a folder of code no longer used (old/, legacy/: unused_folders, nothing outside it references it) is
    # no ROCm path of the project's current build (flexflow/flexflow-train 3b0f5b9f bindings/python/old/: a Makefile
    # with USE_HIP and a hipcc CMakeLists beside the CUDA-only lib/kernels the top CMakeLists builds)
    unused = unused_folders(facts, known)
    collected = [e for e in ported.collect(facts, kinds) + ported.implemented_over_cuda(facts, findings)
                 if e.path not in unused]
    evidence, scopes = build_scopes.covered(facts, kinds, collected)
    regions = regions_of(facts)
    for _ in range(CALL_DEPTH):  # a function called only in a switch's branch, and the functions it calls
        if not extend(regions, called_only_under(facts, regions)):
            break
    own_switches = declared_switches(facts)  # one pass over every fact, read by the three steps below

    def gated_files() -> dict[str, Region]:
        loaded = loaded_only_under(facts, regions)
        return gated_by_build(facts, regions, loaded, known, declared=own_switches) | loaded \
            | wrapped_folders(facts, regions)

    # rules make's default goal does not reach (and branches only a named goal takes), and what only they name: read
    # first, so that a `-DUSE_OPTIX` only such a branch passes switches the `#ifdef USE_OPTIX` branches with it
    goals = make_goals.outside_default_goal(facts, kinds)
    extend(regions, goals.regions)
    variants = make_variants.variant_makefiles(facts, kinds)  # `makefile.cuda` beside plain makefiles: an opt-in
    hard = hard_off(facts, kinds, known)
    chosen = set_only_under(facts, regions, gated_files(), known, hard, declared=own_switches)
    extend(regions, defined_only_under(facts, kinds, regions, {**goals.gated, **variants.gated, **gated_files()},
                                       known))
    gated = gated_files()
    for path, region in {**goals.gated, **variants.gated}.items():
        gated.setdefault(path, region)
    by_feature, feature_switches = cargo_features.feature_gated(facts, known)  # CUDA only non-default features build
    by_profile, profile_switches = maven_profiles.profile_modules(facts)  # modules only profiles off by default list
    feature_switches = {**feature_switches, **profile_switches}
    for path, region in (by_feature | by_profile).items():
        gated.setdefault(path, region)
    for path, region in reach.filtered_out(facts, kinds, regions).items():  # `if(NOT CUDA) list(FILTER SRC EXCLUDE ...)`
        gated.setdefault(path, region)
    unset = never_set(facts, kinds, known, build_variants(kinds)) | never_defined(facts, kinds, known) \
        | make_unset(facts, known)  # each read once
    stated = follow_defaults(config_defaults(facts, kinds, known) | own_switches, chosen) \
        | cleared_unless_detected(facts, known) \
        | declared_on_detection(facts, regions, gated, known) | from_found_packages(facts, known)
    declared = {**unset, **detected_switches(facts, regions, gated, {**unset, **stated}, known), **stated,
                **hard}
    gate_headers(facts, regions, gated)
    uses: dict[str, list[Finding]] = {}
    outside = False  # GPU code of the project's own outside every feature switch (a platform one's is its own)
    memo: dict[str, list[Region]] = {}  # regions and gated stay as they are through this loop
    for f in findings:
        around = switches_around(regions, gated, f.path, line=f.line, memo=memo)
        for region in around:
            uses.setdefault(region.switch, []).append(f)
            if " OR " in region.switch:  # `if(A OR B)`: each of its switches is asked about too (either_switches)
                for name in region.switch.split(" OR "):
                    uses.setdefault(name, [])
        if outside:  # once found, no later finding changes it
            continue
        features = [feature(r.switch, known) for r in around]
        in_feature = any(x is not None and not is_platform(x, known) for x in features) \
            or any(r.switch in goals.switches or r.switch in variants.switches or r.switch in feature_switches
                   for r in around)
        if not in_feature and families.load().is_code(f.rule, "c") and optional_root(f.path, known) is None \
                and class_rank(f.migration_class) >= class_rank("migration-required"):
            outside = True
    switches: dict[str, tuple[str, ...]] = {}
    off_features: set[str] = set()
    always = {f.name for _, f in of_kind(facts, "build_switch") if f.text.endswith(f" {ALWAYS_DEFINED}")}
    always |= defined_toggles(facts) | defined_by_build(facts, kinds, regions, gated)
    always -= set(hard)  # a `-DGRAPHBLAS_USE_CUDA=1` cannot turn on what a plain set() hides (switches.hard_off)
    portable = portable_backends(facts, regions, gated, declared, known)
    for name in sorted(n for n in set(uses) - always  # not CMAKE_BUILD_TYPE, but CMAKE_CUDA_COMPILER
                       if not n.startswith(known.reserved) or detection(n, known)):
        where, default = declared.get(name, ("", ""))
        beside = next((other for other in sorted(portable) if other != name), None)
        if where and beside is not None and name not in portable and default.upper() in known.on \
                and _builds_cuda_code(uses[name], known):
            # an option the user may turn off, beside a portable back end on by default: the CUDA one is an alternative
            switches[name] = (f"{where} default {default}", f"{beside} builds a portable back end beside it, on by "
                              f"default: {portable[beside]}")
            continue
        # a switch declared off by default without a switch word (`-DGROUPED_GEMM_CUTLASS` on an opt-in) turns on itself
        turns_on = feature(name, known) or (name if where and off_by_default(default, known) else None)
        if turns_on is None:
            continue
        said = (f"{where} default {default}",) if where else ()
        if where and off_by_default(default, known):
            switches[name] = (*said, f"{name} is off by default: the default build has none of its code")
            if (named := feature(name, known)) is not None and not is_platform(named, known):
                off_features.add(name)  # a feature's switch word (REALM_BUILD_CUHOOK), not GGML_CUDA's own name
        elif outside and not is_platform(turns_on, known) and not name.startswith("_"):  # not _GLIBCXX_USE_CXX11_ABI
            switches[name] = (*said, f"the project's own GPU code builds without {name}")
    switches.update(goals.switches)
    switches.update(variants.switches)
    switches.update(feature_switches)
    compiles_cuda = builds_cuda(facts, kinds, findings)
    switches.update(never_compiled_passes(kinds, regions, compiles_cuda, known))
    either_switches(regions, gated, switches)
    gated.update(compiled_only_under(facts, kinds, regions, gated, switches, known))
    extend(regions, quiet_finds(facts, switches, declared, known))
    unbuilt = unbuilt_sources(facts, known, builds_cuda=compiles_cuda, by_hand=compiled_by_scripts(facts, kinds))
    # headers only optional switches' code includes (what no build compiles includes nothing into a build)
    gate_headers(facts, regions, gated, frozenset(switches), unbuilt=frozenset(unbuilt))
    carrier = cuda_build_switch(kinds, gated, switches, unbuilt, known, facts=facts, regions=regions)
    compiler = compiler_reach.compiler_branch(facts, kinds, findings, regions, gated, switches, known)
    units = compiler_reach.units_to_gate(facts, kinds, regions, gated, switches, unbuilt, known) if compiler else []
    if carrier is None and compiler is not None and units:  # nvcc named only under one optional switch: no default
        for path in units:  # CUDA compile, whatever rule names these .cu files
            gated[path] = compiler
        gate_headers(facts, regions, gated, frozenset(switches))
        carrier = compiler.switch
    if carrier is not None:  # `$<$<COMPILE_LANGUAGE:CUDA>:...>` over several lines of a command
        extend(regions, cuda_genexes(facts, carrier, known))
    if carrier is not None and extend(regions, compile_passes(regions, carrier, known)):
        for path, r in list(gated.items()):  # a header included only under `#ifdef __CUDACC__` is the switch's too
            if r.switch in known.compile_pass:
                gated[path] = next(x for x in regions[r.path] if (x.start, x.end, x.switch) == (r.start, r.end, carrier))
        gate_headers(facts, regions, gated)  # headers included only under `#ifdef __CUDACC__` go with it
    rocm_unreached = build_scopes.unreached(facts, kinds, collected, scopes) if evidence else ()
    # a sub-project is left out of a HIP build only where one reaches its folder: beside HIP builds of sibling folders
    # only (multi-platform-op-lib's hipcc scripts), a CUDA-only setup.py sub-project is a project of its own, required
    left_out, subprojects = left_out_of_hip(
        facts, known, lambda folder: build_scopes.inside(folder, scopes) and not build_scopes.inside(folder, rocm_unreached),
    ) if evidence else ({}, frozenset[str]())
    unreached = reach.unreached(facts, kinds)
    toolkit = frozenset((f.path, f.line, f.symbol) for f in findings)  # `#include <mma.h>`: CUDA's, by the rule base
    for path, part in (unreferenced(facts, kinds, unreached, toolkit) | unlisted_by_vs_project(facts, kinds, toolkit)
                       | unbuilt_by_make(facts, kinds) | unincluded_fragments(facts, kinds)
                       | copied_samples(facts, kinds, known) | configure_probes(facts)).items():
        if path not in unbuilt:  # file by file, what the only build (or a Visual Studio project) reaches
            unreached.setdefault(path, part)
    twinned = hip_twinned(kinds)  # CUDA members whose HIP twin is in the tree; what a make branch builds beside one joins
    project = ProjectParts(rocm_path=evidence, rocm_scopes=scopes, left_out_of_hip=left_out,
                        rocm_unreached=rocm_unreached,
                        hip_subprojects=subprojects,
                        hip_aware=frozenset(e.path for e in collected if e.strength in HIP_AWARE_STRENGTHS),
                        hip_twinned=twinned | twinned_branch_sources(facts, kinds, twinned, twin_stems),
                        hip_members=hip_members(kinds), hip_sides=hip_sides(kinds),
                        amd_builds=built_for_amd(facts),
                        outside_hip_make=outside_hip_branches(facts, kinds) if evidence else {},
                        optional_modules=optional_modules(facts, known) | loaded_only_by_optional(facts, known)
                        | extension_files(facts) | unloaded_files(facts) | built_by_hand(facts, known)
                        | unimported_twins(facts, known),
                        switches=switches, regions=regions, gated=gated,
                        unbuilt=unbuilt, cuda_build=carrier or "", compiler_switch=compiler.switch if compiler else "",
                        optional_includes=optional_includes(facts, known), build_kinds=dict(build_kinds or {}),
                        included_by_required=included_by_required(facts, known) | linked_by_required(facts, known)
                        | only_programs(facts, kinds, known),
                        alternatives=alternative_runtime_folders(facts, known), unused=unused,
                        off_features=frozenset(off_features),
                        runtime_scopes=alternative_runtime_scopes(facts, known),
                        run_time=run_time_alternatives(facts, kinds, findings),
                        found_under=found_only_under(facts, regions, gated, switches, known),
                        unasked=_unasked(facts, known),
                        nvidia_hosts=nvidia_host_branches(facts),
                        unreached=unreached, undeclared=undeclared_scopes(facts, kinds),
                        extras=extra_installs(facts, kinds),
                        off_branches=_merged(project_defines.off_branches(facts, kinds, known),
                                             library_guards.unreached_sections(facts)),
                        cpu_thrust=cpu_thrust.cpu_thrust_folders(facts, kinds, regions, gated, known),
                        doc_site=doc_sites.documentation_site(kinds),
                        optional_services=compose_services.optional_services(facts, known), known=known)
    images = _images_of_optional_builds(project, facts, kinds, findings, known) | _deployment_scripts(project, kinds,
                                                                                                      findings, known)
    project = replace(project, images=images, host_gates=host_gates.host_only_gates(kinds, findings, known))
    return replace(project, optional_hosts=optional_host_files(
        findings, lambda f: f.status == "optional" or project.part(f) is not None))


def _merged(*parts: Mapping[str, tuple[tuple[int, int, str], ...]]) -> dict[str, tuple[tuple[int, int, str], ...]]:
    """Per file, the line ranges of several readings together."""
    out: dict[str, tuple[tuple[int, int, str], ...]] = {}
    for part in parts:
        for path, items in part.items():
            out[path] = out.get(path, ()) + items
    return out


def _unasked(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, tuple[tuple[int, int, str], ...]]:
    """Per Python file, the `if` branches with an import that a default run does not take, and the functions the
    project calls only in such branches (workloads/on_demand.py opted_in_scopes)."""
    from migrate.workloads.modules import ModuleIndex

    out = {p: list(v) for p, v in branches_not_taken(facts).items()}
    index = ModuleIndex(p for p in facts if p.endswith(".py"))
    for path, scopes in opted_in_scopes(facts, index, known.test_files).items():
        out.setdefault(path, []).extend(scopes)
    for path, arms in nvidia_case_arms(facts).items():  # `gpu-cuda)` of a `case $1 in` beside CPU arms
        out.setdefault(path, []).extend(arms)
    return {p: tuple(v) for p, v in out.items()}


def _container_runs(kinds: Mapping[str, str], findings: Sequence[Finding], known: Words) -> list[str]:
    """Scripts whose every finding above native starts a container on an NVIDIA host (`deployment.container_runs`)."""
    by_file: dict[str, set[str]] = {}
    for f in findings:
        if kinds.get(f.path) in known.script_kinds and class_rank(f.migration_class) > 0:
            by_file.setdefault(f.path, set()).add(f.rule)
    return [path for path, rules in by_file.items() if rules <= known.container_runs]


def _builds_cuda_code(found: Sequence[Finding], known: Words) -> bool:
    """Whether a switch's findings hold CUDA code of the project's own (outside optional folders) that needs a port."""
    return any(_cuda_code_to_port(f) and optional_root(f.path, known) is None for f in found)


def _cuda_code_to_port(f: Finding) -> bool:
    """A finding in C/C++/CUDA code at or above migration-required."""
    return families.load().is_code(f.rule, "c") and class_rank(f.migration_class) >= class_rank("migration-required")


def never_compiled_passes(kinds: Mapping[str, str], regions: Mapping[str, tuple[Region, ...]], compiles_cuda: bool,
                          known: Words) -> dict[str, tuple[str, ...]]:
    """Compile-pass macros (rules/workloads/optional.yaml `compile_pass`: __CUDACC__, __NVCC__, __CUDA_ARCH__) whose
    branches no compile of the project takes: it has no CUDA source file (.cu, .cuh) and no build of it compiles
    CUDA (`builds_cuda`). Only nvcc (or clang in CUDA mode) defines them, so `#if defined(__CUDACC__)` in a header a
    C++ build includes is a portability guard of that header, not the project's CUDA use (Razish/xsngine cb81a29f
    src/glm/detail/setup.hpp:208, a copy of GLM whose `#elif defined(__CUDACC__)` includes cuda.h, in an OpenGL
    engine built by SCons with no CUDA). The branches are an optional part of their own; a project with a .cu file,
    or a build that compiles CUDA, keeps them."""
    if compiles_cuda or any(kind == "cuda" for kind in kinds.values()):
        return {}
    seen = {r.switch for items in regions.values() for r in items if r.switch in known.compile_pass}
    return {name: (f"only a CUDA compile defines {name}; the project has no CUDA source file and no build of it "
                   "compiles CUDA, so no compile takes this branch",) for name in sorted(seen)}


LOADER_KINDS = frozenset({"python", "notebook"})  # code that can read a .cu file and compile it at run time


def builds_cuda(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], findings: Iterable[Finding]) -> bool:
    """Whether a build of the project may compile CUDA: a build file (or a setup.py) with a CUDA finding, a CMake
    project that enables the CUDA language, or Python code with a CUDA tie (CuPy, PyCUDA and torch can read a .cu
    file and compile it at run time). False for a Vulkan renderer's CMake project (`project(x LANGUAGES C CXX)`,
    only .cc sources) that keeps CUDA interop sources beside its own."""
    for f in findings:
        kind = kinds.get(f.path, "")
        if kind in BUILD_FILE_KINDS or kind in LOADER_KINDS:
            return True
    return any(f.name == "language:CUDA" for _, f in of_kind(facts, "cmake"))


# Evidence that makes its own file ROCm-aware: HIP code or includes, and a CI workflow with a ROCm job (its CUDA
# job beside it is the twin of a route already there, nothing to edit).
HIP_AWARE_STRENGTHS = frozenset({"source", "ci", "platform"})
CONTAINER_KINDS = frozenset({"dockerfile"})  # discover's kind of Dockerfiles and Containerfiles
# Kinds of the project's own code: with one of them, a container file is how the code is deployed, not the code
# (docs/decisions/2026-12-05-container-files-are-a-deployment-part.md).
CODE_KINDS = frozenset({"python", "notebook", "cuda", "cpp", "hip", "cmake", "makefile"})
OPT_IN_IMAGE = "a default deployment does not use it"
# A Compose file runs the project's images (compose.yaml, or docker-compose.yml for backwards compatibility:
# https://docs.docker.com/compose/intro/compose-application-model/#the-compose-file); InsightFace-REST keeps
# compose/docker-compose-v2.yml beside its Dockerfiles.
COMPOSE_FILE = re.compile(r"^(?:docker-)?compose[\w.-]*\.ya?ml$")


DEPLOYMENT_SCRIPT = "a deployment note beside the ROCm build"
BUILD_ENVIRONMENT = "a CI workflow or script that sets up its build"


def _deployment_scripts(project: ProjectParts, kinds: Mapping[str, str], findings: Sequence[Finding],
                        known: Words) -> dict[str, str]:
    """Scripts (rules/workloads/optional.yaml `deployment.script_kinds`) of a project with a ROCm path whose every
    finding above native queries NVIDIA's driver (`deployment.driver_queries`: nvidia-smi counting a node's GPUs):
    how the project runs on its NVIDIA machines, beside the HIP build it has for others. A deployment note with its
    class, never the project's. A script with anything else (nvcc, a CUDA build step) stays with the code."""
    if not project.rocm_path or not known.driver_queries:
        return {}
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        if kinds.get(f.path) in known.script_kinds and class_rank(f.migration_class) > 0:
            by_file.setdefault(f.path, []).append(f)
    hip = project.rocm_path[0]
    return {path: f"{path}: {', '.join(sorted({f.symbol for f in found}))} run on NVIDIA machines of a project with a "
                  f"ROCm build ({hip.path}:{hip.line} {hip.text}); {DEPLOYMENT_SCRIPT}"
            for path, found in sorted(by_file.items()) if all(f.rule in known.driver_queries for f in found)}


def _build_environments(kinds: Mapping[str, str], findings: Sequence[Finding], known: Words,
                        images: frozenset[str]) -> frozenset[str]:
    """Scripts and CI workflows (optional.yaml `deployment.script_kinds`, `environment_kinds`) that set up a CUDA
    build or test environment and do nothing else of CUDA: every finding above native a base image or system package
    (`deployment.build_environments`), a driver query or a container run, at least one of the first."""
    allowed = known.build_environments | known.driver_queries | known.container_runs
    setting_up = known.script_kinds | known.environment_kinds
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        if f.path not in images and kinds.get(f.path) in setting_up \
                and class_rank(f.migration_class) > 0 and f.confidence != "low":
            by_file.setdefault(f.path, []).append(f)
    return frozenset(path for path, found in by_file.items() if all(f.rule in allowed for f in found)
                     and any(f.rule in known.build_environments for f in found))


def _images_of_optional_builds(project: ProjectParts, facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                               findings: Sequence[Finding], known: Words) -> dict[str, str]:
    """Container files (a CUDA base image, nvcc in a RUN line) of a project whose every other finding above
    native is optional, with optional GPU code among them: what needs CUDA is only the optional part, so an
    image made for it (MNN's tools/script/Dockerfile beside `option(MNN_CUDA OFF)`; custos's Dockerfile for
    `cargo test --features=cuda`) goes with it. A project whose code has no required CUDA tie at all (a PyTorch
    project with an nvidia/cuda Dockerfile) ships the image: NVIDIA deployment text the workload ships, required
    (docs/decisions/2026-12-08-s35-a-shipped-nvidia-image-is-required-deployment-text.md), except an image a default
    deployment does not use (opt_in_images: a dev container, a GPU variant beside a default or CPU one, a file that
    also builds an AMD image), which is a part of its own with its class.
    A project with required CUDA use elsewhere (a torch pin, a kernel built by default), or one with no code of
    its own (a repository of images), keeps its images required. A low-confidence finding is no such use: it never
    moves a class (classify.effective_class), so it does not keep an image required either. A script that only
    starts the images on an NVIDIA host (optional.yaml `deployment.container_runs`: `docker run --runtime nvidia`)
    goes with them. So do the scripts and CI workflows that only set up a CUDA build environment (_build_environments),
    where every CUDA part is optional: they serve that part's build; a project with no optional CUDA part keeps them
    as they were."""
    if project.rocm_path:
        return {}
    family = {p: "compose" if COMPOSE_FILE.match(posixpath.basename(p)) else "dockerfile"  # the container files
              for p, kind in kinds.items() if kind in CONTAINER_KINDS or COMPOSE_FILE.match(posixpath.basename(p))}
    images = sorted([*family, *_container_runs(kinds, findings, known)]) if family else []
    placed = frozenset(images)  # for membership: every finding is tested against it
    environments = _build_environments(kinds, findings, known, placed)
    if not images and not environments:
        return {}
    # a low-confidence finding never moves a class (classify.effective_class): no required tie either (an mmcv pin
    # without ROCm wheels beside OpenMMLab's CUDA base images)
    others = [f for f in findings if f.path not in placed and class_rank(f.migration_class) > 0
              and f.confidence != "low"]
    gpu_parts = sorted({part.root for f in others if _cuda_code_to_port(f) and (part := project.part(f)) is not None})
    if any(project.status(f) not in ("optional", "ported") for f in others if f.path not in environments):
        return {}
    if gpu_parts:
        return {path: f"{path}: every CUDA part of the project is optional ({', '.join(gpu_parts[:2])}), and so is "
                      f"{BUILD_ENVIRONMENT if path in environments else 'an image that builds or runs it'}"
                for path in sorted([*images, *environments])}
    # the others were all optional or ported above: only the environments' own findings are left to ask
    if any(project.status(f) not in ("optional", "ported") for f in others if f.path in environments):
        return {}
    if not any(kind in CODE_KINDS for path, kind in kinds.items() if path not in placed):
        return {}
    nvidia = {f.path for f in findings if f.path in placed and class_rank(f.migration_class) > 0}
    chosen = opt_in_images(images, nvidia, family, facts, known)
    containers = [p for p in nvidia if p in family]
    runs = [p for p in images if p not in family]  # scripts that start the images go with them
    if containers and all(p in chosen for p in containers):
        chosen |= {p: f"{p}: starts the project's container images, every one of them opt-in" for p in runs}
    return {path: f"{why}; {OPT_IN_IMAGE}" for path, why in chosen.items()}
