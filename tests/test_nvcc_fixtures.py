"""Fixtures meant to be real CUDA compile with nvcc, so they stay realistic.

A fixture opts in with a first-line comment `// nvcc: compile [extra flags]`. Skips, visibly,
where nvcc or a header the fixture needs is absent."""
from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.conftest import ROOT

NVCC = shutil.which("nvcc") or next((p for p in ("/usr/local/cuda/bin/nvcc",) if Path(p).exists()), None)
CUDA_INCLUDE = Path("/usr/local/cuda/include")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed on this machine")


def opted_in() -> list[Path]:
    return sorted(p for p in (ROOT / "fixtures").rglob("*.cu") if p.read_text().startswith("// nvcc: compile"))


def compile_cu(path: Path, tmp_path: Path, *flags: str) -> None:
    result = subprocess.run([NVCC, "-c", "-o", str(tmp_path / "out.o"), str(path), *flags],
                            capture_output=True, text=True, timeout=240, check=False)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("path", opted_in(), ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_compiles(path: Path, tmp_path: Path) -> None:
    flags = path.read_text().split("\n", 1)[0].removeprefix("// nvcc: compile").split()
    compile_cu(path, tmp_path, *flags)


def test_demo_gemm_library_compiles(tmp_path: Path) -> None:
    if not (CUDA_INCLUDE / "cublas_v2.h").exists():
        pytest.skip(f"cuBLAS headers are not installed in {CUDA_INCLUDE}")
    demo = ROOT / "fixtures" / "repos" / "demo" / "native"
    compile_cu(demo / "src" / "gemm.cu", tmp_path, "-I", str(demo / "include"))


def test_demo_cupy_kernel_source_compiles(tmp_path: Path) -> None:
    module = ast.parse((ROOT / "fixtures/repos/demo/fastattn/kernels_cupy.py").read_text())
    source = next(n.value.value for n in module.body if isinstance(n, ast.Assign)
                  and getattr(n.targets[0], "id", "") == "_RMSNORM_SRC")
    kernel = tmp_path / "rmsnorm.cu"
    kernel.write_text(source)
    compile_cu(kernel, tmp_path)
