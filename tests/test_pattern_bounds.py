"""Regular expressions that read scanned lines run in time linear in the line.

Two blank-matching runs around an optional character (`\\s*\\(?\\s*`, `\\s*-?\\s*`) or a lazy span before `\\s*`
try every split of a run of blanks that does not end in a match: quadratic in the run (a 40 KB make line of
`a`, spaces, `b`, spaces took 2.9 s in make_goals.RULE). Each pattern is checked on such a line and on the
real lines it was written for (same groups as before the rewrite). Limits are on this process's CPU time, so a
loaded machine does not fail them."""
from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from migrate.extract.c import cuda_cpp, guards, hazards
from migrate.extract.text import containers, make_goals, rocm_path, vsproject

BLANKS = " " * 30000


@pytest.mark.parametrize(("name", "attempt"), [
    ("make rule", lambda: make_goals.RULE.match("a" + BLANKS + "b" + BLANKS + "c")),
    ("layer macro", lambda: list(hazards.LAYER_CUDA_MACRO.finditer("defined" + BLANKS + "+"))),
    ("ifndef", lambda: guards.IFNDEF.search(b"#if !defined" + BLANKS.encode() + b"+")),
    ("language guard", lambda: cuda_cpp.LANGUAGE_GUARD.match("defined" + BLANKS + "+")),
    ("capabilities", lambda: containers.CAPABILITIES.match(BLANKS + "-" + BLANKS + "+")),
    ("ci off", lambda: rocm_path.CI_OFF.match(BLANKS + "-" + BLANKS + "+")),
    ("image key", lambda: containers.IMAGE.match("image" * 6000 + "!")),  # a split per `image`: 4.6 s
    ("vs project tags", lambda: vsproject.extract(b"<a " * 20000)),  # every unclosed tag read to the end: 47 s
])
def test_a_long_run_of_blanks_is_read_in_linear_time(name: str, attempt: Callable[[], object]) -> None:
    started = time.process_time()
    attempt()
    assert time.process_time() - started < 0.5, name


def test_the_rewritten_patterns_read_real_lines_as_before() -> None:
    assert make_goals.RULE.match("cuda29: mean.cu ; $(NVCC) -o $@ $<").group(2, 3) == (":", "mean.cu ; $(NVCC) -o $@ $<")
    assert make_goals.RULE.match("all :: x").group(1).split() == ["all"]
    assert make_goals.RULE.match("NVCC := nvcc") is None
    assert [m.group(1, 2) for m in hazards.LAYER_CUDA_MACRO.finditer("!defined( KOKKOS_ENABLE_CUDA )")] == \
        [("!", "KOKKOS_ENABLE_CUDA")]
    assert guards.IFNDEF.search(b"#if !defined (GPU_H)").group(1) == b"GPU_H"
    assert cuda_cpp.LANGUAGE_GUARD.match("defined( __cplusplus )")
    assert containers.CAPABILITIES.match("  - capabilities: [gpu]").group(1, 2) == ("  - ", "[gpu]")
    assert rocm_path.CI_OFF.match("  - with-rocm: false  # later")
    assert containers.IMAGE.match('- baseImage: "nvcr.io/nvidia/pytorch:24.01"').group(1, 2) == \
        ("baseImage", "nvcr.io/nvidia/pytorch:24.01")
