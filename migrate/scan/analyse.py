"""extract + match, per file: what a scan keeps of each file (a FileResult), computed in worker
processes that return compact rows, and cached by content, rules, targets and code version."""
from __future__ import annotations

import gc
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from sys import intern
from typing import Any, TypeVar

from migrate import jsonio
from migrate.extract import budget, extract, extractor_version, prepare
from migrate.extract.run import Progress, extract_all
from migrate.model import (
    CLASSES,
    CONFIDENCES,
    HIPIFY_STATES,
    STATUSES,
    Candidate,
    Extraction,
    FileResult,
    Skipped,
    SourceFile,
    build_candidate,
    build_finding,
)
from migrate.rulebase.load import RuleBase, default_rules_dir
from migrate.scan import cache as rows
from migrate.scan import pooling
from migrate.scan.cache import BadRow, Cache, Known, content_digest
from migrate.scan.layout import GENERATOR_KINDS, string_device_lines
from migrate.scan.match import IdentifierNames, RuleIndex, candidates, indexes, own_defined, own_masks, own_portable
from migrate.scan.readfile import read
from migrate.settings import Settings
from migrate.workloads import UNREAD_KINDS

TYPE_CHECKING = False
if TYPE_CHECKING:  # the pool's modules (multiprocessing, concurrent.futures: ~20 ms) are imported where a pool runs
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")
CHUNKS_PER_WORKER = 6  # work is cut into about this many pieces per worker, by bytes
RESULT_FORMAT = "8"
_S, _I, _OS, _OI = (str,), (int,), (str, type(None)), (int, type(None))
# A candidate row: the finding's fields (path aside: rows are shared by files of equal content)
# and the two names the repo-wide filters look at. The source line is null when it is the row's
# text of that line: a 4 MB line of 330,000 calls would otherwise be copied into every candidate.
CANDIDATE_ROW = (_S, _I, _I, _I, _I, _S, _S, _OS, _S, _S, _S, _OS, _OI, _S, _OS, _OS, _OS, (bool,), (bool,))


@dataclass(frozen=True, slots=True)
class Outcome:
    """What analysing one file gave: its result, or why it was skipped."""

    file: SourceFile
    result: FileResult | None
    reason: str | None = None  # why the file was skipped (unreadable, binary, too large, syntax error)
    extraction: Extraction | None = None  # kept only when a later pass needs every fact

    @property
    def ok(self) -> bool:
        return self.result is not None and not self.result.error


def skipped(outcomes: Iterable[Outcome]) -> list[Skipped]:
    return [Skipped(path=o.file.rel, reason=o.reason or "not extracted") for o in outcomes if not o.ok]


@dataclass(frozen=True, slots=True)
class _Work:
    """What a process matches files with: the rule indexes, the identifier names they match, the deadline."""

    indexes: tuple[RuleIndex, ...]
    names: IdentifierNames  # the identifiers worth a fact: those the indexes can match
    deadline: float | None = None  # the scan's (extract.budget), for spawned workers


_STATE: dict[str, _Work] = {}  # "work": what this process matches with (inherited on fork)


def analyse_all(files: Sequence[SourceFile], settings: Settings, rules: RuleBase, *, keep_extractions: bool = False,
                progress: Progress | None = None, known: dict[str, Known] | None = None,
                meanwhile: Callable[[], object] | None = None, cache: Cache | None = None) -> list[Outcome]:
    """Read every file once; serve unchanged ones from the cache, analyse the rest in parallel.

    `meanwhile`: work of this process's own that needs no result of the files (loading the later
    stages), run once: while the worker processes analyse, where there are any, else first.

    `known`: what was learnt of files before (rel -> digest, why skipped, bytes if they were read),
    taken out as it is used: a file's row is looked up by that digest, and it is read only when it
    must be analysed and its bytes were not kept. With `keep_extractions` every file's facts are
    kept (a later pass needs them): the files go through `extract.run` and its extraction cache,
    and are matched here.

    `cache`: the cache of result rows to read and write (a caller's, whose writes it may hold to commit them with its
    own in one transaction: lint/project.py); by default settings.cache_dir's."""
    budget.begin_scan(budget.scan_deadline(settings.max_scan_seconds))
    try:
        return _analyse_within_budget(files, settings, rules, keep_extractions=keep_extractions, progress=progress,
                                      known=known, meanwhile=_once(meanwhile),
                                      cache=Cache(settings.cache_dir) if cache is None else cache)
    finally:
        budget.begin_scan(None)


def _analyse_within_budget(files: Sequence[SourceFile], settings: Settings, rules: RuleBase, *,
                           keep_extractions: bool, progress: Progress | None,
                           known: dict[str, Known] | None, meanwhile: Callable[[], None], cache: Cache) -> list[Outcome]:
    by_target = indexes(rules, rocm=settings.rocm, archs=settings.arch)
    outcomes = _analyse_by_way(files, settings, rules, by_target, keep_extractions=keep_extractions, progress=progress,
                               known=known, meanwhile=meanwhile, cache=cache)
    meanwhile()  # where no pool ran it (every file from the cache, a serial scan): now
    return outcomes


def _once(work: Callable[[], object] | None) -> Callable[[], None]:
    """`work` as a call that runs it the first time only (nothing for None)."""
    pending = [work] if work is not None else []

    def run() -> None:
        if pending:
            pending.pop()()
    return run


def _analyse_by_way(files: Sequence[SourceFile], settings: Settings, rules: RuleBase, by_target: tuple[RuleIndex, ...],
                    *, keep_extractions: bool, progress: Progress | None, known: dict[str, Known] | None,
                    meanwhile: Callable[[], None], cache: Cache) -> list[Outcome]:
    if keep_extractions:
        return [Outcome(o.file, summarise(o.file.rel, o.extraction, by_target,
                                          string_lines=_string_lines(o.file, settings.max_file_size))
                        if o.extraction else None, o.reason, o.extraction)
                for o in extract_all(files, max_file_size=settings.max_file_size, cache=Cache(settings.cache_dir),
                                     jobs=settings.jobs, progress=progress)]
    deadline = budget.current_scan_deadline()
    if known is None and not cache.exists() and pooling.parallel(settings.jobs, [f.size for f in files]):
        return _analyse_fresh(files, settings, rules, _Work(by_target, IdentifierNames(by_target), deadline), progress,
                              meanwhile)
    work = _Work(by_target, identifier_names(by_target, settings, rules, cache=cache), deadline)
    return _analyse_all(files, settings, rules, work, progress, known or {}, meanwhile, cache)


def identifier_names(by_target: tuple[RuleIndex, ...], settings: Settings, rules: RuleBase, *,
                     cache: Cache) -> IdentifierNames:
    """The indexes' IdentifierNames, kept in an existing cache under the result version (the rules, the targets and
    the code that matches: what the indexes are made from), so that a run whose files the cache holds but one
    (a lint of an edited file inside a project) does not gather ~11k names from the rules again."""
    if not cache.exists():
        return IdentifierNames(by_target)
    key = rows.key("identifier-names", b"", result_version(rules, settings))
    stored = cache.get_rows([key]).get(key)
    if stored is not None:
        try:
            return IdentifierNames.from_row(jsonio.loads(stored))
        except ValueError:
            pass  # another shape: gathered again below
    names = IdentifierNames(by_target)
    cache.put_rows([(key, jsonio.dumps(names.row()))])
    return names


def _analyse_fresh(files: Sequence[SourceFile], settings: Settings, rules: RuleBase, work: _Work,
                   progress: Progress | None, meanwhile: Callable[[], None]) -> list[Outcome]:
    """Nothing can come from the cache (none, or an empty one) and there is enough to do: the
    workers read the files themselves (in parallel, and this process never holds their bytes)
    and return each file's key with its row."""
    version = result_version(rules, settings)
    cache = Cache(settings.cache_dir)
    outcomes: list[Outcome | None] = [None] * len(files)
    fresh: list[tuple[str, bytes]] = []
    copies = _copies(files, settings.max_file_size, version)  # position -> the position analysed for it
    done: dict[int, bytes] = {}

    def _got(position: int, reason: str | None, key: str, row: bytes) -> None:
        if reason is not None:
            outcomes[position] = Outcome(files[position], None, reason)
            return
        done[position] = row
        if cache.path is not None:
            fresh.append((key, row))

    _read_in_pool(files, [n for n in range(len(files)) if n not in copies], settings, work, version, progress,
                  _got, meanwhile)
    rows_budget = _RowsBudget()
    for position, original in copies.items():
        if original not in done:  # the original was not read after all (changed since): this one is analysed here
            _STATE["work"] = work
            (reason, _, row), = _read_and_analyse([files[position]], settings.max_file_size, version)
            if reason is not None:
                outcomes[position] = Outcome(files[position], None, reason)
                continue
            done[position] = row
        else:
            done[position] = done[original]
    for position in list(done):  # decoded once the workers are gone: rows are smaller than results
        outcomes[position] = rows_budget.outcome(files[position], done.pop(position))
    cache.put_rows(fresh)
    return [o for o in outcomes if o is not None]


def _read_in_pool(files: Sequence[SourceFile], positions: list[int], settings: Settings, work: _Work, version: str,
                  progress: Progress | None, on_row: Callable[[int, str | None, str, bytes], None],
                  meanwhile: Callable[[], None]) -> None:
    """The files at `positions` read and analysed by worker processes; `on_row` told of each as it comes (why it was
    not read, or None; the key of what was read; its row), while this process waits for the next."""
    from concurrent.futures import as_completed  # here, with the pool (see TYPE_CHECKING above)

    pieces = chunks([(n, files[n].kind, files[n]) for n in positions], settings.jobs * CHUNKS_PER_WORKER,
                    size=lambda item: item[2].size, workers=settings.jobs)
    count = 0
    with _pool(work, settings.jobs, {files[n].kind for n in positions}) as workers:
        futures: dict[Future[list[tuple[str | None, str, bytes]]], list[int]] = {}
        for piece in pieces:
            futures[workers.submit(_read_and_analyse, [f for _, _, f in piece], settings.max_file_size,
                                   version)] = [n for n, _, _ in piece]
        meanwhile()
        for future in as_completed(futures):
            for position, (reason, key, row) in zip(futures.pop(future), future.result(), strict=True):
                on_row(position, reason, key, row)
                count += 1
            if progress:
                progress(count, len(positions))


def _copies(files: Sequence[SourceFile], max_file_size: int, version: str) -> dict[int, int]:
    """Files whose bytes (and kind) equal an earlier file's, by position, with that file's position:
    a copy is analysed once (vendored copies are common). Only files of the same kind and size as
    another are read here (then let go: the workers read what they analyse)."""
    sizes: dict[tuple[str, int], int] = {}
    for file in files:
        sizes[file.kind, file.size] = sizes.get((file.kind, file.size), 0) + 1
    group = _Copies()
    for position, file in enumerate(files):
        if sizes[file.kind, file.size] < 2:
            continue
        data, _ = read(file, max_file_size)
        if data is None:
            continue
        key = row_key(file.kind, content_digest(data), version)
        del data
        group.add(position, key)
    return group.of


class _Copies:
    """Files of equal content (one row key) analysed once: the first position of each key, and every later position
    with the one analysed for it."""

    __slots__ = ("first", "of")

    def __init__(self) -> None:
        self.first: dict[str, int] = {}  # key -> the position analysed for it
        self.of: dict[int, int] = {}  # a copy's position -> the position analysed for it

    def add(self, position: int, key: str) -> bool:
        """Whether `position` is the first of its key (it is analysed); else it is a copy."""
        original = self.first.setdefault(key, position)
        if original != position:
            self.of[position] = original
        return original == position


def _read_and_analyse(files: list[SourceFile], max_file_size: int, version: str) -> list[tuple[str | None, str, bytes]]:
    """(why the file was not read, or None; its cache key; its row), in a worker."""
    out: list[tuple[str | None, str, bytes]] = []
    for file in files:
        data, reason = read(file, max_file_size)
        if data is None:
            out.append((reason or "not read", "", b""))
        else:
            out.append((None, row_key(file.kind, content_digest(data), version), _analyse(file.kind, data)))
    return out


def _analyse_all(files: Sequence[SourceFile], settings: Settings, rules: RuleBase, work: _Work,
                 progress: Progress | None, known: dict[str, Known], meanwhile: Callable[[], None],
                 cache: Cache) -> list[Outcome]:
    version = result_version(rules, settings)
    outcomes: list[Outcome | None] = []
    key_of: dict[int, str] = {}
    pending: list[tuple[int, str, bytes | None]] = []  # the bytes: None until read (a known file's, not kept)
    given: Known | None
    for file in files:
        given = known.pop(file.rel, None)
        if given is None:
            data, reason = read(file, settings.max_file_size)
            given = Known(content_digest(data), reason, data)
        if given.reason is not None:
            outcomes.append(Outcome(file, None, given.reason))
            continue
        outcomes.append(None)
        key_of[len(outcomes) - 1] = row_key(file.kind, given.digest, version)
        pending.append((len(outcomes) - 1, file.kind, given.data))
    given = None
    found = cache.get_rows(list(key_of.values()))
    misses: list[tuple[int, str, bytes | None]] = []
    for n, (position, kind, data) in enumerate(pending):
        pending[n] = (position, kind, None)  # a hit's bytes go now, a miss's with `todo`
        outcomes[position] = _from_row(files[position], found.get(key_of[position]))
        if outcomes[position] is None:
            misses.append((position, kind, data))
    del pending, found
    fresh: list[tuple[str, bytes]] = []  # rows for the cache (none when there is no cache)
    rows_budget = _RowsBudget()
    if pooling.workers_read(settings.jobs, [files[p].size for p, _, _ in misses]):
        _read_misses(files, misses, key_of, settings, work, version, progress, meanwhile, outcomes, fresh, rows_budget,
                     cache.path is not None)
        cache.put_rows(fresh)
        return [o for o in outcomes if o is not None]
    todo: list[tuple[int, str, bytes]] = []
    group = _Copies()  # files of equal content: analysed once
    for n, (position, kind, data) in enumerate(misses):
        misses[n] = (position, kind, None)
        if data is None:  # known by its digest, the bytes not kept: read them now
            data, reason = read(files[position], settings.max_file_size)
            if data is None:
                outcomes[position] = Outcome(files[position], None, reason)
                continue
            key_of[position] = row_key(kind, content_digest(data), version)  # what was read (it may have changed)
        if group.add(position, key_of[position]):
            todo.append((position, kind, data))
    del misses  # the bytes of the files to analyse are in `todo` only, and leave it as they are sent
    originals = dict.fromkeys(group.of.values(), b"")

    def done(position: int, row: bytes) -> None:  # decoded as it comes, while the workers go on
        outcomes[position] = rows_budget.outcome(files[position], row)
        if cache.path is not None:
            fresh.append((key_of[position], row))
        if position in originals:
            originals[position] = row

    _run(todo, work, settings.jobs, progress, done, meanwhile)
    for position, original in group.of.items():
        outcomes[position] = rows_budget.outcome(files[position], originals[original])
    cache.put_rows(fresh)
    return [o for o in outcomes if o is not None]


# The rows of a pool's first DECODED_AHEAD bytes are decoded as they come, while the workers go on; the rest once
# they are gone. A decoded result is ~3.3 times its row and this process's pages count again in every worker it forks
# next to it: decoding every row of five copies of cuda-samples during the pool (50 MB of rows, 164 MB decoded) put
# the summed resident set of a first scan at 441 MB; one copy's rows (~11 MB) are all decoded as they come, as before.
DECODED_AHEAD = 16 << 20


def _read_misses(files: Sequence[SourceFile], misses: list[tuple[int, str, bytes | None]], key_of: dict[int, str],
                 settings: Settings, work: _Work, version: str, progress: Progress | None,
                 meanwhile: Callable[[], None], outcomes: list[Outcome | None], fresh: list[tuple[str, bytes]],
                 rows_budget: _RowsBudget, caching: bool) -> None:
    """The files the cache has no row for, read and analysed by the workers (`workers_read`): this process forks
    them holding no file's bytes (any kept are let go first) and decodes the rows as they come up to DECODED_AHEAD,
    the rest once the workers are gone. A file of the same digest as another is analysed once; should the other not
    be read after all (changed or gone since its digest was taken), it is read and analysed here."""
    group = _Copies()
    for n, (position, kind, _) in enumerate(misses):
        misses[n] = (position, kind, None)
        group.add(position, key_of[position])
    rows_of = dict.fromkeys(group.of.values(), b"")
    later: list[tuple[int, bytes]] = []  # rows past DECODED_AHEAD: decoded once the workers are gone
    ahead = [DECODED_AHEAD]

    def _got(position: int, reason: str | None, key: str, row: bytes) -> None:
        if reason is not None:
            outcomes[position] = Outcome(files[position], None, reason)
            return
        ahead[0] -= len(row)
        if ahead[0] >= 0:
            outcomes[position] = rows_budget.outcome(files[position], row)
        else:
            later.append((position, row))
        if caching:
            fresh.append((key, row))
        if position in rows_of:
            rows_of[position] = row

    _read_in_pool(files, list(group.first.values()), settings, work, version, progress, _got, meanwhile)
    for n, (position, row) in enumerate(later):
        later[n] = (position, b"")  # each row goes as it is decoded (those of copies stay in `rows_of`)
        outcomes[position] = rows_budget.outcome(files[position], row)
    for position, original in group.of.items():
        row = rows_of[original]
        if not row:
            _STATE["work"] = work
            (reason, key, row), = _read_and_analyse([files[position]], settings.max_file_size, version)
            if reason is not None:
                outcomes[position] = Outcome(files[position], None, reason)
                continue
            if caching:
                fresh.append((key, row))
        outcomes[position] = rows_budget.outcome(files[position], row)


def row_key(kind: str, digest: str, version: str) -> str:
    """A file's result row is keyed by the digest of its bytes (`cache.content_digest`), its kind
    and what else the row depends on, so that a file whose digest is known need not be read."""
    return rows.key(kind, digest.encode(), version)


def _from_row(file: SourceFile, row: bytes | None) -> Outcome | None:
    """The outcome of a cache hit; None for a miss, including a row that does not decode."""
    if row is None:
        return None
    try:
        return _outcome(file, row)
    except (BadRow, ValueError, KeyError, TypeError, RecursionError):
        return None


SCAN_ROW_BYTES = 384 << 20  # the results of one scan's files, as rows; past this, files are left (a note)


class _RowsBudget:
    """The scan's budget of the results it has just computed (never cache hits), kept in this process:
    rows are decoded into records several times their size, so past SCAN_ROW_BYTES (or the process's
    memory bound) a file's result is not decoded and the file is listed as skipped, instead of the
    scan running out of memory."""

    def __init__(self) -> None:
        self.used = 0

    def outcome(self, file: SourceFile, row: bytes) -> Outcome:
        self.used += len(row)
        if self.used > SCAN_ROW_BYTES:
            return Outcome(file, None, f"{budget.SCAN_OVER} of {SCAN_ROW_BYTES >> 20} MiB of results was used up "
                                       "before this file")
        if (over := budget.over_memory()) is not None:
            return Outcome(file, None, over)
        return _outcome(file, row, checked=False)  # every row kept here was just made by this scan


def _outcome(file: SourceFile, row: bytes, *, checked: bool = True) -> Outcome:
    result = decode(file.rel, row, checked=checked)
    return Outcome(file, result, result.error)


def _pool(work: _Work, jobs: int, kinds: set[str]) -> ProcessPoolExecutor:
    """`jobs` worker processes, started now (fork: with the rule indexes and the compiled query). A forked worker
    inherits this process's objects frozen (`gc.freeze`): its collections walk only what it makes. Otherwise each
    worker's first young collection walked every object this process had made since its own collector was paused
    (cli/scan.py): the rule base, the indexes, the files' bytes (cuda-samples: 25-28 ms CPU a worker at load 11, of
    its 38-40 ms of collecting), touching each object's header in a page the fork shares."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    fork = pooling.forks()
    if fork:
        prepare(kinds)  # once here, inherited by every worker
    context = multiprocessing.get_context("fork" if fork else None)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init, initargs=(work,))
    # what this process holds at the fork is out of every worker's collections (not where something froze objects
    # already, whose freeze the unfreeze would undo)
    freeze = fork and gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        pool.submit(int).result()  # a forking pool starts all its workers at the first task
    finally:
        if freeze:
            gc.unfreeze()  # here, what was frozen counts as old again
    return pool


def _run(todo: list[tuple[int, str, bytes]], work: _Work, jobs: int, progress: Progress | None,
         on_row: Callable[[int, bytes], None], meanwhile: Callable[[], None] | None = None) -> None:
    """Analyse every todo (emptying the list, so that each file's bytes go once sent) and tell
    `on_row` of each row as soon as it is there; enough work goes to worker processes, and while they
    have it, this process runs `meanwhile` (then reads their rows as they come)."""
    total = len(todo)
    count = 0
    if not pooling.parallel(jobs, [len(d) for _, _, d in todo]):
        _STATE["work"] = work
        todo.sort(key=lambda item: _first(len(item[2])))
        for n in range(total):
            position, kind, data = todo[n]
            todo[n] = (position, kind, b"")
            on_row(position, _analyse(kind, data))
            del data
            if progress:
                progress(n + 1, total)
        todo.clear()
        return
    from concurrent.futures import as_completed  # here, past the serial way (see TYPE_CHECKING above)

    kinds = {kind for _, kind, _ in todo}
    pieces = chunks(todo, jobs * CHUNKS_PER_WORKER, workers=jobs)
    todo.clear()
    forks = pooling.forks()
    if forks:  # the workers are forked with the pieces: each is sent its piece's number, not its files' bytes again
        _INHERITED[:] = pieces
    try:
        workers = _pool(work, jobs, kinds)
    finally:
        _INHERITED.clear()  # the workers hold their copies from the fork on
    with workers:
        futures: dict[Future[list[bytes]], list[int]] = {}
        for number in range(len(pieces)):
            positions = [p for p, _, _ in pieces[number]]
            futures[workers.submit(_analyse_inherited, number) if forks else
                    workers.submit(_analyse_chunk, [(k, d) for _, k, d in pieces[number]])] = positions
            pieces[number] = []  # this process's bytes go as each piece is handed out
        if meanwhile is not None:
            meanwhile()
        for future in as_completed(futures):
            for position, row in zip(futures.pop(future), future.result(), strict=True):
                on_row(position, row)
                count += 1
            if progress:
                progress(count, total)


def _length(item: tuple[int, str, bytes]) -> int:
    return len(item[2])


LARGE = 1 << 20  # files at least this big are analysed after all smaller ones


def _first(size: int) -> tuple[bool, int]:
    """The order files are analysed in: every file under LARGE first, then the large ones, each
    group largest first. No worker is left with a big file at the end, and when the scan's budget
    runs out it is a few huge files that are left, not the many ordinary ones."""
    return size >= LARGE, -size


def chunks(todo: list[T], pieces: int, size: Callable[[T], int] | None = None, *, workers: int = 0) -> list[list[T]]:
    """Files in `_first` order (by `size`, default: the length of an item's bytes), cut into about
    `pieces` runs of equal bytes, so that small files do not cost a round trip each. With `workers`, the
    last runs shrink ("factoring"): none holds more than a 2*workers-th of the bytes not yet cut, down to a
    quarter of the others, so that the workers finish together instead of one waiting while another
    analyses a last run as big as every other (bytes are no measure of work: with equal runs, cuda-samples'
    2 workers were left ~0.25 s apart, on the files' CPU times as one process measured them)."""
    weigh: Callable[[Any], int] = size or _length
    ordered = sorted(todo, key=lambda item: _first(weigh(item)))
    left = sum(weigh(item) for item in ordered)
    target = max(1, left // max(1, pieces))
    floor = max(1, target // 4)
    out: list[list[T]] = []
    current: list[T] = []
    total = 0
    for item in ordered:
        current.append(item)
        total += weigh(item)
        if total >= (max(floor, min(target, left // (2 * workers))) if workers else target):
            out.append(current)
            left -= total
            current, total = [], 0
    return out + ([current] if current else [])


def _init(work: _Work) -> None:
    _STATE["work"] = work
    if budget.current_scan_deadline() != work.deadline:  # spawned, not forked: nothing inherited
        budget.begin_scan(work.deadline)


def _analyse_chunk(items: list[tuple[str, bytes]]) -> list[bytes]:
    return [_analyse(kind, data) for kind, data in items]


# `_run`'s pieces of work, (position, kind, bytes) each, while it forks its workers: a forked worker reads its piece
# from its own copy of this process's memory, which it holds from the fork on anyway (pickling the bytes through a
# pipe cost both ends a copy of every file: cuda-samples' 12 MB)
_INHERITED: list[list[tuple[int, str, bytes]]] = []


def _analyse_inherited(piece: int) -> list[bytes]:
    """The rows of one of the pieces of work this worker was forked with (`_INHERITED`)."""
    return _analyse_chunk([(kind, data) for _, kind, data in _INHERITED[piece]])


def _analyse(kind: str, data: bytes) -> bytes:
    """One file's result row, computed in a worker (or in this process for small scans)."""
    work = _STATE["work"]
    return encode(summarise("", extract(kind, data, work.names), work.indexes,
                            string_lines=string_device_lines(kind, data)))


def _string_lines(file: SourceFile, max_file_size: int) -> int:
    """`string_device_lines` of a file whose extraction came without its bytes (`extract.run`'s, every fact
    kept): read for the kinds a code generator may be, as `_analyse` has them in hand."""
    if file.kind not in GENERATOR_KINDS:
        return 0
    data, _ = read(file, max_file_size)
    return 0 if data is None else string_device_lines(file.kind, data)


def summarise(rel: str, extraction: Extraction, indexes: Sequence[RuleIndex], *, string_lines: int = 0) -> FileResult:
    """What the rest of the scan needs of one file: its candidates per target and a few facts (`string_lines`:
    its `layout.string_device_lines`, counted where its bytes are)."""
    if extraction.error:
        return FileResult(lines=extraction.lines, notes=extraction.notes, error=extraction.error)
    kept = tuple(f for f in extraction.facts if f.kind not in UNREAD_KINDS)
    found = tuple(tuple(candidates(rel, extraction, index)) for index in indexes)
    lines = {(f.cell or 0, f.line) for f in kept} | {(c.finding.cell or 0, c.finding.line) for cs in found for c in cs}
    return FileResult(
        lines=extraction.lines, notes=extraction.notes, facts=kept,
        line_text={k: t for k, t in extraction.line_text.items() if k in lines},
        defined=own_defined(extraction.facts), portable=own_portable(extraction.facts),
        masks=own_masks(extraction.facts), found=found, string_device_lines=string_lines,
    )


def encode(result: FileResult) -> bytes:
    return jsonio.dumps([RESULT_FORMAT, result.lines, list(result.notes), result.error,
                         [rows.fact_row(f) for f in result.facts], list(result.defined), list(result.portable),
                         [[_candidate_row(c, result.line_text) for c in found] for found in result.found],
                         [[c, n, t] for (c, n), t in result.line_text.items()], list(result.masks),
                         result.string_device_lines])


def _candidate_row(c: Candidate, line_text: dict[tuple[int, int], str]) -> list[object]:
    f = c.finding
    shared = line_text.get((f.cell or 0, f.line)) == f.source_line
    return [f.rule, f.line, f.column, f.end_line, f.end_column, f.symbol, f.message, f.hip, f.hipify,
            f.confidence, f.migration_class, None if shared else f.source_line, f.cell, f.status, c.defined_as,
            c.namespace, c.needs_mask, c.needs_context, c.header_only]


def decode(rel: str, row: bytes, *, checked: bool = True) -> FileResult:
    """A FileResult from its row; BadRow (or KeyError/TypeError) when the row is not one.
    `checked=False`: a row this scan's own workers (or this process) have just encoded, never read
    from the cache, whose fields need no type check (a third of decoding cuda-samples' rows)."""
    typed_row, typed_list = (rows.typed_row, rows.typed_list) if checked else (_as_written, _as_written)
    data = typed_row(jsonio.loads(row), (_S, _I, (list,), _OS, (list,), (list,), (list,), (list,), (list,), (list,),
                                         _I))
    if data[0] != RESULT_FORMAT:
        raise BadRow("another format")
    line_text = {(c, n): t for c, n, t in (typed_row(r, (_I, _I, _S)) for r in data[8])} if checked else \
        {(c, n): t for c, n, t in data[8]}
    return FileResult(
        lines=data[1], notes=tuple(typed_list(data[2], _S)), error=data[3],
        facts=tuple(rows.fact_of(r, checked=checked) for r in data[4]),
        defined=tuple(typed_list(data[5], _S)), portable=tuple(typed_list(data[6], _S)),
        masks=tuple(typed_list(data[9], _S)),
        found=tuple(tuple(_candidate(rel, typed_row(r, CANDIDATE_ROW), line_text) for r in typed_list(found, (list,)))
                    for found in data[7]),
        line_text=line_text, string_device_lines=data[10],
    )


def _as_written(value: Any, types: object) -> Any:
    """The check of a row encoded by this scan's own code: none (`decode`'s checked=False)."""
    return value


_HIPIFY, _CONFIDENCE, _CLASS, _STATUS = ({w: w for w in words} for words in (HIPIFY_STATES, CONFIDENCES, CLASSES, STATUSES))


def _candidate(rel: str, row: list[Any], line_text: dict[tuple[int, int], str]) -> Candidate:
    (rule, line, column, end_line, end_column, symbol, message, hip, hipify, confidence, cls, source_line, cell,
     status, defined_as, namespace, needs_mask, needs_context, header_only) = row
    # interned: every file's candidates are held at once, and rules, messages and names recur
    rule, symbol, message = intern(rule), intern(symbol), intern(message)
    # each the vocabulary's own word (KeyError for one that is none)
    hipify, confidence, cls, status = _HIPIFY[hipify], _CONFIDENCE[confidence], _CLASS[cls], _STATUS[status]
    if hip is not None:  # each by itself: a generator over the three cost more than the interning (20k candidates)
        hip = intern(hip)
    if defined_as is not None:
        defined_as = intern(defined_as)
    if namespace is not None:
        namespace = intern(namespace)
    if source_line is None:
        source_line = line_text[(cell or 0, line)]
    # the fields in Finding's order; workload, targets, source, precise, effective_class and compiler as new
    return build_candidate((build_finding((rule, rel, line, column, end_line, end_column, symbol, message, hip, hipify,
                                           confidence, cls, source_line, cell, "", (), "rules", None, status, "", "")),
                            defined_as, namespace, needs_mask, needs_context, header_only))


def result_version(rules: RuleBase, settings: Settings) -> str:
    """What a cached result depends on besides the file: rules, targets and the code that matches. The extractor
    version is kept in the cache directory by its inputs' stamps (extract.extractor_version), as extract_all keeps
    it: a process whose first call is this one does not read and hash the extractor's sources (~22 M instructions)."""
    return f"{RESULT_FORMAT}\0{extractor_version(settings.cache_dir)}\0{rules.version}\0{settings.rocm}\0" \
           f"{','.join(settings.arch)}\0{_code_key()}"


@lru_cache(maxsize=1)
def _code_key() -> str:
    from migrate import model
    from migrate.rulebase import targets
    from migrate.scan import layout, match

    digest = hashlib.sha256()
    for module in (layout, match, model, targets):
        digest.update(Path(module.__file__).read_bytes())  # type: ignore[arg-type]
    digest.update(Path(__file__).read_bytes())
    digest.update((default_rules_dir() / "targets" / "gpus.yaml").read_bytes())
    return digest.hexdigest()[:16]
