"""Whether a project of rewrite kernels is new development: the decision scan (workloads.components)
and lint (lint.run) share. Imports nothing of the report model, so lint stays light."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from migrate.model import Finding, evolve
from migrate.rulebase.alternatives import Lane
from migrate.rulebase.load import RuleBase

KERNEL_CONSTRUCT = "kernel-definition"  # a __global__ kernel definition (the rule that matches it: rules/device.yaml)


def kernel_rules(rules: RuleBase) -> frozenset[str]:
    """The rules that match a __global__ kernel definition (the construct, not an id written here)."""
    return frozenset(r.id for r in rules.rules if r.matcher.kind == "construct" and KERNEL_CONSTRUCT in r.matcher.exact)


def whole_rewrites(findings: Sequence[Finding], lanes: Mapping[str, Lane], kernels: frozenset[str]) -> list[Finding]:
    """The findings of one project, with its rewrite findings made `incompatible` when the project is
    nothing but rewrite kernels: new development, not a port. A project is a port with a named rewrite
    when its plain kernels (kernel definitions in files without a rewrite finding) sit in at least as
    many files as its rewrite kernels do, whichever of its workloads holds them (an attention extension
    of its own beside the GEMMs); otherwise the rewrite kernels are the project (a CUTLASS library, a
    Hopper GEMM repository). Ported and optional findings are left as they are."""
    required = [f for f in findings if f.status == ""]
    rewrite_files = {f.path for f in required if f.rule in lanes}
    plain_files = {f.path for f in required if f.rule in kernels} - rewrite_files
    if not rewrite_files or len(plain_files) >= len(rewrite_files):
        return list(findings)
    return [evolve(f, migration_class="incompatible") if f.status == "" and f.rule in lanes else f for f in findings]
