"""Projects that already run on ROCm, through the real CLI: the build and source evidence of their ROCm
path is recognised, and the credit reaches the code their HIP build compiles (and only that code)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
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
    # near miss: `#if defined(__HIPCC__)` alone is every HIP build, so the file stops a ROCm build: not credited,
    # an optional part of its own (the ROCm build runs without it)
    refusing = VENDORED_MACROS.replace("defined(__NVCC__) && defined(__HIPCC__)", "defined(__HIPCC__)")
    report = scan(accel_tree(tmp_path / "accel", refusing))
    assert statuses(report, "src/Eigen/Macros.h") == {"optional"}
    part = next(p for w in report["workloads"] for p in w["optional_parts"]
                if p["root"] == "src/Eigen/Macros.h (left out of the HIP build)")
    assert part["evidence"][0].startswith("src/Eigen/Macros.h:3 #error")


def test_the_hip_on_nvidia_branch_is_not_the_hip_side_of_a_chain() -> None:
    from migrate.extract.c import guards

    assert guards.labels([("defined(__NVCC__) && defined(__HIPCC__)", True, 0, 1)]) == ["cuda"]
    assert guards.labels([("defined(__HIP_PLATFORM_NVIDIA__)", True, 0, 1), ("", True, 1, 2)]) == ["cuda", "hip"]
    assert guards.labels([("defined(__HIPCC__) || defined(__NVCC__)", True, 0, 1)]) == ["hip"]
    assert guards.labels([("defined(__HIPCC__) && !defined(__CUDA_ARCH__)", True, 0, 1)]) == ["hip"]


def parts_of(report: dict) -> dict[str, dict]:
    return {p["root"]: p for w in report["workloads"] for p in w["optional_parts"]}


def test_what_the_hip_build_leaves_out_is_an_optional_part_not_the_class(tmp_path: Path) -> None:
    """vLLM-shaped (fixtures/workloads/ported_scoped): the project runs on ROCm without the AWQ GEMM its CMake
    adds only for CUDA and without the file that stops a HIP build; they keep their class, apart."""
    from tests.conftest import ROOT

    report = scan(ROOT / "fixtures" / "workloads" / "ported_scoped")
    assert report["summary"]["class"] == "native"
    found = parts_of(report)
    awq = found["csrc/quantization/awq/gemm_kernels.cu (left out of the HIP build)"]
    assert awq["class"] == "migration-required"
    assert awq["evidence"] == ["CMakeLists.txt:16 names csrc/quantization/awq/gemm_kernels.cu only where a HIP "
                               "build does not"]
    rejected = found["csrc/custom_all_reduce.cu (left out of the HIP build)"]
    assert rejected["evidence"][0].endswith("(a HIP build stops here)")
    assert statuses(report, "csrc/quantization/awq/gemm_kernels.cu") == {"optional"}
    assert statuses(report, "csrc/cache_kernels.cu") == {"ported"}


# Cut from vLLM (csbench/csbench 68d6f39 vllm-main/csrc/quantization/awq/dequantize.cuh, included only by the AWQ GEMM
# its CMakeLists lists under `if(VLLM_GPU_LANG STREQUAL "CUDA")`)
DEQUANTIZE_CUH = """#pragma once
#include <cuda_fp16.h>
__device__ uint4 dequantize_s4_to_fp16x2(uint32_t const& source) {
  uint4 result;
  asm volatile("lop3.b32 %0, %1, %2, %3, %4;\\n" : "=r"(result.x) : "r"(source), "n"(0x000f000f), "n"(0x64006400), "n"(0xea));
  return result;
}
"""


@pytest.mark.parametrize(("also", "status"), [("", "optional"), ("csrc/cache_kernels.cu", "ported")])
def test_a_header_only_what_the_hip_build_leaves_out_includes_is_left_out(also: str, status: str,
                                                                          tmp_path: Path) -> None:
    """The AWQ GEMM's dequantize.cuh goes with the GEMM: no HIP build compiles it. Near miss: a source the HIP
    build compiles includes it too."""
    from tests.conftest import ROOT

    base = ROOT / "fixtures" / "workloads" / "ported_scoped"
    files = {p.relative_to(base).as_posix(): p.read_text() for p in base.rglob("*") if p.is_file()}
    files["csrc/quantization/awq/dequantize.cuh"] = DEQUANTIZE_CUH
    gemm = "csrc/quantization/awq/gemm_kernels.cu"
    files[gemm] = '#include "dequantize.cuh"\n' + files[gemm]
    if also:
        files[also] = '#include "quantization/awq/dequantize.cuh"\n' + files[also]
    report = scan(write_tree(tmp_path / "vllm", files))
    assert statuses(report, "csrc/quantization/awq/dequantize.cuh") == {status}
    assert statuses(report, gemm) == {"optional"}


def test_without_a_rocm_path_nothing_is_left_out_of_a_hip_build(tmp_path: Path) -> None:
    # near miss: the same tree with no HIP branch in its build has no ROCm path; every CUDA file is required
    from tests.conftest import ROOT

    tree = tmp_path / "vllm"
    files = {p.relative_to(ROOT / "fixtures" / "workloads" / "ported_scoped").as_posix(): p.read_text()
             for p in (ROOT / "fixtures" / "workloads" / "ported_scoped").rglob("*") if p.is_file()}
    files["CMakeLists.txt"] = files["CMakeLists.txt"].replace(
        'if(VLLM_GPU_LANG STREQUAL "HIP")\n  enable_language(HIP)\n  find_package(hip REQUIRED)\nendif()\n', "")
    files["csrc/cache_kernels.cu"] = "#include <cuda_runtime.h>\n" + "\n".join(
        line for line in files["csrc/cache_kernels.cu"].splitlines() if "ROCM" not in line and "hip" not in line)
    report = scan(write_tree(tree, files))
    assert report["workloads"][0]["rocm_path"] == []
    assert not any("left out of the HIP build" in root for root in parts_of(report))
    assert statuses(report, "csrc/quantization/awq/gemm_kernels.cu") == {""}
    assert report["summary"]["class"] != "native"


SUBPROJECT_SETUP = """from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="ait_bridge", ext_modules=[CUDAExtension("libbridge", ["bridge/csrc/bridge.cpp"])],
      cmdclass={"build_ext": BuildExtension})
"""
BRIDGE = """#include <cuda_runtime.h>
void make_stream() { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); cudaStreamDestroy(s); }
"""


def test_a_sub_project_built_on_its_own_without_rocm_is_one_optional_part(tmp_path: Path) -> None:
    """A code generator with a ROCm CI job (its HIP back end) and an integration package in a folder of its own
    whose setup.py builds a torch extension for CUDA only (AITemplate's fx2ait shape)."""
    tree = write_tree(tmp_path / "gen", {
        ".github/workflows/rocm_ci.yml": "jobs:\n  test:\n    runs-on: rocm\n",
        "python/setup.py": "from setuptools import setup, find_packages\nsetup(name='gen', packages=find_packages())\n",
        "python/gen/backend/cuda/gemm.cu": CUDA_KERNEL, "python/gen/backend/rocm/gemm.hip": HIP_KERNEL,
        "bridge/setup.py": SUBPROJECT_SETUP.replace("bridge/csrc", "csrc"), "bridge/csrc/bridge.cpp": BRIDGE})
    report = scan(tree)
    part = parts_of(report)["bridge (a build of its own without ROCm)"]
    assert part["class"] == "minor-adaptation"  # a torch extension PyTorch's ROCm build hipifies
    assert part["evidence"] == ["bridge/setup.py builds bridge on its own, with no ROCm path"]
    assert statuses(report, "bridge/csrc/bridge.cpp") == {"optional"}
    assert report["summary"]["class"] == "native"


SIBLING_SUBPROJECT = Path(__file__).resolve().parent.parent / "fixtures" / "workloads" / "ported_sibling_subproject"


def test_a_sub_project_no_hip_build_reaches_is_required_not_left_out() -> None:
    """multi-platform-op-lib: the only HIP builds are a sibling folder's own script and source, which reach no build
    above or inside csrc/gemm/, so no HIP build leaves the CUDA-only GEMM out: it is required and its wgmma kernel
    (a rewrite, the whole of the extension's kernels) makes the project incompatible."""
    report = scan(SIBLING_SUBPROJECT)
    assert not any("a build of its own without ROCm" in root for root in parts_of(report))
    assert statuses(report, "csrc/gemm/bfgemm_wgmma.cu") == {""}
    assert report["summary"]["class"] == "incompatible"


def test_near_miss_a_hip_build_above_the_sub_project_leaves_it_out(tmp_path: Path) -> None:
    """The same tree with the hipcc script at the top, above csrc/gemm/: a HIP build that reaches the folder and does
    not build it, so the GEMM is an optional part and the project native."""
    tree = tmp_path / "ops"
    shutil.copytree(SIBLING_SUBPROJECT, tree)
    (tree / "csrc/global_mem_operation/build_clanghipcc.sh").rename(tree / "build_clanghipcc.sh")
    report = scan(tree)
    part = parts_of(report)["csrc/gemm (a build of its own without ROCm)"]
    assert part["evidence"] == ["csrc/gemm/setup.py builds csrc/gemm on its own, with no ROCm path"]
    assert statuses(report, "csrc/gemm/bfgemm_wgmma.cu") == {"optional"}
    assert report["summary"]["class"] == "native"


BUILD_FOLDER_HIP = Path(__file__).resolve().parent.parent / "fixtures" / "trees" / "build_folder_hip"


def _scan_json(tree: Path) -> dict:
    result = run_cli("scan", str(tree), "--format", "json", "--no-cache", "--no-hipify")
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def test_a_hip_build_kept_under_build_is_a_rocm_path() -> None:
    """astra-toolbox's shape: build/linux/Makefile.in compiles the CUDA sources with hipcc too
    (-DASTRA_BUILDING_HIP, through a cuda->hip shim header). The folder holds the project's build files, not
    build output, so the HIP build is read and the kernels are ported."""
    report = _scan_json(BUILD_FOLDER_HIP)
    assert report["summary"]["class"] == "native"
    assert any("build/linux/Makefile.in" in e for w in report["workloads"] for e in w["rocm_path"])
    kernels = [f for f in report["findings"] if f["path"] == "cuda/2d/fan_fp.cu"]
    assert kernels and {f["status"] for f in kernels} == {"ported"}


def test_a_build_folder_a_build_tool_wrote_into_is_skipped(tmp_path: Path) -> None:
    """Near miss: the same tree with CMake's cache at the top of build/: build output, skipped; the
    shim alone is no HIP build, so the kernels are to port."""
    tree = Path(shutil.copytree(BUILD_FOLDER_HIP, tmp_path / "astra"))
    (tree / "build" / "CMakeCache.txt").write_text("CMAKE_BUILD_TYPE:STRING=Release\n")
    report = _scan_json(tree)
    assert "build/" in {s["path"] for s in report["skipped"]}
    assert not any(f["path"].startswith("build/") for f in report["findings"])
    kernels = [f for f in report["findings"] if f["path"] == "cuda/2d/fan_fp.cu" and f["rule"] == "HIP4002"]
    assert kernels and {f["status"] for f in kernels} == {""}


# Cut from Exawind/amr-wind .github/workflows/ci.yml (at 2cfeff8): a GPU-CUDA job and a GPU-HIP job of one workflow.
CUDA_JOB = """  GPU-Nvidia:
    name: GPU-CUDA
    runs-on: ubuntu-24.04
    steps:
      - name: Prepare CUDA environment
        run: |
          wget https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/cuda-keyring_1.1-1_all.deb
          sudo dpkg -i cuda-keyring_1.1-1_all.deb
          sudo apt-get update
          sudo apt-get install -y cuda-command-line-tools-12-6 cuda-compiler-12-6 libcurand-dev-12-6 libcusparse-dev-12-6
      - name: Configure and build
        run: cmake -B build-cuda -DCUDA:BOOL=ON -DCMAKE_CUDA_ARCHITECTURES=80 .
"""
HIP_JOB = """  GPU-AMD:
    name: GPU-HIP
    runs-on: ubuntu-24.04
    steps:
      - name: Prepare HIP environment
        run: |
          wget https://repo.radeon.com/rocm/rocm.gpg.key -O - | gpg --dearmor | sudo tee /etc/apt/keyrings/rocm.gpg
          echo "deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.3.3 noble main" | sudo tee /etc/apt/sources.list.d/rocm.list
          sudo apt-get update
          sudo apt-get install -y rocm-dev rocrand-dev rocprim-dev hiprand-dev rocsparse-dev
      - name: Configure and build
        run: cmake -B build-hip -DHIP:BOOL=ON -DCMAKE_HIP_ARCHITECTURES=gfx90a .
"""


def _ci_tree(root: Path, workflows: dict[str, str]) -> Path:
    files = {"CMakeLists.txt": HIP_OPTION_CMAKE, "src/acc/cuda/kernels.cu": CUDA_KERNEL,
             "src/acc/hip/kernels.hip.cpp": HIP_KERNEL, "src/main.cpp": "int main() { return 0; }\n"}
    files.update({f".github/workflows/{name}": "name: CI\non: push\njobs:\n" + text for name, text in workflows.items()})
    return write_tree(root, files)


def test_a_cuda_ci_job_beside_a_hip_job_of_the_same_workflow_is_ported(tmp_path: Path) -> None:
    """amr-wind: the CUDA job's apt packages are the twin of the HIP job beside them; nothing to edit."""
    report = scan(_ci_tree(tmp_path / "amr", {"ci.yml": CUDA_JOB + HIP_JOB}))
    packages = [f for f in report["findings"] if f["path"] == ".github/workflows/ci.yml" and f["rule"] == "HIP7013"]
    assert packages and {f["status"] for f in packages} == {"ported"}


def test_a_cuda_only_workflow_beside_a_hip_build_elsewhere_keeps_its_findings(tmp_path: Path) -> None:
    """Near miss: the workflow has only the CUDA job (the HIP build is in CMake alone): its packages stay optional
    CI work (a ROCm job is still to write)."""
    report = scan(_ci_tree(tmp_path / "amr", {"ci.yml": CUDA_JOB}))
    packages = [f for f in report["findings"] if f["path"] == ".github/workflows/ci.yml" and f["rule"] == "HIP7013"]
    assert packages and {f["status"] for f in packages} == {"optional"}


# HIP's API defined over CUDA (ROCm/hipother's hipnv shape, tests/fixtures/trees/hip_nvidia_side for the cut): HIP's own
# NVIDIA side, never compiled on AMD.
HIP_OVER_CUDA = """#include <cuda_runtime_api.h>
typedef int hipError_t;
hipError_t hipCUDAErrorTohipError(cudaError_t e);
inline static hipError_t hipMalloc(void** p, size_t n) { return hipCUDAErrorTohipError(cudaMalloc(p, n)); }
inline static hipError_t hipFree(void* p) { return hipCUDAErrorTohipError(cudaFree(p)); }
inline static hipError_t hipDeviceSynchronize() { return hipCUDAErrorTohipError(cudaDeviceSynchronize()); }
"""


def test_a_project_that_implements_hip_over_cuda_is_hip(tmp_path: Path) -> None:
    report = scan(write_tree(tmp_path / "hipnv", {"include/hip/nvidia_detail/nvidia_hip_runtime_api.h": HIP_OVER_CUDA,
                                                  "include/hip/nvidia_detail/nvidia_hip_texture_types.h":
                                                      "#include <texture_types.h>\n"}))
    assert report["summary"]["class"] == "native"
    assert statuses(report, "include/hip/nvidia_detail/nvidia_hip_texture_types.h") == {"ported"}
    assert any("defines 3 HIP API names over CUDA" in e for w in report["workloads"] for e in w["rocm_path"])


def test_hip_definitions_beside_most_of_the_cuda_are_no_rocm_path(tmp_path: Path) -> None:
    """Near miss: the same three definitions in a CUDA project whose kernels hold most of its CUDA are a compat
    header, not the project's platform layer; a helper named hip* wrapping another call defines no HIP API name."""
    kernels = "".join(f"void run{i}(float *x) {{ cudaMemset(x, 0, 4); cudaDeviceSynchronize(); cudaGetLastError(); }}\n"
                      for i in range(3))
    report = scan(write_tree(tmp_path / "app", {"src/compat.h": HIP_OVER_CUDA, "src/main.cu": CUDA_KERNEL + kernels}))
    assert report["summary"]["class"] == "migration-required"
    assert all(not w["rocm_path"] for w in report["workloads"])
    helper = scan(write_tree(tmp_path / "helper", {
        "check.h": "#include <cuda_runtime.h>\n"
                   "inline int hipCheck() { return (int)cudaGetLastError(); }\n"
                   "inline int hipSync() { return (int)cudaDeviceSynchronize(); }\n"
                   "inline int hipAlloc(void **p) { return (int)cudaMalloc(p, 4); }\n"}))
    assert helper["summary"]["class"] == "migration-required"
