"""The rules generated from HIPIFY's tables are current and cover every table row."""
from __future__ import annotations

import csv
import importlib.util
import sys

import pytest

from tests.conftest import ROOT, SHARED

TABLES = SHARED / "reference" / "hipify-tables-7" / "hipify_tables_flat.csv"
pytestmark = pytest.mark.skipif(not TABLES.exists(), reason=f"HIPIFY tables not found at {TABLES}")


def generator():
    spec = importlib.util.spec_from_file_location("generate_rules", ROOT / "scripts" / "generate_rules.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_generated_files_are_current() -> None:
    stale = [p for p, text in generator().outputs(TABLES).items() if not p.exists() or p.read_text() != text]
    assert not stale, "run scripts/generate_rules.py: " + ", ".join(str(p.relative_to(ROOT)) for p in stale)


def test_every_table_row_has_a_rule(rulebase) -> None:
    gen = generator()
    covered: dict[str, str] = {}
    for rule in rulebase.rules:
        for name in rule.matcher.entries:
            covered.setdefault(name, rule.id)
    with TABLES.open(newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["api"] in {a.key for a in gen.APIS}]
    assert rows
    missing = [r["cuda_name"] for r in rows if r["cuda_name"] not in covered]
    assert not missing
    for row in rows:
        rule = rulebase.get(covered[row["cuda_name"]])
        assert (rule.migration_class == "incompatible") == (not row["hip_name"]), row["cuda_name"]
        if row["hip_name"]:
            assert rule.matcher.entries[row["cuda_name"]].hip == row["hip_name"]
