"""Verdicts on small trees through the real CLI: ROCm paths already present, optional parts,
weak signals, and one effective class per finding in summary, SARIF and lint."""
from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from tests.conftest import ROOT, run_cli, write_tree

KERNEL = """#include <cuda_runtime.h>
__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }
void run(float *x) { scale<<<1, 32>>>(x); cudaDeviceSynchronize(); }
"""
SETUP_WITH_HIP = """from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension, BuildExtension, ROCM_HOME
import torch
IS_ROCM = torch.version.hip is not None
HIP_FLAGS = ["-DUSE_ROCM"] if ROCM_HOME else []
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
COST_KEYS = ("effort_hours", "effort_breakdown")  # an optional part's cost (tests/test_optional_parts.py)


def scan(tree: Path, *extra: str) -> dict:
    result = run_cli("scan", str(tree), "--format", "json", "--no-cache", "--no-hipify", *extra)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def test_rocm_path_marks_findings_ported_and_the_workload_native(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "scaler", {"setup.py": SETUP_WITH_HIP, "csrc/scale.cu": KERNEL,
                                       "csrc/compat.h": GUARDED_HEADER})
    report = scan(tree)
    assert report["summary"]["class"] == "native"
    assert {f["status"] for f in report["findings"]} == {"ported"}
    assert {f["class"] for f in report["findings"]} == {"native"}
    evidence = report["workloads"][0]["rocm_path"]
    assert any(e == "setup.py:2 from torch.utils.cpp_extension import ROCM_HOME" for e in evidence)
    assert any(e.startswith("csrc/compat.h:2 ") for e in evidence)


def test_a_build_branch_without_hip_sources_is_not_a_rocm_path(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "scaler", {"setup.py": SETUP_WITH_HIP, "csrc/scale.cu": KERNEL})
    report = scan(tree)
    assert report["workloads"][0]["rocm_path"] == []
    assert report["summary"]["class"] == "minor-adaptation"  # a torch extension that hipify converts
    assert "ported" not in {f["status"] for f in report["findings"]}


REJECTING_KERNEL = """#include <cuda_runtime.h>
#include <cusparse.h>
torch::Tensor coo_spmm(torch::Tensor const &rows) {
#if defined __HIP_PLATFORM_HCC__
  TORCH_CHECK(false, "spmm sparse-dense is not supported on HIP");
#elif defined(_WIN32) || defined(_WIN64)
  TORCH_CHECK(false, "spmm sparse-dense CUDA is not supported on Windows");
#endif
  cusparseSpMMAlg_t mm_alg;
  return rows;
}
"""
TEST_SETUP_IMPORTING_ROCM_HOME = """from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, ROCM_HOME, CUDAExtension, BuildExtension
setup(name="t", ext_modules=[CUDAExtension("t", ["t.cu"], include_dirs=[CUDA_HOME + "/include"])],
      cmdclass={"build_ext": BuildExtension})
"""


def test_a_hip_branch_that_only_fails_and_an_unread_rocm_home_are_no_rocm_path(tmp_path: Path) -> None:
    """Cut from MinkowskiEngine 02fc608 (src/spmm.cu:84, tests/cpp/setup.py:11): no HIP build at all."""
    tree = write_tree(tmp_path / "engine", {"setup.py": SETUP_WITH_HIP.replace("csrc/scale.cu", "src/spmm.cu"),
                                       "src/spmm.cu": REJECTING_KERNEL, "src/scale.cu": KERNEL,
                                       "tests/cpp/setup.py": TEST_SETUP_IMPORTING_ROCM_HOME})
    report = scan(tree)
    assert report["workloads"][0]["rocm_path"] == []
    assert "ported" not in {f["status"] for f in report["findings"]}
    assert report["summary"]["class"] != "native"
    # near miss: a HIP side that does something (includes the HIP runtime) is a HIP branch
    working = REJECTING_KERNEL.replace('  TORCH_CHECK(false, "spmm sparse-dense is not supported on HIP");\n',
                                       "  hipsparseSpMM_stub();\n")
    write_tree(tree, {"src/spmm.cu": working})
    evidence = scan(tree)["workloads"][0]["rocm_path"]
    assert any(e.startswith("src/spmm.cu:4 ") for e in evidence)
    assert any(e.startswith("setup.py:2 ") for e in evidence)


def test_a_rocm_ci_job_is_a_rocm_path(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "lib", {"CMakeLists.txt": "project(lib LANGUAGES CXX CUDA)\nadd_library(lib a.cu)\n",
                                    "a.cu": KERNEL,
                                    ".github/workflows/amd.yml": "jobs:\n  test:\n    runs-on: linux-mi300-gpu-1\n"})
    report = scan(tree)
    assert report["summary"]["class"] == "native"
    assert report["workloads"][0]["rocm_path"][0] == ".github/workflows/amd.yml:3 mi300"


def test_an_optional_part_does_not_decide_the_workload(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "pkg", {
        "pyproject.toml": '[project]\nname = "pkg"\n',
        "pkg/__init__.py": "import subprocess\nsubprocess.run(['nvidia-smi'])\n",
        "pkg/experimental/fast.py": "import tensorrt\n",
    })
    report = scan(tree)
    assert report["summary"]["class"] == "minor-adaptation"
    (workload,) = report["workloads"]
    assert [{k: v for k, v in part.items() if k not in COST_KEYS} for part in workload["optional_parts"]] == [
        {"root": "pkg/experimental", "class": "incompatible", "findings": 1,
         "evidence": ["pkg/experimental/: a folder a package does not need to run (rules/workloads/optional.yaml)"],
         "files": ["pkg/experimental/fast.py"]}]
    assert workload["optional_parts"][0]["effort_hours"]["likely"] > 0  # its one incompatible import, apart
    trt = next(f for f in report["findings"] if f["path"] == "pkg/experimental/fast.py")
    assert (trt["status"], trt["rule_class"]) == ("optional", "incompatible")


OPT_IN_SETUP = """import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
nvcc_flags = ["-std=c++17"]
if os.environ.get("GROUPED_GEMM_CUTLASS", "0") == "1":
    nvcc_flags.extend(["-DGROUPED_GEMM_CUTLASS"])
setup(name="gg", ext_modules=[CUDAExtension("gg_backend", ["csrc/gg.cu"], extra_compile_args={"nvcc": nvcc_flags})],
      cmdclass={"build_ext": BuildExtension})
"""
CUTLASS_ELSE = """#include <cublas_v2.h>
__global__ void fill(float *x) { x[threadIdx.x] = 0.0f; }
void gemm(cublasHandle_t h, const float *a, const float *b, float *c) {
#if !defined(GROUPED_GEMM_CUTLASS)
  float one = 1.0f;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, a, 4, b, 4, &one, c, 4);
#else
  using Gemm = cutlass::gemm::device::GemmGrouped<cutlass::gemm::kernel::DefaultGemmGrouped<float>>;
  Gemm gemm_op;
  gemm_op.run();
#endif
}
"""


def test_a_macro_an_environment_opt_in_defines_gates_an_optional_else(tmp_path: Path) -> None:
    """Cut from tgale96/grouped_gemm ebeae0b (setup.py:30, csrc/grouped_gemm.cu:542): the CUTLASS path
    is built only with GROUPED_GEMM_CUTLASS=1; the default build calls cuBLAS."""
    tree = write_tree(tmp_path / "gg", {"setup.py": OPT_IN_SETUP, "csrc/gg.cu": CUTLASS_ELSE})
    workload = next(w for w in scan(tree)["workloads"] if w["name"] == "gg_backend")
    (part,) = workload["optional_parts"]
    assert (part["root"], workload["class"]) == ("build switch GROUPED_GEMM_CUTLASS", "minor-adaptation")
    assert "setup.py:6 environment-opt-in(GROUPED_GEMM_CUTLASS) default 0" in part["evidence"]
    # near miss: the same flag added on every build is no switch
    write_tree(tree, {"setup.py": OPT_IN_SETUP.replace('if os.environ.get("GROUPED_GEMM_CUTLASS", "0") == "1":\n    ', "")})
    workload = next(w for w in scan(tree)["workloads"] if w["name"] == "gg_backend")
    assert workload["optional_parts"] == [] and workload["class"] != "minor-adaptation"  # CUTLASS is required now


JIT_LOADER = """import os
from torch.utils.cpp_extension import load


def load_cpp_ext(ext_name):
    ext_csrc = os.path.join(os.path.split(__file__)[0], "csrc")
    ext_sources = [
        os.path.join(ext_csrc, "cuda", "{}.cpp".format(ext_name)),
        os.path.join(ext_csrc, "cuda", "{}.cu".format(ext_name)),
    ]
    return load(name=ext_name, sources=ext_sources, extra_cuda_cflags=["-DCUDA_HAS_FP16=1"], with_cuda=True)


_knn = load_cpp_ext("knn")
"""
COMPREHENSION_SETUP = """import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
_src_path = os.path.dirname(os.path.abspath(__file__))
setup(name="raymarching", ext_modules=[CUDAExtension(name="_raymarching",
      sources=[os.path.join(_src_path, "src", f) for f in ["raymarching.cu", "bindings.cpp"]])],
      cmdclass={"build_ext": BuildExtension})
"""
BINDINGS = "#include <torch/extension.h>\nvoid run(float *x);\n"


def test_torch_extension_sources_named_by_format_or_comprehension_get_hipify_credit(tmp_path: Path) -> None:
    """Cut from unlimblue/KNN_CUDA 619617b (knn_cuda/__init__.py: "{}.cu".format(ext_name)) and
    ashawkey/torch-ngp b6e0804 (raymarching/setup.py: [os.path.join(_src_path, 'src', f) for f in [...]]):
    PyTorch's ROCm build hipifies these plain kernels, so they are minor-adaptation."""
    tree = write_tree(tmp_path / "p", {"knn_cuda/__init__.py": JIT_LOADER, "knn_cuda/csrc/cuda/knn.cu": KERNEL,
                                  "knn_cuda/csrc/cuda/knn.cpp": BINDINGS,
                                  "raymarching/setup.py": COMPREHENSION_SETUP, "raymarching/src/raymarching.cu": KERNEL,
                                  "raymarching/src/bindings.cpp": BINDINGS})
    report = scan(tree)
    kinds = {w["name"]: (w["kind"], w["class"]) for w in report["workloads"]}
    assert kinds["knn_cuda"] == ("torch-extension", "minor-adaptation")
    assert kinds["_raymarching"] == ("torch-extension", "minor-adaptation")
    # near miss: a comprehension over names the scan cannot read builds nothing it can credit
    write_tree(tree, {"raymarching/setup.py": COMPREHENSION_SETUP.replace('["raymarching.cu", "bindings.cpp"]', "NAMES")})
    launch = next(f for f in scan(tree)["findings"] if f["path"] == "raymarching/src/raymarching.cu"
                  and f["rule"] == "HIP4001")
    assert launch["class"] == "migration-required"


TWO_BACKEND_CMAKE = """cmake_minimum_required(VERSION 3.18)
project(fastllm LANGUAGES CXX)
option(USE_CUDA "use cuda" OFF)
option(USE_ROCM "use ROCm" OFF)
if (USE_CUDA)
    enable_language(CUDA)
    set(FASTLLM_CUDA_SOURCES src/devices/cuda/fastllm-cuda.cu
        src/devices/cuda/attention/fastllm-attention.cu)
endif()
if(USE_ROCM)
    enable_language(HIP)
    hipify(CUDA_SOURCE_DIR ${PROJECT_SOURCE_DIR}/src/devices/cuda HIP_SOURCE_DIR ${PROJECT_SOURCE_DIR}/src/devices/hip)
    set(FASTLLM_CUDA_SOURCES src/devices/hip/fastllm-hip.hip)
endif()
add_library(fastllm ${FASTLLM_CUDA_SOURCES})
"""


def test_sources_only_the_cuda_switchs_branch_builds_beside_a_rocm_branch_are_not_ported(tmp_path: Path) -> None:
    """Cut from ztxz16/fastllm d3aea32 (CMakeLists.txt:243 if (USE_CUDA), :448 if(USE_ROCM)): the ROCm build
    compiles the hipified fastllm-cuda.cu (listed as src/devices/hip/fastllm-hip.hip) and leaves the
    attention kernels out."""
    tree = write_tree(tmp_path / "fastllm", {"CMakeLists.txt": TWO_BACKEND_CMAKE, "include/compat.h": GUARDED_HEADER,
                                        "src/devices/cuda/fastllm-cuda.cu": KERNEL,
                                        "src/devices/cuda/attention/fastllm-attention.cu": KERNEL})
    status = {f["path"]: f["status"] for f in scan(tree)["findings"] if f["rule"] == "HIP4001"}
    assert status["src/devices/cuda/fastllm-cuda.cu"] == "ported"
    assert status["src/devices/cuda/attention/fastllm-attention.cu"] != "ported"
    # near miss: the ROCm branch lists the attention kernels' hipified twin too
    write_tree(tree, {"CMakeLists.txt": TWO_BACKEND_CMAKE.replace(
        "src/devices/hip/fastllm-hip.hip)", "src/devices/hip/fastllm-hip.hip src/devices/hip/attention/fastllm-attention.hip)")})
    assert {f["status"] for f in scan(tree)["findings"] if f["rule"] == "HIP4001"} == {"ported"}


ALWAYS_BF16_SETUP = """from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
NVCC_FLAGS = ["-O2", "-std=c++17", "-DENABLE_BF16"]
setup(name="q", ext_modules=[CUDAExtension("q_ops", ["csrc/ops.cu"], extra_compile_args={"nvcc": NVCC_FLAGS})],
      cmdclass={"build_ext": BuildExtension})
"""
BF16_OPS = """#include <cuda_runtime.h>
__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }
#ifdef ENABLE_BF16
__device__ int pack(unsigned v) { return __shfl_xor_sync(0xffffffff, (int)v, 1) + (threadIdx.x % 32); }
#endif
"""


def test_a_switch_every_build_defines_is_not_optional(tmp_path: Path) -> None:
    """Cut from mit-han-lab/qserve de6a2ec (kernels/setup.py:19 NVCC_FLAGS with -DENABLE_BF16): the
    #ifdef ENABLE_BF16 code is always built, so it is no optional part."""
    tree = write_tree(tmp_path / "q", {"setup.py": ALWAYS_BF16_SETUP, "csrc/ops.cu": BF16_OPS})
    assert all(not w["optional_parts"] for w in scan(tree)["workloads"])
    # near miss: without the flag the switch's code is an alternative the project builds without
    write_tree(tree, {"setup.py": ALWAYS_BF16_SETUP.replace(', "-DENABLE_BF16"', "")})
    roots = [o["root"] for w in scan(tree)["workloads"] for o in w["optional_parts"]]
    assert "build switch ENABLE_BF16" in roots


DETECTED_FEATURE_CMAKE = """cmake_minimum_required(VERSION 3.18)
project(engine LANGUAGES CXX CUDA)
set(SOURCES src/plain.cu)
if (ENGINE_CUTLASS_FP8_SM120_ENABLED AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.9)
    set(SM120_SOURCE src/gemm_sm120.cu)
    list(APPEND SOURCES ${SM120_SOURCE})
endif()
add_library(engine ${SOURCES})
"""
CUTLASS_GEMM = "#include <cutlass/gemm/device/gemm.h>\nusing Gemm = cutlass::gemm::device::Gemm<float, float>;\n"


def test_a_feature_flag_named_x_enabled_gates_an_optional_part(tmp_path: Path) -> None:
    """Cut from ztxz16/fastllm d3aea32 (CMakeLists.txt:358): the SM120 DeepGEMM sources are added once the
    build has detected FASTLLM_CUTLASS_FP8_SM120_ENABLED; the plain kernels build without them."""
    tree = write_tree(tmp_path / "engine", {"CMakeLists.txt": DETECTED_FEATURE_CMAKE, "src/plain.cu": KERNEL,
                                       "src/gemm_sm120.cu": CUTLASS_GEMM})
    roots = [o["root"] for w in scan(tree)["workloads"] for o in w["optional_parts"]]
    assert "build switch ENGINE_CUTLASS_FP8_SM120_ENABLED" in roots
    # near miss: a flag of the GPU platform itself gates the GPU path, never an optional part
    write_tree(tree, {"CMakeLists.txt": DETECTED_FEATURE_CMAKE.replace("ENGINE_CUTLASS_FP8_SM120_ENABLED",
                                                                       "ENGINE_CUDA_ENABLED")})
    assert not [o for w in scan(tree)["workloads"] for o in w["optional_parts"]]


EXT_CUDA = """typedef enum cudaError_enum { CUDA_SUCCESS = 0, CUDA_ERROR_DEINITIALIZED = 4 } CUresult;
typedef struct CUctx_st *CUcontext;
typedef CUresult (*CUDA_CUCTXCREATE)(CUcontext *, unsigned int, int);
int hc_cuCtxCreate(void *hashcat_ctx, CUcontext *pctx, unsigned int flags, int dev);
static inline int hc_cuInit(void) { return cuInit(0); }
"""
EXT_HIP = """typedef enum hipError_t { hipSuccess = 0 } hipError_t;
typedef struct ihipCtx_t *hipCtx_t;
typedef hipError_t (*HIP_HIPCTXCREATE)(hipCtx_t *, unsigned int, int);
"""


def test_a_cuda_back_end_beside_its_hip_twin_is_ported(tmp_path: Path) -> None:
    """Cut from hashcat d3983ed (include/ext_cuda.h beside include/ext_hip.h, both loaded at run time):
    the project already runs on AMD through the twin, whatever its build says."""
    tree = write_tree(tmp_path / "hc", {"include/ext_cuda.h": EXT_CUDA, "include/ext_hip.h": EXT_HIP,
                                   "src/backend.c": "#include \"ext_cuda.h\"\n#include \"ext_hip.h\"\n"})
    statuses = {f["status"] for f in scan(tree)["findings"] if f["path"] == "include/ext_cuda.h"}
    assert statuses == {"ported"}
    # named in CamelCase (Umpire 5bf5bc1 src/umpire/alloc/CudaMallocAllocator.hpp beside HipMallocAllocator.hpp)
    write_tree(tree, {"alloc/CudaMallocAllocator.hpp": "void* a(unsigned long n) { void* p; cudaMalloc(&p, n); return p; }\n",
                 "alloc/HipMallocAllocator.hpp": "void* a(unsigned long n) { void* p; hipMalloc(&p, n); return p; }\n"})
    assert {f["status"] for f in scan(tree)["findings"] if f["path"] == "alloc/CudaMallocAllocator.hpp"} == {"ported"}
    (tree / "alloc" / "HipMallocAllocator.hpp").unlink()
    # near miss: without the HIP member the CUDA back end is what a port has to write
    (tree / "include" / "ext_hip.h").unlink()
    assert "ported" not in {f["status"] for f in scan(tree)["findings"]}


EXT_SETUP = """from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="monarch", ext_modules=[CUDAExtension("monarch_cuda", ["csrc/monarch.cu"], include_dirs=["include"])],
      cmdclass={"build_ext": BuildExtension})
"""
BF16_HEADER = "#include <cuda_bf16.h>\n__device__ __nv_bfloat16 half_of(float x) { return __nv_bfloat16(x * 0.5f); }\n"


def test_headers_a_torch_extension_includes_from_other_folders_are_hipified_with_it(tmp_path: Path) -> None:
    """Cut from HazyResearch/flash-fft-conv b877102 (monarch_cuda/*.cu include kernels_bf16/*.h) and
    princeton-vl/lietorch e7df865 (include/lietorch_gpu.h through include_dirs): PyTorch's hipify converts
    what the extension's sources include, so a bf16 type there is minor-adaptation."""
    tree = write_tree(tmp_path / "m", {"setup.py": EXT_SETUP,
                                  "csrc/monarch.cu": '#include "kernels_bf16/k.h"\n#include "gpu.h"\n' + KERNEL,
                                  "csrc/kernels_bf16/k.h": BF16_HEADER, "include/gpu.h": BF16_HEADER.replace("half_of", "g"),
                                  "tools/unused.h": BF16_HEADER.replace("half_of", "u")})
    report = scan(tree)
    classes = {f["path"]: f["class"] for f in report["findings"] if f["rule"] == "HIP4920"}
    assert classes["csrc/kernels_bf16/k.h"] == classes["include/gpu.h"] == "minor-adaptation"
    # near miss: a header nothing of the extension includes is not the extension's
    owner = {path: w["name"] for w in report["workloads"] for path in w.get("files", [])}
    assert owner.get("csrc/kernels_bf16/k.h") == "monarch_cuda" and owner.get("tools/unused.h") != "monarch_cuda"


def test_headers_a_torch_extension_includes_in_angle_brackets_from_its_include_dirs_are_hipified(tmp_path: Path) -> None:
    """Cut from ashawkey/cubvh 7855c00 (src/api_gpu.cu: `#include <gpu/bvh.cuh>`, include_dirs=[include]):
    hipify_python looks an angle-bracket header up in the extension's include directories and converts it too."""
    tree = write_tree(tmp_path / "c", {"setup.py": EXT_SETUP,
                                  "csrc/monarch.cu": '#include <gpu/common.h>\n#include <vector>\n' + KERNEL,
                                  "include/gpu/common.h": BF16_HEADER,
                                  "tools/gpu/other.h": BF16_HEADER.replace("half_of", "o")})
    report = scan(tree)
    owner = {path: w["name"] for w in report["workloads"] for path in w.get("files", [])}
    assert owner["include/gpu/common.h"] == "monarch_cuda"
    assert owner.get("tools/gpu/other.h") != "monarch_cuda"  # near miss: included by nothing of the extension
    classes = {f["path"]: f["class"] for f in report["findings"] if f["rule"] == "HIP4920"}
    assert classes["include/gpu/common.h"] == "minor-adaptation"


def test_a_single_medium_finding_does_not_decide_the_class(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "k", {"k.cu": "__device__ float f(float a, float b) { return __bfloat162int_rz(a) + b; }\n"})
    report = scan(tree)
    (finding,) = [f for f in report["findings"] if f["symbol"] == "__bfloat162int_rz"]
    assert finding["confidence"] == "medium"
    assert report["summary"]["class"] == finding["class"] != "incompatible"


def test_summary_sarif_and_lint_use_the_same_effective_class(tmp_path: Path) -> None:
    plain = SETUP_WITH_HIP.replace(", ROCM_HOME", "").replace("IS_ROCM = torch.version.hip is not None\n", "")
    plain = plain.replace('HIP_FLAGS = ["-DUSE_ROCM"] if ROCM_HOME else []\n', "")
    tree = write_tree(tmp_path / "scaler", {"setup.py": plain, "csrc/scale.cu": KERNEL})
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
    tree = write_tree(tmp_path / "gemm", {"gemm.cu": (
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


def test_an_edited_route_invalidates_cached_findings_and_the_rules_version(tmp_path: Path) -> None:
    """The rules version covers every rule data file, not only the top-level rules/*.yaml: an edit
    to rules/alternatives/routes.yaml is a miss of the per-file cache and of the report cache."""
    import shutil

    from migrate.rulebase.load import default_rules_dir, rules_version

    rules = tmp_path / "rules"
    shutil.copytree(default_rules_dir(), rules)
    tree = write_tree(tmp_path / "gemm", {"gemm.cu": "#include <cublasLt.h>\nvoid f(cublasLtMatmulDesc_t d) "
                                                "{ cublasLtMatmulDescInit(d, CUBLAS_COMPUTE_32F, CUDA_R_32F); }\n"})
    def init_finding() -> dict:
        result = run_cli("scan", str(tree), "--format", "json", "--no-hipify", "--rules-dir", str(rules),
                         env={"ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")})
        assert result.returncode in (0, 1), result.stderr
        return next(f for f in json.loads(result.stdout)["findings"] if f["symbol"] == "cublasLtMatmulDescInit")

    before, version = init_finding(), rules_version(rules)
    assert before["hip"] == "hipblasLtMatmulDescCreate"
    routes = rules / "alternatives" / "routes.yaml"
    routes.write_text(routes.read_text().replace("hip: hipblasLtMatmulDescCreate", "hip: hipblasLtEditedRoute"))
    assert rules_version(rules) != version
    assert init_finding()["hip"] == "hipblasLtEditedRoute"


OPTIONAL_BACKENDS = """import os
try:
    import tensorrt
    HAS_TRT = True
except ImportError:
    HAS_TRT = False
USE_NVML = os.getenv("PKG_USE_NVML", "0") == "1"
if USE_NVML:
    import pynvml
"""
REQUIRED_BACKENDS = """import os
try:
    import tensorrt
except ImportError as exc:
    raise RuntimeError("pkg needs TensorRT") from exc
if os.getenv("PKG_USE_NVML", "1") == "1":
    import pynvml
"""


def test_an_import_fallback_and_an_env_var_opt_in_are_optional_parts(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "opt", {"pyproject.toml": '[project]\nname = "pkg"\n', "pkg/__init__.py": "",
                                    "pkg/backends.py": OPTIONAL_BACKENDS})
    report = scan(tree)
    found = {f["symbol"]: f for f in report["findings"]}
    assert {found["tensorrt"]["status"], found["pynvml"]["status"]} == {"optional"}
    assert found["tensorrt"]["rule_class"] == "incompatible"
    assert report["summary"]["class"] == "native"
    parts = [{k: v for k, v in part.items() if k not in COST_KEYS} for part in report["workloads"][0]["optional_parts"]]
    assert parts == [{"root": "pkg/backends.py (optional scope)", "class": "incompatible", "findings": 2,
                      "evidence": ["pkg/backends.py:3: an optional import or opt-in",
                                   "pkg/backends.py:9: an optional import or opt-in"],
                      "files": ["pkg/backends.py"]}]


def test_a_reraising_handler_and_a_default_on_variable_are_required(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "req", {"pyproject.toml": '[project]\nname = "pkg"\n', "pkg/__init__.py": "",
                                    "pkg/backends.py": REQUIRED_BACKENDS})
    report = scan(tree)
    assert {f["symbol"]: f["status"] for f in report["findings"] if f["rule"].startswith("HIP6")} == \
        {"tensorrt": "", "pynvml": ""}
    assert report["summary"]["class"] == "incompatible"


def test_a_kernel_in_an_nvidia_only_dsl_covers_its_files_lesser_findings(tmp_path: Path) -> None:
    cute = ("import cutlass\nimport cutlass.cute as cute\nimport torch\n\n"
            "def launch(num_threads):\n    assert num_threads % 32 == 0\n"
            "    major, _ = torch.cuda.get_device_capability()\n    assert major >= 9\n")
    plain = "import torch\n\ndef launch(num_threads):\n    assert num_threads % 32 == 0\n"
    tree = write_tree(tmp_path / "dsl", {"pyproject.toml": '[project]\nname = "pkg"\n', "pkg/__init__.py": "",
                                    "pkg/cute_kernel.py": cute, "pkg/triton_kernel.py": plain})
    by_file = Counter((f["path"], f["rule"]) for f in scan(tree)["findings"])
    assert {rule for path, rule in by_file if path == "pkg/cute_kernel.py"} == {"HIP6029"}
    assert ("pkg/triton_kernel.py", "HIP6016") in by_file


def test_an_import_of_the_projects_own_module_is_not_a_use_of_that_package(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "nvitop", {"pyproject.toml": '[project]\nname = "nvitop"\n',
                                       "nvitop/__init__.py": "from nvitop.api import libnvml\n",
                                       "nvitop/api/__init__.py": "", "nvitop/api/libnvml.py": "import pynvml\n",
                                       "tools/top.py": "import gpustat\n"})
    symbols = {(f["path"], f["symbol"]) for f in scan(tree)["findings"] if f["rule"] == "HIP6004"}
    assert symbols == {("nvitop/api/libnvml.py", "pynvml"), ("tools/top.py", "gpustat")}


def test_a_module_inside_a_package_does_not_shadow_a_top_level_import(tmp_path: Path) -> None:
    """cuRobo's curobo/_src/util/warp.py (a package module) is `curobo._src.util.warp`, not what `import warp`
    (NVIDIA Warp, pip warp-lang) names; a module at an import root or beside a script still shadows the package."""
    tree = write_tree(tmp_path / "curobo", {"pyproject.toml": '[project]\nname = "curobo"\n',
                                       "curobo/__init__.py": "", "curobo/util/__init__.py": "",
                                       "curobo/util/warp.py": "X = 1\n",
                                       "curobo/cost/__init__.py": "", "curobo/cost/pose.py": "import warp as wp\n",
                                       "scripts/pynvml.py": "X = 1\n", "scripts/run.py": "import pynvml\n"})
    symbols = {(f["path"], f["symbol"]) for f in scan(tree)["findings"] if f["rule"] in ("HIP6048", "HIP6004")}
    assert symbols == {("curobo/cost/pose.py", "warp")}


def test_a_kernel_module_cupy_loads_is_graded_by_what_is_inside_it(tmp_path: Path) -> None:
    """cusignal: cpp/src/*.cu built with nvcc --fatbin and read by cupy.RawModule(path=...)."""
    loader = ('import os\nimport cupy as cp\n\ndef get(name, stem):\n'
              '    module = cp.RawModule(path=os.path.dirname(__file__) + stem)\n    return module.get_function(name)\n\n'
              'SCALE = "/kernels/_scale.fatbin"\nMASKED = "/kernels/_masked.fatbin"\n')
    plain = ("#include <thrust/complex.h>\n"
             'extern "C" __global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }\n')
    masked = ('extern "C" __global__ void vote(int *x) {\n'
              "  unsigned m = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);\n  x[0] = m;\n}\n")
    tree = write_tree(tmp_path / "sig", {"pyproject.toml": '[project]\nname = "sig"\n', "sig/__init__.py": "",
                                    "sig/load.py": loader, "cpp/kernels/_scale.cu": plain,
                                    "cpp/kernels/_masked.cu": masked})
    workloads = {w["name"]: w for w in scan(tree)["workloads"]}
    assert (workloads["_scale"]["kind"], workloads["_scale"]["class"]) == ("gpu-module", "minor-adaptation")
    assert workloads["_masked"]["class"] == "migration-required"


def test_a_cuda_file_cupy_compiles_at_run_time_is_graded_as_cupys_hiprtc_compiles_it(tmp_path: Path) -> None:
    """tike (fixtures/trees/cupy_runtime): plain kernels in a .cu file read into cupy.RawModule(code=...);
    near miss: the same kernel in a file read only for its text (no run-time compiler gets it)."""
    tree = shutil.copytree(ROOT / "fixtures" / "trees" / "cupy_runtime", tmp_path / "pkg")
    (tree / "pkg/ops/text.py").write_text("from pathlib import Path\n\nTEXT = Path(__file__).with_name('other.cu').read_text()\n")
    shutil.copy(tree / "pkg/ops/scale.cu", tree / "pkg/ops/other.cu")
    owner = {path: w for w in scan(tree)["workloads"] for path in w["files"]}
    assert (owner["pkg/ops/scale.cu"]["kind"], owner["pkg/ops/scale.cu"]["class"]) == ("runtime-compiled", "minor-adaptation")
    assert owner["pkg/ops/other.cu"]["kind"] != "runtime-compiled"
    assert owner["pkg/ops/other.cu"]["class"] == "migration-required"


def test_pytorchs_own_hipify_grades_the_headers_of_a_torch_extension(tmp_path: Path) -> None:
    setup = ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
             'setup(name="sorter", ext_modules=[CUDAExtension("sorter_ext", ["csrc/sort.cu"])],\n'
             '      cmdclass={"build_ext": BuildExtension})\n')
    sort = ("#include <cub/device/device_radix_sort.cuh>\n"
            "void sort(unsigned *k, unsigned *o, int n, void *t, size_t b) {\n"
            "  cub::DeviceRadixSort::SortKeys(t, b, k, o, n);\n}\n")
    report = scan(write_tree(tmp_path / "sorter", {"setup.py": setup, "csrc/sort.cu": sort}))
    header = next(f for f in report["findings"] if f["symbol"] == "cub/device/device_radix_sort.cuh")
    assert (header["rule_class"], header["hipify"], header["class"]) == ("migration-required", "no", "minor-adaptation")
    assert {w["name"]: w["class"] for w in report["workloads"]}["sorter_ext"] == "minor-adaptation"


def test_every_generated_no_equivalent_rule_carries_its_reviewed_class() -> None:
    """rules/alternatives/reviewed.yaml decides each "no HIP equivalent" rule: incompatible only
    where new development is needed, else migration-required with its route."""
    import yaml
    from migrate.rulebase.load import default_rules_dir, load_rules

    reviewed = {r["rule"]: r for r in yaml.safe_load(
        (default_rules_dir() / "alternatives" / "reviewed.yaml").read_text())["reviewed"]}
    generated = [r for r in load_rules().rules if r.file.startswith("hipify-") and r.name.endswith("-unsupported")]
    assert len(generated) >= 90
    assert {r.id for r in generated} == set(reviewed)
    assert all(r.migration_class == reviewed[r.id]["class"] and reviewed[r.id]["source"].startswith("https://")
               and reviewed[r.id]["reason"] in r.rationale for r in generated)
    assert {r.id for r in generated if r.migration_class == "incompatible"} >= {"HIP2301", "HIP2161", "HIP1241"}
    assert next(r for r in generated if r.id == "HIP4911").migration_class == "migration-required"


def test_a_sub_project_with_its_own_setup_py_gets_no_credit_from_the_roots_rocm_build(tmp_path: Path) -> None:
    # detectron2's projects/TensorMask: its own setup.py builds the op for CUDA only; HIP branches its
    # sources copied from the parent are no ROCm build of its own
    plain_setup = ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                   "setup(name='sub', ext_modules=[CUDAExtension('sub._C', ['csrc/op.cu'])])\n")
    tree = write_tree(tmp_path / "scaler", {"setup.py": SETUP_WITH_HIP, "csrc/scale.cu": KERNEL,
                                       "csrc/compat.h": GUARDED_HEADER,
                                       "projects/sub/setup.py": plain_setup, "projects/sub/csrc/op.cu": KERNEL,
                                       "projects/sub/csrc/compat.h": GUARDED_HEADER})
    report = scan(tree)
    status = {f["path"]: f["status"] for f in report["findings"]}
    assert status["csrc/scale.cu"] == "ported"
    assert status["projects/sub/csrc/op.cu"] != "ported"


def test_a_python_package_that_compiles_nothing_keeps_the_roots_rocm_credit(tmp_path: Path) -> None:
    # a pure-Python package folder with its own setup.py (no extension) whose kernels the root's build
    # or a code generator compiles: no build of its own, so the root's ROCm build still reaches it
    package_setup = "from setuptools import setup, find_packages\nsetup(name='pkg', packages=find_packages())\n"
    tree = write_tree(tmp_path / "scaler", {"setup.py": SETUP_WITH_HIP, "csrc/scale.cu": KERNEL,
                                       "csrc/compat.h": GUARDED_HEADER,
                                       "python/setup.py": package_setup, "python/pkg/backend/op.cu": KERNEL})
    status = {f["path"]: f["status"] for f in scan(tree)["findings"]}
    assert status["csrc/scale.cu"] == "ported"
    assert status["python/pkg/backend/op.cu"] == status["csrc/scale.cu"]


GLOB_SETUP = '''import glob
import os
import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension


def get_extensions():
    this_dir = os.path.dirname(os.path.abspath(__file__))
    extensions_dir = os.path.join(this_dir, "src")
    main_file = glob.glob(os.path.join(extensions_dir, "*.cpp"))
    source_cuda = glob.glob(os.path.join(extensions_dir, "cuda", "*.cu"))
    sources = main_file
    extension = CppExtension
    if torch.cuda.is_available() and CUDA_HOME is not None:
        extension = CUDAExtension
        sources += source_cuda
    sources = [os.path.join(extensions_dir, s) for s in sources]
    return [extension("MultiScaleDeformableAttention", sources, include_dirs=[extensions_dir])]


setup(name="ops", ext_modules=get_extensions())
'''
RUN_FOLDER_LOADER = '''from torch.utils.cpp_extension import load
wkv = load(name="wkv", sources=["cuda/wkv_op.cpp", "cuda/wkv_cuda.cu"], verbose=True)
'''


def test_torch_extension_sources_from_globs_an_aliased_extension_or_the_run_folder_get_hipify_credit(tmp_path: Path) -> None:
    """Cut from fundamentalvision/Deformable-DETR 11169a6 models/ops/setup.py (maskrcnn-benchmark's pattern:
    `extension = CUDAExtension` over globbed sources) and BlinkDL/RWKV-LM 524481d (train_temp/src/model.py
    loads cuda/*.cu relative to train_temp/, where it runs): the kernels are hipified by PyTorch."""
    tree = write_tree(tmp_path / "ops", {"setup.py": GLOB_SETUP, "src/vision.cpp": "int main() { return 0; }\n",
                                    "src/cuda/attn_cuda.cu": KERNEL})
    assert {f["class"] for f in scan(tree)["findings"] if f["path"] == "src/cuda/attn_cuda.cu"} == {"minor-adaptation"}
    tree = write_tree(tmp_path / "rwkv", {"train_temp/src/model.py": RUN_FOLDER_LOADER,
                                     "train_temp/cuda/wkv_op.cpp": "int f() { return 0; }\n",
                                     "train_temp/cuda/wkv_cuda.cu": KERNEL})
    assert {f["class"] for f in scan(tree)["findings"] if f["path"].endswith("wkv_cuda.cu")} == {"minor-adaptation"}
    # detectron2's variant refers to the list itself (`sources = [main_source] + sources`): still the globs
    write_tree(tmp_path / "ops", {"setup.py": GLOB_SETUP.replace(
        "sources = [os.path.join(extensions_dir, s) for s in sources]",
        'main_source = os.path.join(extensions_dir, "vision.cpp")\n    sources = [main_source] + sources')})
    assert {f["class"] for f in scan(tree.parent / "ops")["findings"]
            if f["path"] == "src/cuda/attn_cuda.cu"} == {"minor-adaptation"}
    # near miss: without the extension call the globbed kernel is a plain CUDA source to migrate
    write_tree(tmp_path / "ops", {"setup.py": GLOB_SETUP.replace('return [extension("MultiScaleDeformableAttention", '
                                                            'sources, include_dirs=[extensions_dir])]', "return []")})
    assert "migration-required" in {f["class"] for f in scan(tmp_path / "ops")["findings"]}
