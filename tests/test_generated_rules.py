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
    """Each row maps to a rule: a generated one that agrees with the table, or a hand-written one."""
    gen = generator()
    covered: dict[str, tuple] = {}
    for rule in rulebase.rules:
        if rule.matcher.kind == "identifier":
            for name in (*rule.matcher.entries, *rule.matcher.exact):
                covered.setdefault(name, (rule, rule.matcher.entries.get(name)))
    order = {api.key: i for i, api in enumerate(gen.APIS)}
    with TABLES.open(newline="") as handle:
        rows = sorted((r for r in csv.DictReader(handle) if r["api"] in order), key=lambda r: order[r["api"]])
    assert len(rows) > 10000
    first = {}
    for row in rows:
        first.setdefault(row["cuda_name"], row)  # a name in two tables is generated from the first
    prefixes = {p: rule for rule in rulebase.rules if rule.matcher.kind == "identifier" for p in rule.matcher.prefixes}
    reviews = gen.reviews()  # read once: parsing reviewed.yaml for each of ~10k rows took minutes
    for row in rows:
        if row["cuda_name"] not in covered:
            rule = next((r for p, r in prefixes.items() if row["cuda_name"].startswith(p)), None)
            assert rule is not None, f"no rule for {row['cuda_name']}"
            covered[row["cuda_name"]] = (rule, None)
    for row in first.values():
        rule, entry = covered[row["cuda_name"]]
        if not rule.file.startswith("hipify-"):
            continue  # a hand-written rule knows more than the table (e.g. device hazards)
        target = gen.target_of(row)[0]
        types = "type" in row["section_title"].lower()
        reviewed = reviews.get(rule.id, {}).get("class")  # rules/alternatives/reviewed.yaml decides
        expected_incompatible = reviewed == "incompatible" if reviewed else not target and not types
        assert (rule.migration_class == "incompatible") == (not target and expected_incompatible), row["cuda_name"]
        if target:
            assert entry.hip == target, row["cuda_name"]
