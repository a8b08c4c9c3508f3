"""Read, cache and extract a batch of files: the extract stage that scan and lint share.

Each file is read once in this process; unchanged files are served from the cache by content,
the rest are extracted in a process pool when there are enough of them to pay for it."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from migrate.extract import cacheable, extract, extractor_version
from migrate.model import Extraction, Skipped, SourceFile
from migrate.scan.cache import Cache, key
from migrate.scan.readfile import read

PARALLEL_THRESHOLD = 64  # below this many files, worker start-up costs more than it saves
# A write to the cache costs a commit (about 20 ms on a disk that syncs), more than extracting a few
# small files again: below this many bytes extracted in all, nothing is written (lint of one file)...
WORTH_CACHING_BYTES = 64 << 10
# ...unless there are this many files: each kind of file first met in a process costs its extractor's
# import (`stack` reads ~15 small manifests, build and container files: 0.2 s again at every run).
WORTH_CACHING_FILES = 8

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One file's extraction: its facts, or why it was skipped."""

    file: SourceFile
    extraction: Extraction | None
    reason: str | None = None  # why the file was skipped (unreadable, binary, too large, syntax error)
    data: bytes | None = None  # the file's bytes, kept only when asked for (lint reads suppressions from them)

    @property
    def ok(self) -> bool:
        return self.extraction is not None and not self.extraction.error


def extracted(outcomes: Iterable[Outcome]) -> list[tuple[SourceFile, Extraction]]:
    """The files that were read and parsed, with their facts."""
    return [(o.file, o.extraction) for o in outcomes if o.ok and o.extraction is not None]


def skipped(outcomes: Iterable[Outcome], path_of: Callable[[SourceFile], str]) -> list[Skipped]:
    return [Skipped(path=path_of(o.file), reason=o.reason or "not extracted") for o in outcomes if not o.ok]


def extract_all(files: Sequence[SourceFile], *, max_file_size: int, cache: Cache, jobs: int = 1,
                keep_data: bool = False, progress: Progress | None = None) -> list[Outcome]:
    """Every file's outcome, in the order given."""
    outcomes: list[Outcome] = []
    pending: list[tuple[int, str | None, bytes]] = []
    fresh: list[tuple[str, Extraction]] = []
    memo_dir = cache.path.parent if cache.path is not None else None  # where the extractor version is kept
    looked_up = _looked_up(files, cache)
    for file in files:
        data, reason = read(file, max_file_size)
        if data is None:
            outcomes.append(Outcome(file, None, reason))
            continue
        cache_key = key(file.kind, data, extractor_version(memo_dir)) if looked_up(file) else None
        cached = cache.get(cache_key) if cache_key is not None else None
        kept = data if keep_data else None
        outcomes.append(Outcome(file, cached, cached.error if cached else None, kept))
        if cached is None:
            pending.append((len(outcomes) - 1, cache_key, data))
    work = [(outcomes[position].file.kind, data) for position, _, data in pending]
    written = len(pending) >= WORTH_CACHING_FILES or sum(len(data) for _, _, data in pending) >= WORTH_CACHING_BYTES
    for (position, cache_key, data), extraction in zip(pending, _run(work, jobs, progress), strict=True):
        outcome = outcomes[position]
        outcomes[position] = Outcome(outcome.file, extraction, extraction.error, outcome.data)
        if written and cacheable(extraction):  # a time limit that ran out depends on the machine, not the bytes
            fresh.append((cache_key or key(outcome.file.kind, data, extractor_version(memo_dir)), extraction))
    if written:
        cache.put_many(fresh)
    return outcomes


def _looked_up(files: Sequence[SourceFile], cache: Cache) -> Callable[[SourceFile], bool]:
    """Which files' extractions are looked up in the cache. Every file's, but in a batch too small for its misses to
    be written (fewer than WORTH_CACHING_FILES files of fewer than WORTH_CACHING_BYTES in all, by discovery's sizes:
    lint of an edited file) only those of files not modified since the cache file was last written: a file edited
    after that holds bytes some earlier run may have stored (an edit undone), seldom, and its miss costs extracting
    a few small files; a lookup of an edited file's new bytes, which finds nothing, costs sqlite3's import and a
    connection (~4.4 M instructions of an edited-file lint's ~230 M). Which files are looked up changes only what is
    extracted again, never an extraction: a hit holds what extracting the same bytes gives."""
    if len(files) >= WORTH_CACHING_FILES or sum(file.size for file in files) >= WORTH_CACHING_BYTES:
        return _every_file
    written = cache.written_ns()
    if written is None:  # no cache file: nothing to find
        return _no_file
    return lambda file: file.stamp is None or file.stamp[1] <= written


def _every_file(file: SourceFile) -> bool:
    return True


def _no_file(file: SourceFile) -> bool:
    return False


def _run(work: list[tuple[str, bytes]], jobs: int, progress: Progress | None) -> list[Extraction]:
    if jobs > 1 and len(work) >= PARALLEL_THRESHOLD:
        from concurrent.futures import ProcessPoolExecutor  # here: lint of a few files never needs it

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            chunk = max(1, len(work) // (jobs * 8))
            return list(_counted(pool.map(_extract, work, chunksize=chunk), len(work), progress))
    return list(_counted(map(_extract, work), len(work), progress))


def _counted(results: Iterable[Extraction], total: int, progress: Progress | None) -> Iterator[Extraction]:
    for done, result in enumerate(results, start=1):
        if progress:
            progress(done, total)
        yield result


def _extract(item: tuple[str, bytes]) -> Extraction:
    return extract(*item)
