"""Workload fixtures, one per situation: their classes, dependency chains and a golden JSON each.

Regenerate a golden with `pytest --update-golden` and review the diff by eye."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT, run_cli

WORKLOADS = ROOT / "fixtures" / "workloads"
TREES = ROOT / "fixtures" / "trees"


def scan_json(*paths: Path, arch: tuple[str, ...] = ("gfx942",), rulebase=None) -> dict:
    report = scan.run(list(paths), Settings(jobs=1, arch=arch), rulebase)
    data = to_json(report)
    return {"summary_class": data["summary"]["class"], "projects": data["projects"],
            "target_differences": data["summary"]["target_differences"],
            "workloads": [{k: w[k] for k in ("name", "kind", "class", "depends_on", "chain", "files", "effort_hours")}
                          | {"targets": {a: t["class"] for a, t in w["targets"].items()}} for w in data["workloads"]]}


def classes(result: dict) -> dict[str, str]:
    return {w["name"]: w["class"] for w in result["workloads"]}


CASES = {
    "pure_pytorch": ((TREES / "pytorch_pure",), ("gfx942",)),
    "torch_ext_clean": ((WORKLOADS / "torch_ext_clean",), ("gfx942",)),
    "torch_ext_masks": ((WORKLOADS / "torch_ext_masks",), ("gfx942",)),
    "cmake_two_targets": ((WORKLOADS / "cmake_two_targets",), ("gfx942",)),
    "hip_guarded": ((WORKLOADS / "hip_guarded",), ("gfx942",)),
    "deploy_only": ((WORKLOADS / "deploy_only",), ("gfx942",)),
    "portfolio": ((WORKLOADS / "portfolio" / "repo_a", WORKLOADS / "portfolio" / "repo_b"), ("gfx942",)),
    "wave_sensitive": ((WORKLOADS / "wave_sensitive",), ("gfx942", "gfx1100")),
}
EXPECTED_CLASSES = {
    "pure_pytorch": {"pytorch_pure": "native"},
    "torch_ext_clean": {"fastnorm": "minor-adaptation", "fastnorm_cuda": "minor-adaptation"},
    "torch_ext_masks": {"attn_ext": "migration-required", "torch_ext_masks": "migration-required"},
    "cmake_two_targets": {"portable_ops": "migration-required", "hopper_gemm": "migration-required",
                          "bench": "migration-required", "blasette": "migration-required"},
    "hip_guarded": {"wavehist": "native"},
    "deploy_only": {"deploy_only": "minor-adaptation"},
    "portfolio": {"repo_a": "native", "repo_b": "migration-required"},
    "wave_sensitive": {"rowstats": "migration-required", "rowstats_cuda": "migration-required"},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_workload_classes_and_golden(case: str, rulebase, update_golden: bool) -> None:
    paths, arch = CASES[case]
    result = scan_json(*paths, arch=arch, rulebase=rulebase)
    assert classes(result) == EXPECTED_CLASSES[case]
    golden = Path(__file__).parent / "golden" / "workloads" / f"{case}.json"
    text = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text()


def test_importer_inherits_with_the_chain(rulebase) -> None:
    result = scan_json(WORKLOADS / "torch_ext_masks", rulebase=rulebase)
    train = next(w for w in result["workloads"] if w["name"] == "torch_ext_masks")
    assert "train.py" in train["files"] and "attnlib/layers.py" in train["files"]
    assert train["chain"][0] == "attnlib/layers.py loads attn_ext"
    assert train["chain"][-1].startswith("csrc/attn_kernel.cu:")


def test_two_targets_give_explained_classes(rulebase) -> None:
    result = scan_json(WORKLOADS / "wave_sensitive", arch=("gfx942", "gfx1100"), rulebase=rulebase)
    for name in ("rowstats_cuda", "rowstats"):  # the distribution builds the extension, so it inherits
        workload = next(w for w in result["workloads"] if w["name"] == name)
        assert workload["targets"] == {"gfx942": "migration-required", "gfx1100": "minor-adaptation"}
    assert result["target_differences"] == [{"rule": "HIP4013", "targets": ["gfx942"], "findings": 2}]


def test_portfolio_cli_lists_projects() -> None:
    result = run_cli("scan", "fixtures/workloads/portfolio/repo_a", "fixtures/workloads/portfolio/repo_b",
                     "-f", "json", "--no-cache")
    report = json.loads(result.stdout)
    assert [(p["name"], p["class"]) for p in report["projects"]] == [("repo_a", "native"),
                                                                      ("repo_b", "migration-required")]
    assert report["summary"]["class"] == "migration-required"


def test_a_torch_extension_whose_sources_are_grown_and_whose_class_is_picked_is_hipified_by_torch() -> None:
    """`extension = CUDAExtension` then `extension(sources=sources)`, the list grown by `+= glob(..., **)` and
    `.append(...)`: every file is the extension's, so PyTorch's hipify covers them (minor-adaptation)."""
    result = run_cli("scan", str(WORKLOADS / "torch_ext_grown"), "--format", "json", "--no-cache", "--no-hipify")
    data = json.loads(result.stdout)
    assert data["summary"]["class"] == "minor-adaptation"
    [ext] = [w for w in data["workloads"] if w["kind"] == "torch-extension"]
    assert ext["files"] == ["csrc/cuda/extra_kernels.cu", "csrc/cuda/geodis_kernel.cu", "csrc/geodis.cpp"]
