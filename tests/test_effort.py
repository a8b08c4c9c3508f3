"""The worked example in docs/effort.md is what the model computes, row by row."""
from __future__ import annotations

import re

import pytest

from migrate import pipeline as scan
from migrate.workloads.estimate import EffortModel, occurrence_weight
from migrate.settings import Settings
from tests.conftest import ROOT

DOC = (ROOT / "docs" / "effort.md").read_text()
ROW = re.compile(r"^\| ((?:fixed|kernel|HIP)[^|]*?) \| [^|]* \| ([0-9.]+) \|$", re.MULTILINE)


def test_worked_example_matches_the_model(rulebase) -> None:
    report = scan.run([ROOT / "fixtures" / "workloads" / "effort_example"], Settings(jobs=1), rulebase)
    (workload,) = report.workloads
    computed = {item: hours for item, hours in workload.primary.breakdown}
    documented = {item: float(hours) for item, hours in ROW.findall(DOC)}
    assert documented.keys() == computed.keys()
    for item, hours in documented.items():
        assert computed[item] == pytest.approx(hours, abs=0.005), item
    totals = re.search(r"Total likely \*\*([0-9.]+) h\*\*.*low \*\*([0-9.]+) h\*\*.*high\s+\*\*([0-9.]+) h\*\*", DOC, re.S)
    effort = workload.effort
    assert (round(effort.likely, 2), round(effort.low, 2), round(effort.high, 2)) == tuple(map(float, totals.groups()))


def test_learning_curve_and_overrides() -> None:
    assert occurrence_weight(1, 0.8) == 1.0
    assert occurrence_weight(2, 0.8) == pytest.approx(0.8)
    assert occurrence_weight(4, 0.8) == pytest.approx(0.64)
    assert sum(occurrence_weight(k, 0.8) for k in range(1, 101)) == pytest.approx(32.65, abs=0.05)
    model = EffortModel().with_overrides({"learning-rate": 0.9, "fixed": {"native": {"smoke": 3.0}},
                                          "uncertainty": {"incompatible": [0.5, 4.0]}})
    assert model.learning_rate == 0.9 and model.fixed["native"] == {"smoke": 3.0}
    assert model.uncertainty["incompatible"] == (0.5, 4.0) and model.fixed["incompatible"]["CI on ROCm"] == 4.0


def test_effort_configuration_from_pyproject(tmp_path) -> None:
    from migrate import settings
    from migrate.rulebase.load import load_rules

    (tmp_path / "pyproject.toml").write_text(
        "[tool.rocm-migrate.effort]\nkernel-validation = 3.0\n[tool.rocm-migrate.workloads]\nkernels = ['*.cu']\n")
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "tool.py").write_text("import pynvml\n")
    config = settings.load(tmp_path, {})
    report = scan.run([tmp_path], config, load_rules())
    kernels = next(w for w in report.workloads if w.name == "kernels")
    assert kernels.kind == "declared" and kernels.files == ("k.cu",)
    assert dict(kernels.primary.breakdown)["kernel review and validation ×1"] == 3.5
