"""The terminal summary: class, counts per class, top rules, workloads and skipped files."""
from __future__ import annotations

import io
from collections import Counter

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from migrate.model import CLASSES, Report, Workload, class_rank
from migrate.render.json_report import target_differences
from migrate.safetext import terminal

STYLES = {"native": "green", "minor-adaptation": "cyan", "migration-required": "yellow", "incompatible": "bold red"}
TOP_RULES = 10
TOP_SKIPPED = 10


def render(report: Report, *, color: bool = False, width: int = 100) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=color, no_color=not color, highlight=False)
    effort = report.effort
    console.print(f"[bold]rocm-migrate[/] {report.tool_version} · target ROCm {report.target.rocm} "
                  f"on {', '.join(report.target.arch)}")
    console.print(f"Scanned {report.files_scanned} files ({report.lines} lines) in {report.seconds:.2f}s; "
                  f"{len(report.skipped)} skipped; {len(report.findings)} findings.")
    console.print(f"Class: [{STYLES[report.migration_class]}]{report.migration_class}[/]   "
                  f"Effort: {effort.low:.1f}–{effort.high:.1f} h (likely {effort.likely:.1f} h)")
    console.print(_by_class(report))
    if report.findings:
        console.print(_top_rules(report))
    console.print(_workloads(report))
    for line in _ported_and_optional(report):
        console.print(line, markup=False)
    if (differences := _differences(report)) is not None:
        console.print(differences)
    if report.stack.get("pins") or report.stack.get("images"):
        from migrate.render.stack_view import compact

        for line in compact(report.stack):
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


def _top_rules(report: Report) -> Table:
    counts = Counter(f.rule for f in report.findings)
    example = {f.rule: f for f in reversed(report.findings)}
    table = Table(title="Top rules", title_justify="left")
    for column in ("rule", "class", "count", "example"):
        table.add_column(column, justify="right" if column == "count" else "left")
    for rule, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_RULES]:
        f = example[rule]
        table.add_row(rule, f"[{STYLES[f.migration_class]}]{f.migration_class}[/]", str(count),
                      escape(terminal(f"{f.path}:{f.line} {f.symbol}")))
    return table


def _workloads(report: Report) -> Table:
    table = Table(title="Workloads", title_justify="left")
    for column in ("workload", "kind", "class", "effort (h)", "top reason"):
        table.add_column(column)
    several = len(report.target.arch) > 1
    for w in report.workloads:
        classes = " / ".join(f"{v.arch}: [{STYLES[v.migration_class]}]{v.migration_class}[/]" for v in w.verdicts) \
            if several else f"[{STYLES[w.migration_class]}]{w.migration_class}[/]"
        table.add_row(escape(terminal(w.name)), w.kind, classes, f"{w.effort.low:.1f}–{w.effort.high:.1f}",
                      escape(terminal(_top_reason(w))))
    return table


def _ported_and_optional(report: Report) -> list[str]:
    """"ROCm path present" lines (one per distinct evidence list) and the optional parts."""
    lines: list[str] = []
    shown: set[tuple[str, ...]] = set()
    for w in report.workloads:
        if w.rocm_path and w.rocm_path not in shown:
            shown.add(w.rocm_path)
            lines.append("ROCm path present: " + ", ".join(w.rocm_path))
    for w in report.workloads:
        if w.optional:
            lines.append(f"Optional workload {w.name}: {w.migration_class}")
        for part in w.optional_parts:
            lines.append(f"Optional part of {w.name}: {part.root}: {part.migration_class} ({part.findings} findings)")
    return lines


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
