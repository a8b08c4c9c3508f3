"""The C/C++/CUDA extractors' whole-source patterns behind literals (extract/c/needles.py): every
match holds one of its pattern's needles, so a text without them is rightly not searched."""
from __future__ import annotations

import importlib
import pkgutil
import re

import pytest
from migrate.extract import c as c_package
from migrate.extract.c.needles import LineNeedled, Needled
from tests.conftest import ROOT

# a text each pattern matches, in every spelling its alternatives allow
EXAMPLES: dict[str, tuple[bytes, ...]] = {
    "cuda_cpp.HASH_ERROR": (b"  #  error stop here",),
    "guards.UNDEF": (b"# undef USE_X",),
    "guards.COMMENTED_DEFINE": (b"// #define FULLCHECK", b"/* #define X */"),
    "guards.LIVE_DEFINE": (b"#define X 1", b"  #  define Y"),
    "guards.VALUELESS_DEFINE": (b"#define USE_X", b"\t# define USE_X // on"),
    "guards.SWITCH_DEFINE": (b"#define USE_CUDA 1", b"#define WITH_HIP"),
    "guards.DIRECTIVE_LINE": (b"#ifdef X", b"#if A", b" # ifndef B", b"#elif C", b"#else", b"#endif"),
    "hazards.FP8_CONTEXT": (b"__nv_FP8_e4m3", b"Float8_e5m2", b"E4M3"),
    "hazards.LAYER_NAMESPACE": (b"namespace Kokkos {", b"namespace  RAJA"),
    "hazards.ARCH_WORDS": (b'"--gpu-architecture=sm_80"', b"-arch=sm_70", b"-gencode arch", b"--generate-code=x"),
    "hazards.THOUSANDS_BYTES": (b"v / 1000", b"v/1000;"),
    "lanemasks.SYNC_MASK_ARGUMENT": (b"__shfl_sync(mask, v, 0)",),
    "lanemasks.BALLOT_WORDS": (b"__BALLOT(x)", b"__ACTIVEMASK()", b"__match_any_sync", b"__ANY_SYNC ("),
    "lanemasks.MASK_WORD": (b"kFullWarpMask", b"lane_mask", b"WARP_MASK"),
    "lanemasks.HEX_F": (b"0xffffffff", b"0XFFFF'FFFFu"),
    "runtime.POINTER_ATTRIBUTES": (b"cudaPointerAttributes *attr",),
    "runtime.DEVICE_PROP": (b"cudaDeviceProp const& prop", b"cudaGetDeviceProperties(&p, 0)"),
    "runtime.CAPABILITY_ATTRIBUTE": (b"cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0)",),
    "runtime.OPTIN_FIELD": (b"p->sharedMemPerBlockOptin", b"prop. sharedMemPerBlockOptin"),
    "wavefront.WARP_TEMPLATE_HINT": (b"template <int THREADS_PER_WARP>", b"template<typename T, int kWarpSz>"),
    "wavefront.WARP_TRANSPOSE": (b"cub::BLOCK_LOAD_WARP_TRANSPOSE", b"BLOCK_STORE_WARP_TRANSPOSE>"),
    "xref.CUTLASS_USE": (b"cute::Tensor", b"cutlass ::gemm", b"namespace cutlass {"),
}


def needled() -> dict[str, Needled]:
    found = {}
    for module in pkgutil.iter_modules(c_package.__path__):
        loaded = importlib.import_module(f"{c_package.__name__}.{module.name}")
        for name, value in vars(loaded).items():
            if isinstance(value, Needled):
                found[f"{module.name}.{name}"] = value
    return found


def corpus() -> list[bytes]:
    kinds = {".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".hip"}
    return [p.read_bytes() for p in sorted((ROOT / "fixtures").rglob("*")) if p.suffix in kinds and p.is_file()]


def test_every_needled_pattern_has_examples() -> None:
    assert set(needled()) == set(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_match_holds_a_needle(name: str) -> None:
    pattern = needled()[name]
    texts = [*EXAMPLES[name], *corpus()]
    matched = 0
    for text in texts:
        for m in pattern.pattern.finditer(text):
            matched += 1
            found = m.group(0).lower() if pattern.fold else m.group(0)
            assert any(needle in found for needle in pattern.needles), (name, m.group(0))
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in pattern.pattern.finditer(text)]
        assert pattern.findall(text) == pattern.pattern.findall(text)
    for example in EXAMPLES[name]:
        assert pattern.search(example) is not None, (name, example)
    assert matched >= len(EXAMPLES[name])


def test_a_text_without_needles_is_not_searched() -> None:
    class Refuses:
        flags = 0

        def search(self, text: bytes) -> None:
            raise AssertionError(f"searched {text!r}")

    pattern = Needled(Refuses(), b"cudaThing")  # type: ignore[arg-type]
    assert pattern.search(b"int cudaOther;") is None and pattern.findall(b"x") == [] and not list(pattern.finditer(b"x"))
    with pytest.raises(AssertionError, match="searched"):
        pattern.search(b"int cudaThingy;")
    with pytest.raises(ValueError, match="lower-case"):
        Needled(re.compile(rb"(?i)Ballot"), b"Ballot")


def test_the_positional_fact_builders_follow_facts_field_order() -> None:
    """cuda_cpp builds facts positionally (build_fact((kind, name, line, ...))) for speed: a field added to or
    moved in Fact must fail here, not swap two str fields silently."""
    from dataclasses import fields

    from migrate.model import Fact

    assert [f.name for f in fields(Fact)] == ["kind", "name", "line", "column", "end_line", "end_column", "role",
                                              "text", "guard", "cell", "value"]


# texts where trying a line-anchored pattern only at the start of the needle's lines could go wrong
LINE_CASES = (b"", b"#define A", b"#define A\n", b"\n#define A\n#define B 1\n  # define C // c\n", b"#define A\r\n#define B\r\n",
              b"x = 1; // define\n#define D\n", b"#define E #define F\n#define\n#define G", b"/* #define H */\n//#define I",
              b"#error stop\n  #  error\tagain\nint error;\n#errors", b"#ifdef X\n#else // if\n#endif\n#  elif Y\n#iffy",
              b"define\ndefine\n#define J\ndefine")


@pytest.mark.parametrize("name", sorted(n for n, p in needled().items() if isinstance(p, LineNeedled)))
def test_a_line_needled_pattern_finds_what_its_pattern_finds(name: str) -> None:
    pattern = needled()[name]
    assert isinstance(pattern, LineNeedled)
    for text in (*LINE_CASES, *EXAMPLES[name], *corpus()):
        ours, theirs = list(pattern.finditer(text)), list(pattern.pattern.finditer(text))
        assert [(m.span(), m.groups()) for m in ours] == [(m.span(), m.groups()) for m in theirs], (name, text[:80])
        assert pattern.findall(text) == pattern.pattern.findall(text)
        first, expected = pattern.search(text), pattern.pattern.search(text)
        assert (first.span() if first else None) == (expected.span() if expected else None)


def test_a_line_needled_pattern_must_start_at_a_line() -> None:
    with pytest.raises(ValueError):
        LineNeedled(re.compile(rb"#define", re.MULTILINE), b"define")
    with pytest.raises(ValueError):
        LineNeedled(re.compile(rb"^#define"), b"define")  # without MULTILINE, ^ holds at the text's start only
