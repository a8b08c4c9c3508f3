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
