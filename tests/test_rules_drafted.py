"""Rules are made by model.slot_builder from their fields by name (rulebase/load.py _build):
each is the object Rule's own constructor makes from the same fields, every field set, frozen."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from migrate.rulebase import load, precompiled
from migrate.rulebase.load import Matcher, Rule


def _constructed(rule: Rule) -> Rule:
    """The same rule made by the dataclasses' constructors (every field read: an unset slot raises)."""
    matcher = Matcher(**{f.name: getattr(rule.matcher, f.name) for f in dataclasses.fields(Matcher)})
    fields = {f.name: getattr(rule, f.name) for f in dataclasses.fields(Rule)}
    return Rule(**{**fields, "matcher": matcher})


@pytest.mark.parametrize("source", ["compiled", "yaml"])
def test_every_rule_is_what_its_constructor_makes(source: str, tmp_path: Path) -> None:
    rulebase = precompiled.load(None, tmp_path) if source == "compiled" else load.load_rules()
    assert len(rulebase.rules) > 400
    for rule in rulebase.rules:
        made = _constructed(rule)
        assert type(rule) is Rule and type(rule.matcher) is Matcher
        assert rule == made and repr(rule) == repr(made) and rule.matcher == made.matcher


def test_a_drafted_rule_is_frozen_and_replace_works(tmp_path: Path) -> None:
    rule = precompiled.load(None, tmp_path).rules[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rule.id = "HIP9999"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rule.matcher.kind = "other"  # type: ignore[misc]
    assert dataclasses.replace(rule, title="t").title == "t" and rule.title != "t"


def test_the_makers_fill_the_slots_of_their_classes_in_field_order() -> None:
    assert Rule.__slots__ == tuple(f.name for f in dataclasses.fields(Rule))
    assert Matcher.__slots__ == tuple(f.name for f in dataclasses.fields(Matcher))


def test_a_field_left_unset_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """What test_every_rule_is_what_its_constructor_makes catches when _build forgets a field."""
    record = {"id": "HIP9998", "name": "probe", "title": "t", "match": {"identifier": {"exact": ["cudaProbe"]}},
              "class": "minor-adaptation", "hip": None, "hipify": "yes", "effort": {"per_occurrence": 0.1,
              "first_use": 0.0}, "confidence": "high", "status": "stable", "rationale": "r", "docs": "d"}
    rule = load._build(record, "probe.yaml")
    assert _constructed(rule) == rule
    fields = {f.name: getattr(rule, f.name) for f in dataclasses.fields(Rule)}
    del fields["name"]
    with pytest.raises(KeyError):  # a field _build forgets is no object at all
        load._made(load._make_rule, Rule.__slots__, fields)
