"""When a scan's files are analysed by a pool of worker processes, and whether those workers are forked (and so
read the files themselves, the parent keeping none of their bytes). Light to import: the report cache's key asks
it before any of the scan's code is loaded."""
from __future__ import annotations

from collections.abc import Sequence

PARALLEL_THRESHOLD = 64  # below this many files, worker start-up costs more than it saves
PARALLEL_BYTES = 2 * 2**20  # nor below this much text (llm.c, 1 MB of C: 1.6-2.0 s serial, 2.4-2.7 s with 2 workers)


def parallel(jobs: int, sizes: Sequence[int]) -> bool:
    """Whether files of these sizes are enough work for `jobs` worker processes."""
    return jobs > 1 and len(sizes) >= PARALLEL_THRESHOLD and sum(sizes) >= PARALLEL_BYTES


def forks() -> bool:
    """Whether the pool's workers are forked (and so start with a copy of this process's memory)."""
    import multiprocessing  # only where a pool may run (5 ms; the warm report-cache hit never needs it)

    return "fork" in multiprocessing.get_all_start_methods()


def workers_read(jobs: int, sizes: Sequence[int]) -> bool:
    """Whether files of these sizes, all to be analysed, are read by the worker processes themselves (forked, and
    enough work for a pool). Then the caller need not keep their bytes, and should not: a forked worker counts every
    page its parent holds at the fork in its own resident set (the 1.2M-line tree's 48 MB of files in each
    process, a first scan with the cache summing 537 MB)."""
    return parallel(jobs, sizes) and forks()
