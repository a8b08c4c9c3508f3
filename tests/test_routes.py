"""Routes per workload (rules/routes/routes.yaml, rules/routes/scale.yaml, the ported-elsewhere registry): the
route column on one fixture per route, the plan that follows it, and SCALE only where its public record supports
it, through the real CLI."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from migrate.model import Effort
from migrate.model_report import TargetVerdict, Workload
from migrate.rulebase import scale
from migrate.workloads import route
from tests.conftest import ROOT, run_cli

SCHEMA = json.loads((ROOT / "docs" / "report.schema.json").read_text())


def scan(tree: str, tmp_path: Path, arch: str, fmt: str = "json") -> str:
    out = tmp_path / f"report.{fmt}"
    result = run_cli("scan", f"fixtures/routes/{tree}", "-f", fmt, "-o", str(out), "--target-arch", arch)
    assert out.exists(), result.stderr
    return out.read_text()


def workloads(tree: str, tmp_path: Path, arch: str = "gfx942") -> list[dict[str, Any]]:
    report = json.loads(scan(tree, tmp_path, arch))
    jsonschema.Draft202012Validator(SCHEMA).validate(report)  # route, uses, alternative, plan steps' route and do
    found: list[dict[str, Any]] = report["workloads"]
    return found


@pytest.mark.parametrize(("tree", "arch", "route", "via", "alternative"), [
    ("native", "gfx942", "native", None, None),                   # nothing CUDA-specific: runs as it is
    ("port", "gfx942", "port", None, None),                       # plain CUDA C++ on gfx942: SCALE has no CI there
    ("amd-build", "gfx942", "amd-build", None, None),             # the same code with a ROCm CI job
    ("amd-build-registry", "gfx942", "amd-build", "FlashAttention", None),  # GPU code in a registry dependency
    ("registry-own-kernels", "gfx942", "port", None, None),       # CuPy is in the registry, the kernel is its own
    ("framework-migraphx", "gfx942", "framework", "MIGraphX", None),  # a TensorRT engine builder
    ("framework-triton", "gfx942", "framework", "Triton", None),      # Triton kernels, no CUDA sources
    ("framework-pytorch", "gfx942", "framework", "PyTorch", None),    # torch.cuda code: PyTorch's ROCm build
    ("framework-jax", "gfx942", "framework", "JAX", None),            # JAX code: the ROCm plugin
    ("scale", "gfx90a", "port", None, "SCALE"),                   # plain CUDA C++ on a GPU SCALE validates publicly
])
def test_route_per_workload(tree: str, arch: str, route: str, via: str | None, alternative: str | None,
                            tmp_path: Path) -> None:
    found = workloads(tree, tmp_path, arch)
    assert [(w["route"]["route"], w["route"]["via"]) for w in found] == [(route, via)]
    assert (found[0]["route"]["alternative"] or {}).get("via") == alternative
    assert not any("ZLUDA" in n for n in found[0]["route"]["notes"])  # Instinct GPUs: no ZLUDA note
    if route not in ("port", "native"):
        assert found[0]["route"]["source"].startswith("https://")


def test_a_registry_dependency_names_its_entry_and_source_and_the_plan_installs_it(tmp_path: Path) -> None:
    report = json.loads(scan("amd-build-registry", tmp_path, "gfx942"))
    route = report["workloads"][0]["route"]
    assert [(u["id"], u["kind"], u["amd_url"]) for u in route["uses"]] == \
        [("flash-attention", "fork", "https://github.com/ROCm/flash-attention")]
    assert route["uses"][0]["source"].startswith("https://rocm.docs.amd.com/")
    assert "FlashAttention -> ROCm/flash-attention" in route["why"]
    step = report["plan"]["steps"][0]
    assert step["route"] == "amd-build" and step["automatic_share"] is None
    assert step["do"][0].startswith("install the AMD build of FlashAttention instead of porting it")
    assert not any("hipify" in action for action in step["do"])
    assert "ROCm/flash-attention" in step["validation"][0]


def test_the_plan_follows_the_route(tmp_path: Path) -> None:
    port = json.loads(scan("scale", tmp_path, "gfx90a"))["plan"]["steps"][0]
    assert port["route"] == "port" and port["do"][0] == "convert the CUDA code with hipify-perl"
    assert port["do"][-1].startswith("or compile unchanged with SCALE")
    triton = json.loads(scan("framework-triton", tmp_path, "gfx942"))["plan"]["steps"][0]
    assert triton["route"] == "framework" and triton["do"][0].startswith("move through Triton")
    assert triton["automatic_share"] is None
    existing = json.loads(scan("amd-build", tmp_path, "gfx942"))["plan"]["steps"][0]
    assert existing["do"][0].startswith("build and test the project's existing ROCm path")


def test_scale_gives_its_evidence_and_caveats_with_sources(tmp_path: Path) -> None:
    alternative = workloads("scale", tmp_path, "gfx90a,gfx1100")[0]["route"]["alternative"]
    record = scale.load()
    assert record is not None
    assert alternative["evidence"][:2] == [
        f"gfx90a: {record.passing('gfx90a')} of {len(record.projects)} projects in SCALE's public matrix pass "
        f"({record.matrix_version})",
        f"gfx1100: {record.passing('gfx1100')} of {len(record.projects)} projects in SCALE's public matrix pass "
        f"({record.matrix_version})"]
    assert "uses CUTLASS: passes on gfx90a, gfx1100" in alternative["evidence"]
    assert any("non-commercial" in c for c in alternative["caveats"])
    assert all("(https://github.com/spectral-compute/" in c for c in alternative["caveats"])


@pytest.mark.parametrize(("tree", "arch", "why"), [
    ("port", "gfx942", "gfx942 on SCALE's supported list but not in its public validation matrix"),
    ("scale-not-offered", "gfx90a", "thrust not-expected on gfx90a"),
    ("scale-a-tested-project", "gfx90a", "llm.c not-expected on gfx90a"),
])
def test_scale_is_not_offered_where_its_record_does_not_support_it(tree: str, arch: str, why: str,
                                                                  tmp_path: Path) -> None:
    found_all = workloads(tree, tmp_path, arch)
    assert found_all, "no workload: nothing was compared"
    for found in found_all:
        route = found["route"]
        assert route["route"] == "port" and route["alternative"] is None
        assert [n for n in route["notes"] if n.startswith("SCALE (compile unchanged) not offered") and why in n], \
            route["notes"]


@pytest.mark.parametrize("tree", ["framework-triton", "amd-build-registry", "scale-not-for-extensions"])
def test_scale_is_never_offered_for_python_or_framework_workloads(tree: str, tmp_path: Path) -> None:
    found_all = workloads(tree, tmp_path, "gfx90a")
    assert found_all, "no workload: nothing was compared"
    for found in found_all:  # a PyTorch extension and its Python package alike
        assert found["route"]["alternative"] is None and not any("SCALE" in n for n in found["route"]["notes"])


def test_a_target_scale_does_not_list_gets_no_scale() -> None:
    """Every GPU rules/targets knows is on SCALE's list today; a record without gfx90a stands for a future one."""
    record = scale.load()
    assert record is not None
    narrowed = replace(record, supported=record.supported - {"gfx90a"})
    verdict = TargetVerdict(arch="gfx90a", migration_class="migration-required", own_class="migration-required",
                            reasons=(), chain=(), effort=Effort(low=1, likely=2, high=3), breakdown=())
    workload = Workload(name="w", root=".", kind="directory", files=("saxpy.cu",), verdicts=(verdict,))
    chosen = route.choose(workload=workload, findings=(), facts={}, arch=("gfx90a",), record=narrowed)
    assert chosen.alternative is None
    assert chosen.notes[0].startswith("SCALE (compile unchanged) not offered: gfx90a not on SCALE's list")
    assert route.choose(workload=workload, findings=(), facts={}, arch=("gfx90a",), record=record).alternative


def test_the_scale_record_reads_the_public_matrix() -> None:
    record = scale.load()
    assert record is not None
    by_name = {p.name: p for p in record.projects}
    assert len(record.projects) == 44 and "gfx942" in record.supported and "gfx942" not in record.validated
    for name in ("pytorch", "vllm", "llm.c", "faiss"):  # "tested, but not expected to pass" on every column
        assert {r for _, r in by_name[name].results} == {"not-expected"}, name
    assert by_name["CUTLASS"].result("gfx90a") == "pass" and by_name["CUTLASS"].result("gfx900") == "fail"
    assert by_name["thrust"].used_by("thrust/sort.h") and not by_name["thrust"].used_by("mythrust/sort.h")
    assert by_name["llm.c"].used_by("../../llmc/cuda_common.h")  # llm.c's own tests: the project itself
    assert by_name["llm.c"].is_scan_of(frozenset({"dev/cuda/adamw.cu", "train_gpt2.cu"}))
    assert not by_name["llm.c"].is_scan_of(frozenset({"my_train_gpt2.cu"}))
    assert by_name["OpenCV"].used_by("opencv2/cudaarithm.hpp") and not by_name["OpenCV"].used_by("opencv2/core.hpp")


def test_zluda_is_only_a_workstation_note_for_consumer_radeon(tmp_path: Path) -> None:
    route = workloads("port", tmp_path, "gfx942,gfx1100")[0]["route"]
    assert route["route"] == "port"
    zluda = [n for n in route["notes"] if "ZLUDA" in n]
    assert len(zluda) == 1 and "Instinct" in zluda[0]


@pytest.mark.parametrize(("tree", "arch", "cell"), [
    ("port", "gfx942", " | port | "),
    ("amd-build", "gfx942", " | amd-build | "),
    ("amd-build-registry", "gfx942", " | amd-build via FlashAttention | "),
    ("framework-triton", "gfx942", " | framework via Triton | "),
    ("framework-pytorch", "gfx942", " | framework via PyTorch | "),
    ("scale", "gfx90a", " | port, or compile unchanged via SCALE | "),
])
def test_the_markdown_report_has_the_route_column(tree: str, arch: str, cell: str, tmp_path: Path) -> None:
    text = scan(tree, tmp_path, arch, "markdown")
    assert "| workload | kind | route | class |" in text
    assert f"| {tree} | " in text and cell in text, text


def test_the_html_report_has_the_route_column_and_the_scale_caveats(tmp_path: Path) -> None:
    text = scan("scale", tmp_path, "gfx90a", "html")
    assert "<th>route</th>" in text and '<td class="route">port, or compile unchanged via SCALE</td>' in text
    assert "caveat: SCALE is free for non-commercial use only" in text
    assert "<li>evidence: gfx90a: " in text and "&lt;631285ef&gt;" in text  # escaped, never raw
    registry = scan("amd-build-registry", tmp_path, "gfx942", "html")
    assert '<td class="route">amd-build via FlashAttention</td>' in registry
