"""Markdown: a compact summary for a pull-request comment or a wiki page."""
from __future__ import annotations

from migrate.model_report import Report
from migrate.render.escape import md
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

__all__ = ["md", "render"]
TOP_BLOCKERS = 10
TOP_WORKLOADS = 10
TOP_STEPS = 20
TOP_RISKS = 10


def render(report: Report) -> str:
    template = environment(autoescape=False).get_template("report.md.j2")
    shown, rest, rest_count = top_workloads(report, TOP_WORKLOADS)
    return template.render(report=report, counts=by_class(report), blockers=blockers(report, TOP_BLOCKERS),
                           rules={r.id: r for r in report.rules}, confidence=confidence(report), plan=report.plan,
                           workloads=shown, rest=rest, rest_count=rest_count, top_steps=TOP_STEPS, top_risks=TOP_RISKS,
                           stack_md=_stack(report), compile_lines=compile_lines(report),
                           routes=explained(report.workloads), optional=optional_costs(report), rewrites=rewrite_costs(report),
                           gpu_part=optional_gpu_line(report))


def _stack(report: Report) -> str:
    if not (report.stack.get("pins") or report.stack.get("images")):
        return ""
    from migrate.render.stack_view import markdown

    return markdown(report.stack).replace("## Stack", "### Stack", 1).rstrip("\n")
