"""Dask distributed, behind one small adapter: a LocalCluster on this machine by default, or the
scheduler of a real cluster; one task per item, results handed back as they complete."""
from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from migrate.vocabulary import install_hint

ALLOWED_FAILURES = 1  # a repository that kills its worker twice is recorded as failed, not retried forever


class ClusterError(Exception):
    """Dask is missing or the scheduler cannot be reached; str() is one line."""


@contextmanager
def connect(scheduler: str | None, workers: int | None) -> Iterator[Any]:
    """A distributed.Client: to `scheduler` (tcp://host:port), else to a new LocalCluster of
    `workers` single-threaded processes (default: one per core)."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(f"inventory --scan needs Dask: {install_hint('cluster')}") from None
    dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES})
    if scheduler:
        try:
            client = Client(scheduler, timeout="30s")  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        with client:
            yield client
        return
    local = LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=workers or max(1, os.cpu_count() or 1), threads_per_worker=1, processes=True,
        dashboard_address=None, silence_logs=logging.CRITICAL)  # a failure is the repository's record, not a log line
    with local, Client(local) as client:  # type: ignore[no-untyped-call]
        yield client


def run_each(client: Any, function: Callable[..., dict[str, Any]], calls: Sequence[tuple[str, tuple[Any, ...]]],
             ) -> Iterator[tuple[str, dict[str, Any] | BaseException]]:
    """Submit function(*args) once per (key, args); yield (key, result or the exception) as each finishes."""
    from distributed import as_completed

    run = uuid.uuid4().hex[:8]  # keys stay unique on a long-lived scheduler shared by several runs
    futures = {client.submit(function, *args, key=f"rocm-migrate-{run}-{key}", pure=False): key
               for key, args in calls}
    for future in as_completed(futures):  # type: ignore[no-untyped-call]
        key = futures[future]
        try:
            yield key, future.result()
        except Exception as exc:  # a worker that died (KilledWorker) or a lost task
            yield key, exc
        finally:
            future.release()
