"""The JSON report: the contract other tools read (schema in docs/report.schema.json)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from migrate import jsonio, schemas
from migrate.model import SCHEMA_VERSION, Effort, Finding, class_rank, worst_class
from migrate.model_report import Component, Project, Report, Workload, required_class
from migrate.render.summary import confidence, rewrite_costs
from migrate.safetext import json_escaped

FINDINGS_STAND_IN = "\0rocm-migrate: the findings\0"  # where chunks() puts the findings, one by one


def to_json(report: Report, *, findings: bool = True, ids: dict[Finding, str] | None = None) -> dict[str, Any]:
    """`ids`: `report.finding_ids()`, where the caller has it already."""
    ids = report.finding_ids() if ids is None else ids
    return {
        "$schema": schemas.schema_id(schemas.REPORT),
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "rocm-migrate", "version": report.tool_version, "rules_version": report.rules_version},
        "target": {"rocm": report.target.rocm, "arch": list(report.target.arch)},
        "source": {"commit": report.commit, "scanned_at": report.scanned_at if report.timing else None},
        "summary": _summary(report),
        "effort": _effort(report),
        "plan": report.plan,
        "projects": [_project(report, p) for p in report.projects],
        "workloads": [_workload(w, ids) for w in report.workloads],
        "findings": [f.to_json(ids[f]) for f in report.findings] if findings else FINDINGS_STAND_IN,
        "skipped": [s.to_json() for s in report.skipped],
        "hipify": _hipify(report),
        "compile": _compile(report),
        "stack": report.stack,
        "notes": list(report.notes),
    }


def _hipify(report: Report) -> dict[str, Any]:
    if report.hipify is None:
        return {"used": False}
    block = report.hipify.to_json()
    return block if report.timing else {**block, "seconds": None}  # `scan --timing`: not reproducible


def _compile(report: Report) -> dict[str, Any]:
    """`check`: what hip-clang said about the converted copy (`{"used": false}` for a scan)."""
    if report.compile is None:
        return {"used": False}
    block = {"used": True, **report.compile.to_json()}
    return block if report.timing else {**block, "seconds": None}


def _summary(report: Report) -> dict[str, Any]:
    by_target = {}
    for index, arch in enumerate(report.target.arch):
        verdicts = [w.verdicts[index] for w in report.workloads if not w.optional]
        by_target[arch] = {"class": worst_class(v.migration_class for v in verdicts),
                           "effort_hours": _sum([*(v.effort for v in verdicts),
                                                 *(p.effort for p in report.project_costs)]).to_json()}
    return {
        "class": report.migration_class,
        "files_scanned": report.files_scanned,
        "files_skipped": len(report.skipped),
        "findings": len(report.findings),
        "lines": report.lines,
        "seconds": report.seconds if report.timing else None,  # `scan --timing`: not reproducible
        "effort_hours": report.effort.to_json(),
        "by_class": dict(sorted(Counter(f.cls for f in report.findings).items())),
        "by_target": by_target,
        "target_differences": target_differences(report),
    }


def _effort(report: Report) -> dict[str, Any]:
    """Where the headline effort comes from: workloads once each, project costs once each."""
    return {
        "total_hours": report.effort.to_json(),
        "workloads_hours": report.workload_effort.to_json(),
        "hand_work_hours": report.hand_effort.to_json(),
        "validation_hours": report.validation_effort.to_json(),
        "optional_hours": report.optional_effort.to_json(),
        "rewrite_hours": report.rewrite_effort.to_json(),
        "rewrites": rewrite_costs(report),
        "projects": [{"name": p.name, "class": p.migration_class, "kloc": p.kloc, "effort_hours": p.effort.to_json(),
                      "effort_breakdown": [{"item": i.label, "hours": i.hours} for i in p.breakdown]}
                     for p in report.project_costs],
        "confidence": confidence(report),
    }


def target_differences(report: Report) -> list[dict[str, Any]]:
    """Rules whose findings apply to some of the targets only: what changes between them."""
    if len(report.target.arch) < 2:
        return []
    rows: dict[tuple[str, tuple[str, ...]], int] = Counter(
        (f.rule, f.targets) for f in report.findings if len(f.targets) < len(report.target.arch))
    return [{"rule": rule, "targets": list(targets), "findings": count}
            for (rule, targets), count in sorted(rows.items())]


def _workload(w: Workload, ids: dict[Finding, str]) -> dict[str, Any]:
    worst = max(w.verdicts, key=lambda v: class_rank(v.migration_class))
    # each verdict's reasons looked up once (one lookup a finding, not two): the worst is one of the verdicts
    reasons = {id(v): _ids(v.reasons, ids) for v in w.verdicts}
    return {
        "name": w.name, "root": w.root, "kind": w.kind, "class": w.migration_class,
        "reasons": reasons[id(worst)],
        "reason_rules": sorted({f.rule for f in worst.reasons}),
        "chain": list(worst.chain),
        "effort_hours": w.effort.to_json(),
        "effort_breakdown": [{"item": i.label, "hours": i.hours} for i in w.primary.breakdown],
        "files": list(w.files), "depends_on": list(w.depends_on),
        "rocm_path": list(w.rocm_path), "optional": w.optional,
        "optional_parts": [p.to_json() for p in w.optional_parts],
        "route": w.route,
        "components": [_component(c, ids) for c in w.components],
        "targets": {v.arch: {"class": v.migration_class, "own_class": v.own_class,
                             "reasons": list(reasons[id(v)]), "chain": list(v.chain),
                             "effort_hours": v.effort.to_json()} for v in w.verdicts},
    }


def _ids(findings: Iterable[Finding], ids: dict[Finding, str]) -> list[str]:
    """The ids of those findings that have one, in order."""
    return [i for f in findings if (i := ids.get(f)) is not None]


def _component(c: Component, ids: dict[Finding, str]) -> dict[str, Any]:
    return {"kind": c.kind, "id": c.id, "title": c.title, "class": c.migration_class, "band": c.band,
            "route": c.route, "alternatives": [{"name": name, "url": url} for name, url in c.alternatives],
            "findings": _ids(c.findings, ids), "rules": sorted({f.rule for f in c.findings}),
            "files": list(c.files), "evidence": list(c.evidence), "optional": c.optional, "source": c.source}


def _project(report: Report, project: Project) -> dict[str, Any]:
    members = [w for w in report.workloads if w.name in project.workloads]
    return {"name": project.name, "root": project.root,
            "class": required_class(members),
            "effort_hours": _sum([*(w.effort for w in members),
                                  *(c.effort for c in report.project_costs if c.name == project.name)]).to_json(),
            "workloads": list(project.workloads),
            "commit": project.commit}


def _sum(efforts: Iterable[Effort]) -> Effort:
    items = list(efforts)
    return Effort(low=sum(e.low for e in items), likely=sum(e.likely for e in items), high=sum(e.high for e in items))


def render(report: Report) -> str:
    return "".join(chunks(report))


def chunks(report: Report) -> Iterator[str]:
    """`_chunks`, with invisible characters (bidi, tags) written as \\uXXXX escapes."""
    return (json_escaped(piece) for piece in _chunks(report))


FINDINGS_AT_ONCE = 256  # findings encoded in one call: bounded memory, without a call and a copy per finding


def _chunks(report: Report) -> Iterator[str]:
    """The report's text in pieces, the findings FINDINGS_AT_ONCE at a time (most of a big report),
    so that neither all the findings' JSON objects nor the whole text need to be held at once. The
    pieces join to exactly json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n"."""
    ids = report.finding_ids()
    head, *rest = jsonio.dumps_indented(to_json(report, findings=False, ids=ids)).split(
        jsonio.dumps_indented(FINDINGS_STAND_IN))
    if len(rest) != 1:  # the stand-in also appears elsewhere: no shortcut
        yield jsonio.dumps_indented(to_json(report)) + "\n"
        return
    yield head
    if not report.findings:
        yield "[]"
    else:
        findings = report.findings
        distinct = len(ids) == len(findings)  # no two findings equal: each one's id is its place, F1 on
        for start in range(0, len(findings), FINDINGS_AT_ONCE):
            batch = findings[start:start + FINDINGS_AT_ONCE]
            # "[\n  {...},\n  {...}\n]": the brackets off, every line two spaces deeper
            text = jsonio.dumps_indented([f.to_json(f"F{n}") for n, f in enumerate(batch, start + 1)] if distinct
                                         else [f.to_json(ids[f]) for f in batch])
            yield ("[\n    " if start == 0 else ",\n    ") + text[4:-2].replace("\n", "\n  ")
        yield "\n  ]"
    yield rest[0] + "\n"
