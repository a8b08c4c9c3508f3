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


def test_the_compiled_rule_base_is_what_the_yaml_validates_to(monkeypatch: pytest.MonkeyPatch) -> None:
    """rules/compiled.json (shipped in the wheel) holds every rule file's validated records, and a
    scan's load takes them without parsing YAML or running the schema."""
    from migrate.rulebase import compiled, load, precompiled
    from tests.conftest import ROOT

    shipped = compiled.read(ROOT / "rules")
    expected, _ = load.validated_records(ROOT / "rules", known={})
    assert sorted(shipped) == [name for name, _ in expected]
    assert all(shipped[name][1] == records for name, records in expected)
    _, tables = compiled.read_all(ROOT / "rules")  # each file's name table, packed or not, is its records'
    assert all({kind: dict(names) for kind, names in tables[name].items()} == load.name_table(records)
               for name, records in expected)

    def no_validation(*_args: object) -> None:
        raise AssertionError("a rule file was validated although the compiled copy holds it")

    monkeypatch.setattr(load, "_records", no_validation)
    assert [r.id for r in precompiled.load(ROOT / "rules", None).rules] == \
           [r.id for r in load.from_records(expected, "", directory=ROOT / "rules").rules]


def test_an_edited_rule_file_is_validated_despite_the_compiled_copy(tmp_path: Path) -> None:
    """Only the file whose bytes changed is parsed and validated again; a bad edit still stops the load."""
    import shutil

    from migrate.rulebase import compiled, precompiled
    from tests.conftest import ROOT

    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    assert compiled.read(rules)
    edited = rules / "asm.yaml"
    edited.write_text(edited.read_text().replace("class: migration-required", "class: hard", 1))
    with pytest.raises(RuleError, match=r"rules/asm\.yaml: .*field 'class': 'hard' is not one of"):
        precompiled.load(rules, None)
    edited.write_text(edited.read_text().replace("class: hard", "class: incompatible", 1))
    reloaded = precompiled.load(rules, None).rules
    assert [r for r in reloaded if r.file == "asm.yaml" and r.migration_class == "incompatible"]


@pytest.mark.parametrize("head", ["", "[]", '{"format": 1, "checked_against": "another schema"}', "{" * 100_000])
def test_a_broken_or_foreign_compiled_copy_is_not_used(tmp_path: Path, head: str) -> None:
    from migrate.rulebase import compiled

    write(tmp_path, GOOD)
    (tmp_path / compiled.NAME).write_text(head + '\n["demo.yaml", "x", []]\n')
    assert compiled.read(tmp_path) == {}
    assert [r.id for r in load_rules(tmp_path).rules] == ["HIP9990"]


def test_the_rule_data_digests_are_known_by_stamp_on_a_second_load(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A second load with the cache directory reads no rule data file for its digests (the version and
    the compiled copy's check are the same as when every file is hashed); an edit, even one that keeps
    the file's size, is seen by its stamp, and the edited file is validated again."""
    import shutil

    from migrate.rulebase import load, precompiled, stamps
    from tests.conftest import ROOT

    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    monkeypatch.setattr(stamps, "RACY_NS", 0)  # the copies' ctimes are this second's
    cache = tmp_path / "cache"
    first = precompiled.load(rules, cache)
    assert first.version == load.rules_version(rules)
    hashed: list[str] = []
    computed = stamps._computed
    monkeypatch.setattr(stamps, "_computed", lambda d, paths, rels: hashed.append("all") or computed(d, paths, rels))
    again = precompiled.load(rules, cache)
    assert hashed == [] and again.version == first.version and [r.id for r in again.rules] == [r.id for r in first.rules]
    edited = rules / "asm.yaml"
    edited.write_text(edited.read_text().replace("class: migration-required", "class: migration-requirex", 1))
    with pytest.raises(RuleError, match=r"rules/asm\.yaml: .*field 'class'"):
        precompiled.load(rules, cache)
    assert hashed == ["all"]


def test_a_rule_file_changed_as_the_memo_was_written_is_hashed_again(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Racy stamps (statcache's rule): a file changed within RACY_NS of the hashing run is not trusted."""
    import shutil

    from migrate.rulebase import stamps
    from tests.conftest import ROOT

    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    cache = tmp_path / "cache"
    stamps.digests(rules, cache)
    paths = stamps.load.data_files(rules)
    rels = [p.relative_to(rules).as_posix() for p in paths]
    import os

    current = [stamps.stamp_of(os.stat(p)) for p in paths]
    memo = stamps._memo_path(rules, cache)
    assert memo is not None and memo.exists()
    assert stamps._read(memo, rels, current) is None  # just written: every ctime is racy
    monkeypatch.setattr(stamps, "RACY_NS", 0)
    assert stamps._read(memo, rels, current) is not None
    assert stamps._read(memo, rels, [(*current[0][:1], current[0][1] + 1, *current[0][2:]), *current[1:]]) is None


def test_the_rule_data_stamps_follow_the_stat_cache_rule() -> None:
    """rulebase/stamps.py sits below the scan package, so it keeps its own copy of statcache's stamp and margin."""
    import os

    from migrate.rulebase import stamps
    from migrate.scan import statcache

    assert stamps.RACY_NS == statcache.RACY_NS
    info = os.stat(__file__)
    assert stamps.stamp_of(info) == statcache.stamp_of(info)
