"""The inventory as one self-contained HTML page: totals rendered here, the repository table
rendered in the browser from embedded JSON (paging, sorting, filtering) so 5,000 rows stay fast."""
from __future__ import annotations

import json

from migrate import __version__
from migrate.inventory.merge import Inventory
from migrate.model import CLASSES
from migrate.render.templates import environment
from migrate.safetext import visible_data

TOP_SHARED = 25
ROW_FIELDS = ("name", "owner", "status", "class", "likely", "low", "high", "findings", "lines", "blockers",
              "stack", "hipify", "scanned_at", "commit", "rules_version", "error")


def render(inventory: Inventory) -> str:
    rows = [[r.name, r.owner or "", r.status, r.migration_class or "", r.effort.get("likely"), r.effort.get("low"),
             r.effort.get("high"), r.findings, r.lines, " ".join(b.rule for b in r.blockers), r.stack or "",
             r.hipify_coverage, r.scanned_at or "", (r.commit or "")[:12], r.rules_version or "", r.error or ""]
            for r in inventory.repos]
    data = json.dumps(visible_data({"fields": ROW_FIELDS, "rows": rows}), ensure_ascii=False, separators=(",", ":"))
    template = environment(autoescape=True).get_template("inventory.html.j2")
    return template.render(
        version=__version__, classes=CLASSES, totals=inventory.totals(), by_owner=inventory.by_owner(),
        shared=list(inventory.blockers[:TOP_SHARED]), titles=inventory.rule_titles,
        owners=sorted({r.owner for r in inventory.repos if r.owner}),
        data=data.replace("<", "\\u003c"),  # nothing in the data can close the script element
    )
