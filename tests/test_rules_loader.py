"""Rule files are validated; a bad one stops with one line naming file, rule and field."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.rulebase.load import RuleError, load_rules
from tests.conftest import run_cli

GOOD = """- id: HIP9990
  name: demo-rule
  title: A demo rule
  match: {identifier: {exact: cudaDemo}}
  class: migration-required
  hip: hipDemo
  hipify: "yes"
  effort: {per_occurrence: 0.1, first_use: 0.5}
  confidence: high
  status: stable
  rationale: Demonstrates the format.
  docs: https://example.org/demo
"""


def write(tmp_path: Path, text: str, name: str = "demo.yaml") -> Path:
    (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize(("text", "message"), [
    (GOOD.replace('hipify: "yes"', "hipify: yes"),
     "rules/demo.yaml: HIP9990: field 'hipify': True is not one of ['yes', 'no', 'partial'] "
     "(YAML read a bare yes/no/on/off as a boolean: quote it)"),
    (GOOD.replace("class: migration-required", "class: hard"),
     "rules/demo.yaml: HIP9990: field 'class': 'hard' is not one of "
     "['native', 'minor-adaptation', 'migration-required', 'incompatible']"),
    (GOOD.replace("  confidence: high\n", ""), "rules/demo.yaml: HIP9990: field '(record)': 'confidence' is a required property"),
    (GOOD.replace("exact: cudaDemo", "regex: '('"), "rules/demo.yaml: HIP9990: field 'match': bad regex: "
     "missing ), unterminated subpattern at position 0"),
    (GOOD.replace("name: demo-rule", "name: Demo Rule"),
     "rules/demo.yaml: HIP9990: field 'name': 'Demo Rule' does not match '^[a-z0-9]+(-[a-z0-9]+)*$'"),
    (GOOD + GOOD.replace("HIP9990", "HIP9991"), "rules/demo.yaml: HIP9991: field 'id/name': "
     "'demo-rule' is also used in rules/demo.yaml"),
])
def test_malformed_rules(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(RuleError) as info:
        load_rules(write(tmp_path, text))
    assert str(info.value) == message


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(RuleError) as info:
        load_rules(write(tmp_path, GOOD + "- id: [\n"))
    assert str(info.value).startswith("rules/demo.yaml:14: invalid YAML: ")
    assert "\n" not in str(info.value)


def test_valid_rule_loads(tmp_path: Path) -> None:
    base = load_rules(write(tmp_path, GOOD))
    rule = base.get("demo-rule")
    assert rule is not None and rule.id == "HIP9990" and base.get("HIP9990") is rule


def test_cli_reports_a_bad_rule_file_in_one_line(tmp_path: Path) -> None:
    write(tmp_path, GOOD.replace('hipify: "yes"', "hipify: maybe"))
    result = run_cli("scan", "fixtures/repos/demo", "--rules-dir", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr == ("rocm-migrate: error: rules/demo.yaml: HIP9990: field 'hipify': "
                             "'maybe' is not one of ['yes', 'no', 'partial']\n")
    assert result.stdout == ""


def test_shipped_rules_are_valid_and_unique(rulebase) -> None:
    assert len({r.id for r in rulebase.rules}) == len(rulebase.rules) > 100
