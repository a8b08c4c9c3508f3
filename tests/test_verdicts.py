"""Verdicts on small trees through the real CLI: ROCm paths already present, optional parts,
weak signals, and one effective class per finding in summary, SARIF and lint."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tests.conftest import run_cli

KERNEL = """#include <cuda_runtime.h>
__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }
void run(float *x) { scale<<<1, 32>>>(x); cudaDeviceSynchronize(); }
"""
SETUP_WITH_HIP = """from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension, BuildExtension, ROCM_HOME
import torch
IS_ROCM = torch.version.hip is not None
setup(name="scaler", ext_modules=[CUDAExtension("scaler_ext", ["csrc/scale.cu"])],
      cmdclass={"build_ext": BuildExtension})
"""
GUARDED_HEADER = """#pragma once
#if defined(USE_ROCM)
#include <hip/hip_runtime.h>
#else
#include <cuda_runtime.h>
#endif
"""


def scan(tree: Path, *extra: str) -> dict:
    result = run_cli("scan", str(tree), "--format", "json", "--no-cache", "--no-hipify", *extra)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_rocm_path_marks_findings_ported_and_the_workload_native(tmp_path: Path) -> None:
    tree = write(tmp_path / "scaler", {"setup.py": SETUP_WITH_HIP, "csrc/scale.cu": KERNEL,
                                       "csrc/compat.h": GUARDED_HEADER})
    report = scan(tree)
    assert report["summary"]["class"] == "native"
    assert {f["status"] for f in report["findings"]} == {"ported"}
    assert {f["class"] for f in report["findings"]} == {"native"}
    evidence = report["workloads"][0]["rocm_path"]
    assert any(e == "setup.py:2 from torch.utils.cpp_extension import ROCM_HOME" for e in evidence)
    assert any(e.startswith("csrc/compat.h:2 ") for e in evidence)


def test_a_build_branch_without_hip_sources_is_not_a_rocm_path(tmp_path: Path) -> None:
    tree = write(tmp_path / "scaler", {"setup.py": SETUP_WITH_HIP, "csrc/scale.cu": KERNEL})
    report = scan(tree)
    assert report["workloads"][0]["rocm_path"] == []
    assert report["summary"]["class"] == "minor-adaptation"  # a torch extension that hipify converts
    assert "ported" not in {f["status"] for f in report["findings"]}


def test_a_rocm_ci_job_is_a_rocm_path(tmp_path: Path) -> None:
    tree = write(tmp_path / "lib", {"CMakeLists.txt": "project(lib LANGUAGES CXX CUDA)\nadd_library(lib a.cu)\n",
                                    "a.cu": KERNEL,
                                    ".github/workflows/amd.yml": "jobs:\n  test:\n    runs-on: linux-mi300-gpu-1\n"})
    report = scan(tree)
    assert report["summary"]["class"] == "native"
    assert report["workloads"][0]["rocm_path"][0] == ".github/workflows/amd.yml:3 mi300"


def test_an_optional_part_does_not_decide_the_workload(tmp_path: Path) -> None:
    tree = write(tmp_path / "pkg", {
        "pyproject.toml": '[project]\nname = "pkg"\n',
        "pkg/__init__.py": "import subprocess\nsubprocess.run(['nvidia-smi'])\n",
        "pkg/experimental/fast.py": "import tensorrt\n",
    })
    report = scan(tree)
    assert report["summary"]["class"] == "minor-adaptation"
    (workload,) = report["workloads"]
    assert workload["optional_parts"] == [{"root": "pkg/experimental", "class": "incompatible", "findings": 1}]
    trt = next(f for f in report["findings"] if f["path"] == "pkg/experimental/fast.py")
    assert (trt["status"], trt["rule_class"]) == ("optional", "incompatible")


def test_a_single_medium_finding_does_not_decide_the_class(tmp_path: Path) -> None:
    tree = write(tmp_path / "k", {"k.cu": "__device__ float f(float a, float b) { return __bfloat162int_rz(a) + b; }\n"})
    report = scan(tree)
    (finding,) = [f for f in report["findings"] if f["symbol"] == "__bfloat162int_rz"]
    assert finding["confidence"] == "medium"
    assert report["summary"]["class"] == finding["class"] != "incompatible"


def test_summary_sarif_and_lint_use_the_same_effective_class(tmp_path: Path) -> None:
    tree = write(tmp_path / "scaler", {"setup.py": SETUP_WITH_HIP.replace(", ROCM_HOME", "").replace(
        "IS_ROCM = torch.version.hip is not None\n", ""), "csrc/scale.cu": KERNEL})
    report = scan(tree)
    by_class = report["summary"]["by_class"]
    assert by_class == dict(Counter(f["class"] for f in report["findings"]))
    assert any(f["class"] != f["rule_class"] for f in report["findings"])  # the extension's hipify credit
    sarif_out = tmp_path / "r.sarif"
    assert run_cli("scan", str(tree), "--no-cache", "--no-hipify", "--sarif", str(sarif_out)).returncode == 0
    results = json.loads(sarif_out.read_text())["runs"][0]["results"]
    assert Counter(r["properties"]["class"] for r in results) == Counter(by_class)
    lint = run_cli("lint", "--format", "json", "--fail-on", "migration-required", "--no-cache", str(tree / "csrc"))
    linted = json.loads(lint.stdout)
    classes = {item["class"] for item in (linted["findings"] if isinstance(linted, dict) else linted)}
    assert lint.returncode == (1 if "migration-required" in classes or "incompatible" in classes else 0)


def test_a_documented_rocm_route_decides_the_class(tmp_path: Path) -> None:
    tree = write(tmp_path / "gemm", {"gemm.cu": (
        "#include <cublasLt.h>\n"
        "void f(cublasLtMatmulDesc_t d) { cublasLtMatmulDescInit(d, CUBLAS_COMPUTE_32F, CUDA_R_32F); }\n"
        "__global__ void k(const __grid_constant__ CUtensorMap map) {}\n")})
    findings = {f["symbol"]: f for f in scan(tree)["findings"]}
    init, tma = findings["cublasLtMatmulDescInit"], findings["CUtensorMap"]
    assert (init["rule_class"], init["hip"], init["confidence"]) == ("migration-required", "hipblasLtMatmulDescCreate",
                                                                      "high")
    assert "ROCm route: hipblasLtMatmulDescCreate (https://rocm.docs.amd.com/" in init["message"]
    assert tma["rule_class"] == "incompatible"


def test_every_route_names_a_source() -> None:
    from migrate.rulebase import alternatives

    routes = alternatives.load()
    assert len(routes) >= 30
    assert all(r.source.startswith("https://") for r in routes.values())
