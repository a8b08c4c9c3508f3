"""A name CUDA shares with other code (`needs_context` rules) is CUDA's only in CUDA context, and a file's own
`struct cuComplex { ... }` makes the name the project's (docs/decisions/2026-12-06-plain-names-need-cuda-context.md)."""
from __future__ import annotations

import pytest
from migrate.extract.c.cuda_cpp import extract
from migrate.rulebase import targets
from migrate.rulebase.load import load_rules
from migrate.scan import match, project
from migrate.settings import Settings

FILES = {
    # NRD's `saturate` (Source/Relax.cpp), Streamline's `VkMemoryBarrier memoryBarrier` (sl.chi/vulkan.cpp), mpv's
    # `const int warp_size = 32` (video/out/gpu/video.c): sources with no CUDA in them
    "render/relax.cpp": '#include "math.h"\nfloat f(float w) { return -log(saturate(w)); }\n',
    "vk/vulkan.cpp": "void g() { VkMemoryBarrier memoryBarrier = {}; memoryBarrier.srcAccessMask = 0; }\n",
    "gpu/video.c": "void h(void) { const int warp_size = 32, threads = 256; int bh = threads / warp_size; }\n",
    # the same plain name in CUDA context
    "k.cu": "__global__ void k(float* x) { x[0] = saturate(x[0]); }\n",
    "host.cpp": "#include <cuda_runtime.h>\nfloat f(float w) { cudaDeviceSynchronize(); return saturate(w); }\n",
    # a CUDA-spelled name needs no context
    "brk.cpp": "void f() { __brkpt(); }\n",
    # CUDA by Example's own `struct cuComplex { ... }` (chapter04/julia_gpu.cu) beside CUDA's cuComplex types
    "julia.cu": "struct cuComplex { float r; float i; __device__ cuComplex(float a, float b) : r(a), i(b) {} };\n"
                "__device__ int julia() { cuComplex a(1, 2); return a.r > 0; }\n",
    "fft/uses.cu": "#include <cuComplex.h>\nstruct cuDoubleComplex;\n__device__ float re(cuFloatComplex z) { return z.x; }\n",
    # a header copying the vendor's declarations (LumenPT's vendor/Include/Cuda/cuda_runtime_api.h) hides nothing
    "inc/cuda_runtime_api.h": "struct cudaDeviceProp { int major; int minor; };\n",
    "props.cu": "#include <cuda_runtime.h>\n"
                "int major(int d) { cudaDeviceProp p; cudaGetDeviceProperties(&p, d); return p.major; }\n",
}


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[tuple[str, str]]]:
    root = tmp_path_factory.mktemp("plain")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    report = project.scan_project([root], Settings(jobs=1, cache_dir=None), load_rules())
    return {rel: {(f.rule, f.symbol) for f in report.findings if f.path == rel} for rel in FILES}


def test_plain_names_in_a_source_with_no_cuda_are_not_cuda_s(found: dict[str, set[tuple[str, str]]]) -> None:
    assert not {s for rel in ("render/relax.cpp", "vk/vulkan.cpp", "gpu/video.c") for s in found[rel]
                if s[0] in ("HIP4911", "HIP2011", "HIP4017")}, found
    for rel in ("k.cu", "host.cpp"):
        assert ("HIP4911", "saturate") in found[rel], (rel, found[rel])


def test_a_cuda_spelled_name_needs_no_context(found: dict[str, set[tuple[str, str]]]) -> None:
    assert ("HIP4911", "__brkpt") in found["brk.cpp"], found


def test_a_header_keeps_its_plain_names() -> None:
    """A header's translation unit is whoever includes it: its candidates are not filtered."""
    rules = load_rules()
    index = match.index_for(rules, targets.load().default_rocm, "gfx942")
    text = b"inline float g(float w) { return saturate(w); }\n"
    assert {f.symbol for f in match.match_file("shared.h", extract(text), index)} == {"saturate"}
    assert not match.match_file("shared.cpp", extract(text), index)
    # a header's template definitions (Boost's boost/asio/impl/*.ipp, a header's *.tpp) are headers too; a make
    # fragment (Makefile.inc) is none
    assert {f.symbol for f in match.match_file("detail/shared.ipp", extract(text), index)} == {"saturate"}
    assert {f.symbol for f in match.match_file("shared.tpp", extract(text), index)} == {"saturate"}
    assert not match.match_file("Makefile.inc", extract(text), index)
    # the candidates are the same under any name (a cached result is shared by files of equal content)
    assert [c.needs_context for c in match.candidates("", extract(text), index)] == [True]


def test_a_struct_the_file_defines_is_its_own(found: dict[str, set[tuple[str, str]]]) -> None:
    assert not {s for s in found["julia.cu"] if s[1] == "cuComplex"}, found
    assert ("HIP309010", "cuFloatComplex") in found["fft/uses.cu"], found
    assert {s[1] for s in found["props.cu"]} >= {"cudaDeviceProp", "cudaGetDeviceProperties"}, found
