"""The data files every run reads come from their JSON twins, and only while a twin is what the
YAML says (migrate/rulebase/datafile.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.rulebase import datafile, targets
from tests.conftest import ROOT


@pytest.mark.parametrize("name", datafile.TWINNED)
def test_a_twin_holds_what_its_yaml_says(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = ROOT / "rules" / name
    expected = datafile.parse(path.read_bytes())

    def no_yaml(raw: bytes) -> None:
        raise AssertionError("the YAML was parsed although its twin is fresh")

    monkeypatch.setattr(datafile, "parse", no_yaml)
    assert datafile.read(path) == expected


def test_an_edited_yaml_is_read_without_its_stale_twin(tmp_path: Path) -> None:
    path = tmp_path / "gpus.yaml"
    shutil.copy(ROOT / "rules" / "targets" / "gpus.yaml", path)
    shutil.copy(ROOT / "rules" / "targets" / "gpus.json", tmp_path / "gpus.json")
    original = path.read_text()
    assert 'default_rocm: "10.1"' in original
    path.write_text(original.replace('default_rocm: "10.1"', 'default_rocm: "7.1"'))
    assert datafile.read(path)["default_rocm"] == "7.1"
    assert targets.load(path).default_rocm == "7.1"


@pytest.mark.parametrize("twin", ["", "[1, 2]", '{"sha256": 3}', "{" * 100_000, '{"content": {}}'])
def test_a_broken_or_foreign_twin_is_not_used(tmp_path: Path, twin: str) -> None:
    path = tmp_path / "routes.yaml"
    path.write_text("routes: []\n")
    (tmp_path / "routes.json").write_text(twin)
    assert datafile.read(path) == {"routes": []}
    (tmp_path / "routes.json").write_text(datafile.twin_text(path))
    assert datafile.read(path) == {"routes": []}


@pytest.mark.parametrize("text", ["when: 2024-01-01\n", "1: one\n"])
def test_content_json_would_change_gets_no_twin(tmp_path: Path, text: str) -> None:
    path = tmp_path / "data.yaml"
    path.write_text(text)
    with pytest.raises(ValueError):
        datafile.twin_text(path)


def test_a_data_file_is_hashed_once_while_its_stamp_stays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second read of an unchanged data file takes its digest by its stamp (layout/backends.yaml is read
    six times by a lint); an edit gives another stamp, so the edited YAML is read, not the stale twin."""
    path = tmp_path / "gpus.yaml"
    shutil.copy(ROOT / "rules" / "targets" / "gpus.yaml", path)
    shutil.copy(ROOT / "rules" / "targets" / "gpus.json", tmp_path / "gpus.json")
    monkeypatch.setattr(datafile, "RACY_NS", 0)  # the copy's ctime is this second's
    hashed: list[int] = []
    digest = datafile._digest
    monkeypatch.setattr(datafile, "_digest", lambda raw: hashed.append(len(raw)) or digest(raw))
    first = datafile.read(path)
    assert datafile.read(path) == first and len(hashed) == 1
    path.write_text(path.read_text().replace('default_rocm: "10.1"', 'default_rocm: "7.1"'))
    assert datafile.read(path)["default_rocm"] == "7.1" and len(hashed) == 2


def test_a_data_file_changed_as_it_was_hashed_is_hashed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Near miss: a stamp within RACY_NS of the hashing is not recorded (an edit in the same clock tick,
    of the same size, would keep it)."""
    path = tmp_path / "gpus.yaml"
    shutil.copy(ROOT / "rules" / "targets" / "gpus.yaml", path)
    shutil.copy(ROOT / "rules" / "targets" / "gpus.json", tmp_path / "gpus.json")
    hashed: list[int] = []
    digest = datafile._digest
    monkeypatch.setattr(datafile, "_digest", lambda raw: hashed.append(len(raw)) or digest(raw))
    datafile.read(path)
    datafile.read(path)
    assert len(hashed) == 2


def test_the_rule_data_memo_vouches_for_the_data_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rulebase/stamps hands every data file's digest to datafile by stamp: a run whose memo is warm
    reads no data file's YAML to check its twin; one whose memo is gone hashes them (and writes it)."""
    from migrate.rulebase import stamps

    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    monkeypatch.setattr(stamps, "RACY_NS", 0)  # the copies' ctimes are this second's
    monkeypatch.setattr(datafile, "_KNOWN", {})
    cache = tmp_path / "cache"
    stamps.digests(rules, cache)
    monkeypatch.setattr(datafile, "_KNOWN", {})  # as a new process: only the memo knows
    hashed: list[int] = []
    digest = datafile._digest
    monkeypatch.setattr(datafile, "_digest", lambda raw: hashed.append(len(raw)) or digest(raw))
    found = stamps.digests(rules, cache)
    assert found.data_files["layout/backends.yaml"] == digest((rules / "layout" / "backends.yaml").read_bytes())
    assert targets.load(rules / "targets" / "gpus.yaml").default_rocm and hashed == []
    assert datafile.read(rules / "layout" / "backends.yaml") == datafile.parse(
        (rules / "layout" / "backends.yaml").read_bytes()) and hashed == []
