"""Components of a workload with a named AMD route: rewrites (kernels with no mechanical port, by the
lanes of rules/alternatives/rewrites.yaml) and dependencies ported elsewhere (the registry of
rules/alternatives/ported-elsewhere.yaml). Typed data the plan, the renderers and the effort model read."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace

from migrate.model import Fact, Finding, worst_class
from migrate.model_report import Component, Workload
from migrate.rulebase import alternatives, ported_elsewhere
from migrate.rulebase.alternatives import Lane
from migrate.rulebase.load import RuleBase
from migrate.rulebase.ported_elsewhere import Port, Registry
from migrate.workloads.parts import optional_root

DEPENDENCY_KINDS = frozenset({"requirement", "python_import"})
EVIDENCE_SHOWN = 4


def attach(workloads: Sequence[Workload], findings: Sequence[Finding], facts: Mapping[str, tuple[Fact, ...]],
           rules: RuleBase) -> list[Workload]:
    """The workloads with their components, from their judged findings and their files' facts."""
    lanes = alternatives.rewrite_lanes(rules.directory, rules.version)
    registry = ported_elsewhere.load(rules.directory, rules.version)
    mine: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.status != "ported":
            mine[f.workload].append(f)
    return [replace(w, components=(*rewrites(mine[w.name], lanes),
                                   *elsewhere(w.files, facts, mine[w.name], registry)))
            for w in workloads]


def rewrites(findings: Sequence[Finding], lanes: Mapping[str, Lane]) -> tuple[Component, ...]:
    """One rewrite component per lane the findings fall in."""
    by_lane: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.rule in lanes:
            by_lane[lanes[f.rule].id].append(f)
    out = []
    for lane_id, found in sorted(by_lane.items()):
        lane = lanes[found[0].rule]
        out.append(Component(kind="rewrite", id=lane_id, title=lane.title,
                             migration_class=worst_class(f.migration_class for f in found),
                             alternatives=tuple((a.name, a.url) for a in lane.alternatives), source=lane.source,
                             band=lane.band, findings=tuple(found),
                             optional=all(f.status == "optional" for f in found)))
    return tuple(out)


def elsewhere(files: Sequence[str], facts: Mapping[str, tuple[Fact, ...]], findings: Sequence[Finding],
              registry: Registry) -> tuple[Component, ...]:
    """One component per registry entry the workload's requirements, source dependencies or imports name."""
    seen: dict[str, list[tuple[str, Fact]]] = defaultdict(list)
    ports: dict[str, Port] = {}
    for path in files:
        for fact in facts.get(path, ()):
            port = _port(fact, registry)
            if port is not None and all((path, fact.line) != (p, f.line) for p, f in seen[port.id]):
                ports[port.id] = port
                seen[port.id].append((path, fact))
    out = []
    for port_id, uses in sorted(seen.items()):
        port = ports[port_id]
        own = tuple(f for f in findings if f.rule.startswith(("HIP6", "HIP7")) and _names(f, port, registry))
        evidence = tuple(f"{path}:{fact.line} {fact.name}" for path, fact in uses[:EVIDENCE_SHOWN])
        out.append(Component(kind="ported-elsewhere", id=port.id, title=port.name,
                             migration_class=worst_class(f.cls for f in own),
                             alternatives=tuple((a.name, a.url) for a in port.amd), source=port.source,
                             route=port.route, findings=own, evidence=evidence,
                             optional=all(optional_root(path) is not None for path, _ in uses)))
    return tuple(out)


def _port(fact: Fact, registry: Registry) -> Port | None:
    if fact.kind == "requirement":
        return registry.for_requirement(fact.name)
    if fact.kind == "python_import":
        return registry.for_import(fact.name)
    return None


def _names(finding: Finding, port: Port, registry: Registry) -> bool:
    found = registry.for_requirement(finding.symbol) or registry.for_import(finding.symbol)
    return found is not None and found.id == port.id
