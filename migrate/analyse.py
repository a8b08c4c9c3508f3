"""extract + match, per file: what a scan keeps of each file (a FileResult), computed in worker
processes that return compact rows, and cached by content, rules, targets and code version."""
from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from migrate import cache as rows
from migrate import jsonio
from migrate.cache import BadRow, Cache
from migrate.extract import EXTRACTOR_VERSION, extract
from migrate.match import RuleIndex, candidates, own_defined, own_portable
from migrate.model import Candidate, Extraction, FileResult, Finding, SourceFile, Target
from migrate.readfile import read
from migrate.rulebase.load import RuleBase, default_rules_dir
from migrate.settings import Settings
from migrate.workloads import FACT_KINDS

PARALLEL_THRESHOLD = 64  # below this many files, worker start-up costs more than it saves
CHUNKS_PER_WORKER = 6  # work is cut into about this many pieces per worker, by bytes
RESULT_FORMAT = "1"
_S, _I, _OS, _OI = (str,), (int,), (str, type(None)), (int, type(None))
# A candidate row: the finding's fields (path aside: rows are shared by files of equal content)
# and the two names the repo-wide filters look at.
CANDIDATE_ROW = (_S, _I, _I, _I, _I, _S, _S, _OS, _S, _S, _S, _S, _OI, _OS, _OS)


@dataclass(frozen=True, slots=True)
class Outcome:
    file: SourceFile
    result: FileResult | None
    reason: str | None = None
    extraction: Extraction | None = None  # kept only when a later pass needs every fact


@dataclass(frozen=True, slots=True)
class _Work:
    indexes: tuple[RuleIndex, ...]
    keep_extractions: bool


_STATE: _Work | None = None  # what the worker processes match with (inherited on fork)


def analyse_all(files: Sequence[SourceFile], settings: Settings, rules: RuleBase, *, keep_extractions: bool = False,
                progress: Callable[[int, int], None] | None = None) -> list[Outcome]:
    """Read every file once; serve unchanged ones from the cache, analyse the rest in parallel.

    With `keep_extractions` every file is extracted (a later pass needs its facts) and the
    result cache is not used; the extraction cache is, as before."""
    cache = Cache(settings.cache_dir)
    work = _Work(tuple(RuleIndex(rules, Target(rocm=settings.rocm, arch=(a,))) for a in settings.arch),
                 keep_extractions)
    version = _result_version(rules, settings)
    outcomes: list[Outcome | None] = []
    pending: list[tuple[int, str, bytes]] = []
    keys: list[str | None] = []
    for file in files:
        data, reason = read(file, settings.max_file_size)
        if data is None:
            outcomes.append(Outcome(file, None, reason))
            keys.append(None)
            continue
        keys.append(rows.key(file.kind, data, EXTRACTOR_VERSION if keep_extractions else version))
        outcomes.append(None)
        pending.append((len(outcomes) - 1, file.kind, data))
    found = _cached(cache, [k for k in keys if k], keep_extractions)
    todo = []
    for position, kind, data in pending:
        outcome = _from_cache(files[position], found.get(keys[position]), work)  # type: ignore[arg-type]
        if outcome is None:
            todo.append((position, kind, data))
        outcomes[position] = outcome
    fresh = _run(todo, work, settings.jobs, progress)
    for position, value in fresh.items():
        outcomes[position] = _outcome(files[position], value, work)
    if keep_extractions:
        cache.put_many([(keys[p], v) for p, v in fresh.items() if isinstance(v, Extraction)])  # type: ignore[misc]
    else:
        cache.put_rows([(keys[p], v) for p, v in fresh.items() if isinstance(v, bytes)])  # type: ignore[misc]
    return outcomes  # type: ignore[return-value]


def _cached(cache: Cache, keys: list[str], keep_extractions: bool) -> dict[str, Extraction | bytes]:
    if keep_extractions:
        return {k: e for k in keys if (e := cache.get(k)) is not None}
    return dict(cache.get_rows(keys))


def _from_cache(file: SourceFile, value: Extraction | bytes | None, work: _Work) -> Outcome | None:
    """The outcome of a cache hit; None for a miss, including a row that does not decode."""
    if value is None:
        return None
    try:
        return _outcome(file, value, work)
    except (BadRow, ValueError, KeyError, TypeError, RecursionError):
        return None


def _outcome(file: SourceFile, value: Extraction | bytes, work: _Work) -> Outcome:
    if isinstance(value, Extraction):
        result = summarise(file.rel, value, work.indexes)
        return Outcome(file, result, value.error, value)
    result = decode(file.rel, value)
    return Outcome(file, result, result.error)


def _run(todo: list[tuple[int, str, bytes]], work: _Work, jobs: int,
         progress: Callable[[int, int], None] | None) -> dict[int, Extraction | bytes]:
    done: dict[int, Extraction | bytes] = {}
    if jobs <= 1 or len(todo) < PARALLEL_THRESHOLD:
        global _STATE
        _STATE = work
        for position, kind, data in todo:
            done[position] = _analyse(kind, data)
            if progress:
                progress(len(done), len(todo))
        return done
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init, initargs=(work,)) as pool:
        futures: dict[Future, list[int]] = {}
        for chunk in chunks(todo, jobs * CHUNKS_PER_WORKER):
            futures[pool.submit(_analyse_chunk, [(k, d) for _, k, d in chunk])] = [p for p, _, _ in chunk]
        for future in as_completed(futures):
            done.update(zip(futures[future], future.result()))
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
    global _STATE
    _STATE = work


def _analyse_chunk(items: list[tuple[str, bytes]]) -> list[Extraction | bytes]:
    return [_analyse(kind, data) for kind, data in items]


def _analyse(kind: str, data: bytes) -> Extraction | bytes:
    assert _STATE is not None
    extraction = extract(kind, data)
    if _STATE.keep_extractions:
        return extraction
    return encode(summarise("", extraction, _STATE.indexes))


def summarise(rel: str, extraction: Extraction, indexes: Sequence[RuleIndex]) -> FileResult:
    """What the rest of the scan needs of one file: its candidates per target and a few facts."""
    if extraction.error:
        return FileResult(lines=extraction.lines, notes=extraction.notes, error=extraction.error)
    return FileResult(
        lines=extraction.lines, notes=extraction.notes,
        facts=tuple(f for f in extraction.facts if f.kind in FACT_KINDS),
        defined=own_defined(extraction.facts), portable=own_portable(extraction.facts),
        found=tuple(tuple(candidates(rel, extraction, index)) for index in indexes),
    )


def encode(result: FileResult) -> bytes:
    return jsonio.dumps([RESULT_FORMAT, result.lines, list(result.notes), result.error,
                         [rows.fact_row(f) for f in result.facts], list(result.defined), list(result.portable),
                         [[_candidate_row(c) for c in found] for found in result.found]])


def _candidate_row(c: Candidate) -> list:
    f = c.finding
    return [f.rule, f.line, f.column, f.end_line, f.end_column, f.symbol, f.message, f.hip, f.hipify,
            f.confidence, f.migration_class, f.source_line, f.cell, c.defined_as, c.namespace]


def decode(rel: str, row: bytes) -> FileResult:
    """A FileResult from its row; BadRow (or KeyError/TypeError) when the row is not one."""
    data = rows.typed_row(jsonio.loads(row), (_S, _I, (list,), _OS, (list,), (list,), (list,), (list,)))
    if data[0] != RESULT_FORMAT:
        raise BadRow("another format")
    return FileResult(
        lines=data[1], notes=tuple(rows.typed_list(data[2], _S)), error=data[3],
        facts=tuple(rows.fact_of(r) for r in data[4]),
        defined=tuple(rows.typed_list(data[5], _S)), portable=tuple(rows.typed_list(data[6], _S)),
        found=tuple(tuple(_candidate(rel, r) for r in rows.typed_list(found, (list,)))
                    for found in data[7]),
    )


def _candidate(rel: str, row: object) -> Candidate:
    (rule, line, column, end_line, end_column, symbol, message, hip, hipify, confidence, cls, source_line, cell,
     defined_as, namespace) = rows.typed_row(row, CANDIDATE_ROW)
    return Candidate(Finding(rule=rule, path=rel, line=line, column=column, end_line=end_line,
                             end_column=end_column, symbol=symbol, message=message, hip=hip, hipify=hipify,
                             confidence=confidence, migration_class=cls, source_line=source_line, cell=cell),
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
