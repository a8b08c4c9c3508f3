"""Bounded work per file (migrate/extract/budget.py, migrate/extract/c/ts.py): a parse that runs in C
is stopped by its budget of work and by the file's time limit, which a signal alone cannot do, and
signals that come during it are acted on after it.

LOOP is a fuzzed CUDA input, shrunk from 28 KB (scripts/fuzz.py --seed 7, input 28,806), on which
tree-sitter's error recovery runs without end: before the parse had a progress callback, the
28 KB file took 340 s although the per-file time limit was 60 s, since SIGALRM's handler runs only
once the C call returns."""
from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest
from migrate.extract import budget, cacheable, extract
from migrate.extract.c import ts

LOOP = (b'""<e(""(>,__banc(\'99999999999999999999999999999999999\r\n/*\xc7\xbe\xe1\x8f\xb9asmm("\\\nthre'
        b'adIdx.x)*/rocm-migrate: ignore[HIP4010]#endif__shfl_down_sync(#\xc3\xa9\xf0\x9f\x98\x80\xf0\x9f'
        b'\x98\x80\xe1\x8f\xa0]\'\xc3\x9f& 31#include "\n*/\x1b[2J(\xe2\xb6\x87% 320xffffffff\n]threadIdx.x'
        b')#elif [32k#include ":/*}\xe2\x80\xae#elif #include <cuda_runtime.h>asm volatile("mov.u32 %0, %%'
        b'laneid;"%0,%%"*/')


def test_a_parse_that_does_not_finish_is_given_up_within_its_budget_of_work() -> None:
    started = time.monotonic()
    extraction = extract("cuda", LOOP)
    assert time.monotonic() - started < 10
    assert extraction.error is not None and extraction.error.startswith("too much work to analyse: the C/C++ parser")
    assert cacheable(extraction)  # the budget counts steps, not seconds: the same bytes give the same result


def test_the_budget_is_linear_in_the_input_and_far_above_real_code() -> None:
    big = b"__global__ void k(float* x) { x[threadIdx.x] = 0; }\n" * 20_000  # 1 MB
    assert ts.parse(big).child_count == 20_000
    with pytest.raises(budget.WorkExceeded):
        ts.parse(LOOP * 100)  # 31 KB: a hundred times the budget of LOOP, still bounded


def test_the_time_limit_stops_a_parse_in_c(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ts, "CALLS_FREE", 10**12)  # no budget of work: only the deadline stops it
    monkeypatch.setattr(budget, "WORK_FREE", 10**12)
    started = time.monotonic()
    extraction = budget.guarded(lambda data: extract("cuda", data), LOOP, seconds=1.0)
    assert time.monotonic() - started < 5
    assert extraction.error is not None and extraction.error.startswith("analysis stopped: over the wall-clock safety net of 1 s")


def test_the_file_limit_is_read_at_the_call_not_at_import(monkeypatch: pytest.MonkeyPatch) -> None:
    """A limit set after import (as a scan's --file-seconds or a test does) is the one `guarded` obeys."""
    monkeypatch.setattr(ts, "CALLS_FREE", 10**12)
    monkeypatch.setattr(budget, "WORK_FREE", 10**12)
    monkeypatch.setattr(budget, "FILE_SECONDS", 1.0)
    started = time.monotonic()
    extraction = budget.guarded(lambda data: extract("cuda", data), LOOP)
    assert time.monotonic() - started < 5
    assert extraction.error is not None and extraction.error.startswith("analysis stopped: over the wall-clock safety net of 1 s")


def test_the_time_limit_stops_a_parse_off_the_main_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deep-recursion retry runs in a thread, where no signal is delivered: the parse polls the
    deadline the main thread set."""
    monkeypatch.setattr(ts, "CALLS_FREE", 10**12)
    outcome: list[BaseException | None] = []

    def work() -> None:
        try:
            ts.parse(LOOP)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    started = time.monotonic()
    with pytest.raises(budget.BudgetExceeded), budget.time_limit(1.0):
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        # The thread and the alarm share one deadline: when the thread's poll sees it first, the join
        # returns before the alarm and the caller re-raises the thread's outcome, as budget._deep does.
        if outcome and outcome[0] is not None:
            raise outcome[0]
    waited = time.monotonic()  # (not join: after an interrupted join, CPython 3.11 may think the thread ended)
    while not outcome and time.monotonic() - waited < 10:
        time.sleep(0.01)
    assert len(outcome) == 1 and isinstance(outcome[0], budget.BudgetExceeded)
    assert time.monotonic() - started < 5  # ended by the deadline, not by the end of the parse


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Python's own SIGINT handler, also when the test run inherited an ignored SIGINT (a job started
    in the background with `&` or nohup), which the budget rightly leaves ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("ctrl_c")
def test_an_interrupt_during_a_parse_is_raised_after_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while tree-sitter runs: not lost, not a SystemError, not a skipped file."""
    monkeypatch.setattr(ts, "CALLS_FREE", 10**12)
    monkeypatch.setattr(budget, "WORK_FREE", 10**12)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            budget.guarded(lambda data: extract("cuda", data), LOOP, seconds=3.0)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 2.5  # raised when it came, not at the time limit


@pytest.mark.usefixtures("ctrl_c")
def test_a_signal_noted_during_a_c_call_is_raised_after_it() -> None:
    with pytest.raises(KeyboardInterrupt), budget.time_limit(5.0), budget.native_call():
        signal.raise_signal(signal.SIGINT)
        time.sleep(0.01)  # still inside: only noted


def test_embedded_cuda_that_does_not_parse_is_a_note_and_the_python_file_is_analysed() -> None:
    source = ("import cupy\nk = cupy.RawKernel(r'''" + LOOP.replace(b"\r", b"x").decode() + "''', 'k')\nimport pynvml\n").encode()
    extraction = extract("python", source)
    assert extraction.error is None
    assert any("embedded CUDA source not analysed" in note for note in extraction.notes)
    assert any(f.name == "pynvml" for f in extraction.facts)


def test_a_long_line_is_stored_once_per_file_not_once_per_finding(rulebase) -> None:
    """A 60 KB line of 5,000 calls: each candidate used to carry the line (clipped to 4,096
    characters) into the file's result row, 20 MB here and 1.3 GB for the hostile test's 4 MB line,
    which orjson then failed to parse under a 4 GiB address-space limit."""
    from migrate.scan import analyse, match

    source = b"void f(){" + b"cudaFree(0);" * 5_000 + b"}\n"
    index = match.indexes(rulebase, rocm="7.2", archs=["gfx942"])
    result = analyse.summarise("", extract("cuda", source), index)
    row = analyse.encode(result)
    assert len(result.found[0]) == 5_000 and len(row) < 3_000_000
    decoded = analyse.decode("k.cu", row)
    assert [c.finding.source_line for c in decoded.found[0]] == [c.finding.source_line for c in result.found[0]]
    assert decoded.found[0][0].finding.source_line.startswith("void f(){cudaFree(0);")


def test_the_scan_has_a_budget_and_ends_with_a_report(tmp_path, rulebase) -> None:
    """Twenty one-line 4 MB files took 619 s and 4 GB, then SIGSEGV with no report (the limits were
    per file). The scan's own budget (here 3 s) leaves the rest as skipped, with one note."""
    from migrate.scan import pipeline
    from migrate.settings import Settings

    line = "void f(){" + "cudaFree(0);" * 330_000 + "}\n"
    for i in range(20):
        (tmp_path / f"k{i:02}.cu").write_text(line)
    (tmp_path / "good.cu").write_text("void g() { cudaMalloc(0, 4); }\n")
    started = time.monotonic()
    report = pipeline.run([tmp_path], Settings(jobs=1, cache_dir=None, use_hipify=False, max_scan_seconds=3), rulebase)
    assert time.monotonic() - started < 30
    reasons = {s.path: s.reason for s in report.skipped}
    assert sum(r.startswith(budget.SCAN_OVER) for r in reasons.values()) >= 19
    assert "good.cu" in {f.path for f in report.findings}  # ordinary files go first: the huge ones are left
    assert any(n.startswith("the scan's time or memory budget ran out") for n in report.notes)


def test_the_scan_budget_is_off_outside_a_scan() -> None:
    assert budget.current_scan_deadline() is None and budget.over_scan_budget() is None


class _CountingParser:
    """This thread's parser, counting the parses it is asked for."""

    def __init__(self, parser: object) -> None:
        self.parser, self.calls = parser, 0

    def parse(self, *args: object, **kwargs: object) -> object:
        self.calls += 1
        return self.parser.parse(*args, **kwargs)  # type: ignore[attr-defined]

    def reset(self) -> None:
        self.parser.reset()  # type: ignore[attr-defined]


def test_each_text_is_parsed_once_under_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounded parse reads through a callback; the node text comes from the bytes, not from a second parse."""
    from migrate.extract.c import cuda_cpp

    counting = _CountingParser(ts._parser())
    monkeypatch.setattr(ts, "_parser", lambda: counting)
    unique = f"once_{time.monotonic_ns()}"  # a body no earlier test left in the process's memo of bodies
    source = (f"#define CHECK_{unique}(x) cudaGetLastError_{unique}(x)\n"
              "__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }\n").encode()
    facts = cuda_cpp.extract(source).facts
    assert counting.calls == 2  # the file, the macro's body
    assert ("construct", "kernel-definition", "scale") in {(f.kind, f.name, f.text) for f in facts}
    assert ("identifier", f"cudaGetLastError_{unique}") in {(f.kind, f.name) for f in facts}


KERNEL = b"__global__ void k(float* x) { x[threadIdx.x] = 0; }\n"  # a function: the file's types are read


def _nested_structs(depth: int, *, mention_inside: bool) -> bytes:
    """`depth` structs one inside the other in a file that names CUTLASS, whose definitions are each walked for a
    CUTLASS name (xref._names_cutlass). With the name inside every struct (mention_inside) each walk stops at its
    first node of the body: linear work. With the name only in the outermost struct, after the nest, each walk reads
    the whole nest below it: work quadratic in the depth (2,000 deep took 10.8 s of CPU before the budget of work)."""
    if mention_inside:
        return (b"#include <cutlass/cutlass.h>\n" + b"".join(b"struct S%d { cutlass::half_t h%d;\n" % (i, i)
                                                            for i in range(depth)) + b"};\n" * depth + KERNEL)
    return (b"#include <cutlass/cutlass.h>\n" + b"".join(b"struct S%d {\n" % i for i in range(depth))
            + b"int x; };\n" * (depth - 1) + b"cutlass::half_t h; };\n" + KERNEL)


def test_work_quadratic_in_the_input_ends_at_the_files_budget_of_work_whatever_the_load() -> None:
    source = _nested_structs(2_000, mention_inside=False)
    started = time.process_time()
    extraction = extract("cuda", source)
    assert time.process_time() - started < 8  # 10.8 s without the budget (idle machine), 1.6 s with it
    assert extraction.error is not None and extraction.error.startswith(
        "too much work to analyse: the file's budget of ")
    assert cacheable(extraction)  # counted, not timed: the same bytes, the same result on any machine
    assert extract("cuda", source).error == extraction.error


def test_a_walk_left_early_pays_for_what_it_read_not_for_the_whole_subtree() -> None:
    """The near miss: as deep a nest, but each walk stops at once: analysed in full."""
    extraction = extract("cuda", _nested_structs(2_000, mention_inside=True))
    assert extraction.error is None and len(extraction.facts) > 2_000


def test_real_code_uses_a_small_part_of_its_budget_of_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """1 MB of kernels uses ~0.2 units a byte (cuda-samples and llm.c at most 0.64, docs/decisions/
    2026-12-06-work-budget-per-file.md): a tenth of WORK_PER_BYTE still analyses it."""
    monkeypatch.setattr(budget, "WORK_PER_BYTE", budget.WORK_PER_BYTE // 10)
    monkeypatch.setattr(budget, "WORK_FREE", 0)
    kernel = (b"__global__ void k%d(float* x) { if (threadIdx.x < 32) {"
              b" x[threadIdx.x] = __shfl_down_sync(0xffffffff, x[0], 1); } }\n")
    source = b"".join(kernel % i for i in range(8_000))
    extraction = extract("cuda", source)
    assert extraction.error is None and len(extraction.facts) >= 8_000


def test_the_parse_counts_against_the_files_budget_of_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A parse stopped by what the file has left, not only by its own bound of steps: every parse of a file (its
    macro bodies, a second try) draws on one budget."""
    monkeypatch.setattr(ts, "CALLS_FREE", 10**12)  # no bound of the parse's own
    monkeypatch.setattr(budget, "PARSE_CPU_FREE", 10.0**6)  # nor of its CPU time
    monkeypatch.setattr(budget, "WORK_FREE", 10_000)
    extraction = extract("cuda", LOOP)
    assert extraction.error is not None and "the file's budget of " in extraction.error
    assert "(parsing C/C++)" in extraction.error and cacheable(extraction)


def test_outside_an_extraction_nothing_is_charged() -> None:
    budget.charge(10**15, "no file")  # a lint's one comment, a test of one stage: no budget, no error
    assert budget.work_left() is None


def test_a_tree_nested_past_the_depth_bound_is_refused_by_count_not_by_time() -> None:
    """benchmarks/hostile.py's deep-braces (100,000 nested blocks) ran until the 60-s wall-clock limit: every
    `Node.parent` walks down from the root, so readings that look at parents are quadratic in the depth."""
    deep = ("void f()" + "{" * 100_000 + "cudaFree(0);" + "}" * 100_000).encode()
    started = time.process_time()
    extraction = extract("cuda", deep)
    assert time.process_time() - started < 5
    assert extraction.error == f"too much work to analyse: the C/C++ tree is nested more than {ts.MAX_DEPTH:,} levels deep"
    assert cacheable(extraction)


def test_a_nest_within_the_depth_bound_is_analysed() -> None:
    """The near miss: 2,000 nested blocks (clang's default -fbracket-depth is 256) keep their finding."""
    nested = ("void f()" + "{" * 2_000 + "cudaFree(0);" + "}" * 2_000).encode()
    extraction = extract("cuda", nested)
    assert extraction.error is None and any(f.name == "cudaFree" for f in extraction.facts)
