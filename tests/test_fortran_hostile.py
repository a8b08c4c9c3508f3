"""The Fortran reader on hostile input (extract/text/fortran.py): a scanned file cannot make it take exponential or
quadratic time. Each file here took seconds to hours before its mend and takes milliseconds after; the bounds leave
a wide margin for a loaded machine."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from migrate.extract.text import fortran

T = TypeVar("T")
BOUND_S = 5.0


def _timed(read: Callable[[bytes], T], source: bytes) -> tuple[T, float]:
    started = time.perf_counter()
    result = read(source)
    return result, time.perf_counter() - started


def test_many_type_words_before_no_attributes_do_not_backtrack() -> None:
    """`real      real      real ...` (no `attributes`): the procedure prefix's blanks split one way only (40 words
    were (7^40) ways before)."""
    extraction, seconds = _timed(fortran.extract, b"use cudafor\n" + b"real" + b"      real" * 40 + b" x\n")
    assert seconds < BOUND_S
    assert [f.name for f in extraction.facts if f.kind == "construct"] == [fortran.MODULE]


def test_the_prefix_still_reads_a_kernel_after_type_words() -> None:
    extraction = fortran.extract(b"use cudafor\npure real*8   attributes(device) function f(x)\nend function\n"
                                 b"recursive  attributes(global)  subroutine k()\nend subroutine\n")
    assert [(f.name, f.text) for f in extraction.facts if f.kind == "construct"] == [
        (fortran.MODULE, "cudafor"), (fortran.DEVICE_PROCEDURE, "f"), (fortran.KERNEL, "k")]


def test_a_statement_of_many_continuation_lines_is_joined_once() -> None:
    """400k continuation lines (1.6 MB): each line's piece was added to the statement's text by copying it."""
    extraction, seconds = _timed(fortran.extract, b"use cudafor\nx = cudaFree(a) + &\n" + b"y &\n" * 400_000 + b"z\n")
    assert seconds < BOUND_S
    calls = [f for f in extraction.facts if f.name == fortran.API_CALL]
    assert [(f.line, f.text) for f in calls] == [(2, "cudaFree")]


def test_a_long_line_of_data_words_is_prefiltered_in_linear_time() -> None:
    """One 2.7 MB line of `x device `: each word's line start was looked for back to the file's start."""
    answer, seconds = _timed(fortran.worth_reading, b"x device " * 300_000)
    assert seconds < BOUND_S
    assert answer is False
    assert fortran.worth_reading(b"x device " * 300_000 + b"\nreal, device :: a(n)\n")
