"""extract + match, per file: what a scan keeps of each file (a FileResult), computed in worker
processes that return compact rows, and cached by content, rules, targets and code version."""
from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from migrate import cache as rows
from migrate import jsonio
from migrate.cache import BadRow, Cache
from migrate.extract import EXTRACTOR_VERSION, extract, prepare
from migrate.extract.run import Progress, extract_all
from migrate.match import IdentifierNames, RuleIndex, candidates, indexes, own_defined, own_portable
from migrate.model import Candidate, Extraction, FileResult, Finding, Skipped, SourceFile
from migrate.readfile import read
from migrate.rulebase.load import RuleBase, default_rules_dir
from migrate.settings import Settings
from migrate.workloads import UNREAD_KINDS

PARALLEL_THRESHOLD = 64  # below this many files, worker start-up costs more than it saves
PARALLEL_BYTES = 2 * 2**20  # nor below this much text (llm.c, 1 MB of C: 1.6-2.0 s serial, 2.4-2.7 s with 2 workers)
CHUNKS_PER_WORKER = 6  # work is cut into about this many pieces per worker, by bytes
RESULT_FORMAT = "3"
_S, _I, _OS, _OI = (str,), (int,), (str, type(None)), (int, type(None))
# A candidate row: the finding's fields (path aside: rows are shared by files of equal content)
# and the two names the repo-wide filters look at.
CANDIDATE_ROW = (_S, _I, _I, _I, _I, _S, _S, _OS, _S, _S, _S, _S, _OI, _S, _OS, _OS)


@dataclass(frozen=True, slots=True)
class Outcome:
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
    indexes: tuple[RuleIndex, ...]
    names: IdentifierNames  # the identifiers worth a fact: those the indexes can match


_STATE: dict[str, _Work] = {}  # "work": what this process matches with (inherited on fork)


def analyse_all(files: Sequence[SourceFile], settings: Settings, rules: RuleBase, *, keep_extractions: bool = False,
                progress: Progress | None = None) -> list[Outcome]:
    """Read every file once; serve unchanged ones from the cache, analyse the rest in parallel.

    With `keep_extractions` every file's facts are kept (a later pass needs them): the files
    go through `extract.run` and its extraction cache, and are matched here."""
    by_target = indexes(rules, rocm=settings.rocm, archs=settings.arch)
    if keep_extractions:
        return [Outcome(o.file, summarise(o.file.rel, o.extraction, by_target) if o.extraction else None, o.reason,
                        o.extraction)
                for o in extract_all(files, max_file_size=settings.max_file_size, cache=Cache(settings.cache_dir),
                                     jobs=settings.jobs, progress=progress)]
    work = _Work(by_target, IdentifierNames(by_target))
    # Nothing can come from the cache (none, or an empty one) and there is enough to do: the workers
    # are forked now, before the files are read, so that they do not start with a copy of them.
    early = not Cache(settings.cache_dir).exists() and _parallel(settings.jobs, [f.size for f in files])
    pool = _pool(work, settings.jobs, {f.kind for f in files}) if early else None
    try:
        return _analyse_all(files, settings, rules, work, pool, progress)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _analyse_all(files: Sequence[SourceFile], settings: Settings, rules: RuleBase, work: _Work,
                 pool: ProcessPoolExecutor | None, progress: Progress | None) -> list[Outcome]:
    cache = Cache(settings.cache_dir)
    version = _result_version(rules, settings)
    outcomes: list[Outcome | None] = []
    keys: list[str] = []
    pending: list[tuple[int, str, bytes]] = []
    for file in files:
        data, reason = read(file, settings.max_file_size)
        if data is None:
            outcomes.append(Outcome(file, None, reason))
            continue
        keys.append(rows.key(file.kind, data, version))
        outcomes.append(None)
        pending.append((len(outcomes) - 1, file.kind, data))
    found = cache.get_rows(keys)
    todo = []
    first: dict[str, int] = {}  # key -> the position analysed for it (files of equal content: once)
    copies: list[tuple[int, int]] = []
    for (position, kind, data), cache_key in zip(pending, keys, strict=True):
        outcome = _from_row(files[position], found.get(cache_key))
        if outcome is None:
            if cache_key in first:
                copies.append((position, first[cache_key]))
            else:
                first[cache_key] = position
                todo.append((position, kind, data))
        outcomes[position] = outcome

    def done(position: int, row: bytes) -> None:  # decoded as it comes, while the workers go on
        outcomes[position] = _outcome(files[position], row)

    fresh = _run(todo, work, settings.jobs, progress, done, pool)
    for position, original in copies:
        outcomes[position] = _outcome(files[position], fresh[original])
    key_of = {position: cache_key for (position, _, _), cache_key in zip(pending, keys, strict=True)}
    cache.put_rows([(key_of[position], row) for position, row in fresh.items()])
    return [o for o in outcomes if o is not None]


def _from_row(file: SourceFile, row: bytes | None) -> Outcome | None:
    """The outcome of a cache hit; None for a miss, including a row that does not decode."""
    if row is None:
        return None
    try:
        return _outcome(file, row)
    except (BadRow, ValueError, KeyError, TypeError, RecursionError):
        return None


def _outcome(file: SourceFile, row: bytes) -> Outcome:
    result = decode(file.rel, row)
    return Outcome(file, result, result.error)


def _parallel(jobs: int, sizes: Sequence[int]) -> bool:
    return jobs > 1 and len(sizes) >= PARALLEL_THRESHOLD and sum(sizes) >= PARALLEL_BYTES


def _pool(work: _Work, jobs: int, kinds: set[str]) -> ProcessPoolExecutor:
    """`jobs` worker processes, started now (fork: with the rule indexes and the compiled query)."""
    fork = "fork" in multiprocessing.get_all_start_methods()
    if fork:
        prepare(kinds)  # once here, inherited by every worker
    context = multiprocessing.get_context("fork" if fork else None)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init, initargs=(work,))
    pool.submit(int).result()  # a forking pool starts all its workers at the first task
    return pool


def _run(todo: list[tuple[int, str, bytes]], work: _Work, jobs: int, progress: Progress | None,
         on_row: Callable[[int, bytes], None], pool: ProcessPoolExecutor | None = None) -> dict[int, bytes]:
    """Every todo's row by position; `on_row` is told of each as soon as it is there. Enough work
    goes to `pool` (started here when there is none)."""
    done: dict[int, bytes] = {}
    if not _parallel(jobs, [len(d) for _, _, d in todo]):
        _STATE["work"] = work
        for position, kind, data in todo:
            done[position] = row = _analyse(kind, data)
            on_row(position, row)
            if progress:
                progress(len(done), len(todo))
        return done
    with contextlib.nullcontext(pool) if pool is not None else _pool(work, jobs, {k for _, k, _ in todo}) as workers:
        futures: dict[Future[list[bytes]], list[int]] = {}
        for chunk in chunks(todo, jobs * CHUNKS_PER_WORKER):
            futures[workers.submit(_analyse_chunk, [(k, d) for _, k, d in chunk])] = [p for p, _, _ in chunk]
        for future in as_completed(futures):
            for position, row in zip(futures[future], future.result(), strict=True):
                done[position] = row
                on_row(position, row)
            if progress:
                progress(len(done), len(todo))
    return done


def chunks(todo: list[tuple[int, str, bytes]], pieces: int) -> list[list[tuple[int, str, bytes]]]:
    """Largest files first, cut into about `pieces` runs of equal bytes, so that no worker is
    left with a big file at the end and small files do not cost a round trip each."""
    ordered = sorted(todo, key=lambda item: -len(item[2]))
    target = max(1, sum(len(d) for _, _, d in ordered) // max(1, pieces))
    out: list[list[tuple[int, str, bytes]]] = []
    current: list[tuple[int, str, bytes]] = []
    size = 0
    for item in ordered:
        current.append(item)
        size += len(item[2])
        if size >= target:
            out.append(current)
            current, size = [], 0
    return out + ([current] if current else [])


def _init(work: _Work) -> None:
    _STATE["work"] = work


def _analyse_chunk(items: list[tuple[str, bytes]]) -> list[bytes]:
    return [_analyse(kind, data) for kind, data in items]


def _analyse(kind: str, data: bytes) -> bytes:
    """One file's result row, computed in a worker (or in this process for small scans)."""
    work = _STATE["work"]
    return encode(summarise("", extract(kind, data, work.names), work.indexes))


def summarise(rel: str, extraction: Extraction, indexes: Sequence[RuleIndex]) -> FileResult:
    """What the rest of the scan needs of one file: its candidates per target and a few facts."""
    if extraction.error:
        return FileResult(lines=extraction.lines, notes=extraction.notes, error=extraction.error)
    kept = tuple(f for f in extraction.facts if f.kind not in UNREAD_KINDS)
    lines = {(f.cell or 0, f.line) for f in kept}
    return FileResult(
        lines=extraction.lines, notes=extraction.notes, facts=kept,
        line_text={k: t for k, t in extraction.line_text.items() if k in lines},
        defined=own_defined(extraction.facts), portable=own_portable(extraction.facts),
        found=tuple(tuple(candidates(rel, extraction, index)) for index in indexes),
    )


def encode(result: FileResult) -> bytes:
    return jsonio.dumps([RESULT_FORMAT, result.lines, list(result.notes), result.error,
                         [rows.fact_row(f) for f in result.facts], list(result.defined), list(result.portable),
                         [[_candidate_row(c) for c in found] for found in result.found],
                         [[c, n, t] for (c, n), t in result.line_text.items()]])


def _candidate_row(c: Candidate) -> list[object]:
    f = c.finding
    return [f.rule, f.line, f.column, f.end_line, f.end_column, f.symbol, f.message, f.hip, f.hipify,
            f.confidence, f.migration_class, f.source_line, f.cell, f.status, c.defined_as, c.namespace]


def decode(rel: str, row: bytes) -> FileResult:
    """A FileResult from its row; BadRow (or KeyError/TypeError) when the row is not one."""
    data = rows.typed_row(jsonio.loads(row), (_S, _I, (list,), _OS, (list,), (list,), (list,), (list,), (list,)))
    if data[0] != RESULT_FORMAT:
        raise BadRow("another format")
    return FileResult(
        lines=data[1], notes=tuple(rows.typed_list(data[2], _S)), error=data[3],
        facts=tuple(rows.fact_of(r) for r in data[4]),
        defined=tuple(rows.typed_list(data[5], _S)), portable=tuple(rows.typed_list(data[6], _S)),
        found=tuple(tuple(_candidate(rel, r) for r in rows.typed_list(found, (list,)))
                    for found in data[7]),
        line_text={(c, n): t for c, n, t in (rows.typed_row(r, (_I, _I, _S)) for r in data[8])},
    )


def _candidate(rel: str, row: object) -> Candidate:
    (rule, line, column, end_line, end_column, symbol, message, hip, hipify, confidence, cls, source_line, cell,
     status, defined_as, namespace) = rows.typed_row(row, CANDIDATE_ROW)
    return Candidate(Finding(rule=rule, path=rel, line=line, column=column, end_line=end_line,
                             end_column=end_column, symbol=symbol, message=message, hip=hip, hipify=hipify,
                             confidence=confidence, migration_class=cls, source_line=source_line, cell=cell,
                             status=status),
                     defined_as, namespace)


def _result_version(rules: RuleBase, settings: Settings) -> str:
    """What a cached result depends on besides the file: rules, targets and the code that matches."""
    return f"{RESULT_FORMAT}\0{EXTRACTOR_VERSION}\0{rules.version}\0{settings.rocm}\0{','.join(settings.arch)}\0" \
           f"{_code_key()}"


@lru_cache(maxsize=1)
def _code_key() -> str:
    from migrate import match, model
    from migrate.rulebase import targets

    digest = hashlib.sha256()
    for module in (match, model, targets):
        digest.update(Path(module.__file__).read_bytes())  # type: ignore[arg-type]
    digest.update(Path(__file__).read_bytes())
    digest.update((default_rules_dir() / "targets" / "gpus.yaml").read_bytes())
    return digest.hexdigest()[:16]
