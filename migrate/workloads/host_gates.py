"""CUDA compiler gates in a project no CUDA compiler builds: Ouster's SDK defines `OSDK_FN` as `__device__ __host__`
under `#ifdef __CUDACC__` and skips its bounds checks under `#ifndef __CUDA_ARCH__`, for users who include its headers
from CUDA code; the SDK itself has no CUDA source, no kernel and no nvcc. Its own builds never take the CUDA side, and
the host side they take compiles as it is with any compiler, hip-clang's host pass included: nothing to port. The
gates are an optional part, "(a CUDA compiler gate no build of the project takes)", with their class
(rules/workloads/optional.yaml `host_only_gates`; docs/decisions/2026-12-06-s25-no-gpu-code-of-its-own.md)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from migrate.model import Finding, class_rank
from migrate.vocabulary import C_SOURCE_KINDS
from migrate.workloads.optional_words import Words

WHAT = "a CUDA compiler gate no build of the project takes"


def host_only_gates(kinds: Mapping[str, str], findings: Sequence[Finding], known: Words) -> dict[str, str]:
    """C/C++ files whose compiler-gate findings (`host_only_gates.rules`) lie in a project with no CUDA source file
    and no other required finding above native in C/C++ code or naming the CUDA compiler -> the evidence."""
    if not known.gate_rules or any(kind == "cuda" for kind in kinds.values()):
        return {}
    above = [f for f in findings if class_rank(f.migration_class) > 0]
    gates = [f for f in above if f.rule in known.gate_rules and kinds.get(f.path) in C_SOURCE_KINDS]
    if not gates or any(f.status != "optional" and f.rule not in known.gate_rules
                        and (kinds.get(f.path) in C_SOURCE_KINDS or f.rule in known.compiler_rules) for f in above):
        return {}
    out: dict[str, str] = {}
    for f in gates:
        out.setdefault(f.path, f"{f.path}:{f.line} {f.symbol}: the project has no CUDA source and its code names no "
                               "other CUDA, so its own builds take only the host side of the gate; "
                               f"{WHAT} (rules/workloads/optional.yaml host_only_gates)")
    return out
