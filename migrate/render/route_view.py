"""How a workload's route (workloads/route.py, as JSON in the report) reads in a table cell and in a list:
pure functions the terminal, Markdown and HTML renderers share. Escaping is the caller's (templates escape)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from migrate.model_report import Workload


def label(route: Mapping[str, Any] | None) -> str:
    """`port`, `port, or compile unchanged via SCALE`, `amd-build via FlashAttention`, `framework via Triton`."""
    route = route or {}
    text = str(route.get("route", "port"))
    if route.get("via"):
        text += f" via {route['via']}"
    alternative = route.get("alternative")
    if alternative:
        text += f", or {str(alternative['route']).replace('-', ' ')} via {alternative['via']}"
    return text


def explained(workloads: Sequence[Workload]) -> list[dict[str, Any]]:
    """The workloads whose route says more than the default port: another route, an alternative or a note."""
    out = []
    for w in workloads:
        route = w.route or {}
        if route.get("route", "port") == "port" and not route.get("alternative") and not route.get("notes"):
            continue
        alternative = route.get("alternative") or {}
        out.append({"workload": w.name, "label": label(route), "why": route.get("why", ""),
                    "source": route.get("source"), "uses": list(route.get("uses") or ()),
                    "alternative": alternative, "notes": list(route.get("notes") or ())})
    return out
