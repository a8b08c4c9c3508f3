"""HTML: one self-contained file (inline CSS, JavaScript and SVG; no network) that reads at any
size: an executive summary first, the plan, roll-ups with top-N and "others", charts with axes,
a collapsed dependency graph, then the details."""
from __future__ import annotations

import math
import posixpath
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from migrate.model import CLASSES, Effort, Finding, class_rank, sum_effort, worst_class
from migrate.model_report import Report, Workload
from migrate.render import graph_layout
from migrate.render.escape import script_json
from migrate.render.route_view import explained
from migrate.render.summary import (
    blockers,
    by_class,
    compile_lines,
    confidence,
    optional_costs,
    optional_gpu_line,
    rewrite_costs,
    top_workloads,
)
from migrate.render.templates import environment

LOCATIONS_PER_RULE = 20
SNIPPET_CHARS = 160
TOP_ROWS = 8  # rows of a roll-up before "others"
TOP_WORKLOADS = 25  # rows of the workload table and detail sections
TOP_STEPS = 15
TOP_RISKS = 10
TOP_BREAKDOWN = 8
TOP_SKIPPED = 20
CHART_WIDTH = 640


def render(report: Report, *, show_info: bool = False) -> str:
    rules = {r.id: r for r in report.rules}
    the_plan = report.plan
    shown, rest, rest_count = top_workloads(report, TOP_WORKLOADS)
    return environment(autoescape=True).get_template("report.html.j2").render(
        report=report, rules=rules, counts=by_class(report), classes=CLASSES,
        workloads=[_workload(w, report) for w in shown], rest=rest, rest_count=rest_count,
        blockers=blockers(report, 10), plan=the_plan, top_steps=TOP_STEPS, top_risks=TOP_RISKS,
        summary=_summary(report, the_plan), confidence=confidence(report),
        by_folder=_chart(_by_folder(report)), by_kind=_chart(_by_kind(report)),
        by_class_chart=_chart(_by_class(report), top=len(CLASSES)),
        graph=graph_layout.layout(report), findings_json=script_json(_findings(report, show_info)),
        info_hidden=0 if show_info else sum(f.info for f in report.findings),
        filters={"rule": sorted({f.rule for f in report.findings}), "workload": [w.name for w in report.workloads]},
        top_skipped=TOP_SKIPPED, compile_lines=compile_lines(report), optional=optional_costs(report),
        rewrites=rewrite_costs(report), gpu_part=optional_gpu_line(report),
    )


def _summary(report: Report, the_plan: dict[str, Any]) -> dict[str, Any]:
    risks = [f"{r['rule']} {r['title']} ×{r['occurrences']}: {r['decision']}" for r in the_plan["risks"][:3]]
    for f, count in blockers(report, 3 - len(risks)) if len(risks) < 3 else ():
        title = next((r.title for r in report.rules if r.id == f.rule), f.rule)
        risks.append(f"{f.rule} {title} ×{count} (hand work: {f.hip or 'no HIP equivalent'})")
    targets = []
    for index, arch in enumerate(report.target.arch):
        verdicts = [w.verdicts[index] for w in report.workloads]
        required = [w.verdicts[index] for w in report.workloads if not w.optional] or verdicts
        effort = sum_effort([*(v.effort for v in required), *(p.effort for p in report.project_costs)])
        only = sorted({f.rule for f in report.findings if arch in f.targets and len(f.targets) < len(report.target.arch)})
        targets.append({"arch": arch, "class": worst_class(v.migration_class for v in required),
                        "effort": effort, "only": only})
    return {"risks": risks, "automatic": the_plan["automatic_share"], "targets": targets}


def _by_folder(report: Report) -> list[tuple[str, Effort]]:
    """The headline by folder: required workloads and project costs (optional parts and workloads are costed
    apart, in their own table), so that the rows add up to the headline; a folder with no hours has no bar (llm.c's
    `dev`, native: "no porting work", not a bar of 0.0 h)."""
    groups: dict[str, list[Effort]] = defaultdict(list)
    for w in report.workloads:
        if w.optional:
            continue
        top = w.root.split("/")[0] if w.root not in ("", ".") else "(top level)"
        groups[top].append(w.effort)
    rows = [(name, sum_effort(e)) for name, e in groups.items()]
    rows += [(f"project costs: {p.name}", p.effort) for p in report.project_costs]
    return [(name, e) for name, e in rows if e.high > 0]


def _by_kind(report: Report) -> list[tuple[str, Effort]]:
    likely: dict[str, float] = defaultdict(float)
    for w in report.workloads:
        if w.optional:
            continue
        for item in w.primary.breakdown:
            likely[item.kind] += item.hours
    for p in report.project_costs:
        for item in p.breakdown:
            likely[f"project: {item.name}"] += item.hours
    return [(k, Effort(low=v, likely=v, high=v)) for k, v in likely.items() if v > 0]


def _by_class(report: Report) -> list[tuple[str, Effort]]:
    """The headline by class: each required workload in its class, each project's costs in the project's class
    (optional parts and workloads apart), so that the rows add up to the headline; a class with no hours has no
    bar (a native class is "no porting work", not a bar of 0.0 h)."""
    rows = [(c, sum_effort([*(w.effort for w in report.workloads if not w.optional and w.migration_class == c),
                            *(p.effort for p in report.project_costs if p.migration_class == c)]))
            for c in CLASSES]
    return [(c, e) for c, e in rows if e.high > 0]


def _chart(rows: Sequence[tuple[str, Effort]], top: int = TOP_ROWS) -> dict[str, Any]:
    """Horizontal bars (likely, with the low–high range) on a labelled hour axis; the largest
    `top` rows, then one "others" row, so that the rows add up to the total (a single row past `top` is
    shown itself)."""
    ranked = sorted(rows, key=lambda r: (-r[1].likely, r[0]))
    shown = list(ranked[:top]) if len(ranked) > top + 1 else list(ranked)
    if len(shown) < len(ranked):
        rest = ranked[top:]
        shown.append((f"{len(rest)} others", sum_effort(e for _, e in rest)))
    peak = max((e.high for _, e in shown), default=0.0)
    step = _nice_step(peak)
    axis_max = step * max(1, math.ceil(peak / step)) if peak else 1.0
    scale = (CHART_WIDTH - 260) / axis_max
    # coordinates to 1/100 px: the last bits of a float sum differ between Python releases (3.12's sum)
    bars = [{"label": label, "effort": e, "x0": round(200 + e.low * scale, 2), "x1": round(200 + e.high * scale, 2),
             "xm": round(200 + e.likely * scale, 2), "y": 8 + 22 * i} for i, (label, e) in enumerate(shown)]
    ticks = [{"x": round(200 + t * step * scale, 2), "label": f"{t * step:g}"}
             for t in range(round(axis_max / step) + 1)]
    height = 8 + 22 * len(shown) + 36
    return {"bars": bars, "ticks": ticks, "height": height, "axis_y": 8 + 22 * len(shown) + 4, "width": CHART_WIDTH,
            "total": sum_effort(e for _, e in shown)}


def _nice_step(peak: float) -> float:
    if peak <= 0:
        return 1.0
    raw = peak / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    return float(next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw))


def _workload(w: Workload, report: Report) -> dict[str, Any]:
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in report.findings:
        if f.workload == w.name:
            groups[f.rule].append(f)
    ordered = sorted(groups.items(), key=lambda kv: (-class_rank(kv[1][0].cls), -len(kv[1]), kv[0]))
    breakdown = [(i.label, i.hours) for i in w.primary.breakdown[:TOP_BREAKDOWN]]
    rest = w.primary.breakdown[TOP_BREAKDOWN:]
    if rest:
        breakdown.append((f"{len(rest)} other items", round(sum(i.hours for i in rest), 2)))
    return {"w": w, "groups": [(rule, fs[:LOCATIONS_PER_RULE], len(fs)) for rule, fs in ordered[:12]],
            "more_rules": max(0, len(ordered) - 12), "breakdown": breakdown,
            "worst": max(w.verdicts, key=lambda v: class_rank(v.migration_class)),
            "folder": posixpath.dirname(w.root), "route": next(iter(explained([w])), None)}


def _findings(report: Report, show_info: bool) -> list[list[Any]]:
    """The findings table, by expected hand work (Report.hand_work_order: worst class first, mechanical changes
    last, then the rule's expected hand hours), then rule and place; hints (info) only when asked for."""
    ids = report.finding_ids()
    order = report.hand_work_order()
    ranked = sorted(report.findings, key=lambda f: (*order(f), f.rule, f.sort_key))
    return [[ids[f], f.rule, f.cls, f.workload, f.path, f.line, f.symbol, f.message, f.hipify,
             f.confidence, f.source_line[:SNIPPET_CHARS]] for f in ranked if show_info or not f.info]
