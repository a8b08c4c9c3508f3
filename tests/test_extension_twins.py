"""Extension twins: of two sibling folders that each build an extension with a setup.py of their own, the one no file
imports is an optional part when the project imports the other (workloads/extension_twins.py; docs/decisions/
2026-12-07-s34-extension-twins.md). Fixture cut from sh0416/bpr e66323fe, with near misses."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT, copied_tree, scan_tree

TREE = ROOT / "fixtures" / "workloads" / "extension_twins"
KERNEL = "vsl-extension/cuda/vsl_cuda_kernel.cu"


def _statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def test_the_twin_nothing_imports_is_optional(tmp_path: Path, rulebase) -> None:
    data = scan_tree(copied_tree(TREE, tmp_path), rulebase)
    assert data["summary"]["class"] == "native"
    assert _statuses(data, KERNEL) == {"optional"}
    evidence = [e for w in data["workloads"] for p in w["optional_parts"] for e in p["evidence"]]
    assert any(e.startswith("vsl-extension/cuda/setup.py builds vsl_cuda, which no file imports; "
                            "vsl-extension/cpp/setup.py beside it builds vsl_cpp, which metrics.py imports") for e in evidence)


def test_a_twin_the_project_imports_stays_required(tmp_path: Path, rulebase) -> None:
    """Near miss: metrics.py imports the CUDA twin too."""
    tree = copied_tree(TREE, tmp_path, [("metrics.py", "import vsl_cpp\n", "import vsl_cpp\nimport vsl_cuda\n")])
    data = scan_tree(tree, rulebase)
    assert _statuses(data, KERNEL) == {""}
    assert data["summary"]["class"] != "native"


def test_an_extension_alone_in_its_folder_says_nothing(tmp_path: Path, rulebase) -> None:
    """Near miss: nothing imports the C++ module either, so no sibling shows which one the project runs on."""
    tree = copied_tree(TREE, tmp_path, [("metrics.py", "import vsl_cpp\n", "")])
    data = scan_tree(tree, rulebase)
    assert _statuses(data, KERNEL) == {""}
