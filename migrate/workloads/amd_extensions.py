"""Extensions built for AMD: the sources a PyTorch extension build compiles for an AMD target, and its call.

`load(sources=["csrc/forward.cu", ...], extra_cuda_cflags=["--offload-arch=gfx942"])` names an AMD GPU as the
target of its device code. nvcc takes no `--offload-arch=` (clang and hipcc do), so the build runs under PyTorch's
ROCm build, which hipifies the listed CUDA sources and compiles them with hipcc: the project builds them for AMD as
they stand (makora-ai/kernels AMD_MI300X, an Apex RMSNorm kernel loaded so). Their findings are ported, as those of
a back-end family's HIP member (scan/layout.hip_sides), and so is the build call itself; a target naming another
vendor's GPU (`sm_80`, `mp_31`) or none is no such build. Which values name AMD is data:
rules/layout/backends.yaml `amd_offload_target`, of the value of a flag of rules/names/build.yaml `offload_arch_flags`
(the flags an `extension_target` fact is made of). Docs: docs/decisions/2026-12-07-s32-extensions-built-for-amd.md."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from migrate.model import Fact
from migrate.workloads.assemble import resolve_sources
from migrate.workloads.fact_index import of_kind
from migrate.workloads.ported import offload_arch


@dataclass(frozen=True, slots=True)
class AmdBuilds:
    """The files extension builds compile for an AMD target, and the (file, line) of each such build call."""

    sources: frozenset[str] = frozenset()
    calls: frozenset[tuple[str, int]] = frozenset()


def built_for_amd(facts: Mapping[str, Sequence[Fact]]) -> AmdBuilds:
    """What extension builds whose flags name an AMD target compile (`extension_target` facts)."""
    files = frozenset(facts)
    sources: set[str] = set()
    calls: set[tuple[str, int]] = set()
    for path, f in of_kind(facts, "extension_target"):
        if not offload_arch("amd_offload_target").match(f.name.partition("=")[2]):
            continue
        calls.add((path, f.line))
        base = posixpath.dirname(path)
        for item in filter(None, f.text.split("\n")):
            sources.update(resolve_sources(item, base, files) or _below(item, base, files))
    return AmdBuilds(frozenset(sources), frozenset(calls))


def _below(item: str, base: str, files: frozenset[str]) -> list[str]:
    """A relative source no folder up from the loader holds: the file below the loader's folder whose path ends
    so, where exactly one does (a list relative to a folder the program changes into: `os.chdir(build_dir)`)."""
    if item.startswith(("glob:", "/")) or ".." in item.split("/"):
        return []
    tail = "/" + posixpath.normpath(item)
    found = [p for p in files if p.endswith(tail) and (not base or p.startswith(base + "/"))]
    return found if len(found) == 1 else []

