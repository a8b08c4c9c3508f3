"""Routes per workload (rules/routes/routes.yaml): the route column on one fixture per route, through the real CLI."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import run_cli


@pytest.mark.parametrize(("tree", "route", "via"), [
    ("port", "port", None),                      # plain CUDA C++: the default
    ("amd-build", "amd-build", None),            # the same code with a ROCm CI job: use the existing AMD build
    ("framework-migraphx", "framework", "MIGraphX"),  # a TensorRT engine builder
    ("framework-triton", "framework", "Triton"),      # Triton kernels, no CUDA sources
])
def test_route_per_workload(tree: str, route: str, via: str | None, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = run_cli("scan", f"fixtures/routes/{tree}", "-f", "json", "-o", str(out), "--target-arch", "gfx942")
    assert out.exists(), result.stderr
    workloads = json.loads(out.read_text())["workloads"]
    assert [(w["route"]["route"], w["route"]["via"]) for w in workloads] == [(route, via)]
    assert workloads[0]["route"]["notes"] == []  # gfx942 (Instinct): no ZLUDA note
    if route != "port":
        assert workloads[0]["route"]["source"].startswith("https://")


def test_zluda_is_only_a_workstation_note_for_consumer_radeon(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    run_cli("scan", "fixtures/routes/port", "-f", "json", "-o", str(out), "--target-arch", "gfx942,gfx1100")
    route = json.loads(out.read_text())["workloads"][0]["route"]
    assert route["route"] == "port"
    assert len(route["notes"]) == 1 and "ZLUDA" in route["notes"][0] and "Instinct" in route["notes"][0]


def test_the_markdown_report_has_the_route_column(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    run_cli("scan", "fixtures/routes/framework-triton", "-f", "markdown", "-o", str(out), "--target-arch", "gfx942")
    text = out.read_text()
    assert "| workload | kind | route | class |" in text
    assert "| framework-triton | " in text and " | framework via Triton | " in text
