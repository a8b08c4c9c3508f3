"""Bounded work per file: an extractor that fails, recurses too deep or runs too long gives an
Extraction with an error (the file is listed under `skipped` with the error's class), never an
exception that ends the scan.

Deep but valid input (a 3,000-term `a + a + ...`, a 5,000-deep TOML array) is retried once in a
thread with a large stack and a higher recursion limit, so that what the parser accepts the
visitors can walk; what is deeper still becomes the error.

What bounds a file is its budget of work, counted, not timed (docs/decisions/2026-12-06-work-budget-per-file.md):
WORK_FREE + WORK_PER_BYTE * size units, charged by the C/C++ extractor as it works (`charge`: a
tree-sitter progress call, a node a query walk visits), so the same bytes get the same answer on
an idle and on a loaded machine (a wall-clock limit of 60 s dropped a project's two largest files,
and 16,000 of its findings, on a loaded host only). The wall-clock limit (SIGALRM) stays as a
safety net, FILE_SECONDS, far above what the budget of work allows: its error says that it is one
and that the result depends on the machine. It applies where signals can be delivered, the main
thread of a scan or of a worker process. A signal cannot stop a C call (a tree-sitter parse), so
such calls poll the same deadline through `native_call`."""
from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace

from migrate.model import Extraction

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    import signal
    from typing import Any
else:
    try:  # signal.py's functions without its wrappers, which turn numbers into enums made as it is imported (~3 M
        # instructions of an edited-file lint): here signals and handlers are only set, read and put back
        import _signal as signal
    except ImportError:  # an interpreter without the C module's usual name
        import signal

FILE_SECONDS = 600.0  # the wall-clock safety net per file; the budget of work (WORK_*) is what bounds a file
WORK_FREE = 1_000_000  # units of work any file may use (a unit: a node walked, a tree-sitter progress call)
WORK_PER_BYTE = 20  # and per byte of the file: real code uses at most ~2 (docs/decisions/2026-12-06-work-budget-per-file.md)
# CPU time a C/C++ parse may use: tree-sitter's error recovery can re-read the rest of the file at each step (100 KB of
# `/*]` took 13.5 s in 2,640 progress calls), which the count of progress calls does not see. Real code parses at
# <= 4.2 us a byte (the 400 largest C/C++ files of 370 projects; docs/decisions/2026-12-06-s25-parse-cpu-time.md)
PARSE_CPU_FREE = 1.0
PARSE_CPU_PER_BYTE = 20e-6
SCAN_SECONDS = 1800.0  # the whole analysis of one scan; files not analysed by then are listed as skipped
SCAN_MEMORY = 2 << 30  # resident bytes of one process past which it takes no further file
DEEP_RECURSION = 20_000
DEEP_STACK = 512 << 20
MESSAGE_CHARS = 200
MAX_FACTS = 200_000
TRANSIENT = "analysis stopped:"  # errors that depend on the machine, not on the bytes: never cached
SCAN_OVER = f"{TRANSIENT} the scan's budget"  # how the reasons of files left by the scan's budget begin


_WHEN_MACHINE_DEPENDENT: list[Callable[[], None]] = []


def when_machine_dependent(hook: Callable[[], None]) -> None:
    """Call `hook` when a result of this process comes to depend on the machine (a budget ran out), not only
    on what was read: the process entry registers scan.replay's, so that such a run is never replayed."""
    _WHEN_MACHINE_DEPENDENT.append(hook)


def _machine_dependent() -> None:
    for hook in _WHEN_MACHINE_DEPENDENT:
        hook()


class _Limit:
    """The current file's limit: when it runs out, and whether a C call polls it (native_call)."""

    deadline: float | None = None  # time.monotonic() at which the limit runs out
    scan_deadline: float | None = None  # time.time() (shared by processes) at which the scan's budget runs out
    scan_seconds: float | None = None  # how long that budget was, for the reasons
    in_c_call = False  # meanwhile SIGALRM and SIGINT are only noted
    noted: list[int] = []  # noqa: RUF012 - one per process, like the signal handlers


class BudgetExceeded(Exception):
    """The wall-clock safety net of one file ran out."""


class WorkExceeded(Exception):
    """A stage used up its bound of work for this input (a parser that makes no progress)."""


class CpuExceeded(Exception):
    """A native parse used up its CPU time (PARSE_CPU_*): depends on the machine, so never cached."""


class _Work:
    """The budget of work of the file being extracted in this process: None outside `guarded`."""

    left: int | None = None
    allowed = 0


def work_allowed(size: int) -> int:
    """The units of work a file of `size` bytes may use."""
    return WORK_FREE + WORK_PER_BYTE * size


def charge(units: int, what: str) -> None:
    """Count `units` of work of the current file; WorkExceeded once its budget is spent (a no-op outside
    `guarded`: a lint of one comment, a test of one stage)."""
    left = _Work.left
    if left is None:
        return
    left -= units
    _Work.left = left
    if left < 0:
        _Work.left = None  # once: the handler's own work is not charged again
        raise WorkExceeded(f"the file's budget of {_Work.allowed:,} units of work was spent ({what})")


def spend(units: int) -> None:
    """Count `units` of work done without raising (the end of a walk, which a caller may leave early: in a
    generator's `finally`); the next `charge` raises if the budget is spent."""
    if _Work.left is not None:
        _Work.left -= units


def work_left() -> int | None:
    """The units of work the current file has left (None outside `guarded`): for a C call, which cannot raise from
    its callback, to stop at."""
    return _Work.left


@contextlib.contextmanager
def work_budget(size: int) -> Iterator[None]:
    """Give the extraction of a file of `size` bytes its budget of work (a budget inside a budget: the inner one)."""
    outer = _Work.left, _Work.allowed
    _Work.left = _Work.allowed = work_allowed(size)
    try:
        yield
    finally:
        _Work.left, _Work.allowed = outer


def begin_scan(deadline: float | None) -> None:
    """Bound every later extraction in this process by the scan's deadline (time.time(); None: none)."""
    _Limit.scan_deadline = deadline
    _Limit.scan_seconds = round(deadline - time.time()) if deadline is not None else None


def current_scan_deadline() -> float | None:
    return _Limit.scan_deadline


def scan_deadline(seconds: float | None = None) -> float:
    return time.time() + (SCAN_SECONDS if seconds is None else seconds)


def over_scan_budget() -> str | None:
    """Why this process must analyse no further file of the scan: its time or memory budget is spent."""
    if _Limit.scan_deadline is not None and time.time() >= _Limit.scan_deadline:
        _machine_dependent()
        return f"{SCAN_OVER} of {_Limit.scan_seconds or SCAN_SECONDS:g} s ran out before this file"
    return over_memory()


def over_memory() -> str | None:
    """Why this process must take no further file: it holds more than SCAN_MEMORY."""
    if _resident() > SCAN_MEMORY:
        _machine_dependent()
        return f"{SCAN_OVER} of {SCAN_MEMORY >> 20} MiB of memory was used up before this file"
    return None


def _resident() -> int:
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def guarded(extractor: Callable[[bytes], Extraction], source: bytes, *,
            seconds: float | None = None) -> Extraction:
    """`extractor(source)`, or an Extraction whose error says why there is none; `seconds` defaults to
    FILE_SECONDS as it is at the call, so a caller (or a test) that changes the module's limit is obeyed."""
    if seconds is None:
        seconds = FILE_SECONDS
    if (over := over_scan_budget()) is not None:
        return failed(source, over)
    left = _Limit.scan_deadline - time.time() if _Limit.scan_deadline is not None else seconds
    if left < seconds:  # the scan's budget ends first
        outcome = _guarded(extractor, source, max(left, 1e-3))
        if (outcome.error or "").startswith(TRANSIENT):
            return failed(source, f"{SCAN_OVER} of {_Limit.scan_seconds or SCAN_SECONDS:g} s ran out during this file")
        return outcome
    return _guarded(extractor, source, seconds)


def _guarded(extractor: Callable[[bytes], Extraction], source: bytes, seconds: float) -> Extraction:
    def counted(data: bytes) -> Extraction:  # each try with its whole budget: the deep retry starts again
        with work_budget(len(data)):
            return extractor(data)

    if _Limit.deadline is not None:  # a limit inside a limit: the outer one may end first
        seconds = min(seconds, max(_Limit.deadline - time.monotonic(), 1e-3))
    try:
        with time_limit(seconds):
            try:
                return capped(counted(source))
            except RecursionError:
                return capped(_deep(counted, source))
    except BudgetExceeded:
        return failed(source, f"{TRANSIENT} over the wall-clock safety net of {seconds:.3g} s per file (a backstop: the "
                              "file's budget of work was not spent; where this stops a file depends on the machine)")
    except WorkExceeded as exc:
        return failed(source, f"too much work to analyse: {_one_line(exc)}")
    except CpuExceeded as exc:
        return failed(source, f"{TRANSIENT} {_one_line(exc)} (where this stops a file depends on the machine)")
    except RecursionError:
        return failed(source, "nested too deeply to analyse (RecursionError)")
    except Exception as exc:
        return failed(source, f"extractor error ({type(exc).__name__}: {_one_line(exc)})")



def capped(extraction: Extraction) -> Extraction:
    """At most MAX_FACTS facts per file (a 5 MiB file of `a;a;a;` would hold 2.6 million)."""
    if len(extraction.facts) <= MAX_FACTS:
        return extraction
    note = f"{len(extraction.facts)} facts; only the first {MAX_FACTS} were kept"
    return replace(extraction, facts=extraction.facts[:MAX_FACTS], notes=(*extraction.notes, note))


def failed(source: bytes, reason: str) -> Extraction:
    if reason.startswith(TRANSIENT):
        _machine_dependent()
    return Extraction(facts=(), lines=source.count(b"\n") + 1, error=reason)


def on_main_thread() -> bool:
    """`threading.current_thread() is threading.main_thread()`, without importing threading where nothing has
    (~3 M instructions of an edited-file lint, which starts no thread): threading's main thread is the thread
    that first imports it (or that forked since), so, before any import of it, threading imported here would
    answer True. Every thread started through threading imports it first, and a lint, a scan's workers and the
    deep retry (_deep) all start theirs so."""
    threading = sys.modules.get("threading")
    return threading is None or bool(threading.current_thread() is threading.main_thread())


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise BudgetExceeded in the block after `seconds` (a no-op off the main thread). SIGALRM
    and SIGINT wait while a C call polls the deadline (native_call)."""
    if seconds <= 0 or not hasattr(signal, "setitimer") or not on_main_thread():
        yield
        return

    def expire(_signum: int, _frame: object) -> None:
        raise BudgetExceeded

    outer, now = _Limit.deadline, time.monotonic()
    previous = {signal.SIGALRM: signal.signal(signal.SIGALRM, _after_c_call(expire))}
    interrupt = signal.getsignal(signal.SIGINT)
    if callable(interrupt):
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, _after_c_call(interrupt))
    _Limit.deadline = now + seconds if outer is None else min(outer, now + seconds)  # a limit inside a limit
    signal.setitimer(signal.ITIMER_REAL, max(_Limit.deadline - now, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for number, handler in previous.items():
            signal.signal(number, handler)
        _Limit.deadline = outer
        if outer is not None:
            signal.setitimer(signal.ITIMER_REAL, max(outer - time.monotonic(), 1e-3))


@contextlib.contextmanager
def native_call() -> Iterator[Callable[[], bool]]:
    """Around a C call that polls a Python callback (tree-sitter's progress callback): yields
    `expired()`, true once the file's time limit has passed (FILE_SECONDS from now outside a
    limit) or a signal waits; BudgetExceeded is raised after the call if the time is up. Inside the call SIGALRM and SIGINT
    are only noted and raised after it: an exception raised in such a callback is lost by the C
    code or turns into a SystemError."""
    if _Limit.deadline is None and hasattr(signal, "setitimer") and on_main_thread():
        with time_limit(FILE_SECONDS), native_call() as limited:
            yield limited
        return
    end = _Limit.deadline if _Limit.deadline is not None else time.monotonic() + FILE_SECONDS

    def expired() -> bool:  # or a signal waits: end the call now
        return time.monotonic() > end or bool(_Limit.noted)

    if not on_main_thread():  # no Python handler runs here
        yield expired
    else:
        _Limit.in_c_call = True
        try:
            yield expired
        finally:
            _Limit.in_c_call = False
            noted = list(dict.fromkeys(_Limit.noted))
            _Limit.noted.clear()
            for number in noted:
                signal.raise_signal(number)
    if expired():
        raise BudgetExceeded


def _after_c_call(handler: Callable[[int, Any], object]) -> Callable[[int, Any], None]:
    def handle(number: int, frame: Any) -> None:
        if _Limit.in_c_call:
            _Limit.noted.append(number)
        else:
            handler(number, frame)

    return handle


def _deep(extractor: Callable[[bytes], Extraction], source: bytes) -> Extraction:
    """One more try in a thread with a large stack and a high recursion limit."""
    import threading

    outcome: list[Extraction | BaseException] = []

    def work() -> None:
        try:
            outcome.append(extractor(source))
        except BaseException as exc:
            outcome.append(exc)

    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    try:
        threading.stack_size(DEEP_STACK)
        sys.setrecursionlimit(max(old_limit, DEEP_RECURSION))
        thread = threading.Thread(target=work, name="rocm-migrate-deep", daemon=True)
        thread.start()
    finally:
        threading.stack_size(old_stack)
    try:
        thread.join()
    finally:
        sys.setrecursionlimit(old_limit)
    result = outcome[0] if outcome else RuntimeError("no result")
    if isinstance(result, BaseException):
        raise result
    return result


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + "..."
