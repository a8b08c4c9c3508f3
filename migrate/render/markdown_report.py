"""Markdown: a compact summary for a pull-request comment or a wiki page."""
from __future__ import annotations

from migrate.model import Report
from migrate.render.escape import md
from migrate.render.summary import blockers, by_class
from migrate.render.templates import environment

__all__ = ["md", "render"]
TOP_BLOCKERS = 10


def render(report: Report) -> str:
    template = environment(autoescape=False).get_template("report.md.j2")
    return template.render(report=report, counts=by_class(report), blockers=blockers(report, TOP_BLOCKERS),
                           rules={r.id: r for r in report.rules}, stack_md=_stack(report))


def _stack(report: Report) -> str:
    if not (report.stack.get("pins") or report.stack.get("images")):
        return ""
    from migrate.render.stack_view import markdown

    return markdown(report.stack).replace("## Stack", "### Stack", 1).rstrip("\n")
