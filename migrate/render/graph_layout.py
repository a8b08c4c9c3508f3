"""A layered drawing of the workload graph for the HTML report.

What others use sits in the left column, what uses it to the right (the plan's order). With
many workloads only those that matter are drawn (the largest, and what they use); the rest are
folded into one node per folder. Nodes in a column are ordered by the mean position of their
neighbours (barycentre), which keeps most edges short and uncrossed; edges carry their reason."""
from __future__ import annotations

import functools
from collections import defaultdict
from typing import Any

import networkx as nx

from migrate.model_report import Report, Workload

MAX_NODES = 24
NODE_W, NODE_H, COL_GAP, ROW_GAP = 190, 30, 90, 16
LABEL_CHARS = 26
EDGE_LABEL_CHARS = 30
EDGE_LABELS_UP_TO = 60
EDGE_CHAR_W, EDGE_LINE_H = 6.2, 11  # an edge label's 10px text: width of a character, height of a line


def layout(report: Report) -> dict[str, Any]:
    workloads = {w.name: w for w in report.workloads}
    keep = _kept(report.workloads)
    graph = nx.DiGraph()
    folded: dict[str, list[str]] = defaultdict(list)
    for w in report.workloads:
        node = w.name if w.name in keep else _fold(w)
        if node != w.name:
            folded[node].append(w.name)
        graph.add_node(node)
    reasons: dict[tuple[str, str], list[str]] = defaultdict(list)
    for w in report.workloads:
        source = w.name if w.name in keep else _fold(w)
        why = dict(zip(w.depends_on, w.depends_why, strict=False)) if w.depends_why else {}
        for dep in w.depends_on:
            if dep not in workloads:
                continue
            target = dep if dep in keep else _fold(workloads[dep])
            if target != source:
                graph.add_edge(source, target)
                reasons[(source, target)].append(_short(why.get(dep, "")))
    columns = _columns(graph)
    order = _order(graph, columns)
    label_edges = graph.number_of_edges() <= EDGE_LABELS_UP_TO
    gap = _gap(reasons) if label_edges else COL_GAP
    pos = {}
    for col, column in order.items():
        for row, node in enumerate(column):
            pos[node] = (20 + col * (NODE_W + gap), 30 + row * (NODE_H + ROW_GAP))
    cls = {w.name: w.migration_class for w in report.workloads}
    nodes = []
    for node, (x, y) in pos.items():
        members: list[str] | None = folded.get(node)
        label = node if members is None else f"{len(members)} more in {node.removeprefix('fold:')}"
        worst = max((cls[m] for m in members), key=_rank) if members else cls[node]
        nodes.append({"id": node, "label": _trim(label), "title": label if not members else ", ".join(members[:40]),
                      "x": x, "y": y, "cls": worst, "folded": bool(members),
                      "hours": sum(workloads[m].effort.likely for m in (members or [node]))})
    edges = []
    labelled: set[tuple[str, str]] = set()  # one label per target and text: a fan-in says it once
    into: dict[str, int] = defaultdict(int)  # labels already placed beside each target
    for a, b in graph.edges:
        (xa, ya), (xb, yb) = pos[a], pos[b]
        # an edge points from the user (right) to what it uses (left)
        x1, y1, x2, y2 = xa, ya + NODE_H / 2, xb + NODE_W, yb + NODE_H / 2
        text = sorted(set(reasons[(a, b)]) - {""})
        label = (text[0] + (f" +{len(text) - 1}" if len(text) > 1 else "")) if text else "uses"
        shown = label_edges and (b, label) not in labelled
        labelled.add((b, label))
        # in the gap right of what is used, where no node is: a label at the edge's middle would lie
        # under the nodes of a column it crosses
        stacked = into[b]
        into[b] += shown
        edges.append({"x1": x1, "y1": y1, "x2": x2, "y2": y2, "label": _trim(label, EDGE_LABEL_CHARS) if shown else "",
                      "title": "; ".join(text) or "uses", "mx": x2 + gap / 2,
                      "my": y2 - 4 + EDGE_LINE_H * stacked})
    width = 40 + (max(columns.values(), default=0) + 1) * (NODE_W + gap) - gap
    height = 60 + max((len(m) for m in order.values()), default=1) * (NODE_H + ROW_GAP)
    return {"nodes": nodes, "edges": edges, "width": width, "height": height, "node_w": NODE_W, "node_h": NODE_H,
            "hidden": sum(len(m) for m in folded.values()), "total": len(report.workloads)}


def _gap(reasons: dict[tuple[str, str], list[str]]) -> float:
    """The gap between columns: wide enough for the longest edge label, at least COL_GAP."""
    longest = max((min(len(t), EDGE_LABEL_CHARS) + 3 for texts in reasons.values() for t in texts), default=0)
    return max(COL_GAP, round(longest * EDGE_CHAR_W + 16))


def _kept(workloads: tuple[Workload, ...]) -> set[str]:
    """The workloads drawn on their own: the largest by effort and what they use, up to MAX_NODES."""
    if len(workloads) <= MAX_NODES:
        return {w.name for w in workloads}
    names = {w.name for w in workloads}
    keep: set[str] = set()
    for w in sorted(workloads, key=lambda w: (-w.effort.likely, w.name)):
        wanted = {w.name} | {d for d in w.depends_on if d in names}
        if len(keep | wanted) > MAX_NODES - 4:  # room for the folded nodes
            break
        keep |= wanted
    return keep


def _fold(w: Workload) -> str:
    return "fold:" + (w.root.split("/")[0] + "/" if w.root not in ("", ".") and "/" in w.root else "(top level)")


def _columns(graph: nx.DiGraph) -> dict[str, int]:
    condensed = nx.condensation(graph)
    level: dict[int, int] = {}
    for node in reversed(list(nx.topological_sort(condensed))):
        level[node] = 1 + max((level[s] for s in condensed.successors(node)), default=-1)
    return {n: level[condensed.graph["mapping"][n]] for n in graph.nodes}


def _order(graph: nx.DiGraph, columns: dict[str, int]) -> dict[int, list[str]]:
    order: dict[int, list[str]] = defaultdict(list)
    for node in sorted(graph.nodes, key=lambda n: (n.startswith("fold:"), n)):
        order[columns[node]].append(node)
    for col in sorted(order)[1:]:  # barycentre against the column before
        before = {n: i for i, n in enumerate(order[col - 1])} if col - 1 in order else {}

        order[col].sort(key=functools.partial(_sort_key, graph, before))
    return dict(order)


def _sort_key(graph: nx.DiGraph, before: dict[str, int], node: str) -> tuple[float, str]:
    near = [before[d] for d in graph.successors(node) if d in before]
    return (sum(near) / len(near) if near else float(len(before))), node


def _short(step: str) -> str:
    """'src/a.cu includes kernels.cuh' -> 'includes kernels.cuh'."""
    for verb in (" includes ", " imports ", " links ", " builds ", " loads ", " calls "):
        if verb in step:
            return verb.strip() + " " + step.split(verb, 1)[1]
    return step


def _trim(text: str, chars: int = LABEL_CHARS) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _rank(cls: str) -> int:
    from migrate.model import class_rank

    return class_rank(cls)
