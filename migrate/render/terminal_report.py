"""The terminal summary: class, counts per class, top rules, workloads and skipped files."""
from __future__ import annotations

import io
from collections import Counter
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from migrate.model import CLASSES, Finding, class_rank, sum_effort
from migrate.model_report import Report, Workload
from migrate.render.json_report import target_differences
from migrate.render.route_view import label
from migrate.render.summary import compile_lines, confidence, optional_gpu_line, ranked_rules
from migrate.safetext import sanitized, terminal

STYLES = {"native": "green", "minor-adaptation": "cyan", "migration-required": "yellow", "incompatible": "bold red"}
TOP_RULES = 10
TOP_SKIPPED = 10
TOP_WORKLOADS = 20
PLAN_STEPS = 12


def render(report: Report, *, color: bool = False, width: int = 100, plan: bool = False,
           show_info: bool = False) -> str:
    report = sanitized(report)  # file, workload and symbol names can carry escape sequences
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=color, no_color=not color, highlight=False)
    effort = report.effort
    console.print(f"[bold]rocm-migrate[/] {report.tool_version} · target ROCm {report.target.rocm} "
                  f"on {', '.join(report.target.arch)}")
    console.print(f"Scanned {_count(report.files_scanned, 'file')} ({_count(report.lines, 'line')}) in "
                  f"{report.seconds:.2f}s; {len(report.skipped)} skipped; {_count(len(report.findings), 'finding')}.")
    console.print(f"Class: [{STYLES[report.migration_class]}]{report.migration_class}[/]   " + (
        f"Effort: {effort.low:.1f}–{effort.high:.1f} h (likely {effort.likely:.1f} h: {report.hand_effort.likely:.1f} h "
        f"hand work, {report.validation_effort.likely:.1f} h validation, assumed)" if report.hand_effort.likely else
        "Effort: no porting work" + (f" (validation on ROCm only: {effort.likely:.1f} h)" if effort.likely else "")))
    if gpu_part := optional_gpu_line(report):
        console.print(gpu_part, markup=False)
    if (apart := report.optional_effort).likely:
        console.print(f"Apart from the headline: optional parts and workloads {apart.low:.1f}–{apart.high:.1f} h "
                      f"(likely {apart.likely:.1f} h)", markup=False)
    if (later := report.rewrite_effort).likely:
        console.print(f"A later milestone, apart from the headline: rewrite components {later.low:.1f}–{later.high:.1f} h "
                      f"(likely {later.likely:.1f} h; first ROCm builds leave them out)", markup=False)
    trust = confidence(report)
    console.print(f"Confidence: {trust['level']}: {trust['statement']}", markup=False)
    the_plan = report.plan
    console.print(_plan_line(the_plan), markup=False)
    for line in compile_lines(report):
        console.print(terminal(line), markup=False)
    console.print(_by_class(report))
    listed = [f for f in report.findings if show_info or not f.info]
    if listed:
        console.print(_top_rules(report, listed))
    if hidden := len(report.findings) - len(listed):
        console.print(f"{hidden} info findings (hints: low confidence, tuning parameters) not listed; --show-info lists them.")
    console.print(_workloads(report))
    for line in _ported_and_optional(report):
        console.print(line, markup=False)
    if (differences := _differences(report)) is not None:
        console.print(differences)
    if report.stack.get("pins") or report.stack.get("images"):
        from migrate.render.stack_view import compact

        for line in compact(report.stack):
            console.print(line, markup=False)
    if plan:
        for line in _plan(the_plan):
            console.print(line, markup=False)
    if report.skipped:
        console.print(f"Skipped files ({len(report.skipped)}):")
        for item in report.skipped[:TOP_SKIPPED]:
            console.print(f"  {terminal(item.path)}: {terminal(item.reason)}", markup=False)
        if len(report.skipped) > TOP_SKIPPED:
            console.print(f"  … and {len(report.skipped) - TOP_SKIPPED} more (see --format json)")
    return out.getvalue()


def _by_class(report: Report) -> Table:
    counts = Counter(f.cls for f in report.findings)
    table = Table(title="Findings by class", title_justify="left")
    table.add_column("class")
    table.add_column("findings", justify="right")
    for name in CLASSES:
        table.add_row(f"[{STYLES[name]}]{name}[/]", str(counts.get(name, 0)))
    return table


def _top_rules(report: Report, findings: list[Finding]) -> Table:
    table = Table(title="Top rules (by expected hand work; mechanical changes last)", title_justify="left")
    for column in ("rule", "class", "count", "hand h", "example"):
        table.add_column(column, justify="right" if column in ("count", "hand h") else "left")
    hours = report.rule_hours
    for f, count in ranked_rules(report, findings)[:TOP_RULES]:
        label = "[dim]info[/]" if f.info else f"[{STYLES[f.cls]}]{f.cls}[/]"
        table.add_row(f.rule, label, str(count),
                      f"{hours[f.rule]:.1f}" if f.rule in hours else "-", escape(terminal(f"{f.path}:{f.line} {f.symbol}")))
    return table


def _workloads(report: Report) -> Table:
    table = Table(title="Workloads", title_justify="left")
    for column in ("workload", "kind", "class", "effort (h)", "top reason"):
        table.add_column(column)
    several = len(report.target.arch) > 1
    shown = list(report.workloads)
    if len(shown) > TOP_WORKLOADS + 1:  # one past the limit is shown itself, never as "1 others"
        shown = sorted(shown, key=lambda w: (-w.effort.likely, w.name))[:TOP_WORKLOADS]
        table.title = f"Workloads (the {TOP_WORKLOADS} largest of {len(report.workloads)})"
    for w in shown:
        classes = " / ".join(f"{v.arch}: [{STYLES[v.migration_class]}]{v.migration_class}[/]" for v in w.verdicts) \
            if several else f"[{STYLES[w.migration_class]}]{w.migration_class}[/]"
        table.add_row(escape(terminal(w.name)), w.kind, classes,
                      f"{w.effort.low:.1f}–{w.effort.high:.1f}" if w.effort.likely else "none",
                      escape(terminal(_top_reason(w))))
    if len(shown) < len(report.workloads):
        rest = sum_effort(w.effort for w in report.workloads if w not in shown)
        table.add_row(f"{len(report.workloads) - len(shown)} others", "", "", f"{rest.low:.1f}–{rest.high:.1f}", "")
    return table


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _plan_line(plan: dict) -> str:  # type: ignore[type-arg]
    steps = plan["steps"]
    if not steps:
        return "Plan: nothing to port."
    first = ", ".join(s["workload"] for s in steps[:3]) + (" …" if len(steps) > 3 else "")
    share = plan["automatic_share"]
    auto = f"; hipify converts {share:.0%} of the CUDA references" if share is not None else ""
    counts = (f"{_count(len(plan['milestones']), 'milestone')}, {_count(len(steps), 'step')}, "
              f"{_count(len(plan['risks']), 'risk')}")
    return (f"Plan: {counts}{auto}; "
            f"start with {first} (--plan for the steps)")


def _plan(plan: dict) -> list[str]:  # type: ignore[type-arg]
    lines = ["Migration plan:"]
    steps = {s["order"]: s for s in plan["steps"]}
    for m in plan["milestones"]:
        e = m["effort_hours"]
        lines.append(f"  {m['name']} {m['title']}: {e['low']:.1f}–{e['high']:.1f} h (likely {e['likely']:.1f} h)")
        for order in m["steps"][:PLAN_STEPS]:
            s = steps[order]
            auto = "" if s["automatic_share"] is None else f", hipify {s['automatic_share']:.0%}"
            hand = "; ".join(f"{h['rule']} ×{h['occurrences']}" for h in s["hand_work"][:3])
            lines.append(f"    {order}. {s['workload']} ({s['class']}, {s['effort_hours']['likely']:.1f} h{auto})"
                         + (f": by hand {hand}" if hand else "") + (f"; {s['compiler']}" if s.get("compiler") else ""))
        if len(m["steps"]) > PLAN_STEPS:
            lines.append(f"    … and {len(m['steps']) - PLAN_STEPS} more steps (see --format json)")
    for r in plan["risks"]:
        lines.append(f"  risk {r['id']}: {r['rule']} {r['title']} ×{r['occurrences']}: {r['decision']}")
    return lines


def _ported_and_optional(report: Report) -> list[str]:
    """"ROCm path present" lines (one per distinct evidence list) and the optional parts."""
    lines: list[str] = []
    shown: set[tuple[str, ...]] = set()
    for w in report.workloads:
        if w.rocm_path and w.rocm_path not in shown:
            shown.add(w.rocm_path)
            lines.append("ROCm path present: " + ", ".join(w.rocm_path))
    lines += route_lines(report.workloads)
    for w in report.workloads:
        if w.optional:
            lines.append(f"Optional workload {w.name}: {w.migration_class}")
        for part in w.optional_parts:
            why = "".join(f"; {e}" for e in part.evidence[:2])
            cost = (f"; {part.effort.low:.1f}–{part.effort.high:.1f} h, likely {part.effort.likely:.1f} h, apart "
                    "from the headline" if part.effort.likely else "")
            lines.append(f"Optional part of {w.name}: {part.root}: {part.migration_class} "
                         f"({_count(part.findings, 'finding')}{cost}{why})")
        for c in w.components:
            routes = ", ".join(name for name, _ in c.alternatives[:3])
            what = f"rewrite ({c.band})" if c.kind == "rewrite" else f"ported elsewhere ({c.route})"
            lines.append(f"{what} in {w.name}: {c.title} -> {routes}")
    return lines


def route_lines(workloads: Sequence[Workload]) -> list[str]:
    """Each workload whose route is not the default port or that has an alternative, and each route note and
    caveat once (ZLUDA on Radeon, why SCALE was not offered, SCALE's caveats)."""
    lines: list[str] = []
    notes: list[str] = []
    for w in workloads:
        route = w.route or {}
        alternative = route.get("alternative")
        if route.get("route", "port") != "port":
            lines.append(f"Route for {w.name}: {label(route)}: {route['why']}")
        elif alternative:
            evidence = "; ".join(alternative["evidence"])
            lines.append(f"Route for {w.name}: {label(route)}: {alternative['why']} ({evidence})")
        notes += [n for n in route.get("notes", ()) if n not in notes]
        if alternative:
            caveats = [f"{alternative['via']} caveat: {c}" for c in alternative.get("caveats", ())]
            notes += [c for c in caveats if c not in notes]
    return lines + [f"Note: {n}" for n in notes]


def _top_reason(w: Workload) -> str:
    verdict = max(w.verdicts, key=lambda v: class_rank(v.migration_class))
    if verdict.chain:
        return f"via {verdict.chain[0]} … {verdict.chain[-1]}" if len(verdict.chain) > 1 else verdict.chain[0]
    if not verdict.reasons:
        return "-"
    first = verdict.reasons[0]
    more = f" (+{len(verdict.reasons) - 1})" if len(verdict.reasons) > 1 else ""
    return f"{first.rule} {first.symbol} at {first.path}:{first.line}{more}"


def _differences(report: Report) -> Table | None:
    rows = target_differences(report)
    if not rows:
        return None
    table = Table(title="What changes between targets", title_justify="left")
    for column in ("rule", "only on", "findings"):
        table.add_column(column)
    for row in rows:
        table.add_row(row["rule"], ", ".join(row["targets"]), str(row["findings"]))
    return table
