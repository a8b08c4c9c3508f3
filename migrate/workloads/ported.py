"""Already ported: evidence of a ROCm path, per project, from the facts extractors left.

Strong evidence on its own: a ROCm job in CI (`ci`) or a ROCm package/extra (`package`).
A HIP branch of the build (`build`: CMake HIP options and languages, hipcc, a setup.py that
tests `torch.version.hip` or reads `ROCM_HOME`), or an installer of the project's own that runs pip
from a ROCm build's package index (`install`: a launch script's `pip install torch --index-url
.../whl/rocm6.4`, rules/names/build.yaml `rocm_package_indexes`), counts when the sources carry HIP branches
too (`source`: `#if defined(__HIP_PLATFORM_AMD__)`/`USE_ROCM` chains, `hip/` includes, .hip
files; a branch whose HIP side only fails, `TORCH_CHECK(false, "not supported on HIP")`, is none),
or when there is no CUDA source to port (docs/decisions/2026-12-06-s26-an-installer-that-picks-rocm-builds.md).
A site environment or job script of the project's own that loads the ROCm modules (`environment`: `module load rocm`,
`PrgEnv-amd`, rules/names/build.yaml `rocm_environment_modules`) counts the same way: the project is set up to build
and run on AMD systems, and its CUDA module loads beside it are the NVIDIA sites' twin
(docs/decisions/2026-12-08-s35-rocm-environment-modules.md).
A runtime `if torch.version.hip:` in a module is not enough: its own branches are already dropped at match time.

HIP's own NVIDIA side (`platform`, strong): files that define HIP's API over the CUDA names hipify maps to it
(`hipError_t hipMalloc(...) { return ...(cudaMalloc(...)); }`, `#define hipMemcpyHostToHost cudaMemcpyHostToHost`)
are the NVIDIA back end of HIP (hipother's hipnv, a copy of it in a HIP-first library). On AMD the HIP API comes from
ROCm itself and such a file is never compiled; where those files hold most of the project's CUDA findings the
project is HIP already (docs/decisions/2026-12-06-hip-implemented-over-cuda-is-hip.md)."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from migrate.model import Fact, Finding
from migrate.rulebase import datafile, name_lists
from migrate.rulebase.load import default_rules_dir
from migrate.workloads.fact_index import of_kinds

BUILD_SCRIPTS = frozenset({"setup.py", "build.py", "builder.py"})
STRONG = frozenset({"ci", "package", "platform"})
# evidence that shows a ROCm path where the sources have HIP branches too, or no CUDA source to port
ON_SOURCES = frozenset({"build", "install", "environment"})
MODULE = "module:"  # the prefix of an environment module's `manifest` fact (extract/text/commands.py)
# A file implements HIP over CUDA when it defines at least this many distinct HIP API names over their CUDA
# counterparts (one wrapper is a project's helper; hipother's hipnv defines hundreds, Orochi's copy of it as many).
IMPLEMENTED_NAMES = 3
# ... and those files are the project's NVIDIA platform layer when they hold at least this share of its CUDA findings.
PLATFORM_SHARE = 0.5
HIP_API_NAME = re.compile(r"^hip[a-zA-Z]\w*$")  # hipMalloc, hipblasSgemm, hipsolverDnCreate
SHOWN = 6  # evidence items a workload lists


@dataclass(frozen=True, slots=True)
class Evidence:
    """One piece of ROCm-path evidence: where it is, how strong it is and what it says."""

    path: str
    line: int
    strength: str  # ci, package, platform, build, install, environment, source, runtime
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.text}" if self.line else f"{self.path} {self.text}"


def collect(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> list[Evidence]:
    """Every piece of ROCm-path evidence in the files, in path order."""
    out: list[Evidence] = []
    for path in sorted(facts):
        kind = kinds.get(path, "")
        if kind == "hip":
            out.append(Evidence(path, 0, "source", "(HIP source file)"))
        first_source = first_module = True
        for fact in facts[path]:
            if first_module and fact.kind == "manifest" and fact.name.startswith(MODULE) \
                    and fact.name[len(MODULE):] in rocm_modules():
                out.append(Evidence(path, fact.line, "environment", f"module load {fact.text}"))
                first_module = False
            if fact.kind == "include" and fact.name.startswith(("hip/", "hipblas", "hipcub/", "rocprim/")) \
                    and first_source:
                out.append(Evidence(path, fact.line, "source", f"#include <{fact.name}>"))
                first_source = False
            if fact.kind != "rocm_path":
                continue
            strength = fact_strength(path, fact)
            if not strength:
                continue
            if strength == "source":
                if not first_source:
                    continue
                first_source = False
            out.append(Evidence(path, fact.line, strength, fact.text))
    return out


def fact_strength(path: str, fact: Fact) -> str:
    """The strength of a `rocm_path` fact: its name, except a Python test of HIP, which is `build` in a
    build script (setup.py) and `runtime` elsewhere, and `--offload-arch=` with another vendor's target
    (`mp_31` for MUSA's mcc, `sm_80` for clang's CUDA), which is none: "" (rules/layout/backends.yaml)."""
    if fact.name == "python":
        return "build" if posixpath.basename(path) in BUILD_SCRIPTS else "runtime"
    if fact.text.startswith("--offload-arch=") and offload_arch("other_vendor_offload_arch").match(fact.text):
        return ""
    return fact.name


@cache
def rocm_modules() -> frozenset[str]:
    """The environment modules that set up ROCm (rules/names/build.yaml `rocm_environment_modules`)."""
    return name_lists.name_list("build", "rocm_environment_modules")


@cache
def offload_arch(key: str) -> re.Pattern[str]:
    """The pattern rules/layout/backends.yaml keeps under `key` for an `--offload-arch=` value (an AMD target, another
    vendor's)."""
    return re.compile(str(datafile.read(default_rules_dir() / "layout/backends.yaml")[key]))


def rocm_path(evidence: Iterable[Evidence], has_cuda_sources: bool) -> tuple[Evidence, ...]:
    """The evidence that shows a ROCm path, strongest first; empty when there is none."""
    items = list(evidence)
    strengths = {e.strength for e in items}
    present = bool(strengths & STRONG) or (bool(strengths & ON_SOURCES) and ("source" in strengths or not has_cuda_sources))
    if not present:
        return ()
    order = {"ci": 0, "package": 1, "platform": 2, "build": 3, "install": 4, "environment": 5, "source": 6, "runtime": 7}
    ranked = sorted(items, key=lambda e: (order[e.strength], e.path, e.line))
    shown: list[Evidence] = []
    for strength in order:  # one of each strength first, then the rest
        shown += [e for e in ranked if e.strength == strength][:1]
    shown += [e for e in ranked if e not in shown]
    return tuple(shown[:SHOWN])


def implemented_over_cuda(facts: Mapping[str, Sequence[Fact]], findings: Iterable[Finding]) -> list[Evidence]:
    """`platform` evidence, one per file that defines HIP's API over CUDA, when those files hold PLATFORM_SHARE of
    the findings: a finding whose HIP counterpart (its `hip`, from hipify's tables) is what its file defines there,
    as a macro, typedef or enumerator on the finding's line or a function whose body holds the finding."""
    findings = [f for f in findings if f.status != "optional"]
    named: dict[str, dict[str, int]] = {}  # path -> HIP API name -> the line defining it over CUDA
    spans: dict[str, dict[str, list[tuple[int, int]]]] = {}
    for path, fact in of_kinds(facts, "defined", "function_defined"):
        if HIP_API_NAME.match(fact.name):
            spans.setdefault(path, {}).setdefault(fact.name, []).append(
                (fact.line, fact.end_line if fact.kind == "function_defined" else fact.line))
    for f in findings:
        hip = (f.hip or "").split(" ", 1)[0]
        where = spans.get(f.path, {}).get(hip, ())
        if any(start <= f.line <= end for start, end in where):
            named.setdefault(f.path, {}).setdefault(hip, f.line)
    layers = {path: names for path, names in named.items() if len(names) >= IMPLEMENTED_NAMES}
    if not layers or sum(f.path in layers for f in findings) < PLATFORM_SHARE * len(findings):
        return []
    return [Evidence(path, min(names.values()), "platform",
                     f"defines {len(names)} HIP API names over CUDA ({', '.join(sorted(names, key=names.__getitem__)[:3])}"
                     f"{', ...' if len(names) > 3 else ''}): HIP's NVIDIA side")
            for path, names in sorted(layers.items())]
