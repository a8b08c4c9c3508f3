"""Projects that already run on ROCm, through the real CLI: the build and source evidence of their ROCm
path is recognised, and the credit reaches the code their HIP build compiles (and only that code)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli, write_tree


def scan(tree: Path, *extra: str) -> dict:
    result = run_cli("scan", str(tree), "--format", "json", "--no-cache", "--no-hipify", *extra)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def statuses(report: dict, path: str) -> set[str]:
    return {f["status"] for f in report["findings"] if f["path"] == path}


# A CMake project with CUDA and HIP back ends of one accelerated path (option(HIP) builds src/acc/hip).
HIP_OPTION_CMAKE = """cmake_minimum_required(VERSION 3.18)
project(accel LANGUAGES CXX)
option(HIP "Enable HIP GPU acceleration" OFF)
option(CUDA "Enable CUDA GPU acceleration" ON)
if(HIP)
  enable_language(HIP)
  add_library(accel_gpu src/acc/hip/kernels.hip.cpp)
elseif(CUDA)
  enable_language(CUDA)
  add_library(accel_gpu src/acc/cuda/kernels.cu)
endif()
add_executable(accel src/main.cpp)
"""
CUDA_KERNEL = """#include <cuda_runtime.h>
__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }
void run(float *x) { scale<<<1, 32>>>(x); cudaDeviceSynchronize(); }
"""
HIP_KERNEL = """#include <hip/hip_runtime.h>
__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }
void run(float *x) { scale<<<1, 32>>>(x); hipDeviceSynchronize(); }
"""
# The shape of Eigen's Core/util/Macros.h (vendored by many projects): the #error refuses HIP *on NVIDIA*
# (hipcc driving nvcc), a combination no ROCm build has; the CUDA branch below it is the CUDA build's.
VENDORED_MACROS = """#pragma once
#if defined(__NVCC__) && defined(__HIPCC__)
  #error "NVCC as the target platform for HIPCC is currently not supported."
#endif
#if defined(__CUDACC__) && !defined(EIGEN_NO_CUDA)
  #define EIGEN_CUDACC __CUDACC__
#endif
#if defined(EIGEN_CUDACC)
#include <cuda.h>
  #define EIGEN_CUDA_SDK_VER (CUDA_VERSION * 10)
#endif
#if defined(__HIPCC__) && !defined(EIGEN_NO_HIP)
  #define EIGEN_HIPCC __HIPCC__
  #include <hip/hip_runtime.h>
#endif
"""


def accel_tree(root: Path, macros: str) -> Path:
    return write_tree(root, {"CMakeLists.txt": HIP_OPTION_CMAKE, "src/acc/cuda/kernels.cu": CUDA_KERNEL,
                             "src/acc/hip/kernels.hip.cpp": HIP_KERNEL, "src/main.cpp": '#include "Eigen/Macros.h"\n',
                             "src/Eigen/Macros.h": macros})


def test_an_error_that_refuses_hip_on_nvidia_does_not_leave_the_file_out_of_the_rocm_build(tmp_path: Path) -> None:
    report = scan(accel_tree(tmp_path / "accel", VENDORED_MACROS))
    assert report["workloads"][0]["rocm_path"]
    assert statuses(report, "src/Eigen/Macros.h") == {"ported"}
    assert report["summary"]["class"] == "native"


def test_an_error_on_the_amd_side_still_leaves_the_file_out(tmp_path: Path) -> None:
    # near miss: `#if defined(__HIPCC__)` alone is every HIP build, so the file stops a ROCm build
    refusing = VENDORED_MACROS.replace("defined(__NVCC__) && defined(__HIPCC__)", "defined(__HIPCC__)")
    report = scan(accel_tree(tmp_path / "accel", refusing))
    assert statuses(report, "src/Eigen/Macros.h") == {""}
    assert report["summary"]["class"] == "migration-required"


def test_the_hip_on_nvidia_branch_is_not_the_hip_side_of_a_chain() -> None:
    from migrate.extract.c import guards

    assert guards.labels([("defined(__NVCC__) && defined(__HIPCC__)", True, 0, 1)]) == ["cuda"]
    assert guards.labels([("defined(__HIP_PLATFORM_NVIDIA__)", True, 0, 1), ("", True, 1, 2)]) == ["cuda", "hip"]
    assert guards.labels([("defined(__HIPCC__) || defined(__NVCC__)", True, 0, 1)]) == ["hip"]
    assert guards.labels([("defined(__HIPCC__) && !defined(__CUDA_ARCH__)", True, 0, 1)]) == ["hip"]
