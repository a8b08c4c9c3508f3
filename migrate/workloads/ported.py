"""Already ported: evidence of a ROCm path, per project, from the facts extractors left.

Strong evidence on its own: a ROCm job in CI (`ci`) or a ROCm package/extra (`package`).
A HIP branch of the build (`build`: CMake HIP options and languages, hipcc, a setup.py that
tests `torch.version.hip` or reads `ROCM_HOME`) counts when the sources carry HIP branches
too (`source`: `#if defined(__HIP_PLATFORM_AMD__)`/`USE_ROCM` chains, `hip/` includes, .hip
files; a branch whose HIP side only fails, `TORCH_CHECK(false, "not supported on HIP")`, is none),
or when there is no CUDA source to port. A runtime `if torch.version.hip:` in a module
is not enough: its own branches are already dropped at match time."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from migrate.model import Fact
from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir

BUILD_SCRIPTS = frozenset({"setup.py", "build.py", "builder.py"})
STRONG = frozenset({"ci", "package"})
SHOWN = 6  # evidence items a workload lists


@dataclass(frozen=True, slots=True)
class Evidence:
    path: str
    line: int
    strength: str  # ci, package, build, source, runtime
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
        first_source = True
        for fact in facts[path]:
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
    if fact.text.startswith("--offload-arch=") and _other_vendor_arch().match(fact.text):
        return ""
    return fact.name


@lru_cache(maxsize=1)
def _other_vendor_arch() -> re.Pattern[str]:
    return re.compile(str(datafile.read(default_rules_dir() / "layout/backends.yaml")["other_vendor_offload_arch"]))


def rocm_path(evidence: Iterable[Evidence], has_cuda_sources: bool) -> tuple[Evidence, ...]:
    """The evidence that shows a ROCm path, strongest first; empty when there is none."""
    items = list(evidence)
    strengths = {e.strength for e in items}
    present = bool(strengths & STRONG) or ("build" in strengths and ("source" in strengths or not has_cuda_sources))
    if not present:
        return ()
    order = {"ci": 0, "package": 1, "build": 2, "source": 3, "runtime": 4}
    ranked = sorted(items, key=lambda e: (order[e.strength], e.path, e.line))
    shown: list[Evidence] = []
    for strength in order:  # one of each strength first, then the rest
        shown += [e for e in ranked if e.strength == strength][:1]
    shown += [e for e in ranked if e not in shown]
    return tuple(shown[:SHOWN])
