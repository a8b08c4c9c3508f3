"""A rule's `file_has`/`file_lacks` reads the file's facts by name: the scan, which builds identifier facts only
for the names its rules can use (match.IdentifierNames), must build those its conditions find, or a condition
naming an identifier no rule lists passes its fixture and lint and never holds in a scan."""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest
from migrate.extract import extract
from migrate.model import Extraction, Target
from migrate.scan.discover import file_kind
from migrate.scan.match import IdentifierNames, RuleIndex, candidates
from tests.conftest import ROOT, run_cli

FIXTURES = ROOT / "fixtures" / "rules"
# cut from opencv/opencv samples/gpu/video_writer.cpp: HIP3066's condition holds by the cudacodec namespace alone
WRITER = FIXTURES / "HIP3066" / "writer.cpp"


def test_scan_and_lint_report_a_rule_whose_condition_names_an_unlisted_identifier(tmp_path: Path) -> None:
    shutil.copy(WRITER, tmp_path / WRITER.name)
    line = next(n for n, text in enumerate(WRITER.read_text().splitlines(), 1) if "createVideoWriter(" in text)
    scan = run_cli("scan", str(tmp_path), "--jobs", "1", "-f", "csv")
    assert scan.returncode == 0, scan.stderr
    scanned = {(row["rule"], int(row["line"])) for row in csv.DictReader(io.StringIO(scan.stdout))}
    lint = run_cli("lint", str(tmp_path), "-f", "json")
    linted = {(f["rule"], f["line"]) for f in json.loads(lint.stdout)["findings"]}
    assert ("HIP3066", line) in scanned
    assert ("HIP3066", line) in linted


@pytest.fixture(scope="module")
def index(rulebase) -> RuleIndex:
    return RuleIndex(rulebase, Target(rocm="7.2", arch=("gfx942",)))


def _condition_rules(rulebase) -> list[str]:
    return [rule_id for rule_id, patterns in zip(rulebase.ids, rulebase.file_conditions(), strict=True) if patterns]


def test_every_condition_pattern_is_among_the_scan_names(rulebase, index: RuleIndex) -> None:
    names = IdentifierNames([index])
    for rule_id in _condition_rules(rulebase):
        rule = rulebase.get(rule_id)
        assert rule is not None
        for pattern in filter(None, (rule.file_has, rule.file_lacks)):
            assert pattern in index.conditions, f"{rule_id}: {pattern} not read by the scan"
            assert any(p.pattern == pattern or f"(?:{pattern})" in p.pattern for p in names._patterns), rule_id


def _seen(rel: str, extraction: Extraction, index: RuleIndex) -> set[tuple[str, int, str]]:
    return {(c.finding.rule, c.finding.line, c.finding.symbol) for c in candidates(rel, extraction, index)}


def test_condition_fixtures_match_alike_with_the_scan_names_and_every_fact(rulebase, index: RuleIndex) -> None:
    """Every fixture file of a rule with a condition: the candidates of the facts a scan builds are those of
    every fact (lint's); and every identifier a condition finds there is one the scan builds."""
    names = IdentifierNames([index])
    rules = _condition_rules(rulebase)
    assert rules
    checked = 0
    for rule_id in rules:
        rule = rulebase.get(rule_id)
        assert rule is not None
        found = [re.compile(p) for p in (rule.file_has, rule.file_lacks) if p]
        for path in sorted(p for p in (FIXTURES / rule_id).rglob("*") if p.is_file()):
            kind = file_kind(path)
            if kind not in ("cuda", "cpp"):
                continue
            full, scanned = extract(kind, path.read_bytes()), extract(kind, path.read_bytes(), names)
            missing = {f.name for f in full.facts if f.kind == "identifier" and any(p.search(f.name) for p in found)
                       and not names(f.name)}
            assert not missing, f"{path}: {rule_id}'s condition finds {sorted(missing)}, which a scan does not build"
            assert _seen(path.name, scanned, index) == _seen(path.name, full, index), path
            checked += 1
    assert checked
