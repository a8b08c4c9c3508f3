"""Views of a report shared by the human-readable renderers."""
from __future__ import annotations

from collections import Counter
from typing import Any

from migrate.model import CLASSES, Effort, Finding, class_rank, sum_effort
from migrate.model_report import Report, Workload

CONFIDENCE_RANK = {"low": 0, "medium": 1, "high": 2}
MANUAL_RANK = {"yes": 0, "partial": 1, "no": 2}  # what hipify does not fix is the harder part


def by_class(report: Report) -> dict[str, int]:
    """Workloads per class, in class order."""
    counts = Counter(w.migration_class for w in report.workloads)
    return {c: counts.get(c, 0) for c in CLASSES}


def blockers(report: Report, limit: int) -> list[tuple[Finding, int]]:
    """The hardest rules (migration-required and worse, not ported), by expected hand work (ranked_rules)."""
    worse = [f for f in report.findings if class_rank(f.cls) >= class_rank("migration-required") and f.status != "ported"]
    return ranked_rules(report, worse)[:limit]


def ranked_rules(report: Report, findings: list[Finding]) -> list[tuple[Finding, int]]:
    """One row per rule of `findings` (its first finding as the example, and its count), by expected hand work
    (Report.hand_work_order: worst class first, mechanical changes last, then the rule's hand hours), then the
    most occurrences. Count and example are the required code's, whose hours the rule's figure is, where the
    rule has findings there; a rule found only in optional parts and workloads comes after those that are not."""
    order = report.hand_work_order()
    optional = {w.name for w in report.workloads if w.optional}
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    rows = []
    for rule, found in by_rule.items():
        required = [f for f in found if f.status != "optional" and f.workload not in optional]
        shown = required or found
        rows.append(((not required, *order(shown[0]), -MANUAL_RANK[shown[0].hipify], -len(shown),
                      -CONFIDENCE_RANK[shown[0].confidence], rule), shown[0], len(shown)))
    return [(example, count) for _, example, count in sorted(rows, key=lambda row: row[0])]


def top_workloads(report: Report, limit: int) -> tuple[list[Workload], Effort | None, int]:
    """The `limit` largest workloads by likely effort, and the others' total (None when none are left); one
    workload past the limit is shown itself, never as "1 others"."""
    ranked = sorted(report.workloads, key=lambda w: (-w.effort.likely, w.name))
    cut = limit if len(ranked) > limit + 1 else len(ranked)
    rest = ranked[cut:]
    return ranked[:cut], (sum_effort(w.effort for w in rest) if rest else None), len(rest)


def optional_costs(report: Report) -> list[dict[str, Any]]:
    """What is costed apart from the headline (Report.optional_effort), one row each: the optional parts of
    required workloads (a build switch's CUDA back end, a tests/ folder), each a port of its own (its
    findings, build files, glue), then the optional workloads; most hours first."""
    rows = [{"workload": w.name, "part": p.root, "class": p.migration_class, "findings": p.findings,
             "effort": p.effort, "largest": p.breakdown[0].label if p.breakdown else ""}
            for w in report.workloads if not w.optional for p in w.optional_parts]
    rows += [{"workload": w.name, "part": "(optional workload)", "class": w.migration_class,
              "findings": sum(1 for f in report.findings if f.workload == w.name), "effort": w.effort,
              "largest": w.primary.breakdown[0].label if w.primary.breakdown else ""}
             for w in report.workloads if w.optional]
    return sorted(rows, key=lambda r: (-r["effort"].likely, r["workload"], r["part"]))


def optional_gpu_line(report: Report) -> str:
    """Where the headline has no porting work but optional parts of required workloads hold porting work of their own
    (a build switch's CUDA back end off by default: bricklib, covfie, pwdft), one sentence beside the headline naming
    the largest such part and its estimate, the same figures as its row in the optional-parts table: a port of that
    part is what the measured ports of such bases did (s19, decision 2026-12-06-s19-effort-optional-part-ports).
    Empty otherwise."""
    if report.hand_effort.likely:
        return ""
    parts = sorted(((w.name, p) for w in report.workloads if not w.optional for p in w.optional_parts
                    if p.effort.likely), key=lambda wp: (-wp[1].effort.likely, wp[0], wp[1].root))
    if not parts:
        return ""
    name, part = parts[0]
    effort = part.effort
    more = f", the largest of {len(parts)} optional parts with porting work" if len(parts) > 1 else ""
    return (f"The default build has no CUDA to port; porting its optional part {part.root} of {name} "
            f"({part.migration_class}){more} costs {effort.low:.1f}–{effort.high:.1f} h (likely {effort.likely:.1f} h), "
            "apart from the headline.")


def rewrite_costs(report: Report) -> list[dict[str, Any]]:
    """The rewrite components of required workloads (Report.rewrite_effort), one row each with its band's likely
    hours: a later milestone, apart from the headline; most hours first."""
    rows = [{"workload": w.name, "item": i.label, "hours": i.hours}
            for w in report.workloads if not w.optional for i in w.primary.rewrite_breakdown]
    return sorted(rows, key=lambda r: (-r["hours"], r["workload"], r["item"]))


def confidence(report: Report) -> dict[str, Any]:
    """How far the estimate can be trusted: the share of its likely hours that rests on measured
    constants, how much of the C/C++/CUDA hipify-perl was seen converting, whether libclang checked."""
    total = report.effort.likely
    required = [w for w in report.workloads if not w.optional]
    calibrated = sum(w.primary.calibrated for w in required) + sum(p.calibrated for p in report.project_costs)
    share = calibrated / total if total else 1.0
    coverage = [c for c in (report.hipify.coverage.values() if report.hipify else ()) if c.references]
    hipify_share = sum(c.converted for c in coverage) / sum(c.references for c in coverage) if coverage else None
    level = "high" if share >= 0.7 and hipify_share is not None and report.precise else \
        "medium" if share >= 0.5 else "low"
    parts = [f"{share:.0%} of the likely hours rest on constants measured on real ports"]
    parts.append(f"hipify-perl converted {hipify_share:.0%} of the CUDA references it was run on"
                 if hipify_share is not None else "hipify-perl found no CUDA references to convert"
                 if report.hipify is not None else "hipify-perl was not run, so its automatic share is the rule base's claim")
    parts.append("libclang confirmed the findings" if report.precise else "findings were not checked with libclang (--precise)")
    if report.compile is not None:  # `check`: errors no rule explains lower the confidence one step
        misses = report.compile.count("miss")
        if misses:
            level = {"high": "medium", "medium": "low"}.get(level, level)
        parts.append(f"hip-clang passed {report.compile.passed} of {len(report.compile.units)} translation unit "
                     f"compiles after hipify alone and rejected {misses} lines no rule explains")
    return {"level": level, "calibrated_share": round(share, 3),
            "hipify_measured_share": None if hipify_share is None else round(hipify_share, 3),
            "precise": report.precise, "statement": "; ".join(parts) + "."}


COMPILE_ERRORS_SHOWN = 10


def compile_lines(report: Report) -> list[str]:
    """`check`: the compiler's answer in a few plain lines (terminal and Markdown show them; HTML too)."""
    block = report.compile
    if block is None:
        return []
    device = "front end and device compile" if block.device_code else "front end only"
    lines = [f"hip-clang: {block.toolchain} (HIP {block.hip_version or '?'}, clang {block.clang_version or '?'}; "
             f"{device}; flags: {block.flags_from})",
             f"{block.passed} of {len(block.units)} translation unit compiles ({', '.join(block.archs)}) pass after "
             f"hipify alone; {block.checked} checked; errors: {block.count('confirmed')} confirm a finding, "
             f"{block.count('miss')} misses (compiler-error-unpredicted), {block.count('newer-rocm')} need a newer ROCm, "
             f"{block.count('not-checked')} not checked, {block.count('toolchain')} in the toolchain's headers"]
    lines += list(block.not_checked[:COMPILE_ERRORS_SHOWN])
    shown = [e for e in block.errors if e.meaning in ("miss", "confirmed", "newer-rocm")][:COMPILE_ERRORS_SHOWN]
    lines += [f"{e.path}:{e.line}: {e.meaning}: {e.message} ({e.why})" for e in shown]
    return lines
