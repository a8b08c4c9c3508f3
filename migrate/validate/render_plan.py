"""validate plan's outputs: terminal, JSON, Markdown and HTML (a section to sit in a report), pure functions of a Plan."""
from __future__ import annotations

import json
from collections.abc import Callable

from migrate.validate.plan import Plan


def terminal(result: Plan) -> str:
    lines = []
    for w in result.workloads:
        lines.append(f"{w.name} ({w.kind}, {w.migration_class}): "
                     + (", ".join(c.id for c in w.checks) if w.checks else "no GPU code, nothing to validate"))
        for c in w.checks:
            first = c.evidence[0] if c.evidence else None
            where = f"{first.path}:{first.line} {first.symbol}" if first else ""
            more = f" (+{c.evidence_count - 1} more)" if c.evidence_count > 1 else ""
            runner = ", ".join(c.runner) if c.runner else "outside validate run"
            lines.append(f"  {c.id:15} {c.title}; from {where}{more}; runs: {runner}")
    return "\n".join(lines) + "\n"


def as_json(result: Plan) -> str:
    return json.dumps(result.to_json(), indent=2) + "\n"


def markdown(result: Plan) -> str:
    from migrate.render.templates import environment

    return environment(autoescape=False).get_template("validate_plan.md.j2").render(plan=result)


def html(result: Plan) -> str:
    from migrate.render.templates import environment

    return environment(autoescape=True).get_template("validate_plan.html.j2").render(plan=result)


RENDERERS: dict[str, Callable[[Plan], str]] = {"terminal": terminal, "json": as_json, "markdown": markdown, "html": html}
