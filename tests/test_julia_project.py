"""Julia Project.toml (migrate/extract/text/julia_project.py): CUDA.jl in `[deps]` is a requirement the project
loads (HIP7022, a low-confidence hint that moves no class); under `[weakdeps]` it is loaded only by a package
extension, an optional finding; NVIDIA-only `_jll` libraries (CUDSS_jll) are HIP7005, incompatible."""
from __future__ import annotations

import shutil
from pathlib import Path

from tests.test_optional_parts import scanned

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"


def _scan(tmp_path: Path, fixture: str, rulebase) -> dict:
    shutil.copy(FIXTURES / fixture, tmp_path / "Project.toml")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "X.jl").write_text("module X\nend\n", encoding="utf-8")
    return scanned(tmp_path, rulebase)


def _findings(data: dict, rule: str) -> list[dict]:
    return [f for f in data["findings"] if f["rule"] == rule]


def test_cuda_jl_as_a_dependency_is_a_hint(tmp_path: Path, rulebase) -> None:
    data = _scan(tmp_path, "HIP7022/hard/Project.toml", rulebase)
    found = _findings(data, "HIP7022")
    assert [(f["line"], f["status"]) for f in found] == [(7, "")]
    assert found[0]["hip"] == "AMDGPU.jl"
    assert data["summary"]["class"] == "native"  # the dependency alone does not say the Julia code is CUDA-specific


def test_cuda_jl_as_a_weak_dependency_is_optional(tmp_path: Path, rulebase) -> None:
    data = _scan(tmp_path, "HIP7022/weak/Project.toml", rulebase)
    assert [(f["line"], f["status"]) for f in _findings(data, "HIP7022")] == [(13, "optional")]
    assert data["summary"]["class"] == "native"


def test_cudss_jll_is_incompatible(tmp_path: Path, rulebase) -> None:
    data = _scan(tmp_path, "HIP7005/julia/Project.toml", rulebase)
    assert [f["line"] for f in _findings(data, "HIP7005")] == [10]
    assert data["summary"]["class"] == "incompatible"


TREES = Path(__file__).resolve().parent.parent / "fixtures" / "trees"


def _extension_tree(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    shutil.copytree(TREES / "julia_extension", root)
    (root / "expected.txt").unlink()
    return root


def _include(root: Path, name: str) -> None:
    entry = root / "src" / "Einsums.jl"
    entry.write_text(entry.read_text(encoding="utf-8").replace("\nend\n", f"\n{name}\nend\n"), encoding="utf-8")


def _hip4110(data: dict) -> set[tuple[str, str]]:
    return {(f["path"], f["status"]) for f in _findings(data, "HIP4110")}


def test_a_kernel_launch_in_the_package_is_required(tmp_path: Path, rulebase) -> None:
    root = _extension_tree(tmp_path)
    shutil.copy(FIXTURES / "HIP4110" / "bad.jl", root / "src" / "kernels.jl")
    _include(root, 'include("kernels.jl")')
    data = scanned(root, rulebase)
    assert {(f["path"], f["line"], f["symbol"], f["status"]) for f in _findings(data, "HIP4110")} >= {
        ("src/kernels.jl", 14, "clear_mar_kernel", ""), ("ext/CUDAExt.jl", 16, "kernel", "optional")}
    assert data["summary"]["class"] == "migration-required"


def test_launches_in_an_extension_and_a_file_the_package_never_includes_are_optional(tmp_path: Path, rulebase) -> None:
    data = scanned(_extension_tree(tmp_path), rulebase)
    assert _hip4110(data) == {("ext/CUDAExt.jl", "optional"), ("src/gpu_solver.jl", "optional")}
    assert data["summary"]["class"] == "native"


def test_a_file_the_package_includes_is_required(tmp_path: Path, rulebase) -> None:
    root = _extension_tree(tmp_path)
    (root / "src" / "contract.jl").write_text('include("gpu_solver.jl")\n', encoding="utf-8")
    data = scanned(root, rulebase)
    assert ("src/gpu_solver.jl", "") in _hip4110(data)
    assert data["summary"]["class"] == "migration-required"


def test_an_include_computed_at_run_time_may_load_any_file(tmp_path: Path, rulebase) -> None:
    root = _extension_tree(tmp_path)
    _include(root, 'foreach(include, filter(endswith(".jl"), readdir(@__DIR__)))')
    data = scanned(root, rulebase)
    assert ("src/gpu_solver.jl", "") in _hip4110(data)
    assert data["summary"]["class"] == "migration-required"


def test_ext_folder_without_an_extensions_entry_is_required(tmp_path: Path, rulebase) -> None:
    root = _extension_tree(tmp_path)
    toml = (root / "Project.toml").read_text(encoding="utf-8")
    (root / "Project.toml").write_text(toml.replace('CUDAExt = "CUDA"', ""), encoding="utf-8")
    data = scanned(root, rulebase)
    assert ("ext/CUDAExt.jl", "") in _hip4110(data)
    assert data["summary"]["class"] == "migration-required"
