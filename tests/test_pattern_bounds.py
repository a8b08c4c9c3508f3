"""Regular expressions that read scanned lines run in time linear in the line.

Two blank-matching runs around an optional character (`\\s*\\(?\\s*`, `\\s*-?\\s*`) or a lazy span before `\\s*`
try every split of a run of blanks that does not end in a match: quadratic in the run (a 40 KB make line of
`a`, spaces, `b`, spaces took 2.9 s in make_goals.RULE). Each pattern is checked on such a line and on the
real lines it was written for (same groups as before the rewrite). Limits are on this process's CPU time, so a
loaded machine does not fail them."""
from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from migrate.extract import extract
from migrate.extract.c import cuda_cpp, guards, hazards, ts, wavefront
from migrate.extract.c.tree import reading, walk
from migrate.extract.text import buildfiles, cargo, cgo, containers, make_model, rocm_path, vsproject
from migrate.extract.text.lines import logical_lines

BLANKS = " " * 30000


def _chevron_launch() -> bool:
    """hazards._grid_sized_to_n over a file where the kernel's name and `<<<` are followed by long blank runs."""
    source = b"__global__ void k() {}\nk" + BLANKS.encode() + b"x k<<<" + BLANKS.encode() + b"x"
    with reading(source):
        kernel = next(n for n in walk(ts.parse(source)) if n.type == "function_definition")
        return hazards._grid_sized_to_n(kernel, source)


@pytest.mark.parametrize(("name", "attempt"), [
    ("make rule", lambda: make_model.parse(logical_lines("a" + BLANKS + "b" + BLANKS + "c"))),
    ("layer macro", lambda: list(hazards.LAYER_CUDA_MACRO.finditer("defined" + BLANKS + "+"))),
    ("ifndef", lambda: guards.IFNDEF.search(b"#if !defined" + BLANKS.encode() + b"+")),
    ("language guard", lambda: cuda_cpp.LANGUAGE_GUARD.match("defined" + BLANKS + "+")),
    ("capabilities", lambda: containers.CAPABILITIES.match(BLANKS + "-" + BLANKS + "+")),
    ("ci off", lambda: rocm_path.CI_OFF.match(BLANKS + "-" + BLANKS + "+")),
    ("image key", lambda: containers.IMAGE.match("image" * 6000 + "!")),  # a split per `image`: 4.6 s
    ("vs project tags", lambda: vsproject.extract(b"<a " * 20000)),  # every unclosed tag read to the end: 47 s
    # review23: the blank runs left around an optional `)` or `(` (version gate 14.6 s, legacy gate 6.4 s), the
    # launch call's around `&?` and a template's `<...>` (over 20 s), a rocm/hip word split at every `rocm` (1.5 s)
    ("version gate", lambda: guards.CUDA_VERSION_GATE.match(
        "(" + BLANKS + "CUDA_VERSION>=" + BLANKS + "(" + BLANKS + "1" + BLANKS + ")" + BLANKS + "+")),
    ("version gate lead", lambda: guards.CUDA_VERSION_GATE.match(BLANKS + "+")),
    ("legacy gate", lambda: guards.LEGACY_ARCH_GATE.match("defined(__CUDA_ARCH__)&&__CUDA_ARCH__<1" + BLANKS + ")"
                                                          + BLANKS + "+")),
    ("launch call", lambda: re.search(hazards.LAUNCH_CALL.format(name="k"),
                                      "hipLaunchKernelGGL(" + BLANKS + "(" + BLANKS + "k" + BLANKS + ")" + BLANKS + "+")),
    ("chevron launch", _chevron_launch),
    ("ci off word", lambda: rocm_path.CI_OFF.match("rocm" * 8000 + "!")),
])
def test_a_long_run_of_blanks_is_read_in_linear_time(name: str, attempt: Callable[[], object]) -> None:
    started = time.process_time()
    attempt()
    assert time.process_time() - started < 0.5, name


def test_the_rewritten_patterns_read_real_lines_as_before() -> None:
    rule = make_model.parse(logical_lines("cuda29: mean.cu ; $(NVCC) -o $@ $<")).rules[0]
    assert (rule.targets, rule.prerequisites, rule.inline.strip()) == (["cuda29"], ["mean.cu"], "$(NVCC) -o $@ $<")
    assert make_model.parse(logical_lines("all :: x")).rules[0].targets == ["all"]
    assert not make_model.parse(logical_lines("NVCC := nvcc")).rules
    assert [m.group(1, 2) for m in hazards.LAYER_CUDA_MACRO.finditer("!defined( KOKKOS_ENABLE_CUDA )")] == \
        [("!", "KOKKOS_ENABLE_CUDA")]
    assert guards.IFNDEF.search(b"#if !defined (GPU_H)").group(1) == b"GPU_H"
    assert cuda_cpp.LANGUAGE_GUARD.match("defined( __cplusplus )")
    assert containers.CAPABILITIES.match("  - capabilities: [gpu]").group(1, 2) == ("  - ", "[gpu]")
    assert rocm_path.CI_OFF.match("  - with-rocm: false  # later")
    assert containers.IMAGE.match('- baseImage: "nvcr.io/nvidia/pytorch:24.01"').group(1, 2) == \
        ("baseImage", "nvcr.io/nvidia/pytorch:24.01")
    assert guards.CUDA_VERSION_GATE.match("defined(CUDA_VERSION) && (CUDA_VERSION >= (11020) ) ").group(1, 2) == \
        ("CUDA_VERSION", "CUDA_VERSION")
    assert guards.CUDA_VERSION_GATE.match(" ( CUDART_VERSION>=11000)").group(1, 2) == (None, "CUDART_VERSION")
    assert not guards.CUDA_VERSION_GATE.match("CUDA_VERSION >= 11020 ) ) )")
    assert guards.LEGACY_ARCH_GATE.match("defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < (600) ) ")
    assert not guards.LEGACY_ARCH_GATE.match("defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600 ) ) )")
    launch = re.compile(hazards.LAUNCH_CALL.format(name="k"))
    assert launch.search("hipLaunchKernelGGL(( k<float, 4> ), grid, block, 0, 0, x)")
    assert launch.search("cudaLaunchKernel((const void*)&ns::k, grid, block, args)")
    assert not launch.search("hipLaunchKernelGGL(kk, grid, block, 0, 0)")
    assert rocm_path.CI_OFF.match("  - with-rocm: false  # later") and rocm_path.CI_OFF.match("HIP: off")
    assert not rocm_path.CI_OFF.match("with-cuda: false")


def test_a_long_item_list_in_a_vs_project_is_read_in_linear_time() -> None:
    """review23: one `Include` listing 100,000 `;`-separated items took 27.8 s (the list was copied once per item)."""
    items = ";".join(f"$(A)x{i}.cu" for i in range(100000))
    source = f'<Project><ItemGroup><CudaCompile Include="{items}" /></ItemGroup></Project>'.encode()
    started = time.process_time()
    facts = vsproject.extract(source).facts
    assert time.process_time() - started < 4.0
    assert len(facts) == 100000 and facts[-1].name == "$(A)x99999.cu"


def test_launch_grids_initialised_from_each_other_are_read_once() -> None:
    """review23: 300 launches of `k<<<g, 1>>>` and 300 `int g = g;` (15 KB) took 38 s: each launch's grid was
    looked up in the whole file, and each initialisation's value again, to depth 2."""
    source = ("__global__ void k() {}\n" + "void f() { k<<<g, 1>>>(); }\n" * 300 + "int g = g;\n" * 300).encode()
    with reading(source):
        kernel = next(n for n in walk(ts.parse(source)) if n.type == "function_definition")
        started = time.process_time()
        assert not hazards._grid_sized_to_n(kernel, source)
        assert time.process_time() - started < 0.5


def test_a_grid_initialised_with_a_ceiling_division_is_still_found() -> None:
    source = (b"__global__ void k() {}\nvoid f(int n) {\n  int blocks = (n + 255) / 256;\n  dim3 grid(blocks, 1);\n"
              b"  k<<<grid, 256>>>();\n}\n")
    with reading(source):
        kernel = next(n for n in walk(ts.parse(source)) if n.type == "function_definition")
        assert hazards._grid_sized_to_n(kernel, source)
    plain = source.replace(b"(n + 255) / 256", b"n")
    with reading(plain):
        kernel = next(n for n in walk(ts.parse(plain)) if n.type == "function_definition")
        assert not hazards._grid_sized_to_n(kernel, plain)


def _warp_rows(rows: int, kind: str = "long") -> bytes:
    """A kernel of `rows` row ids, `rows` values computed from them and `rows` other tests, bounded by the first."""
    return ("__global__ void k(int n) {\n"
            + "".join(f"  {kind} r{i} = blockIdx.x * blockDim.y + threadIdx.y;\n" for i in range(rows))
            + "".join(f"  {kind} b{i} = r{i} / 7 * n;\n" for i in range(rows))
            + "".join(f"  if (x{i} > 0) y();\n" for i in range(rows))
            + "  if (r0 >= n) return;\n}\n").encode()


@pytest.mark.parametrize("kind", ["long", "int"])
def test_many_row_ids_of_a_warp_row_kernel_are_looked_up_once(kind: str) -> None:
    """bounds24: 400 row ids `rI = blockIdx.x * blockDim.y + threadIdx.y`, 400 `bI = rI / 7 * n` and 400 other
    `if`s (39 KB) took 32 s: every declaration's value and every `if`'s condition was searched once per name,
    and each 32-bit row id searched the body for its products and walked the function for its ints."""
    source = _warp_rows(400, kind)
    with reading(source):
        kernel = next(n for n in walk(ts.parse(source)) if n.type == "function_definition")
        found: list[tuple[str, str]] = []
        started = time.process_time()
        wavefront._warp_row_kernel(kernel, lambda name, node, label, *_: found.append((name, label)))
        assert time.process_time() - started < 1.0
    assert found == [("warp-row-index-no-grid-stride", "r0")]  # the first row id, bounded by the last `if`


@pytest.mark.parametrize(("toml", "last"), [
    ("[dependencies]\n" + "".join(f'd{i} = "1"\n' for i in range(8000)), "d7999"),  # 17.5 s before
    ("[workspace]\nmembers = [\n" + "".join(f'  "m{i}",\n' for i in range(6000)) + "]\n", "m5999"),  # 8.7 s before
], ids=["dependencies", "members"])
def test_many_cargo_keys_and_members_are_placed_in_linear_time(toml: str, last: str) -> None:
    """bounds24: each dependency's and member's line was found by searching every line from the first."""
    started = time.process_time()
    facts = cargo.extract(toml.encode()).facts
    assert time.process_time() - started < 1.0
    assert (facts[-1].name, facts[-1].line) == (last, toml.count("\n") - (1 if "members" in toml else 0))


def test_a_cargo_member_is_placed_on_its_own_line_as_before() -> None:
    toml = ("[workspace]\n# \"a\"\nmembers = [\"x-a\", 'a', \"b\"]  # \"c\"\nexclude = [\"c\"]\n"
            "[dependencies]\nb-a = \"1\"\na = 2\n")
    facts = {(f.kind, f.name, f.text or f.role): (f.line, f.column) for f in cargo.extract(toml.encode()).facts}
    assert facts[("cargo_member", "a", "")] == (3, 20)  # single-quoted, not in the comment above
    assert facts[("cargo_member", "c", "exclude")] == (4, 13)  # not in line 3's comment
    assert facts[("cargo_dependency", "a", "")] == (3, 20)  # the first `a` written as a whole word
    assert facts[("cargo_dependency", "b-a", "")][0] == 6


def test_many_mask_operations_in_one_function_read_its_ballots_once() -> None:
    """bounds24: 4,000 `__popc(mask)` in one function (84 KB) took 6.4 s: the function's text was copied and
    searched for `mask = __ballot...` once per operation."""
    source = ("__device__ void f(unsigned mask) {\n" + "  x += __popc(mask);\n" * 4000 + "}\n").encode()
    with reading(source):
        calls = [n for n in walk(ts.parse(source)) if n.type == "call_expression"]
        started = time.process_time()
        assert not any(hazards._ballot_bound(call, ["mask"]) for call in calls)
        assert time.process_time() - started < 1.0
    bound = b"__device__ void f(unsigned v) {\n  unsigned mask = (unsigned)__ballot_sync(~0u, v);\n  x = __popc(mask);\n}\n"
    with reading(bound):
        call = [n for n in walk(ts.parse(bound)) if n.type == "call_expression"][-1]
        assert hazards._ballot_bound(call, ["mask"]) and not hazards._ballot_bound(call, ["other"])


def _version_decodes(source: bytes) -> list[str]:
    found: list[str] = []
    with reading(source):
        for node in walk(ts.parse(source)):
            if node.type == "binary_expression":
                hazards._cuda_version_decode(node, lambda name, node, label, *_: found.append(label))
    return found


def test_many_version_divisions_in_one_function_are_read_once() -> None:
    """bounds24: 5,000 `a = v / 1000;` in one function (80 KB) took 11.5 s: the function's text was copied and
    searched for the name's minor version once per division."""
    source = ("int f(int v) {\n" + "  a = v / 1000;\n" * 5000 + "}\n").encode()
    started = time.process_time()
    assert _version_decodes(source) == []
    assert time.process_time() - started < 1.0
    decoded = b"int f() {\n  int v; cudaRuntimeGetVersion(&v);\n  int major = v / 1000, minor = (v % 1000) / 10;\n}\n"
    assert _version_decodes(decoded) == ["v / 1000"]
    assert _version_decodes(decoded.replace(b"(v % 1000) / 10", b"(w % 1000) / 10")) == []


@pytest.mark.parametrize(("name", "attempt"), [
    # session 25: a CMake argument's flags were read on a copy padded to its column (40 KB on one line: 16.8 s)
    ("cmake one line", lambda: buildfiles.cmake(b"project(x CUDA)add_library(k k.cu)" * 1200)),
    # the path before `nvcc` was re-read from every start in a run of path characters (`${$(` * 25000: 7.5 s)
    ("nvcc path", lambda: buildfiles.command_line("${$(" * 25000, 1)),
    ("nvcc path shell", lambda: buildfiles.shell(b"(" * 100000)),
    # a cgo directive's two blank runs around an optional `//` tried every split (100 KB of blanks: 22 s)
    ("cgo blanks", lambda: cgo.extract(b" " * 100000)),
    ("cgo directives", lambda: cgo.extract(b"// #cgo LDFLAGS: -lcudart\n" * 20000)),  # each line counted from the top
])
def test_a_long_build_line_is_read_in_linear_time(name: str, attempt: Callable[[], object]) -> None:
    started = time.process_time()
    attempt()
    assert time.process_time() - started < 1.0, name


def test_the_bounded_build_readings_place_facts_as_before() -> None:
    cmake = buildfiles.cmake(b'add_library(k k.cu)\ntarget_compile_options(k PRIVATE "-arch=sm_80" --use_fast_math)\n')
    assert {(f.name, f.line, f.column) for f in cmake.facts if f.kind == "flag"} == {
        ("-arch", 2, 35), ("--use_fast_math", 2, 48)}
    assert [m.span() for m in buildfiles.WORD_NVCC.finditer("$(CUDA)/bin/nvcc -c k.cu && nvcc.exe x")] == [(0, 16)]
    assert buildfiles.WORD_NVCC.search("/usr/local/cuda/bin/nvcc").span() == (0, 24)
    go = cgo.extract(b"package x\n\n// #cgo linux LDFLAGS: -L${SRCDIR}/lib -lkern -lcudart\n//#cgo LDFLAGS: -lkern\n")
    assert [(f.name, f.line, f.column, f.text) for f in go.facts] == [
        ("kern", 3, 40, "${SRCDIR}/lib"), ("cudart", 3, 47, "${SRCDIR}/lib"), ("kern", 4, 17, "")]


def test_a_long_attribute_chain_is_read_in_linear_time() -> None:
    """session 25: `torch.version.cuda` written 5,500 times on one line (a 16,500-link chain, 100 KB) took 55 s:
    each link resolved the whole chain below it again."""
    started = time.process_time()
    extraction = extract("python", b"torch.version.cuda" * 5500)
    assert time.process_time() - started < 3.0
    assert extraction.error is None and not extraction.facts
    chain = extract("python", b"import torch\nx = f().a.torch.cuda\ny = torch.version.cuda.split('.')\n")
    assert [(f.kind, f.name, f.line) for f in chain.facts if f.kind == "python_attr"] == [
        ("python_attr", "torch.version.cuda.split", 3)]


def test_a_file_of_many_top_level_nodes_reads_its_identifiers_in_linear_time() -> None:
    """session 25: 100 KB of `$$(` parses into 66,000 top-level nodes; each identifier's role looked its parent up
    through tree-sitter, which reads the root's children one by one (32 s)."""
    started = time.process_time()
    extraction = extract("cuda", b"$$(" * 33000)
    assert time.process_time() - started < 3.0
    assert extraction.error is None and len(extraction.facts) == 33000


def test_the_roles_read_through_the_parent_index_are_tree_sitters() -> None:
    source = (b"namespace cg = cooperative_groups;\nusing namespace nvcuda;\n#if !defined(USE_CUDA) && X\n#endif\n"
              b"#ifndef __CUDACC__\nint a;\n#endif\nvoid cudaFoo(int n);\nint main() { cudaMalloc(0, 1); return n; }\n")
    roles = {(f.name, f.role) for f in extract("cuda", source).facts if f.kind == "identifier"}
    assert {("cooperative_groups", "namespace"), ("nvcuda", "namespace"), ("USE_CUDA", "negated_macro"),
            ("X", "macro"), ("__CUDACC__", "negated_macro"), ("cudaFoo", "definition"),
            ("cudaMalloc", "call")} <= roles


def test_a_parse_that_re_reads_the_file_stops_at_its_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """session 25: 100 KB of `/*]` (an unterminated comment at every step of tree-sitter's error recovery) took 13.5 s
    of parsing in 2,640 progress calls, far inside the budget of calls. The parse's CPU time is bounded (1 s + 20 us a
    byte by default); the reason is machine-dependent, so it is never cached."""
    from migrate.extract import budget
    monkeypatch.setattr(budget, "PARSE_CPU_FREE", 0.3)
    monkeypatch.setattr(budget, "PARSE_CPU_PER_BYTE", 0.0)
    started = time.process_time()
    stopped = extract("cuda", b"/*]" * 33000)
    assert time.process_time() - started < 2.0
    assert stopped.error is not None and stopped.error.startswith(budget.TRANSIENT) and "CPU time" in stopped.error
    assert extract("cuda", b"__global__ void k(int *p) { p[threadIdx.x] = 0; }\n" * 2000).error is None
