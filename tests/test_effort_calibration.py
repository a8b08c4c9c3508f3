"""The effort constants are what fit.py computes from the committed measurements, and
docs/effort.md shows the same data."""
from __future__ import annotations

import importlib.util
import re

import yaml
from migrate.workloads import calibration
from tests.conftest import ROOT

BENCH = ROOT / "benchmarks" / "effort_calibration"


def _fit_module():
    spec = importlib.util.spec_from_file_location("effort_fit", BENCH / "fit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_fitted_constants_are_recomputed_from_the_measurements() -> None:
    fit = _fit_module()
    result = fit.fit(yaml.safe_load((BENCH / "measurements.yaml").read_text()),
                     yaml.safe_load((ROOT / "rules" / "effort" / "families.yaml").read_text()))
    assert fit.render(result) == (ROOT / "rules" / "effort" / "calibrated.yaml").read_text()
    assert result["productivity"]["hours_per_line"] == 0.447 and result["productivity"]["url"].startswith("https://")
    loaded = calibration.load()
    assert loaded.lines_first_occurrence["runtime"].likely == \
        result["families"]["runtime"]["lines_first_occurrence"]["likely"]


def test_docs_show_the_fitted_table() -> None:
    fit = _fit_module()
    result = fit.fit(yaml.safe_load((BENCH / "measurements.yaml").read_text()),
                     yaml.safe_load((ROOT / "rules" / "effort" / "families.yaml").read_text()))
    doc = (ROOT / "docs" / "effort.md").read_text()
    rows = dict(re.findall(r"^\| ([a-z-]+) \| \d+ \| [0-9.]+ \| ([0-9.]+ / [0-9.]+ / [0-9.]+) \|", doc, re.M))
    assert set(rows) == set(result["families"])
    for name, fitted in result["families"].items():
        low, likely, high = (fitted["lines_first_occurrence"][k] for k in ("low", "likely", "high"))
        assert rows[name] == f"{low} / {likely} / {high}", name
    for project in yaml.safe_load((BENCH / "measurements.yaml").read_text())["projects"]:
        assert f"| {project['repo']} | `{project['commit'][:10]}` |" in doc


def test_every_measured_project_names_repo_commit_and_method() -> None:
    data = yaml.safe_load((BENCH / "measurements.yaml").read_text())
    for project in data["projects"]:
        assert re.fullmatch(r"[0-9a-f]{40}", project["commit"]) and "/" in project["repo"] and project["what"]
        for record in project["files"]:
            assert record["method"] in ("pair", "guards")
            charged = sum(lines for _, lines, _ in record["rules"].values())
            assert abs(charged - record["hand_lines"]) < 0.05 * max(1, len(record["rules"])), record["path"]
