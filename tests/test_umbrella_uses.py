"""Umbrella packages judged by use (rules/alternatives/ported-elsewhere.yaml `umbrellas`,
migrate/workloads/umbrella_uses.py): the RAPIDS meta-package is a dependency swap where the workload imports only
members with an AMD port, and stays incompatible where it imports cuML or nothing of the suite."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from migrate.rulebase import ported_elsewhere
from migrate.rulebase.load import RuleError
from tests.conftest import ROOT, run_cli

TREES = ROOT / "fixtures" / "trees"


def umbrella_finding(tree: str) -> tuple[str, str]:
    result = run_cli("scan", str(TREES / tree), "--format", "json", "--no-cache", "--no-hipify")
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    [finding] = [f for f in data["findings"] if f["rule"] == "HIP7005" and f["symbol"] == "rapids"]
    return finding["class"], data["summary"]["class"]


@pytest.mark.parametrize(("tree", "finding", "summary"), [
    ("rapids_umbrella_ported_members", "minor-adaptation", "minor-adaptation"),  # cuDF, dask-cuda, CuPy: all ported
    ("rapids_umbrella_cuml", "incompatible", "incompatible"),  # cuML has no AMD port
    ("rapids_umbrella_template", "incompatible", "incompatible"),  # nothing imported: the suite is the point
])
def test_the_rapids_umbrella_is_what_its_workload_imports_of_it(tree: str, finding: str, summary: str) -> None:
    assert umbrella_finding(tree) == (finding, summary)


def test_the_registry_reads_umbrellas_by_requirement_name() -> None:
    registry = ported_elsewhere.load()
    umbrella = registry.umbrella("rapids=22.06")
    assert umbrella is not None and {"cudf", "cuml", "dask_cuda"} <= umbrella.imports
    assert umbrella.source.startswith("https://")
    assert registry.umbrella("rapids-singlecell") is None
    assert registry.umbrella("cudf") is None  # a member is a port of its own, not an umbrella


def test_an_umbrella_without_members_is_refused_with_its_name(tmp_path: Path) -> None:
    (tmp_path / "alternatives").mkdir()
    (tmp_path / "alternatives" / "ported-elsewhere.yaml").write_text(
        "entries: []\numbrellas:\n  - {id: suite, packages: [suite], source: 'https://a.b'}\n")
    with pytest.raises(RuleError, match="umbrella 'suite': missing imports"):
        ported_elsewhere.load(tmp_path, "no-members")
