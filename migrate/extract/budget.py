"""Bounded work per file: an extractor that fails, recurses too deep or runs too long gives an
Extraction with an error (the file is listed under `skipped` with the error's class), never an
exception that ends the scan.

Deep but valid input (a 3,000-term `a + a + ...`, a 5,000-deep TOML array) is retried once in a
thread with a large stack and a higher recursion limit, so that what the parser accepts the
visitors can walk; what is deeper still becomes the error. The time limit (SIGALRM) applies
where signals can be delivered, the main thread of a scan or of a worker process."""
from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace

from migrate.model import Extraction

FILE_SECONDS = 60.0
DEEP_RECURSION = 20_000
DEEP_STACK = 512 << 20
MESSAGE_CHARS = 200
MAX_FACTS = 200_000
TRANSIENT = "analysis stopped:"  # errors that depend on the machine, not on the bytes: never cached


class BudgetExceeded(Exception):
    """The time limit of one file ran out."""


def guarded(extractor: Callable[[bytes], Extraction], source: bytes, *,
            seconds: float = FILE_SECONDS) -> Extraction:
    """`extractor(source)`, or an Extraction whose error says why there is none."""
    try:
        with time_limit(seconds):
            try:
                return capped(extractor(source))
            except RecursionError:
                return capped(_deep(extractor, source))
    except BudgetExceeded:
        return failed(source, f"{TRANSIENT} over the time limit of {seconds:g} s per file")
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
    return Extraction(facts=(), lines=source.count(b"\n") + 1, error=reason)


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise BudgetExceeded in the block after `seconds` (a no-op off the main thread)."""
    if seconds <= 0 or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_signum: int, _frame: object) -> None:
        raise BudgetExceeded

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _deep(extractor: Callable[[bytes], Extraction], source: bytes) -> Extraction:
    """One more try in a thread with a large stack and a high recursion limit."""
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
