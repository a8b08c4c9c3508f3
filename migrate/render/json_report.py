"""The JSON report: the contract other tools read (schema in docs/report.schema.json)."""
from __future__ import annotations

import json
from collections import Counter

from migrate.model import SCHEMA_VERSION, Report


def to_json(report: Report) -> dict:
    ids = report.finding_ids()
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "rocm-migrate", "version": report.tool_version, "rules_version": report.rules_version},
        "target": {"rocm": report.target.rocm, "arch": list(report.target.arch)},
        "summary": {
            "class": report.migration_class,
            "files_scanned": report.files_scanned,
            "files_skipped": len(report.skipped),
            "findings": len(report.findings),
            "lines": report.lines,
            "seconds": report.seconds,
            "effort_hours": report.effort.to_json(),
            "by_class": dict(sorted(Counter(f.migration_class for f in report.findings).items())),
        },
        "workloads": [
            {
                "name": w.name, "root": w.root, "kind": w.kind, "class": w.migration_class,
                "reasons": [ids[f] for f in w.reasons],
                "reason_rules": sorted({f.rule for f in w.reasons}),
                "effort_hours": w.effort.to_json(),
                "files": list(w.files), "depends_on": list(w.depends_on),
            }
            for w in report.workloads
        ],
        "findings": [f.to_json(ids[f]) for f in report.findings],
        "skipped": [s.to_json() for s in report.skipped],
        "notes": list(report.notes),
    }


def render(report: Report) -> str:
    return json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n"
