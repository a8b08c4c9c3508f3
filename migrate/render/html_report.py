"""HTML: one self-contained file (inline CSS, JavaScript and SVG; no network)."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from migrate.model import CLASSES, Finding, Report, Workload, class_rank
from migrate.render.escape import script_json
from migrate.render.summary import blockers, by_class
from migrate.render.templates import environment

LOCATIONS_PER_RULE = 20
SNIPPET_CHARS = 160


def render(report: Report) -> str:
    rules = {r.id: r for r in report.rules}
    workloads = [_workload(w, report) for w in report.workloads]
    return environment(autoescape=True).get_template("report.html.j2").render(
        report=report, rules=rules, workloads=workloads, counts=by_class(report), classes=CLASSES,
        blockers=blockers(report, 15), effort_chart=_effort_chart(report), class_chart=_class_chart(report),
        graph=_graph(report), findings_json=script_json(_findings(report)),
        filters={"rule": sorted({f.rule for f in report.findings}), "workload": [w.name for w in report.workloads]},
    )


def _workload(w: Workload, report: Report) -> dict[str, Any]:
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in report.findings:
        if f.workload == w.name:
            groups[f.rule].append(f)
    ordered = sorted(groups.items(), key=lambda kv: (-class_rank(kv[1][0].cls), -len(kv[1]), kv[0]))
    return {"w": w, "groups": [(rule, fs[:LOCATIONS_PER_RULE], len(fs)) for rule, fs in ordered],
            "worst": max(w.verdicts, key=lambda v: class_rank(v.migration_class))}


def _findings(report: Report) -> list[list[object]]:
    ids = report.finding_ids()
    return [[ids[f], f.rule, f.cls, f.workload, f.path, f.line, f.symbol, f.message, f.hipify,
             f.confidence, f.source_line[:SNIPPET_CHARS]] for f in report.findings]


def _effort_chart(report: Report) -> dict[str, Any]:
    """Horizontal low–high bars with the likely value marked, one per workload."""
    rows = sorted(report.workloads, key=lambda w: -w.effort.likely)
    top = max((w.effort.high for w in rows), default=0.0) or 1.0
    bars = [{"name": w.name, "cls": w.migration_class, "x0": 100 * w.effort.low / top,
             "x1": 100 * w.effort.high / top, "xm": 100 * w.effort.likely / top, "effort": w.effort} for w in rows]
    return {"bars": bars, "height": 24 * len(bars) + 8, "top": top}


def _class_chart(report: Report) -> list[dict[str, Any]]:
    totals = dict.fromkeys(CLASSES, 0.0)
    for w in report.workloads:
        totals[w.migration_class] += w.effort.likely
    top = max(totals.values()) or 1.0
    return [{"cls": c, "hours": h, "width": 100 * h / top} for c, h in totals.items()]


def _graph(report: Report) -> dict[str, Any]:
    """A layered drawing of the workload graph: dependencies to the right of what uses them."""
    names = [w.name for w in report.workloads]
    deps = {w.name: [d for d in w.depends_on if d in names] for w in report.workloads}
    depth: dict[str, int] = {}

    def layer(name: str, seen: frozenset[str] = frozenset()) -> int:
        if name not in depth:
            depth[name] = 1 + max((layer(d, seen | {name}) for d in deps[name] if d not in seen), default=-1)
        return depth[name]

    for name in names:
        layer(name)
    columns: dict[int, list[str]] = defaultdict(list)
    for name in names:
        columns[max(depth.values()) - depth[name]].append(name)
    pos = {n: (40 + 230 * col, 30 + 50 * row) for col, members in columns.items() for row, n in enumerate(members)}
    classes = {w.name: w.migration_class for w in report.workloads}
    nodes = [{"name": n, "x": x, "y": y, "cls": classes[n]} for n, (x, y) in pos.items()]
    edges = [{"x1": pos[a][0] + 180, "y1": pos[a][1], "x2": pos[b][0], "y2": pos[b][1]} for a in names for b in deps[a]]
    width = 40 + 230 * (max(columns, default=0) + 1)
    height = 60 + 50 * max((len(m) for m in columns.values()), default=1)
    return {"nodes": nodes, "edges": edges, "width": width, "height": height}
