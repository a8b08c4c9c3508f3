"""validate compare's outputs: terminal, JSON, Markdown and HTML, each a pure function of a Comparison."""
from __future__ import annotations

import json
from collections.abc import Callable

from migrate.validate.compare import Comparison, label
from migrate.validate.cost import describe

FORMATS = ("terminal", "json", "markdown", "html")


def terminal(result: Comparison) -> str:
    ref, cand = result.reference, result.candidate
    lines = [f"{label}: {side['spec']} on {side['on']} ({side['device']}, {side['runtime']})"
             for label, side in (("reference", ref), ("candidate", cand))] + [""]
    for c in result.checks:
        label = f"{c.check}[{c.dtype}]" if c.dtype else c.check
        extra = f" ({c.note})" if c.note else f" ({c.compared} values)" if c.status == "pass" else ""
        lines.append(f"  {c.status.upper():7} {label}{extra}")
        lines += [f"          {p}" for p in c.problems]
        if c.problem_count > len(c.problems):
            lines.append(f"          ... {c.problem_count - len(c.problems)} more")
    if result.performance:
        lines += ["", "performance (candidate / reference step time; spread from p10/p90):"]
        for p in result.performance:
            lines.append(f"  {p.dtype}: {p.candidate_ms:.2f} ms vs {p.reference_ms:.2f} ms = {p.ratio:.2f}x "
                         f"[{p.ratio_low:.2f}-{p.ratio_high:.2f}]; "
                         f"{p.samples_per_s[1]:.1f} vs {p.samples_per_s[0]:.1f} samples/s")
    lines += _distributed(result)
    if result.environment:
        lines += ["", "environment differences:"] + [f"  {k}: {r} -> {c}" for k, r, c in result.environment]
    if result.implementations:
        lines += ["", "custom op implementations:"] + [f"  {k}: {r} -> {c}" for k, r, c in result.implementations]
    lines += cost_lines(result)
    lines += ["", summary_line(result), verdict_line(result)]
    return "\n".join(lines) + "\n"


def cost_lines(result: Comparison) -> list[str]:
    cost = result.cost
    p = cost.prices
    lines = ["", "cost:"]
    if p.reference is not None and p.candidate is not None:
        lines.append(f"  price per GPU-hour: {p.candidate:g} (candidate) vs {p.reference:g} (reference) {p.currency}")
    if p.effort_hours:
        low, likely, high = p.effort_hours
        priced = f" = {cost.port_cost[1]:,.0f} {p.currency} at {p.engineer_rate:g}/h" if cost.port_cost else ""
        lines.append(f"  port effort (scan): {likely:g} h (range {low:g}-{high:g}){priced}")
    lines += [f"  {describe(line, p.currency)}" for line in cost.lines]
    if cost.note:
        lines.append(f"  {cost.note}")
    return lines


def summary_line(result: Comparison) -> str:
    n = result.summary()
    return (f"{n['checks']} checks: {n['compared']} compared ({n['passed']} passed, {n['failed']} failed), "
            f"{n['incomplete']} incomplete, {n['skipped']} skipped")


def verdict_line(result: Comparison) -> str:
    if result.verdict == "failed":
        return f"FAILED: {', '.join(label(c) for c in result.failed)}"
    if result.verdict == "incomplete":
        missing = ", ".join(label(c) for c in result.incomplete) or "no check was compared"
        return f"INCOMPLETE: nothing compared for {missing}"
    return "PASSED: every compared check within tolerance, none incomplete"


def _distributed(result: Comparison) -> list[str]:
    d = result.distributed
    if not d:
        return []
    (rw, cw), (rb, cb) = d["world_size"], d["backend"]
    lines = ["", f"collectives (reference: world size {rw}, {rb}; candidate: world size {cw}, {cb}):"]
    for c in d["busbw_GBps"]:
        ref = "-" if c["reference"] is None else f"{c['reference']:.2f}"
        lines.append(f"  {c['op']}: bus bandwidth {c['candidate']:.2f} vs {ref} GB/s")
    re_, ce = d["scaling_efficiency"]
    if re_ is not None and ce is not None:
        lines.append(f"  1->N step-time scaling efficiency: {ce:.2f} vs {re_:.2f}")
    return lines


def as_json(result: Comparison) -> str:
    return json.dumps(result.to_json(), indent=2) + "\n"


def markdown(result: Comparison) -> str:
    from migrate.render.templates import environment

    return environment(autoescape=False).get_template("validate_compare.md.j2").render(result=result)


def html(result: Comparison) -> str:
    from migrate.render.templates import environment

    return environment(autoescape=True).get_template("validate_compare.html.j2").render(result=result)


RENDERERS: dict[str, Callable[[Comparison], str]] = {"terminal": terminal, "json": as_json, "markdown": markdown,
                                                     "html": html}
