"""analyse._run with forked workers: each worker takes its pieces of work from the memory it was forked with, so
only a piece's number goes through the pipe (not the files' bytes, which the parent held at the fork anyway); the
rows are those the serial path makes, in the same places. Where workers are not forked, the bytes are sent."""
from __future__ import annotations

from concurrent import futures
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest
from migrate.scan import analyse, pooling
from migrate.scan.match import IdentifierNames, indexes
from migrate.settings import Settings


def todo() -> list[tuple[int, str, bytes]]:
    return [(n, "cuda", f"void f{n}(int* p) {{ cudaMalloc(&p, {n}); cudaFree(p); }}\n".encode() * (n % 5 + 1))
            for n in range(pooling.PARALLEL_THRESHOLD + 6)]


def rows(work: analyse._Work, jobs: int) -> dict[int, bytes]:
    out: dict[int, bytes] = {}
    analyse._run(todo(), work, jobs, None, out.__setitem__)
    return out


def _recording(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """What the scan submits to its worker pool, each task as (function, *arguments), in order."""
    sent: list[tuple[Any, ...]] = []

    class Recording(ProcessPoolExecutor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
            sent.append((fn, *args))
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(futures, "ProcessPoolExecutor", Recording)  # analyse._pool imports it where a pool runs
    return sent


@pytest.mark.skipif(not pooling.forks(), reason="workers are forked only where fork is a start method")
def test_forked_workers_are_sent_piece_numbers_and_give_the_serial_rows(rulebase, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings()
    by_target = indexes(rulebase, rocm=settings.rocm, archs=settings.arch)
    work = analyse._Work(by_target, IdentifierNames(by_target))
    serial = rows(work, 1)
    monkeypatch.setattr(pooling, "PARALLEL_BYTES", 0)  # small files: use the workers anyway
    sent = _recording(monkeypatch)
    assert rows(work, 2) == serial
    pieces = [s for s in sent if s[0] is not int]  # `_pool`'s first task starts the workers
    assert pieces and all(fn is analyse._analyse_inherited and type(n) is int for fn, n in pieces)
    assert sorted(n for _, n in pieces) == list(range(len(pieces)))
    assert analyse._INHERITED == []  # this process let go of the pieces once the workers had them


def test_unforked_workers_are_sent_the_bytes(rulebase, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings()
    by_target = indexes(rulebase, rocm=settings.rocm, archs=settings.arch)
    work = analyse._Work(by_target, IdentifierNames(by_target))
    serial = rows(work, 1)
    monkeypatch.setattr(pooling, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(pooling, "forks", lambda: False)  # as where workers are spawned (then `_pool` spawns too)
    sent = _recording(monkeypatch)
    assert rows(work, 2) == serial
    pieces = [s for s in sent if s[0] is not int]
    assert pieces and all(fn is analyse._analyse_chunk and all(type(d) is bytes for _, d in items)
                          for fn, items in pieces)


def test_the_last_pieces_shrink_for_the_workers_to_end_together() -> None:
    todo = [(n, "cuda", b"x" * 100) for n in range(120)]  # 12,000 bytes: runs of 1,000 (10 files) for 12 pieces
    equal = analyse.chunks(todo, 12)
    assert [len(c) for c in equal] == [10] * 12
    shrinking = analyse.chunks(todo, 12, workers=2)
    assert sorted(p for chunk in shrinking for p, _, _ in chunk) == list(range(120))
    # a run closes at a quarter of the bytes not yet cut (2 workers) once that is under the others' 1,000, never
    # under a quarter of them (300 bytes: 3 files)
    assert [len(c) for c in shrinking] == [10] * 9 + [8, 6, 4, 3, 3, 3, 3]


def _frozen_here() -> int:
    import gc

    return gc.get_freeze_count()


@pytest.mark.skipif(not pooling.forks(), reason="workers are forked only where fork is a start method")
def test_forked_workers_start_with_this_process_objects_frozen(rulebase) -> None:
    """A forked worker's collections walk only what it makes: what the parent held at the fork is frozen in the
    worker (each worker's first young collection walked it all, ~25 ms a worker on cuda-samples), and counts as old
    again in the parent once the workers are started."""
    import gc

    settings = Settings()
    by_target = indexes(rulebase, rocm=settings.rocm, archs=settings.arch)
    before = gc.get_freeze_count()
    held = [[n] for n in range(1000)]  # young objects of this process at the fork
    with analyse._pool(analyse._Work(by_target, IdentifierNames(by_target)), 2, {"cuda"}) as workers:
        assert gc.get_freeze_count() == before
        frozen = [workers.submit(_frozen_here).result() for _ in range(4)]
    assert all(count >= before + len(held) for count in frozen)


def test_spawned_workers_freeze_nothing_here(rulebase, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    monkeypatch.setattr(pooling, "forks", lambda: False)
    frozen: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(1))
    settings = Settings()
    by_target = indexes(rulebase, rocm=settings.rocm, archs=settings.arch)
    with analyse._pool(analyse._Work(by_target, IdentifierNames(by_target)), 1, {"cuda"}):
        pass
    assert frozen == []


@pytest.mark.skipif(not pooling.forks(), reason="workers are forked only where fork is a start method")
def test_a_freeze_made_before_is_kept(rulebase) -> None:
    """A process that froze objects itself (the lint server, for its children) keeps them frozen: `_pool` neither
    freezes more nor unfreezes its."""
    import gc

    settings = Settings()
    by_target = indexes(rulebase, rocm=settings.rocm, archs=settings.arch)
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        held = [[n] for n in range(1000)]
        with analyse._pool(analyse._Work(by_target, IdentifierNames(by_target)), 1, {"cuda"}) as workers:
            assert gc.get_freeze_count() == before
            assert workers.submit(_frozen_here).result() < before + len(held)  # this process's young ones: not
        assert held
    finally:
        gc.unfreeze()
