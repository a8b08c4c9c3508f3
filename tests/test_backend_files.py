"""Files of a project's own per-back-end family (layout.backend_files) and the rules that leave them alone."""
from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner
from migrate.cli.lint import lint
from migrate.scan import project
from migrate.scan.layout import backend_files, hip_twinned
from migrate.settings import Settings
from tests.conftest import write_tree


def test_backend_files_need_a_sibling_for_another_back_end() -> None:
    paths = ["cuda/test/base/memory.cpp", "dpcpp/base/executor.dp.cpp", "benchmark/utils/cuda_timer.cpp",
             "benchmark/utils/hip_timer.hip.cpp", "benchmark/utils/cuda_linops.cpp",
             "examples/minimal-cuda-solver/minimal-cuda-solver.cpp", "src/Cuda/kernels.cu", "src/OpenMP/kernels.cpp",
             "app/cuda/solver.cu", "app/main.cpp", "lib/kernel_cuda.cu", "lib/kernel_sycl.cpp"]
    assert backend_files(paths) == {"cuda/test/base/memory.cpp", "benchmark/utils/cuda_timer.cpp",
                                    "src/Cuda/kernels.cu", "lib/kernel_cuda.cu"}


def test_hip_twinned_needs_the_hip_member_beside_it() -> None:
    # hashcat d3983ed include/ext_cuda.h beside ext_hip.h; nvtop 3d4a953 src/extract_gpuinfo_nvidia.c beside
    # extract_gpuinfo_amdgpu.c; Umpire 5bf5bc1 CudaMallocAllocator.hpp beside HipMallocAllocator.hpp; cuda/ beside hip/
    paths = ["include/ext_cuda.h", "include/ext_hip.h", "src/extract_gpuinfo_nvidia.c",
             "src/extract_gpuinfo_amdgpu.c", "alloc/CudaMallocAllocator.hpp", "alloc/HipMallocAllocator.hpp",
             "core/cuda/kernels.cu", "core/hip/kernels.hip", "lone/ext_cuda.h", "lone/other_hip.h",
             "app/cuda/solver.cu", "app/sycl/solver.cpp"]
    assert hip_twinned(paths) == {"include/ext_cuda.h", "src/extract_gpuinfo_nvidia.c",
                                  "alloc/CudaMallocAllocator.hpp", "core/cuda/kernels.cu"}


def test_scan_leaves_ginkgo_cuda_executor_in_a_backend_tree(tmp_path: Path, rulebase) -> None:
    use = "#include <ginkgo/ginkgo.hpp>\nvoid f() { auto e = gko::CudaExecutor::create(0, nullptr); }\n"
    for rel in ("core/cuda/test/memory.cpp", "app/solver.cpp"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(use)
    (tmp_path / "core/hip/test").mkdir(parents=True)
    (tmp_path / "core/hip/test/memory.hip.cpp").write_text("#include <ginkgo/ginkgo.hpp>\n")
    report = project.scan_project([tmp_path], Settings(jobs=1, cache_dir=None), rulebase)
    assert sorted(f.path for f in report.findings if f.rule == "HIP3062") == ["app/solver.cpp"]


GINKGO_USE = "#include <ginkgo/ginkgo.hpp>\nvoid f() { auto e = gko::CudaExecutor::create(0, nullptr); }\n"


def _lint_hip3062(cwd: Path, *targets: str) -> list[str]:
    """The paths `rocm-migrate lint --select HIP3062 TARGETS` reports, run in `cwd`."""
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(lint, ["--select", "HIP3062", "--no-cache", *targets], catch_exceptions=False)
    finally:
        os.chdir(old)
    return [line.split(":")[0] for line in result.stdout.splitlines()]


def test_lint_of_one_file_sees_the_backend_folders_beside_its_cuda_folder(tmp_path: Path) -> None:
    """`lint core/cuda/test/memory.cpp` answers as a scan of the tree does: hip/ beside cuda/."""
    root = write_tree(tmp_path, {"core/cuda/test/memory.cpp": GINKGO_USE, "core/hip/test/memory.hip.cpp": "int x;\n",
                            "app/solver.cpp": GINKGO_USE})
    assert _lint_hip3062(root, "core/cuda/test/memory.cpp") == []
    assert _lint_hip3062(root, "app/solver.cpp") == ["app/solver.cpp"]
    assert _lint_hip3062(root / "core", "cuda/test/memory.cpp") == []


def test_lint_of_one_file_sees_a_backend_twin_file_beside_it(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"utils/cuda_timer.cpp": GINKGO_USE, "utils/hip_timer.hip.cpp": "int x;\n",
                            "utils/cuda_linops.cpp": GINKGO_USE})
    assert _lint_hip3062(root, "utils/cuda_timer.cpp") == []
    assert _lint_hip3062(root, "utils/cuda_linops.cpp") == ["utils/cuda_linops.cpp"]


def test_lint_never_looks_above_its_root_for_backend_folders(tmp_path: Path, rulebase) -> None:
    """Run inside cuda/ itself, the tree lint sees has no hip/ beside any cuda/ folder, as a scan of
    cuda/ has not: the sibling above the root is not read."""
    root = write_tree(tmp_path, {"core/cuda/test/memory.cpp": GINKGO_USE, "core/hip/test/memory.hip.cpp": "int x;\n"})
    assert _lint_hip3062(root / "core" / "cuda", "test/memory.cpp") == ["test/memory.cpp"]
    report = project.scan_project([root / "core" / "cuda"], Settings(jobs=1, cache_dir=None), rulebase)
    assert [f.path for f in report.findings if f.rule == "HIP3062"] == ["test/memory.cpp"]
    empty = write_tree(tmp_path / "alone", {"cuda/memory.cpp": GINKGO_USE, "notes/hip.txt": "x\n"})
    assert _lint_hip3062(empty, "cuda/memory.cpp") == ["cuda/memory.cpp"]


def test_a_folder_of_cutlass_code_is_a_cuda_back_end_without_its_twin() -> None:
    paths = ["src/quantize/cutlass_extensions/f8.cu", "kernels/cutlass_ops/gemm.cu", "ao/rowwise_scaled_linear_cutlass/k.cu",
             "src/quantize/quantize.cu", "src/cutlassish/k.cu", "docs/cutlass.cu"]
    assert backend_files(paths) == {"src/quantize/cutlass_extensions/f8.cu", "kernels/cutlass_ops/gemm.cu",
                                    "ao/rowwise_scaled_linear_cutlass/k.cu"}


def test_identifiers_of_a_sycl_source_are_sycls(tmp_path: Path, rulebase) -> None:
    """A file that includes a SYCL header (rules/layout/backends.yaml) names SYCL's API and the project's:
    no identifier rule is reported there, its includes still are; the same code without it is CUDA."""
    body = "void k(sycl::nd_item<3> it) { auto g = group::this_grid(it); cudaFree(0); }\n"
    (tmp_path / "sycl.dp.cpp").write_text("#include <sycl/sycl.hpp>\n#include <cuda_runtime.h>\n" + body)
    (tmp_path / "cuda.cu").write_text("#include <cooperative_groups.h>\n#include <cuda_runtime.h>\n" + body)
    report = project.scan_project([tmp_path], Settings(jobs=1, cache_dir=None), rulebase)
    symbols = {path: {f.symbol for f in report.findings if f.path == path} for path in ("sycl.dp.cpp", "cuda.cu")}
    assert symbols["sycl.dp.cpp"] == {"cuda_runtime.h"}
    assert {"cuda_runtime.h", "cudaFree", "this_grid"} <= symbols["cuda.cu"], symbols["cuda.cu"]


def test_another_vendors_compat_header_is_that_vendors(tmp_path: Path, rulebase) -> None:
    """ggml's vendors/musa.h maps CUDA's names to MUSA's for the MUSA build only (rules/layout/backends.yaml):
    the names stay CUDA's to port elsewhere, and the header's own identifiers give no finding. A HIP
    compat header (`#define cudaMalloc hipMalloc`) and the project's own macros stay the project's own."""
    (tmp_path / "musa.h").write_text("#include <musa_runtime.h>\n#define cudaFuncSetAttribute musaFuncSetAttribute\n"
                                     "#define cudaDataType_t musaDataType_t\n#define CUBLAS_COMPUTE_16F CUDA_R_16F\n")
    (tmp_path / "hip.h").write_text("#define cudaMalloc hipMalloc\n#define MY_WARP 32\n")
    (tmp_path / "k.cu").write_text("void f(void* k) { cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,"
                                   " 0); cudaMalloc(&k, 4); int w = MY_WARP; }\n")
    report = project.scan_project([tmp_path], Settings(jobs=1, cache_dir=None), rulebase)
    symbols = {path: {f.symbol for f in report.findings if f.path == path} for path in ("musa.h", "k.cu")}
    assert not symbols["musa.h"] & {"CUDA_R_16F", "cudaDataType_t", "cudaFuncSetAttribute"}, symbols["musa.h"]
    assert "cudaFuncSetAttribute" in symbols["k.cu"]
    assert "cudaMalloc" not in symbols["k.cu"]


def test_another_vendors_own_sources_are_not_cuda_to_port(tmp_path: Path, rulebase) -> None:
    """MooreThreads/mutlass's shape (rules/layout/backends.yaml, other_vendor_source): a header whose kernels
    run on musaStream_t and whose launches check musaGetLastError is MUSA code built by mcc, so its
    kernels, launches and device calls give no finding (its includes still do). A file that names CUDA's
    API beside MUSA's (a dual build) keeps its findings, and so does one without MUSA's names."""
    kernel = ("__global__ void pad(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }\n"
              "void run(const float* in, float* out, STREAM s) { pad<<<1, 32, 0, s>>>(in, out); }\n")
    (tmp_path / "musa_pad.h").write_text("#include <musa_runtime.h>\n#include <cuda_fp16.h>\n"
                                         + kernel.replace("STREAM", "musaStream_t") + "void check() { musaGetLastError(); }\n")
    (tmp_path / "dual_pad.h").write_text(kernel.replace("STREAM", "musaStream_t") + "void check() { cudaGetLastError(); }\n")
    (tmp_path / "cuda_pad.cuh").write_text(kernel.replace("STREAM", "cudaStream_t"))
    report = project.scan_project([tmp_path], Settings(jobs=1, cache_dir=None), rulebase)
    rules = {path: {f.rule for f in report.findings if f.path == path}
             for path in ("musa_pad.h", "dual_pad.h", "cuda_pad.cuh")}
    assert not any(r.startswith("HIP4") for r in rules["musa_pad.h"]), rules["musa_pad.h"]
    assert {"HIP4001", "HIP4002"} <= rules["dual_pad.h"], rules["dual_pad.h"]
    assert {"HIP4001", "HIP4002"} <= rules["cuda_pad.cuh"], rules["cuda_pad.cuh"]


def test_another_vendors_offload_arch_is_no_rocm_build() -> None:
    """`--offload-arch=mp_31` is MUSA's mcc (mutlass CMakeLists.txt:168, FlagPerf's mthreads scripts) and
    `--offload-arch=sm_80` clang's CUDA: neither is a ROCm path; `--offload-arch=gfx942` and a variable are."""
    from migrate.extract.text.rocm_path import evidence
    from migrate.workloads.ported import fact_strength

    def strengths(line: str) -> list[str]:
        return [fact_strength("CMakeLists.txt", f) for f in evidence("cmake", line + "\n")]

    assert strengths("list(APPEND MCC_ARCH_FLAGS --offload-arch=mp_${ARCH})") == [""]
    assert strengths('set(FLAGS "--offload-arch=sm_80")') == [""]
    assert strengths("target_compile_options(k PRIVATE --offload-arch=gfx942)") == ["build"]
    assert strengths("list(APPEND FLAGS --offload-arch=${GPU_TARGETS})") == ["build"]


def test_a_function_the_project_defines_under_a_cuda_device_name_is_its_own(tmp_path: Path, rulebase) -> None:
    """basis_universal's `saturate` (habitat-sim src/deps), LLVM's `umax` (MDL SDK), MDL's `math::saturate`
    (rules/layout/backends.yaml own_function_names): their calls are the project's, not CUDA's HIP4911 device
    functions; a name the project does not define (`mulhi` in a kernel) and a CUDA-spelled one it wraps
    (`cudaMallocHost`) are still reported."""
    (tmp_path / "deps").mkdir()
    (tmp_path / "deps/basisu.h").write_text("inline float saturate(float v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }\n"
                                            "namespace math { unsigned umax(unsigned a, unsigned b); }\n"
                                            "namespace mock { int cudaMallocHost(void** p, unsigned long n); }\n")
    (tmp_path / "deps/enc.cpp").write_text('#include "basisu.h"\nfloat f(float l) { return saturate(l * 12.92f); }\n'
                                           "unsigned g(unsigned a) { return math::umax(a, 3u); }\n")
    (tmp_path / "k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(unsigned* x) { x[0] = mulhi(x[0], 3u); }\n"
                                   "void h(void** p) { cudaMallocHost(p, 4); }\n")
    report = project.scan_project([tmp_path], Settings(jobs=1, cache_dir=None), rulebase)
    symbols = {path: {f.symbol for f in report.findings if f.path == path} for path in ("deps/enc.cpp", "k.cu")}
    assert not symbols["deps/enc.cpp"] & {"saturate", "umax"}, symbols
    assert {"mulhi", "cudaMallocHost"} <= symbols["k.cu"], symbols


def test_other_vendors_device_languages_are_theirs(tmp_path: Path, rulebase) -> None:
    """Enflame GCU's TopsCC (PaddlePaddle/PaddleCustomDevice 77090b6 backends/gcu/topscc_custom_kernels/
    topscc_custom_demo_kernel.cc: `#include <tops/tops_runtime.h>`, a `__global__` kernel launched with `<<<1, 1>>>`,
    compiled by topscc) and a launch on Ascend's `aclrtStream` (rules/layout/backends.yaml other_vendor_source) are
    those vendors' code: no kernel or launch finding. The same kernel beside CUDA's runtime API, or with a project
    header whose name only contains `tops` and Linux's ACL header (acl/libacl.h), stays CUDA code to port."""
    kernel = ("__global__ void vec_add_kernel(int *from, int *to, size_t N) { to[threadIdx.x] = from[threadIdx.x]; }\n"
              "void vec_add_cpp(int *from, int *to, size_t N) { vec_add_kernel<<<1, 1>>>(from, to, N); }\n")
    (tmp_path / "topscc_demo_kernel.cc").write_text("#include <stdio.h>\n#include <tops.h>\n"
                                                     "#include <tops/tops_runtime.h>\n" + kernel)
    (tmp_path / "ascend_kernel.cpp").write_text(kernel.replace("size_t N)", "size_t N, aclrtStream s)"))
    (tmp_path / "dual_kernel.cu").write_text("#include <tops/tops_runtime.h>\n" + kernel
                                             + "void check() { cudaGetLastError(); }\n")
    (tmp_path / "laptops_kernel.cu").write_text('#include "laptops.h"\n#include "tops_utils.h"\n#include <acl/libacl.h>\n'
                                                + kernel)
    report = project.scan_project([tmp_path], Settings(jobs=1, cache_dir=None), rulebase)
    rules = {path: {f.rule for f in report.findings if f.path == path}
             for path in ("topscc_demo_kernel.cc", "ascend_kernel.cpp", "dual_kernel.cu", "laptops_kernel.cu")}
    assert not any(r.startswith("HIP4") for r in rules["topscc_demo_kernel.cc"]), rules["topscc_demo_kernel.cc"]
    assert not any(r.startswith("HIP4") for r in rules["ascend_kernel.cpp"]), rules["ascend_kernel.cpp"]
    assert {"HIP4001", "HIP4002"} <= rules["dual_kernel.cu"], rules["dual_kernel.cu"]
    assert {"HIP4001", "HIP4002"} <= rules["laptops_kernel.cu"], rules["laptops_kernel.cu"]
