"""The migration plan: ordered steps from the dependency graph (what others use goes first),
milestones whose steps can run in parallel, the share hipify converts on its own, the hand
work left, what to validate after each step, and a register of the risks.

A pure function of a finished report; the renderers show its JSON form (docs/report.schema.json)."""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from migrate.model import Effort, Finding, RuleInfo, sum_effort
from migrate.model_report import Report, Workload
from migrate.rulebase import families
from migrate.workloads.digraph import DiGraph
from migrate.workloads.estimate import VALIDATION

HAND_WORK_ROWS = 5
VALIDATED_KERNELS = 6
HIPIFY_WEIGHT = {"yes": 1.0, "partial": 0.5, "no": 0.0}


def build(report: Report) -> dict[str, Any]:
    rules = {r.id: r for r in report.rules}
    by_workload: dict[str, list[Finding]] = defaultdict(list)
    for f in report.findings:
        if f.status != "ported":
            by_workload[f.workload].append(f)
    gpu_code = {f.workload for f in report.findings}  # ported findings too: an existing ROCm path is built and tested
    todo = [w for w in report.workloads
            if w.effort.likely > 0 or by_workload.get(w.name) or any(not c.optional for c in w.components)
            or ((w.route or {}).get("route", "port") != "port" and w.name in gpu_code)]
    # An optional workload (a scratch folder, examples, tests) is a port of its own, apart from the headline: it comes
    # after the required ones, in a milestone of its own, so that the required milestones add up to the headline (s15).
    required = [w for w in todo if not w.optional]
    levels = _levels(required)
    apart = 1 + max(levels.values(), default=-1)
    levels.update({w.name: apart for w in todo if w.optional})
    steps = []
    for order, w in enumerate(sorted(todo, key=lambda w: (levels[w.name], -w.effort.likely, w.name)), start=1):
        steps.append(_step(order, w, levels[w.name], by_workload.get(w.name, []), rules, report))
    milestones = [_setup(report)] if report.project_costs else []
    at_level: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for s in steps:
        at_level[s["milestone_level"]].append(s)
    for level, members in sorted(at_level.items()):
        optional = level == apart and len(required) < len(todo)
        milestones.append({
            "name": f"M{len(milestones) + 1}", "parallel": len(members) > 1,
            "title": _optional_title(len(members)) if optional else
            _title(milestones[-1]["name"] if level else None, len(members)),
            "steps": [s["order"] for s in members],
            "effort_hours": sum_effort(_effort(s) for s in members).to_json(),
            **({"optional": True} if optional else {}),
        })
    milestone_of = {order: m["name"] for m in milestones for order in m.get("steps", ())}
    for s in steps:
        s["milestone"] = milestone_of[s["order"]]
        del s["milestone_level"]
    if (later := _rewrites(report, len(milestones) + 1)) is not None:
        milestones.append(later)
    return {"milestones": milestones, "steps": steps, "risks": risks(report, rules),
            "effort_hours": report.effort.to_json(), "automatic_share": report_automatic_share(report)}


def _levels(workloads: Sequence[Workload]) -> dict[str, int]:
    """0 for a workload that uses nothing else that needs work; otherwise one more than what it uses.
    Workloads in a cycle share a level."""
    names = {w.name for w in workloads}
    graph: DiGraph[str] = DiGraph(names)
    for w in workloads:
        for d in w.depends_on:
            if d in names and d != w.name:
                graph.add_edge(w.name, d)
    return graph.levels()


def _title(after: str | None, count: int) -> str:
    what = "1 workload" if count == 1 else f"{count} workloads, in parallel"
    return f"Port what uses nothing else that needs porting ({what})" if after is None else \
        f"Port what uses the workloads of {after} ({what})"


def _optional_title(count: int) -> str:
    what = "1 workload" if count == 1 else f"{count} workloads, each a port of its own"
    return f"Optional workloads, apart from the headline ({what})"


def _rewrites(report: Report, number: int) -> dict[str, Any] | None:
    """The rewrite components of the required workloads as a later milestone, apart from the headline: the
    measured first ports left every such component out of their first ROCm build (docs/effort.md)."""
    titles = sorted({c.title for w in report.workloads if not w.optional for c in w.components
                     if c.kind == "rewrite" and not c.optional})
    if not titles or not report.rewrite_effort.likely:
        return None
    return {"name": f"M{number}", "parallel": len(titles) > 1,
            "title": f"Later, after the first ROCm build (which leaves them out): rewrite {'; '.join(titles)}",
            "steps": [], "effort_hours": report.rewrite_effort.to_json(),
            "validation": ["each rewritten kernel against the CUDA original's results on the same inputs"]}


def _setup(report: Report) -> dict[str, Any]:
    effort = sum_effort(p.effort for p in report.project_costs)
    items = sorted({item.name for p in report.project_costs for item in p.breakdown})
    work = [name for name in items if not name.startswith(VALIDATION)]
    assumed = [name.removeprefix(VALIDATION) for name in items if name.startswith(VALIDATION)]
    title = "; ".join(work + ([VALIDATION + ", ".join(assumed)] if assumed else []))
    return {"name": "M1", "title": "Project set-up: " + title, "parallel": False, "steps": [],
            "effort_hours": effort.to_json(),
            "validation": ["the project builds for every target GPU with the ROCm toolchain",
                           "CI runs the existing test suite on a ROCm runner"]}


def _step(order: int, w: Workload, level: int, findings: list[Finding], rules: dict[str, RuleInfo],
          report: Report) -> dict[str, Any]:
    measured = report.hipify.coverage.get(w.name) if report.hipify else None
    share = measured.ratio if measured is not None and measured.ratio is not None else automatic_share(findings)
    route = w.route or {}
    ported = route.get("route", "port") == "port"
    return {
        "order": order, "workload": w.name, "class": w.migration_class, "milestone_level": level,
        "depends_on": list(w.depends_on), "effort_hours": w.effort.to_json(),
        "route": route.get("route", "port"), "do": actions(w, findings),
        "automatic_share": None if share is None or not ported else round(share, 3),
        "automatic_share_source": "hipify-perl" if measured is not None and measured.ratio is not None else "rule base",
        "hand_work": hand_work(findings, rules, report),
        "routes": routes(w),
        "validation": validation(w, findings),
        "compiler": compiler_evidence(w, report),
    }


def compiler_evidence(w: Workload, report: Report) -> str | None:
    """`check`: what hip-clang said about the workload's translation units after hipify alone."""
    if report.compile is None:
        return None
    files = set(w.files)
    units = [u for u in report.compile.units if u.path in files]
    checked = [u for u in units if u.status != "not-checked"]
    if not checked:
        return f"not checked by hip-clang ({len(units)} unit compiles)" if units else None
    passed = sum(1 for u in checked if u.status == "passed")
    misses = sum(1 for e in report.compile.errors if e.meaning == "miss" and e.path in files)
    if passed == len(checked) and not misses:
        return f"all {passed} checked unit compiles pass after hipify alone: evidence for mechanical work"
    return (f"{passed} of {len(checked)} checked unit compiles pass after hipify alone; "
            f"{misses} errors no rule explains (compiler-error-unpredicted): the estimate is less certain")


def actions(w: Workload, findings: Sequence[Finding]) -> list[str]:
    """What the step does, in order: it follows the workload's route (workloads/route.py). An AMD build is
    installed, a framework carries the code, and only a port converts with hipify."""
    route = w.route or {}
    kind = route.get("route", "port")
    fix = [f"fix what its findings name ({len(findings)}; the hand work below)"] if findings else []
    if kind == "amd-build" and route.get("uses"):
        return [*(f"install the AMD build of {u['name']} instead of porting it: {u['amd']} ({u['amd_url']}; "
                  f"{u['source']})" for u in route["uses"]), *fix]
    if kind == "amd-build":
        where = f" ({w.rocm_path[0]})" if w.rocm_path else ""
        return [f"build and test the project's existing ROCm path{where} instead of porting", *fix]
    if kind == "framework":
        return [f"move through {route.get('via') or 'the framework'}: {route.get('why', '')}", *fix]
    rule_families = families.load()
    convert = ["convert the CUDA code with hipify-perl"] if any(rule_families.is_code(f.rule, "c") for f in findings) else []
    steps = [*convert, *fix]
    alternative = route.get("alternative")
    if alternative:
        steps.append(f"or {alternative['route'].replace('-', ' ')} with {alternative['via']}: {alternative['why']} "
                     f"(caveats in the route)")
    return steps


def routes(w: Workload) -> list[dict[str, Any]]:
    """The named AMD routes of the step: each kernel to rewrite, and each dependency to swap for its AMD build."""
    return [{"kind": c.kind, "id": c.id, "title": c.title, "class": c.migration_class,
             "do": (f"leave out of the first ROCm build; later, rewrite on "
                    f"{' or '.join(name for name, _ in c.alternatives[:3])}" if c.kind == "rewrite"
                    else f"install {c.alternatives[0][0]}" if c.alternatives else "install its AMD build")}
            for c in w.components if not c.optional]


def _effort(step: dict[str, Any]) -> Effort:
    e = step["effort_hours"]
    return Effort(low=e["low"], likely=e["likely"], high=e["high"])


def report_automatic_share(report: Report) -> float | None:
    """The one automatic share a report shows: what hipify-perl was seen converting when it ran
    (the figure the confidence statement gives), else the rules' claim over the findings."""
    coverage = [c for c in (report.hipify.coverage.values() if report.hipify else ()) if c.references]
    if coverage:
        return round(sum(c.converted for c in coverage) / sum(c.references for c in coverage), 3)
    return automatic_share(report.findings)


def automatic_share(findings: Iterable[Finding]) -> float | None:
    """Of the C/C++/CUDA findings, the share hipify converts on its own (partial counts half)."""
    rule_families = families.load()
    counted = [f for f in findings if rule_families.is_code(f.rule, "c")]
    return round(sum(HIPIFY_WEIGHT.get(f.hipify, 0.0) for f in counted) / len(counted), 3) if counted else None


def hand_work(findings: Sequence[Finding], rules: dict[str, RuleInfo], report: Report) -> list[dict[str, Any]]:
    """What hipify leaves to a person, by rule, by expected hand work (Report.hand_work_order: worst class
    first, mechanical changes last, then the rule's hand hours), then the most occurrences."""
    manual = Counter(f.rule for f in findings if f.hipify != "yes")
    first = {f.rule: f for f in reversed(findings) if f.hipify != "yes"}
    order = report.hand_work_order()
    ranked = sorted(manual, key=lambda r: (*order(first[r]), -manual[r], r))
    return [{"rule": r, "title": rules[r].title if r in rules else r, "occurrences": manual[r],
             "hip": rules[r].hip if r in rules else None} for r in ranked[:HAND_WORK_ROWS]]


def validation(w: Workload, findings: Sequence[Finding]) -> list[str]:
    rule_families = families.load()
    checks_of = {rule: rule_families.checks_for(rule) for rule in {f.rule for f in findings}}
    called = frozenset().union(*checks_of.values())
    kernels = sorted({f.symbol for f in findings if "kernel-outputs" in checks_of[f.rule]})
    uses = (w.route or {}).get("uses") or ()
    checks = ([f"the AMD builds it installs ({', '.join(u['amd'] for u in uses)}) import and run on every target GPU "
               "(built for its gfx target)"] if uses else
              ["builds with hipcc / the ROCm build of its framework, without warnings it did not have"])
    if kernels:
        shown = ", ".join(kernels[:VALIDATED_KERNELS]) + (f" and {len(kernels) - VALIDATED_KERNELS} more"
                                                         if len(kernels) > VALIDATED_KERNELS else "")
        checks.append(f"outputs of its kernels match the CUDA build within tolerance: {shown}")
    if "wave64" in called:
        checks.append("warp-level code gives the same results with 64-lane wavefronts (run on a wave64 GPU)")
    if "library-results" in called:
        checks.append("library calls (BLAS, FFT, RNG, sparse, CUB) give the same results as on CUDA")
    checks.append("its tests pass on ROCm; performance is within the agreed margin of the CUDA build")
    return checks


def risks(report: Report, rules: dict[str, RuleInfo]) -> list[dict[str, Any]]:
    """Every incompatible finding, by rule, with its alternative or the decision it needs; the most
    expected hand hours first."""
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in report.findings:
        if f.cls == "incompatible" and f.status != "ported":
            groups[f.rule].append(f)
    register: list[dict[str, Any]] = []
    for rule, found in sorted(groups.items(), key=lambda kv: (-report.rule_hours.get(kv[0], 0.0), -len(kv[1]), kv[0])):
        info = rules.get(rule)
        alternative = info.hip if info else None
        register.append({
            "id": f"R{len(register) + 1}", "rule": rule, "title": info.title if info else rule,
            "occurrences": len(found), "workloads": sorted({f.workload for f in found}),
            "alternative": alternative,
            "decision": (f"adopt {alternative} and re-validate" if alternative else
                         "redesign for ROCm, keep this part on NVIDIA, or drop it"),
        })
    return register
