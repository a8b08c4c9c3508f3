"""The vocabulary is written once (migrate/vocabulary.py): every fact an extractor emits on the
fixtures uses a known kind, role and construct name, and every rule names known ones."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate import vocabulary
from migrate.extract import extract
from migrate.rulebase.load import load_rules, schema
from migrate.scan.discover import file_kind
from tests.conftest import ROOT

FIXTURES = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.is_file() and file_kind(p))


@pytest.fixture(scope="module")
def facts() -> list[tuple[Path, str, str, str]]:
    out = []
    for path in FIXTURES:
        extraction = extract(file_kind(path) or "", path.read_bytes())
        out += [(path, f.kind, f.name, f.role) for f in extraction.facts]
    return out


def test_fixtures_cover_many_files(facts: list[tuple[Path, str, str, str]]) -> None:
    assert len(FIXTURES) > 300
    emitted = {kind for _, kind, _, _ in facts}
    assert (set(vocabulary.FACT_KINDS) | set(vocabulary.STRUCTURE_KINDS)) - emitted <= {"stack"}  # stack: no extractor


def test_every_emitted_kind_role_and_construct_is_in_the_vocabulary(facts: list[tuple[Path, str, str, str]]) -> None:
    unknown = sorted({(kind, name) for _, kind, name, _ in facts
                      if kind not in {**vocabulary.FACT_KINDS, **vocabulary.STRUCTURE_KINDS}
                      or (kind == "construct" and name not in vocabulary.CONSTRUCTS)})
    assert not unknown, f"add these to migrate/vocabulary.py: {unknown}"
    roles = sorted({role for _, _, _, role in facts if role and not vocabulary.role_known(role)})
    assert not roles, f"add these roles to migrate/vocabulary.py: {roles}"


def test_a_role_family_is_known_only_with_its_value() -> None:
    assert vocabulary.role_known("local:12-30") and vocabulary.role_known("call")
    assert not vocabulary.role_known("local") and not vocabulary.role_known("nonlocal:1-2")


def test_every_rule_uses_the_vocabulary() -> None:
    for rule in load_rules().rules:
        assert rule.matcher.kind in vocabulary.FACT_KINDS, rule.id
        if rule.matcher.kind == "construct":
            assert set(rule.matcher.names()) <= set(vocabulary.CONSTRUCTS), rule.id


def test_the_schema_enums_come_from_the_vocabulary() -> None:
    data = schema()
    assert list(data["$defs"]["rule"]["properties"]["match"]["properties"]) == list(vocabulary.FACT_KINDS)
    assert data["$defs"]["matcher"]["properties"]["roles"]["items"]["enum"] == list(vocabulary.ROLES)
    assert data["$defs"]["constructMatcher"]["properties"]["map"]["propertyNames"]["enum"] == list(vocabulary.CONSTRUCTS)
