"""Umbrella packages judged by use: a meta-package that installs a whole suite (RAPIDS's `rapids`: cuDF, cuML,
cuGraph ...) is what its workload imports of the suite. The registry (rules/alternatives/ported-elsewhere.yaml,
`umbrellas`) names each umbrella's member modules; a member with an entry of the registry has an AMD port. When the
workload's own files import members and every one they import is ported, the umbrella's finding is a dependency
swap to those ports (minor-adaptation), not the CUDA-only members it also installs; otherwise it stands (a member
with no port imported, whose import is a finding of its own; or nothing of the suite imported: an environment or a
template alone, whose point is the suite)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from migrate.model import Fact, Finding, MigrationClass, class_rank, evolve
from migrate.rulebase.ported_elsewhere import Registry
from migrate.workloads.fact_index import of_kind

SWAP_RULE = "rocm-fork-package"  # the rule of a dependency swap (rules/dependencies.yaml): its class is a swap's


def by_use(findings: Sequence[Finding], facts: Mapping[str, Sequence[Fact]] | None, owner: Mapping[str, str],
           registry: Registry, requirement_rules: frozenset[str], swap: MigrationClass | None) -> list[Finding]:
    """The findings, with an umbrella requirement's made a dependency swap (class `swap`, SWAP_RULE's; None: no
    such rule in the rule base, nothing swapped) where its workload imports only ported members of the suite.
    `owner`: each file's workload; `requirement_rules`: the rules that match requirement facts (a finding of
    another rule that happens to name the package is left alone)."""
    if not registry.umbrellas or facts is None or swap is None:
        return list(findings)
    umbrellas = {id(f): u for f in findings
                 if f.rule in requirement_rules and class_rank(f.migration_class) > class_rank(swap)
                 and (u := registry.umbrella(f.symbol)) is not None}
    if not umbrellas:
        return list(findings)
    imported: dict[str, set[str]] = defaultdict(set)  # workload -> top-level modules its files import
    for path, fact in of_kind(facts, "python_import"):  # the facts' index of imports, not a pass over every fact
        workload = owner.get(path)
        if workload is not None:
            imported[workload].add(fact.name.split(".", 1)[0])
    out = []
    for f in findings:
        umbrella = umbrellas.get(id(f))
        members = imported[f.workload] & umbrella.imports if umbrella is not None else set()
        swapped = bool(members) and all(registry.for_import(m) is not None for m in members)
        out.append(evolve(f, migration_class=swap) if swapped else f)
    return out
