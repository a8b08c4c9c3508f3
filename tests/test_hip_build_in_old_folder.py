"""A HIP build in a folder of code no longer used (old/, legacy/: rules/workloads/optional.yaml `unused_folders`, nothing
outside it references it) is no ROCm path of the project (workloads/parts.py; docs/decisions/
2026-12-07-s34-rocm-evidence-of-unused-folders.md). Fixture cut from flexflow/flexflow-train 3b0f5b9f, with a near miss."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT, copied_tree, scan_tree

TREE = ROOT / "fixtures" / "workloads" / "hip_build_in_old_folder"


def test_a_hip_branch_of_an_unused_folder_credits_nothing(tmp_path: Path, rulebase) -> None:
    data = scan_tree(copied_tree(TREE, tmp_path), rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert all(not w["rocm_path"] for w in data["workloads"])
    kernels = {f["status"] for f in data["findings"] if f["path"] == "src/cuda/scale_kernels.cu"}
    assert kernels == {""}


def test_an_old_folder_the_build_adds_keeps_its_hip_branch(tmp_path: Path, rulebase) -> None:
    """Near miss: the top CMakeLists adds the folder, so it is no unused code and its HIP branch is a ROCm path."""
    tree = copied_tree(TREE, tmp_path, [("CMakeLists.txt", "target_link_libraries(kernels cublas cudnn)\n",
                                         "target_link_libraries(kernels cublas cudnn)\nadd_subdirectory(bindings/python/old)\n")])
    data = scan_tree(tree, rulebase)
    assert any(w["rocm_path"] for w in data["workloads"])
    assert data["summary"]["class"] == "native"
