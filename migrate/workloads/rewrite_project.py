"""Whether a project of rewrite kernels is new development: the decision scan (workloads.components)
and lint (lint.run) share. Imports nothing of the report model, so lint stays light."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Finding, evolve
from migrate.rulebase.alternatives import Lane
from migrate.rulebase.load import RuleBase

# a __global__ kernel definition or a host launch (the rules that match them: rules/device.yaml)
KERNEL_CONSTRUCTS = frozenset({"kernel-definition", "kernel-launch"})
# Translation units (not headers): where a kernel library's templates are instantiated into kernels
SOURCE_SUFFIXES = (".cu", ".cc", ".cpp", ".cxx", ".c")


def kernel_rules(rules: RuleBase) -> frozenset[str]:
    """The rules that match a kernel definition or launch (the constructs, not ids written here)."""
    return frozenset(r.id for r in rules.rules if r.matcher.kind == "construct" and KERNEL_CONSTRUCTS & set(r.matcher.exact))


def whole_rewrites(findings: Sequence[Finding], lanes: Mapping[str, Lane], kernels: frozenset[str]) -> list[Finding]:
    """The findings of one project, with its rewrite findings made `incompatible` when the project is
    mostly rewrite kernels: new development, not a port. Kernels are counted alike on both sides: a
    plain one is a file that defines or launches a kernel and has no rewrite finding; a rewrite one is a
    file with a rewrite finding that defines or launches a kernel, or a folder of translation units with
    a rewrite finding and no kernel of their own (where a library's kernel templates are instantiated:
    a CUTLASS GEMM's .cc, a folder of per-type instantiation files). The library's own headers (epilogues,
    iterators) are no kernel. A port with a named rewrite when the plain kernels are at least as many,
    whichever of its workloads holds them (a vendored attention among a library of plain kernels);
    otherwise the rewrite kernels are the project (a CUTLASS library, a Hopper GEMM repository).
    Ported and optional findings are left as they are."""
    required = [f for f in findings if f.status == ""]
    rewrite_files = {f.path for f in required if f.rule in lanes}
    kernel_files = {f.path for f in required if f.rule in kernels}
    plain = kernel_files - rewrite_files
    instantiating = {posixpath.dirname(p) + "/" for p in rewrite_files - kernel_files if p.endswith(SOURCE_SUFFIXES)}
    # a header-only library (tilefusion's CuTe tiles): nothing of its own instantiates them, the headers are the product
    rewrite = ((rewrite_files & kernel_files) | instantiating) or rewrite_files
    if not rewrite_files or len(plain) >= len(rewrite):
        return list(findings)
    return [evolve(f, migration_class="incompatible") if f.status == "" and f.rule in lanes else f for f in findings]
