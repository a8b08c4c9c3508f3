"""Components with a named AMD route: rewrite lanes (rules/alternatives/rewrites.yaml) and the
ported-elsewhere registry (rules/alternatives/ported-elsewhere.yaml), as data and through the real CLI."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from migrate.model import Fact, class_rank
from migrate.rulebase import alternatives, ported_elsewhere
from migrate.rulebase.load import RuleError
from tests.conftest import ROOT, run_cli

TREES = ROOT / "fixtures" / "trees"


def scan(tree: Path) -> dict:
    result = run_cli("scan", str(tree), "--format", "json", "--no-cache", "--no-hipify")
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def test_every_lane_rule_exists_and_is_a_migration_not_a_dead_end(rulebase) -> None:
    lanes = alternatives.rewrite_lanes()
    by_id = {r.id: r for r in rulebase.rules}
    assert {"HIP0021", "HIP3023", "HIP5010", "HIP5011", "HIP5012"} <= set(lanes)
    for rule, lane in lanes.items():
        assert by_id[rule].migration_class == "migration-required", (rule, lane.id)
        assert lane.alternatives and all(a.url.startswith("https://") for a in lane.alternatives)


@pytest.mark.parametrize("rule", ["HIP0022", "HIP3024", "HIP3025", "HIP3010", "HIP3035", "HIP3036", "HIP7005"])
def test_parts_with_no_amd_route_stay_incompatible_and_have_no_lane(rulebase, rule: str) -> None:
    assert {r.id: r for r in rulebase.rules}[rule].migration_class == "incompatible"
    assert rule not in alternatives.rewrite_lanes()


def test_a_lane_with_an_unknown_band_is_refused_with_its_name(tmp_path: Path) -> None:
    (tmp_path / "alternatives").mkdir()
    (tmp_path / "alternatives" / "rewrites.yaml").write_text(
        "lanes:\n  - {id: x, title: X, rules: [HIP5010], band: huge, source: 'https://a.b',\n"
        "     alternatives: [{name: CK, url: 'https://c.d'}]}\n")
    with pytest.raises(RuleError, match="lane 'x': band 'huge'"):
        alternatives.rewrite_lanes(tmp_path, "bad-band")


def test_registry_finds_packages_pins_imports_and_repositories() -> None:
    registry = ported_elsewhere.load()
    assert registry.for_requirement("flash_attn==2.5.8").id == "flash-attention"  # type: ignore[union-attr]
    assert registry.for_requirement("index:https://github.com/deepseek-ai/DeepEP.git").id == "deepep"  # type: ignore[union-attr]
    assert registry.for_import("deep_gemm.jit").id == "deepgemm"  # type: ignore[union-attr]
    assert registry.for_requirement("flash-attn-triton") is None
    assert registry.for_import("flashy") is None
    assert registry.for_import("warp.sim").id == "warp"  # type: ignore[union-attr]
    assert registry.for_import("warpctc") is None
    assert registry.for_import("dask_cudf.io").id == "rapids-cudf"  # type: ignore[union-attr]
    assert registry.for_requirement("cugraph=24.06").id == "rapids-cugraph"  # type: ignore[union-attr]
    assert registry.for_import("cuml") is None  # no AMD port: rules/python.yaml HIP6051
    assert registry.for_requirement("index:https://github.com/someone/DeepEP-notes") is None


def test_every_registry_entry_has_an_amd_route_with_its_source() -> None:
    for port in ported_elsewhere.load().ports:
        assert port.source.startswith("https://") and port.amd, port.id
        assert port.packages or port.imports or port.repositories, port.id


def test_a_registry_package_is_at_most_a_dependency_swap(rulebase) -> None:
    """Credit in the class: a requirement of a package the registry lists never makes its workload
    migration-required (the package is swapped for its AMD build, not ported)."""
    from migrate.model import Extraction
    from migrate.scan.match import match_targets

    matched = 0
    for port in ported_elsewhere.load().ports:
        for package in port.packages:
            fact = Fact(kind="requirement", name=package, line=1, column=1, end_line=1, end_column=2)
            found = match_targets([("requirements.txt", Extraction(facts=(fact,), lines=1))], rulebase,
                                  rocm="7.2", archs=("gfx942",))
            worst = max((class_rank(f.migration_class) for f in found), default=0)
            assert worst <= class_rank("minor-adaptation"), (package, [f.rule for f in found])
            matched += bool(found)
    assert matched >= 5  # apex, transformer-engine, vllm, flashinfer, sgl-kernel, cupy ... are ties


def test_one_tensor_core_kernel_is_a_named_rewrite_not_an_incompatible_package() -> None:
    report = scan(TREES / "rewrite_lane")
    assert report["summary"]["class"] == "migration-required"
    [workload] = report["workloads"]
    [rewrite] = [c for c in workload["components"] if c["kind"] == "rewrite"]
    assert (rewrite["id"], rewrite["band"], rewrite["files"]) == ("tensor-core-fragments", "large",
                                                                  ["src/dense_tile_mma.cu"])
    assert "rocWMMA" in {a["name"] for a in rewrite["alternatives"]}
    by_id = {f["id"]: f for f in report["findings"]}
    assert {by_id[i]["rule"] for i in rewrite["findings"]} == {"HIP5010"}
    [port] = [c for c in workload["components"] if c["kind"] == "ported-elsewhere"]
    assert port["id"] == "flash-attention" and port["evidence"] == ["python/requirements.txt:2 flash-attn"]
    [step] = report["plan"]["steps"]
    assert [(r["kind"], r["id"]) for r in step["routes"]] == [("rewrite", "tensor-core-fragments"),
                                                               ("ported-elsewhere", "flash-attention")]
    assert step["routes"][1]["do"].startswith("install ROCm/flash-attention")


def test_a_tensorrt_plugin_has_no_amd_route_and_stays_incompatible() -> None:
    report = scan(TREES / "no_amd_route")
    assert report["summary"]["class"] == "incompatible"
    assert report["workloads"][0]["components"] == []


def test_certain_matches_are_never_medium(rulebase) -> None:
    """An include, a requirement or an import is a fact the code states: high (or a low hint), never a
    medium that classification could demote (bitsandbytes==0.40.0 lowered to native)."""
    certain = [r for r in rulebase.rules if r.matcher.kind in ("include", "requirement", "python_import")]
    assert len(certain) > 40
    assert [r.id for r in certain if r.confidence == "medium"] == []


def test_a_workload_that_is_nothing_but_rewrite_kernels_stays_incompatible(tmp_path: Path) -> None:
    """Near miss of rewrite_lane: with no plain kernel beside it, the tensor-core kernel is the project."""
    tree = tmp_path / "tilegemm"
    (tree / "src").mkdir(parents=True)
    source = (TREES / "rewrite_lane" / "src" / "dense_tile_mma.cu").read_text()
    (tree / "src" / "dense_tile_mma.cu").write_text(source)
    report = scan(tree)
    assert report["summary"]["class"] == "incompatible"
    [rewrite] = [c for w in report["workloads"] for c in w["components"] if c["kind"] == "rewrite"]
    assert (rewrite["id"], rewrite["class"]) == ("tensor-core-fragments", "incompatible")


def test_a_device_side_launch_among_plain_kernels_is_a_named_rewrite() -> None:
    """Dynamic parallelism has no HIP equivalent but an AMD route: the host launches each level, or the
    child becomes a device function of the parent. One such kernel is a rewrite, not a dead end."""
    report = scan(TREES / "device_launch_lane")
    assert report["summary"]["class"] == "migration-required"
    [workload] = report["workloads"]
    [rewrite] = [c for c in workload["components"] if c["kind"] == "rewrite"]
    assert (rewrite["id"], rewrite["band"], rewrite["files"]) == ("device-side-launch", "medium", ["src/refine.cu"])
    by_id = {f["id"]: f for f in report["findings"]}
    assert {by_id[i]["rule"] for i in rewrite["findings"]} == {"HIP4003"}


def test_a_project_of_nothing_but_device_side_launches_stays_incompatible(tmp_path: Path) -> None:
    """Near miss of device_launch_lane: the nested-launch kernel alone is new development."""
    tree = tmp_path / "quadtree"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "refine.cu").write_text((TREES / "device_launch_lane" / "src" / "refine.cu").read_text())
    report = scan(tree)
    assert report["summary"]["class"] == "incompatible"
    [rewrite] = [c for w in report["workloads"] for c in w["components"] if c["kind"] == "rewrite"]
    assert (rewrite["id"], rewrite["class"]) == ("device-side-launch", "incompatible")


CUTLASS_GEMM = ("#include <cutlass/gemm/device/gemm.h>\n"
                "using Gemm = cutlass::gemm::device::Gemm<cutlass::half_t, cutlass::layout::RowMajor,\n"
                "    cutlass::half_t, cutlass::layout::ColumnMajor, cutlass::half_t, cutlass::layout::RowMajor>;\n"
                "void run(Gemm::Arguments args) { Gemm op; op(args); }\n")
PLAIN_KERNEL = ("#include <cuda_runtime.h>\n__global__ void {name}(float *x) {{ x[threadIdx.x] *= 2.0f; }}\n"
                "void launch_{name}(float *x) {{ {name}<<<1, 32>>>(x); }}\n")


def _write(tree: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    return tree


def test_a_vendored_cutlass_attention_among_plain_kernels_is_a_named_rewrite(tmp_path: Path) -> None:
    """ppl.llm.kernel.cuda's shape: xformers' CUTLASS attention (one instantiation file with kernels and
    many CUTLASS headers) beside a library of plain kernels. Headers are no kernels: counted alike, the
    plain kernels are more, so the project is a port with a named rewrite."""
    header = "#pragma once\n#include <cutlass/gemm/gemm.h>\nusing Tile = cutlass::gemm::GemmShape<64, 64, 32>;\n"
    files = {f"attn/gemm/part{i}.h": header for i in range(5)}
    files["attn/impl/fmha_f16.cu"] = ('#include "../gemm/part0.h"\n'
                                      "__global__ void fmha_f16(cutlass::half_t *q) { q[threadIdx.x] = q[0]; }\n")
    files.update({f"ops/{name}.cu": PLAIN_KERNEL.format(name=name) for name in ("rms_norm", "rotary", "sample")})
    report = scan(_write(tmp_path / "kernels", files))
    assert report["summary"]["class"] == "migration-required"
    assert {f["class"] for f in report["findings"] if f["rule"] in ("HIP0021", "HIP3023")} == {"migration-required"}


def test_a_project_that_is_mostly_cutlass_gemms_stays_incompatible(tmp_path: Path) -> None:
    """EETQ's shape, near miss of the above: CUTLASS GEMMs instantiated in translation units of three folders
    (no __global__ of their own: CUTLASS's kernels) beside two plain kernels: the GEMMs are the project."""
    files = {f"csrc/{folder}/gemm.cu": CUTLASS_GEMM for folder in ("fpA_intB", "moe_gemm", "int8_gemm")}
    files.update({f"csrc/{name}/{name}.cu": PLAIN_KERNEL.format(name=name) for name in ("layernorm", "rotary")})
    report = scan(_write(tmp_path / "quant", files))
    assert report["summary"]["class"] == "incompatible"
    assert {f["class"] for f in report["findings"] if f["rule"] in ("HIP0021", "HIP3023")} == {"incompatible"}


def test_a_header_only_cute_library_beside_one_plain_kernel_stays_incompatible(tmp_path: Path) -> None:
    """tilefusion's shape: CuTe tile headers nothing in the project instantiates, and one plain kernel."""
    header = "#pragma once\n#include <cute/tensor.hpp>\nusing Layout = cute::Layout<cute::Shape<cute::_16, cute::_16>>;\n"
    files = {f"include/cell/{name}.hpp": header for name in ("gemm", "copy_atom", "tile_shape")}
    files["src/kernels/scatter_nd.cu"] = PLAIN_KERNEL.format(name="scatter_nd")
    report = scan(_write(tmp_path / "tiles", files))
    assert report["summary"]["class"] == "incompatible"


MMA_HELPERS = ("#pragma once\n#include <cstdint>\n"
               "__device__ inline void ldmatrix_x4(uint32_t reg[4], uint32_t addr) {\n"
               '  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"\n'
               '               : "=r"(reg[0]), "=r"(reg[1]), "=r"(reg[2]), "=r"(reg[3]) : "r"(addr));\n}\n'
               "__device__ inline void mma_m16n8k16(const uint32_t A[4], const uint32_t B[2], float D[4]) {\n"
               '  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, '
               '{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"\n'
               '               : "+f"(D[0]), "+f"(D[1]), "+f"(D[2]), "+f"(D[3])\n'
               '               : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));\n}\n'
               "__host__ __device__ inline constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }\n")
HELPER_KERNEL = ('#include "common.h"\n#include <cstdint>\n'
                 "__global__ void {name}(const uint32_t *A, float *C) {{\n"
                 "  uint32_t a[4]; uint32_t b[2] = {{0, 0}}; float acc[4] = {{}};\n"
                 "  {body}\n  C[threadIdx.x] = acc[0];\n}}\n"
                 "void launch_{name}(const uint32_t *A, float *C) {{ {name}<<<cdiv(64, 32), 32>>>(A, C); }}\n")
TENSOR_CORE_BODY = "ldmatrix_x4(a, 0); mma_m16n8k16(a, b, acc);"


def test_kernels_that_call_tensor_core_helpers_are_rewrite_kernels(tmp_path: Path) -> None:
    """gau-nernst/learn-cuda 02b_matmul_sm80's shape: the mma.sync/ldmatrix PTX sits in device helpers of
    common.h and every matmul_v*.cu kernel calls them. The kernels are tensor-core kernels, not plain ones:
    nothing but rewrite kernels, so new development."""
    files = {"common.h": MMA_HELPERS}
    files.update({f"matmul_v{n}.cu": HELPER_KERNEL.format(name=f"matmul_v{n}", body=TENSOR_CORE_BODY)
                  for n in (1, 5, 6)})
    report = scan(_write(tmp_path / "matmul_sm80", files))
    assert report["summary"]["class"] == "incompatible"
    assert {f["class"] for f in report["findings"] if f["rule"] == "HIP5010"} == {"incompatible"}


def test_kernels_that_only_share_a_header_with_tensor_core_helpers_stay_plain(tmp_path: Path) -> None:
    """Near miss: the same common.h is included by kernels that call only its `cdiv`, and one kernel calls
    the mma helpers; a kernel of another file defines its own `mma_m16n8k16` without the header. The
    plain kernels are more: a port with a named rewrite."""
    files = {"common.h": MMA_HELPERS, "matmul_v1.cu": HELPER_KERNEL.format(name="matmul_v1", body=TENSOR_CORE_BODY)}
    files.update({f"{name}.cu": HELPER_KERNEL.format(name=name, body="acc[0] = float(A[cdiv(8, 4)]);")
                  for name in ("scale", "bias")})
    files["own.cu"] = ("#include <cstdint>\n__device__ void mma_m16n8k16(const uint32_t *A, const uint32_t *B, float *D)"
                       " { D[0] += float(A[0] * B[0]); }\n"
                       "__global__ void own(const uint32_t *A, float *C) { float d[4] = {}; mma_m16n8k16(A, A, d);"
                       " C[0] = d[0]; }\nvoid launch_own(const uint32_t *A, float *C) { own<<<1, 32>>>(A, C); }\n")
    report = scan(_write(tmp_path / "kernels", files))
    assert report["summary"]["class"] == "migration-required"
    assert {f["class"] for f in report["findings"] if f["rule"] == "HIP5010"} == {"migration-required"}


WGMMA_KERNEL = ("#pragma once\n#include <cuda_bf16.h>\n"
                "__global__ void matmulKernel{n}(float *d) {{\n"
                '  asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");\n'
                '  asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");\n  d[threadIdx.x] = 0.f;\n}}\n')


def test_an_examples_folder_the_required_code_includes_is_required(tmp_path: Path) -> None:
    """pranjalssh/fast.cu's shape: the Makefile builds the top-level matmul.cu, which includes the wgmma/TMA
    kernels of examples/matmul/*.cuh. The folder's name does not make them optional: the kernels are the
    project, nothing but rewrite kernels beside a plain reduction."""
    files = {f"examples/matmul/matmul_{n}.cuh": WGMMA_KERNEL.format(n=n) for n in (2, 3, 4)}
    files["matmul.cu"] = "".join(f'#include "examples/matmul/matmul_{n}.cuh"\n' for n in (2, 3, 4)) + \
        "int main() { float *d = nullptr; matmulKernel2<<<1, 128>>>(d); return 0; }\n"
    files["sum.cu"] = PLAIN_KERNEL.format(name="sum")
    files["Makefile"] = "matmul: matmul.cu\n\tnvcc -arch=sm_90a $^ -o out/matmul\nsum: sum.cu\n\tnvcc $^ -o out/sum\n"
    report = scan(_write(tmp_path / "fastcu", files))
    assert report["summary"]["class"] == "incompatible"
    assert {f["status"] for f in report["findings"] if f["path"].startswith("examples/")} == {""}


def test_an_examples_folder_nothing_required_includes_stays_optional(tmp_path: Path) -> None:
    """Near miss: the same kernels under examples/ with nothing outside it including them: an optional part
    with its own class, and the project is the plain reduction."""
    files = {f"examples/matmul/matmul_{n}.cuh": WGMMA_KERNEL.format(n=n) for n in (2, 3, 4)}
    files["examples/matmul/run.cu"] = '#include "matmul_2.cuh"\nint main() { matmulKernel2<<<1, 128>>>(nullptr); }\n'
    files["sum.cu"] = PLAIN_KERNEL.format(name="sum")
    report = scan(_write(tmp_path / "fastcu", files))
    assert report["summary"]["class"] == "migration-required"
    assert {f["status"] for f in report["findings"] if f["path"].startswith("examples/")} == {"optional"}


def test_an_include_the_required_code_answers_itself_reaches_no_optional_file(tmp_path: Path) -> None:
    """Near miss of the fast.cu shape: src/scale.cu includes its own "utils.h"; a tests/utils.h of the same name
    holds wgmma kernels. The include is src/utils.h's, so the tests stay optional and decide nothing."""
    files = {"src/utils.h": "#pragma once\ninline int cdiv(int a, int b) { return (a + b - 1) / b; }\n",
             "src/scale.cu": '#include "utils.h"\n' + PLAIN_KERNEL.format(name="scale"),
             "tests/utils.h": WGMMA_KERNEL.format(n=1), "tests/run.cu": '#include "utils.h"\nint main() { return 0; }\n'}
    report = scan(_write(tmp_path / "ops", files))
    assert report["summary"]["class"] == "migration-required"
    assert {f["status"] for f in report["findings"] if f["path"].startswith("tests/")} == {"optional"}


MATHDX_ENTRY = '#include "cufftdx/include/cufftdx.hpp"\n'
MATHDX_WORKSPACE = ("#pragma once\n#include <cuda_runtime_api.h>\n#include \"../traits.hpp\"\n"
                    "namespace cufftdx { namespace detail { namespace __bluestein_workspace {\n"
                    "template<class FFT, class T>\n__global__ void kernel(T* w_time, T* w_freq, const double theta0) {\n"
                    "  w_time[threadIdx.x] = w_freq[threadIdx.x];\n}\n} } }\n")
FFTCONV = ("#include <cuda/std/complex>\n#include <cufftdx.hpp>\n"
           "__global__ void fftconv_fwd(float *out) { out[threadIdx.x] = 0.0f; }\n"
           "void fftconv_cuda(float *out) { fftconv_fwd<<<1, 128>>>(out); }\n")


def test_a_kernel_on_a_vendored_mathdx_library_is_the_project_not_a_port(tmp_path: Path) -> None:
    """HazyResearch/H3 csrc/fftconv's shape: the extension's one kernel runs cuFFTDx block FFTs, and the vendored
    MathDx tree (include/cufftdx.hpp beside include/cufftdx/) has a workspace kernel of its own, whose headers
    include each other by relative paths. The library's kernel is no plain kernel of the project: new development."""
    files = {"fftconv_cuda.cu": FFTCONV, "mathdx/22.02/include/cufftdx.hpp": MATHDX_ENTRY,
             "mathdx/22.02/include/cufftdx/include/detail/workspace.hpp": MATHDX_WORKSPACE}
    report = scan(_write(tmp_path / "fftconv", files))
    assert report["summary"]["class"] == "incompatible"
    assert {f["class"] for f in report["findings"] if f["rule"] == "HIP0041"} == {"incompatible"}


def test_a_kernel_on_mathdx_beside_the_projects_own_plain_kernel_is_a_named_rewrite(tmp_path: Path) -> None:
    """Near miss: the same workspace kernel in the project's own folder, not the vendored library's: a plain kernel
    as many as the rewrite one, so a port with a named rewrite."""
    files = {"fftconv_cuda.cu": FFTCONV, "mathdx/22.02/include/cufftdx.hpp": MATHDX_ENTRY,
             "kernels/workspace.cuh": MATHDX_WORKSPACE.replace('#include "../traits.hpp"\n', "")}
    report = scan(_write(tmp_path / "fftconv", files))
    assert report["summary"]["class"] == "migration-required"
    assert {f["class"] for f in report["findings"] if f["rule"] == "HIP0041"} == {"migration-required"}
