"""The C/C++/CUDA extractor: identifiers by role, no facts from comments or strings, guards, macros."""
from __future__ import annotations

import pytest
from migrate.extract.c import cuda_cpp, inert


def facts(source: str, kind: str | None = None):
    out = cuda_cpp.extract(source.encode()).facts
    return [f for f in out if kind is None or f.kind == kind]


def names(source: str, kind: str = "identifier") -> set[str]:
    return {f.name for f in facts(source, kind)}


def test_comments_and_strings_produce_no_identifiers() -> None:
    src = '''
// cudaMalloc(&p, n);
/* cudaFree(p); */
const char* s = "cudaFree";
int my_cudaMalloc_count = 0;
printf("cudaMemcpy failed: %s", R"(cudaDeviceReset)");
'''
    found = names(src)
    assert not found & {"cudaMalloc", "cudaFree", "cudaMemcpy", "cudaDeviceReset"}
    assert "my_cudaMalloc_count" in found


def test_roles_and_exact_locations() -> None:
    src = "void f() {\n  cudaMemcpyKind k = cudaMemcpyHostToDevice;\n  cudaMalloc(&p, 4);\n}\n"
    got = {(f.name, f.role, f.line, f.column, f.end_column) for f in facts(src, "identifier") if f.name.startswith("cuda")}
    assert got == {
        ("cudaMemcpyKind", "type", 2, 3, 17),
        ("cudaMemcpyHostToDevice", "value", 2, 22, 44),
        ("cudaMalloc", "call", 3, 3, 13),
    }


def test_columns_count_characters_not_bytes() -> None:
    src = 'void f() { const char* s = "é"; cudaFree(0); }\n'
    (fact,) = [f for f in facts(src, "identifier") if f.name == "cudaFree"]
    assert fact.column == src.index("cudaFree") + 1


def test_macro_bodies_are_analysed_with_their_own_lines() -> None:
    src = ('#define CUDA_CHECK(x) do { cudaError_t e = (x); \\\n'
           '  if (e != cudaSuccess) fprintf(stderr, "%s", cudaGetErrorString(e)); } while (0)\n')
    got = {(f.name, f.line, f.column) for f in facts(src, "identifier") if f.name.startswith("cuda")}
    assert got == {("cudaError_t", 1, 28), ("cudaSuccess", 2, 12), ("cudaGetErrorString", 2, 47)}


def test_hip_guards_label_both_branches() -> None:
    src = '''#if defined(__HIP_PLATFORM_AMD__)
hipMalloc(&p, n);
#else
cudaMalloc(&p, n);
#endif
#ifndef USE_ROCM
cudaFree(p);
#endif
cudaDeviceSynchronize();
#ifdef NDEBUG
cudaDeviceReset();
#endif
#if defined(KOKKOS_ENABLE_ROCTHRUST)
thrust::sort(p, p + n);
#endif
'''
    guard = {f.name: f.guard for f in facts(src, "identifier")}
    assert guard["sort"] == "hip"  # a ROCm library's switch (rocThrust) selects the HIP build
    assert guard["hipMalloc"] == "hip"
    assert guard["cudaMalloc"] == "cuda"
    assert guard["cudaFree"] == "cuda"
    assert guard["cudaDeviceSynchronize"] is None
    assert guard["cudaDeviceReset"] is None


def test_kernels_launches_and_asm() -> None:
    src = '''__global__ void child(int* p) {}
__global__ void parent(int* p) {
  child<<<1, 32>>>(p);
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
}
void host(int* p) { parent<<<dim3(4), 256, 0, stream>>>(p); }
'''
    constructs = {(f.name, f.text, f.line) for f in facts(src, "construct")}
    assert ("kernel-definition", "child", 1) in constructs
    assert ("kernel-definition", "parent", 2) in constructs
    assert ("device-kernel-launch", "child", 3) in constructs
    assert ("kernel-launch", "parent", 6) in constructs
    (asm,) = facts(src, "asm")
    assert asm.name == "mov.u32 %0, %%laneid;" and asm.line == 4


def test_device_constructs() -> None:
    src = '''#define FULL_MASK 0xffffffff
__global__ void k(float* a) {
  int lane = threadIdx.x & 31;
  unsigned bal = __ballot_sync(0xffffffffu, a[0] > 0);
  unsigned long long ok = __ballot_sync(~0ull, a[0] > 0);
  int n = __popc(bal);
  float v = a[0];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(FULL_MASK, v, off);
  v += __shfl_xor_sync(0xffffffffffffffffull, v, 1);
}
'''
    got = {(f.name, f.line) for f in facts(src, "construct")}
    assert got >= {("lane-arith-32", 3), ("ballot-32bit-store", 4), ("lane-mask-32", 4), ("popc-ballot", 6),
                   ("shuffle-offset-16", 8), ("lane-mask-32", 8)}
    assert ("lane-mask-32", 5) not in got and ("lane-mask-32", 9) not in got
    assert ("ballot-32bit-store", 5) not in got


def test_lane_arithmetic_only_in_device_code() -> None:
    src = "int host(int tid) { return tid % 32; }\n__device__ int dev(int tid) { return tid % 32; }\n"
    assert {f.line for f in facts(src, "construct") if f.name == "lane-arith-32"} == {2}


def test_syntax_errors_are_noted_and_the_rest_extracted() -> None:
    extraction = cuda_cpp.extract(b"void f( { cudaMalloc(&p, 4);\n}}}\nvoid g() { cudaFree(p); }\n")
    assert "cudaFree" in {f.name for f in extraction.facts}
    assert extraction.notes and "syntax errors" in extraction.notes[0]


def test_valid_code_in_the_grammars_gaps_is_not_called_a_syntax_error() -> None:
    # cuBERT's Dense.cpp (an explicit instantiation in a namespace) and cuBLAS-style declarations decorated
    # by macros the parse does not expand: valid C++, so no note; a real error beside them is still noted
    valid = (b"namespace cuBERT {\ntemplate <typename T> class Dense { void f(); };\ntemplate class Dense<float>;\n}\n"
             b"CUBLASAPI cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t *handle);\n"
             b"__host__ cudaError_t CUDARTAPI cudaMalloc(void **p, size_t n) { return cudaSuccess; }\n")
    assert cuda_cpp.extract(valid).notes == ()
    broken = cuda_cpp.extract(valid + b"int g( { return 1; }\n")
    assert broken.notes == ("syntax errors near line 7; facts were extracted from what parsed",)


def test_guarded_namespace_alias_makes_the_namespace_portable(tmp_path) -> None:
    from migrate.rulebase.load import load_rules
    from migrate.scan import pipeline as scan
    from migrate.settings import Settings

    (tmp_path / "compat.cuh").write_text(
        "#ifndef USE_ROCM\n#include <cub/cub.cuh>\n#else\n#include <hipcub/hipcub.hpp>\nnamespace cub = hipcub;\n#endif\n")
    (tmp_path / "scan.cu").write_text('#include "compat.cuh"\n__device__ int f(int x) { return cub::Sum()(x, x); }\n')
    (tmp_path / "other.cu").write_text("__device__ int g(int x) { return thrust::plus<int>()(x, x); }\n")
    report = scan.run([tmp_path], Settings(jobs=1), load_rules())
    namespaces = {(f.path, f.symbol) for f in report.findings if f.symbol in ("cub", "thrust")}
    assert namespaces == {("other.cu", "thrust")}


def test_names_the_project_defines_are_not_api_uses(tmp_path) -> None:
    from migrate.rulebase.load import load_rules
    from migrate.scan import pipeline as scan
    from migrate.settings import Settings

    (tmp_path / "check.h").write_text("#define ncclCheck(cmd) do { ncclResult_t r = cmd; (void)r; } while (0)\n"
                                      "#if defined(__HIP_PLATFORM_AMD__)\n#define cudaFree hipFree\n#endif\n")
    (tmp_path / "comm.cu").write_text('#include "check.h"\nvoid f(ncclComm_t c) { ncclCheck(ncclCommDestroy(c)); '
                                      "cudaFree(0); cudaMalloc(0, 0); }\n")
    report = scan.run([tmp_path], Settings(jobs=1), load_rules())
    symbols = {(f.path, f.symbol) for f in report.findings}
    assert ("comm.cu", "ncclCheck") not in symbols and ("comm.cu", "cudaFree") not in symbols
    assert {("comm.cu", "ncclCommDestroy"), ("comm.cu", "cudaMalloc"), ("check.h", "ncclResult_t")} <= symbols


def test_a_macro_that_stands_for_one_identifier_carries_it() -> None:
    """What the name maps to is the matcher's to judge (another vendor's alias: tests/test_backend_files.py)."""
    src = "#define cudaFuncSetAttribute musaFuncSetAttribute\n#define MY_WARP 32\n#define CHECK(x) do { x; } while (0)\n"
    assert {(f.name, f.text) for f in facts(src, "defined")} == {
        ("cudaFuncSetAttribute", "musaFuncSetAttribute"), ("MY_WARP", ""), ("CHECK", "")}


def test_negated_preprocessor_tests_have_their_own_role() -> None:
    src = ("#if defined(__clang__) && !defined(__CUDACC__)\n#endif\n#ifndef __CUDACC__\n#endif\n"
           "#ifdef __CUDACC__\n#endif\n#if !(defined(__CUDA_ARCH__) || !defined(__CUDACC__))\n#endif\n")
    got = [(f.line, f.name, f.role) for f in facts(src, "identifier") if f.name.startswith("__CUDA")]
    assert got == [(1, "__CUDACC__", "negated_macro"), (3, "__CUDACC__", "negated_macro"),
                   (5, "__CUDACC__", "macro"), (7, "__CUDA_ARCH__", "negated_macro"), (7, "__CUDACC__", "macro")]


def test_architecture_option_strings() -> None:
    got = {(f.line, f.text) for f in facts(
        'const char* o[] = {"--gpu-architecture=compute_80", "-std=c++17"};\n'
        '// "-arch=sm_80" in a comment\n'
        'auto a = std::string("-arch=sm_") + cc;\n'
        'const char* h = "use -arch=sm_80";\n'
        'const char* p = "-gencode=arch=compute_" "80";\n', "construct") if f.name == "cuda-arch-option"}
    assert got == {(1, "--gpu-architecture=compute_80"), (3, "-arch=sm_"), (5, "-gencode=arch=compute_")}


def test_the_macro_body_memo_gives_the_facts_of_a_fresh_parse_and_keeps_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bodies served from the in-process memo give the facts of parsing them again; past its bound in
    bytes the memo lets the older half go and goes on (no clear-all that parses every body again)."""
    src = "".join(f"#define CHECK{i}(x) do {{ cudaError_t e = (x); if (e != cudaSuccess) cudaFree(p{i}); }} while (0)\n"
                  f"#define SHFL{i}(v) __shfl_down_sync(0xffffffff, v, {i})\n" for i in range(40))
    cuda_cpp._BODIES.clear()
    cuda_cpp._BODY_BYTES[0] = 0
    fresh = cuda_cpp.extract(src.encode()).facts
    assert cuda_cpp._BODY_BYTES[0] == sum(len(body) for body, _, _ in cuda_cpp._BODIES) > 0
    assert cuda_cpp.extract(src.encode()).facts == fresh  # every body from the memo
    monkeypatch.setattr(cuda_cpp, "BODY_MEMO_BYTES", 600)
    cuda_cpp._BODIES.clear()
    cuda_cpp._BODY_BYTES[0] = 0
    assert cuda_cpp.extract(src.encode()).facts == fresh
    assert 0 < len(cuda_cpp._BODIES) < 80 and cuda_cpp._BODY_BYTES[0] <= 600
    assert [f for f in fresh if f.kind == "identifier" and f.name == "cudaFree"] and \
        [f for f in fresh if f.kind == "construct"]


def test_a_macro_body_with_no_needle_is_not_parsed_and_the_facts_are_those_of_parsing_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the scan's names, a body holding no needle (inert.words) is not parsed; the facts are the same
    as when every body is parsed, and bodies with a rule's name, a consumer's word or a block still are."""
    names = {"cudaFree", "cudaMalloc"}.__contains__
    src = (b"#define AREA(w, h) ((w) * (h))\n"               # inert
           b"#define GLEW_FN(x) GLEW_GET_FUN(__glew##x)\n"  # inert
           b"#define RELEASE(p) cudaFree(p)\n"               # a rule's name
           b"#define LANE(lane) ((lane) & 31)\n"                   # a consumer's word (lane arithmetic)
           b"#define DEF(f) void f(int x) { gather(x); }\n"       # a definition and a use: xref facts
           b"#define DECL(T) T helper(T a)\n")               # a function declared
    assert inert.words(b"((w) * (h))", names) == 2
    for body in (b"cudaFree(p)", b"((lane) & 31)", b"void f(int x) { gather(x); }", b"T helper(T a)", b"x$y", b"\xc3\xa9"):
        assert inert.words(body, names) is None
    parsed: list[bytes] = []
    real = cuda_cpp._snippet

    def spy(source: bytes, **kw: object) -> tuple[cuda_cpp._Ctx, list[str]]:
        parsed.append(source)
        return real(source, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(cuda_cpp, "_snippet", spy)
    cuda_cpp._BODIES.clear()
    cuda_cpp._BODY_BYTES[0] = 0
    fast = cuda_cpp.extract(src, names)
    assert b"((w) * (h))" not in parsed and b"cudaFree(p)" in parsed
    cuda_cpp._BODIES.clear()
    cuda_cpp._BODY_BYTES[0] = 0
    ctx, _ = real(src, names=names, skip_inert=False)
    assert fast.facts == tuple(ctx.facts)
    assert {f.name for f in fast.facts if f.kind == "function_reference"} >= {"gather", "helper"}


def test_a_branch_on_a_macro_the_file_defines_as_0_once_is_off() -> None:
    """`#define X 0` once, at file scope and never #undef'd: `#if X` is compiled by no build."""
    body = "#if USE_FAST\nvoid f() { cudaFree(0); }\n#endif\n"
    guards = {f.guard for f in facts("#define USE_FAST 0\n" + body) if f.name == "cudaFree"}
    assert guards == {"off"}
    for defines in ("#define USE_FAST 0\n#undef USE_FAST\n#define USE_FAST 1\n", "#define USE_FAST 0\n#undef USE_FAST\n",
                    "#ifndef USE_FAST\n#define USE_FAST 0\n#endif\n", "#define OTHER 0\n"):
        assert {f.guard for f in facts(defines + body) if f.name == "cudaFree"} == {None}, defines


def test_a_hip_branch_that_only_stops_the_build_is_no_rocm_path() -> None:
    refusing = "#ifdef __HIP_PLATFORM_AMD__\n// no HIP port\n#error not supported\n#else\nvoid f();\n#endif\n"
    working = "#ifdef __HIP_PLATFORM_AMD__\n#include <hip/hip_runtime.h>\n#else\nvoid f();\n#endif\n"
    assert not facts(refusing, "rocm_path")
    assert [f.name for f in facts(working, "rocm_path")] == ["source"]


def test_a_device_pass_test_that_only_picks_a_pragma_is_a_tuning_macro() -> None:
    pragma = "#ifdef __CUDA_ARCH__\n#define PRAGMA_UNROLL #pragma unroll\n#else\n#define PRAGMA_UNROLL\n#endif\n"
    code = "#ifdef __CUDA_ARCH__\nint f();\n#else\n#define PRAGMA_UNROLL\n#endif\n"
    assert {f.role for f in facts(pragma) if f.name == "__CUDA_ARCH__" and f.kind == "identifier"} == {"tuning_macro"}
    assert {f.role for f in facts(code) if f.name == "__CUDA_ARCH__" and f.kind == "identifier"} == {"macro"}


@pytest.mark.parametrize(("condition", "value"), [
    ("__CUDA_ARCH__ < 320", 1), ("__CUDA_ARCH__ >= 200 && __CUDA_ARCH__ < 500", 0), ("(__CUDA_ARCH__ >= 350)", 0),
    ("!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600", 1), ("defined __CUDA_ARCH__ && __CUDA_ARCH__ < 600", 0),
    ("__CUDA_ARCH__>=530u", 0),
    ("defined(__CUDA_ARCH__)", None), ("__CUDA_ARCH__", None),  # device-pass detection: HIP4021's, not evaluated
    ("__CUDA_ARCH__ >= 800 && USE_TMA", None), ("(" * 5000 + "__CUDA_ARCH__ < 3" + ")" * 5000, None),
])
def test_an_arch_version_test_reads_as_under_hip_clang(condition: str, value: int | None) -> None:
    from migrate.extract.c.guards import arch_value

    assert arch_value(condition) == value


def test_a_file_that_parses_as_one_error_is_noted_where_the_errors_are() -> None:
    # torch-mesh-isect's bvh_cuda_op.cu: a qualifier chosen by `#if` between `__device__` and the return type, five
    # times, turns the whole translation unit into one ERROR node starting at line 1; the note names the lines inside
    block = ("template <typename T>\n__device__\n#if FORCE_INLINE == 1\n    __forceinline__\n#endif\nbool\n"
             "same{i}(const T &a, const T &b) {{\n  return a.x == b.x && a.y == b.y;\n}}\n\n")
    source = "#include <cuda.h>\n\n__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n\n"
    source += "".join(block.format(i=i) for i in range(5))
    assert cuda_cpp.extract(source.encode()).notes == (
        "syntax errors near lines 5, 9, 15, 19, 25; facts were extracted from what parsed",)


def test_spelled_type_drops_qualifiers_and_collapses_whitespace() -> None:
    from migrate.extract.c import tree, ts

    source = b"unsigned   long\n  int mask = 1;\nint f(const volatile unsigned x);"
    root = ts.parse(source)
    with tree.reading(source):
        types = [n.child_by_field_name("type") for n in tree.walk(root)
                 if n.type in ("declaration", "parameter_declaration")]
        assert [tree.spelled_type(t) for t in types] == ["unsigned long int", "int", "unsigned"]
        assert tree.spelled_type(None) == ""
        assert tree.DECLARATION_QUALIFIERS.sub("", "static constexpr const volatile T").split() == ["T"]


# Cut from kroma-network/tachyon e7b1306 tachyon/device/gpu/gpu_memory.cc:3-35 and pytorch/kineto
# libkineto/src/DeviceProperties.cpp:35-47: a preprocessor alternative on the project's own macro whose branches
# are the CUDA and the HIP back end.
TACHYON = ("#if TACHYON_CUDA\n#define gpuFreeAsync cudaFreeAsync\n#define gpuMemcpy cudaMemcpy\n#else\n"
           "#define gpuFreeAsync hipFreeAsync\n#define gpuMemcpy hipMemcpy\n#endif\n")
KINETO = ("#ifdef HAS_CUPTI\n#define gpuDeviceProp cudaDeviceProp\n#define gpuSuccess cudaSuccess\n"
          "#elif defined(HAS_ROCTRACER)\n#define gpuDeviceProp hipDeviceProp_t\n#define gpuSuccess hipSuccess\n"
          "#elif defined(HAS_XPUPTI)\n#define gpuDeviceProp int\n#endif\n")


@pytest.mark.parametrize("source", [TACHYON, KINETO])
def test_the_cuda_branch_of_an_alternative_whose_other_branch_is_hip_is_cudas(source: str) -> None:
    guards = {f.name: f.guard for f in facts(source, "identifier") if f.name.startswith(("cuda", "hip"))}
    assert guards == {
        name: ("cuda" if name.startswith("cuda") else "hip") for name in guards}
    assert any(g == "cuda" for g in guards.values())


@pytest.mark.parametrize("source", [
    # no HIP branch: a CUDA path beside a CPU one
    "#if TACHYON_CUDA\n#define gpuFree cudaFree\n#else\n#define gpuFree free\n#endif\n",
    # both APIs in one branch (a compat header mapping one to the other) is no alternative
    "#if USE_GPU\n#define cudaFree hipFree\n#else\n#define gpuFree cudaFree\n#endif\n",
])
def test_an_alternative_without_a_hip_only_branch_keeps_its_cuda_code(source: str) -> None:
    assert {f.guard for f in facts(source, "identifier") if f.name.startswith("cuda")} == {None}
