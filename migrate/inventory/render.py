"""The inventory as JSON (schema: docs/inventory.schema.json) and CSV: pure functions of an Inventory."""
from __future__ import annotations

import csv
import io
import json
from typing import Any

from migrate import __version__
from migrate.inventory.merge import INVENTORY_SCHEMA_VERSION, Inventory
from migrate.safetext import csv_cell, json_escaped

CSV_COLUMNS = ("name", "source", "owner", "status", "class", "effort_low", "effort_likely", "effort_high",
               "findings", "lines", "files", "workloads", "top_blockers", "stack", "hipify_coverage",
               "scanned_at", "commit", "rules_version", "error")


def to_json(inventory: Inventory) -> dict[str, Any]:
    return {
        "schema_version": INVENTORY_SCHEMA_VERSION,
        "tool": {"name": "rocm-migrate", "version": __version__},
        "totals": inventory.totals(),
        "by_owner": inventory.by_owner(),
        "blockers": [{"rule": b.rule, "title": inventory.rule_titles.get(b.rule, ""), "class": b.migration_class,
                      "findings": b.findings, "repo_count": len(b.repos), "repos": list(b.repos)}
                     for b in inventory.blockers],
        "repos": [r.to_json() for r in inventory.repos],
    }


def render_json(inventory: Inventory) -> str:
    return json_escaped(json.dumps(to_json(inventory), indent=1, ensure_ascii=False)) + "\n"


def render_csv(inventory: Inventory) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(CSV_COLUMNS)
    for r in inventory.repos:
        effort = [r.effort.get(k, "") for k in ("low", "likely", "high")]
        writer.writerow([csv_cell(v) for v in (
            r.name, r.source, r.owner or "", r.status, r.migration_class or "", *effort, r.findings, r.lines, r.files,
            r.workloads, ";".join(b.rule for b in r.blockers), r.stack or "",
            "" if r.hipify_coverage is None else r.hipify_coverage, r.scanned_at or "", r.commit or "",
            r.rules_version or "", r.error or "")])
    return out.getvalue()
