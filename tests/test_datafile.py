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
