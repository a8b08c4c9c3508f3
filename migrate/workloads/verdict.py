"""Per workload and target: the own class, the class inherited through dependencies (with the
chain that carries it), optional parts, the ROCm path already present, and the effort estimate."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from migrate.model import Fact, Finding, MigrationClass, class_rank, evolve, evolver, worst_class
from migrate.model_report import OptionalPart, TargetVerdict, Workload
from migrate.rulebase import alternatives, ported_elsewhere
from migrate.rulebase.load import RuleBase
from migrate.vocabulary import SERVING_KINDS
from migrate.workloads.assemble import Spec
from migrate.workloads.calibration import Calibration
from migrate.workloads.classify import Agreement, classify, effective_class
from migrate.workloads.components import rewrites
from migrate.workloads.estimate import EffortModel, Estimate, estimate, family_counts
from migrate.workloads.graph import DependencyGraph
from migrate.workloads.parts import ProjectParts, optional_root
from migrate.workloads.rewrite_project import kernel_rules, whole_rewrites
from migrate.workloads.umbrella_uses import SWAP_RULE, by_use

SHOWN_EVIDENCE = 4  # evidence lines an optional part lists


def judge(specs: Sequence[Spec], graph: DependencyGraph, findings: Sequence[Finding], *, archs: Sequence[str],
          model: EffortModel, rules: RuleBase, calibration: Calibration,
          parts: ProjectParts | None = None,
          facts: Mapping[str, Sequence[Fact]] | None = None,
          file_kinds: Mapping[str, str] | None = None) -> tuple[list[Workload], list[Finding]]:
    """Workloads with one verdict per target architecture, and the findings tagged with their
    workload, status and effective class. An import of the project's own module is not a use of
    the package of that name (nvitop importing `nvitop.api`): its finding is dropped. `parts`: the
    project's optional parts and ROCm path (workloads/parts.py), which give each finding its status; `facts`:
    the files' facts, whose calls make a kernel that uses a rewrite helper a rewrite kernel; `file_kinds`: each
    file's kind (discover), which tells the workloads that hold code from those that only serve it."""
    parts = parts or ProjectParts()
    imports = {r.id for r in rules.rules if r.matcher.kind == "python_import"}
    hipified = alternatives.torch_hipified(rules.directory, rules.version)
    tag = evolver("workload", "status")
    tagged = [tag(f, graph.owner.get(f.path, ""), parts.status(f)) for f in findings
              if not (f.rule in imports and graph.own_module(f.path, f.symbol))]
    lanes = alternatives.rewrite_lanes(rules.directory, rules.version)
    tagged = whole_rewrites(tagged, lanes, kernel_rules(rules), facts)
    requirements = frozenset(r.id for r in rules.rules if r.matcher.kind == "requirement")
    swap = next((r.migration_class for r in rules.rules if r.name == SWAP_RULE), None)
    tagged = by_use(tagged, facts, graph.owner, ported_elsewhere.load(rules.directory, rules.version), requirements,
                    swap)
    mine: dict[str, list[Finding]] = {s.name: [] for s in specs}
    for finding in tagged:
        if finding.workload in mine:
            mine[finding.workload].append(finding)
    kinds = {s.name: s.kind for s in specs}
    optional = _with_the_code_they_serve(specs, {
        s.name: _all_optional(s, parts.included_by_required) or graph.only_optionally_used(s.name) for s in specs},
        file_kinds or {})
    efforts = {r.id: (r.effort_per_occurrence, r.effort_first_use) for r in rules.rules}
    names = {r.id: r.name for r in rules.rules}
    verdicts: dict[str, list[TargetVerdict]] = {s.name: [] for s in specs}
    # Both keyed by identity (`id`), not by the findings' value (a hash of five fields each time: ~100k lookups on
    # cuda-samples): every finding looked up is one of `tagged`'s own objects, alive to the end, and findings equal
    # in value are equal in every field a class depends on (effective_class, _groups), so they get the same class.
    effective: dict[int, MigrationClass] = {}
    for arch in archs:
        scoped = {name: [f for f in fs if arch in f.targets] for name, fs in mine.items()}
        own = {name: classify(fs, kinds[name], everything=optional[name], torch_hipified=hipified)
               for name, fs in scoped.items()}
        here: dict[int, MigrationClass] = {}
        for name, fs in scoped.items():
            for group in _groups(fs, optional[name], parts):
                agreement = Agreement(group)
                for f in group:
                    cls = here[id(f)] = effective_class(f, group, kinds[name], agreement, hipified)
                    before = effective.get(id(f))
                    if before is None or class_rank(cls) > class_rank(before):
                        effective[id(f)] = cls
        counted_of = {s.name: [f for f in scoped[s.name] if here[id(f)] != "native"  # ported, low confidence, hints
                               and (optional[s.name] or f.status != "optional")] for s in specs}
        in_project = family_counts([f for s in specs if not optional[s.name] for f in counted_of[s.name]], calibration)
        own = {**own, **_included_classes(graph, scoped, optional, here)}
        worst_of, worst_required = _worst_dependencies(graph, own, optional)
        for spec in specs:
            cls, reasons = own[spec.name]
            chain: tuple[str, ...] = ()
            worst = (worst_of if optional[spec.name] else worst_required).get(spec.name)
            if worst is not None and class_rank(own[worst][0]) > class_rank(cls):
                cls, reasons = own[worst]
                chain = graph.chain(spec.name, worst) + tuple(_where(f) for f in reasons[:1])
            result = estimate(counted_of[spec.name], own[spec.name][0], model, efforts.__getitem__, names.__getitem__,
                              calibration, in_project, rewrites=rewrites(counted_of[spec.name], lanes))
            verdicts[spec.name].append(TargetVerdict(
                arch=arch, migration_class=cls, own_class=own[spec.name][0], reasons=reasons, chain=chain,
                effort=result.effort, breakdown=result.breakdown, calibrated=result.calibrated,
                validation=result.validation, rewrite=result.rewrite, rewrite_breakdown=result.rewrite_breakdown))
    with_class = evolver("effective_class")
    judged_findings = [with_class(f, effective.get(id(f), f.migration_class)) for f in tagged]
    judged = {id(f): j for f, j in zip(tagged, judged_findings, strict=True)}  # the reasons are tagged findings
    by_value = _ByValue(tagged, effective)
    workloads = [Workload(name=s.name, root=s.root, kind=s.kind, files=tuple(sorted(s.files)),
                          verdicts=tuple(_relabel(v, by_value, judged) for v in verdicts[s.name]),
                          depends_on=tuple(graph.direct(s.name)),
                          depends_why=tuple(graph.graph.step(s.name, d) for d in graph.direct(s.name)),
                          rocm_path=tuple(str(e) for e in parts.rocm_path_of(s.files)), optional=optional[s.name],
                          optional_parts=_optional_parts(mine[s.name], optional[s.name], kinds[s.name], hipified,
                                                         parts, cost=lambda fs, cls: estimate(
                                                             [f for f in fs if effective.get(id(f), cls) != "native"], cls,
                                                             model, efforts.__getitem__, names.__getitem__,
                                                             calibration)))
                 for s in specs]
    return sorted(workloads, key=lambda w: w.name), judged_findings


def _included_classes(graph: DependencyGraph, scoped: Mapping[str, list[Finding]], optional: Mapping[str, bool],
                      here: Mapping[int, MigrationClass]) -> dict[str, tuple[MigrationClass, tuple[Finding, ...]]]:
    """The class each included part carries (graph.IncludedPart): the worst effective class its files' findings
    have in the workload owning each file (`here`, by identity), counted as that workload's own class counts them
    (an optional finding only in an optional workload), and the findings of that class. Never worse than the owners'
    own classes: a part is judged with its workload, not alone."""
    out: dict[str, tuple[MigrationClass, tuple[Finding, ...]]] = {}
    places: dict[str, dict[str, list[int]]] = {}  # workload -> path -> the places of its findings in scoped[workload]

    def of(workload: str) -> dict[str, list[int]]:
        if workload not in places:
            index: dict[str, list[int]] = {}
            for place, f in enumerate(scoped[workload]):
                index.setdefault(f.path, []).append(place)
            places[workload] = index
        return places[workload]

    for node, part in graph.included_parts().items():
        found = [f for w in sorted({graph.owner[p] for p in part.files})
                 for f in (scoped[w][i] for i in sorted(i for p in part.files for i in of(w).get(p, ())))
                 if optional[w] or f.status != "optional"]
        worst: MigrationClass = max((here[id(f)] for f in found), key=class_rank, default="native")
        out[node] = (worst, () if worst == "native" else tuple(f for f in found if here[id(f)] == worst))
    return out


def _worst_dependencies(graph: DependencyGraph, own: Mapping[str, tuple[MigrationClass, object]],
                        optional: Mapping[str, bool]) -> tuple[dict[str, str | None], dict[str, str | None]]:
    """Each workload's dependency of worst own class (the first by name among equals): among all its
    dependencies, and among the required ones (what a required workload inherits). A dependency is a workload or
    an included part (graph.IncludedPart), which is required where the workload owning its header is."""
    parts = graph.included_parts()

    def rank(name: str) -> int:
        return class_rank(own[name][0])

    def required(name: str) -> bool:
        return not optional[parts[name].owner if name in parts else name]
    return (graph.worst_dependencies(rank, lambda d: d in own),
            graph.worst_dependencies(rank, lambda d: d in own and required(d)))


def _all_optional(spec: Spec, required: frozenset[str] = frozenset()) -> bool:
    """A workload whose every file sits in an optional folder (a tests/ or examples/ project), none of them one that
    required code includes or links (`required`: ProjectParts.included_by_required)."""
    return bool(spec.files) and all(optional_root(p) is not None and p not in required for p in spec.files)


def _with_the_code_they_serve(specs: Sequence[Spec], optional: dict[str, bool],
                              file_kinds: Mapping[str, str]) -> dict[str, bool]:
    """Where every workload holding code or a build of its own is optional (a repository of notebooks or examples),
    the workloads made only of files that install, run or deploy something (`SERVING_KINDS`: a shell script, a
    requirements, conda, container or compose file) serve that code and are optional with it: then every workload
    is optional and the summary judges them all (model_report.required_class), the examples being the project.
    cuOpt-Resources' print_env.sh (nvidia-smi, for bug reports) beside its cuOpt notebooks decided the summary alone
    (docs/decisions/2026-12-07-s29-helper-files-of-an-examples-repository.md). A file whose kind is not known (not
    scanned) counts as code."""
    serving = {s.name for s in specs if s.files and all(file_kinds.get(p) in SERVING_KINDS for p in s.files)}
    coded = [s.name for s in specs if s.name not in serving and s.files]
    if not serving or not coded or not all(optional[name] for name in coded):
        return optional
    return {name: flag or name in serving for name, flag in optional.items()}


def _groups(findings: list[Finding], workload_optional: bool, parts: ProjectParts) -> list[list[Finding]]:
    """The scopes findings are judged in: the required ones together, each optional part apart."""
    if workload_optional:
        return [findings]
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        groups[_part(f, parts)[0] if f.status == "optional" else ""].append(f)
    return list(groups.values())


def _part(finding: Finding, parts: ProjectParts) -> tuple[str, tuple[str, ...]]:
    part = parts.part(finding)
    if part is None:
        return f"{finding.path} (optional scope)", ()
    return part.root, part.evidence


def _optional_parts(findings: list[Finding], workload_optional: bool, kind: str,
                    hipified: frozenset[str], parts: ProjectParts, *,
                    cost: Callable[[list[Finding], str], Estimate]) -> tuple[OptionalPart, ...]:
    """Each optional part of a required workload, with its class and its findings' cost (`cost`: the workload
    estimate of those findings; its build port and glue are added with the project's costs, workloads/costs.py),
    which the report keeps apart from the headline."""
    if workload_optional:
        return ()
    groups: dict[str, list[Finding]] = defaultdict(list)
    evidence: dict[str, list[str]] = defaultdict(list)
    for f in findings:
        if f.status == "optional":
            root, said = _part(f, parts)
            groups[root].append(f)
            evidence[root] += [e for e in said if e not in evidence[root]]
    out = []
    for root, fs in sorted(groups.items()):
        classes = [classify([f for f in fs if arch in f.targets], kind, everything=True, torch_hipified=hipified)[0]
                   for arch in sorted({a for f in fs for a in f.targets})]
        cls = worst_class(classes)
        result = cost(fs, cls)
        out.append(OptionalPart(root=root, migration_class=cls, findings=len(fs),
                                evidence=tuple(evidence[root][:SHOWN_EVIDENCE]), effort=result.effort,
                                breakdown=result.breakdown, files=tuple(sorted({f.path for f in fs}))))
    return tuple(out)


class _ByValue:
    """The effective classes by finding value (equal findings share one), made only when a reason is not one of
    the tagged findings (`judged` has every one that is)."""

    def __init__(self, tagged: Sequence[Finding], effective: Mapping[int, MigrationClass]) -> None:
        self._tagged, self._effective = tagged, effective
        self._made: dict[Finding, MigrationClass] | None = None

    def get(self, finding: Finding, default: str) -> str:
        if self._made is None:
            self._made = {f: self._effective[id(f)] for f in self._tagged if id(f) in self._effective}
        return self._made.get(finding, default)


def _relabel(verdict: TargetVerdict, effective: _ByValue, judged: dict[int, Finding]) -> TargetVerdict:
    """Reasons are the judged findings (the report's own objects, with their effective class);
    `judged`: the judged finding of each tagged one, by identity."""
    return replace(verdict, reasons=tuple(judged.get(id(f)) or evolve(f, effective_class=effective.get(f, f.migration_class))
                                          for f in verdict.reasons))


def _where(finding: Finding) -> str:
    return f"{finding.path}:{finding.line} {finding.rule} {finding.symbol}"
