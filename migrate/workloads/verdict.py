"""Per workload and target: the own class, the class inherited through dependencies (with the
chain that carries it), and the effort estimate."""
from __future__ import annotations

from collections.abc import Sequence

from migrate.model import Finding, TargetVerdict, Workload, class_rank, evolve
from migrate.rulebase.load import RuleBase
from migrate.workloads.assemble import Spec
from migrate.workloads.classify import classify
from migrate.workloads.estimate import EffortModel, estimate
from migrate.workloads.graph import DependencyGraph


def judge(specs: Sequence[Spec], graph: DependencyGraph, findings: Sequence[Finding], archs: Sequence[str],
          model: EffortModel, rules: RuleBase) -> tuple[list[Workload], list[Finding]]:
    """Workloads with one verdict per target architecture, and the findings tagged with their workload."""
    tagged = [evolve(f, workload=graph.owner.get(f.path, "")) for f in findings]
    mine: dict[str, list[Finding]] = {s.name: [] for s in specs}
    for finding in tagged:
        if finding.workload in mine:
            mine[finding.workload].append(finding)
    kinds = {s.name: s.kind for s in specs}
    efforts = {r.id: (r.effort_per_occurrence, r.effort_first_use) for r in rules.rules}
    names = {r.id: r.name for r in rules.rules}
    verdicts: dict[str, list[TargetVerdict]] = {s.name: [] for s in specs}
    for arch in archs:
        own = {name: classify([f for f in fs if arch in f.targets], kinds[name]) for name, fs in mine.items()}
        for spec in specs:
            cls, reasons = own[spec.name]
            chain: tuple[str, ...] = ()
            worst = max(graph.dependencies(spec.name), key=lambda d: class_rank(own[d][0]), default=None)
            if worst is not None and class_rank(own[worst][0]) > class_rank(cls):
                cls, reasons = own[worst]
                chain = tuple(graph.chain(spec.name, worst)) + tuple(_where(f) for f in reasons[:1])
            result = estimate([f for f in mine[spec.name] if arch in f.targets], own[spec.name][0], model,
                              efforts.__getitem__, names.__getitem__)
            verdicts[spec.name].append(TargetVerdict(
                arch=arch, migration_class=cls, own_class=own[spec.name][0], reasons=reasons, chain=chain,
                effort=result.effort, breakdown=result.breakdown))
    workloads = [Workload(name=s.name, root=s.root, kind=s.kind, files=tuple(sorted(s.files)),
                          verdicts=tuple(verdicts[s.name]), depends_on=tuple(graph.direct(s.name)))
                 for s in specs]
    return sorted(workloads, key=lambda w: w.name), tagged


def _where(finding: Finding) -> str:
    return f"{finding.path}:{finding.line} {finding.rule} {finding.symbol}"
