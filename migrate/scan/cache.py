"""The per-file cache, an sqlite file of plain JSON rows (no pickle: the directory may be shared):
extractions keyed by file content (lint, and scans that need every fact), a file's matched
result keyed by content, rules, targets and code versions (scan), and a tree's stat entries
(migrate.scan.statcache); beside it, the report cache's files (migrate.scan.reportcache). A row that does
not decode to values of the right types is a miss."""
from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from sys import intern

from migrate import jsonio
from migrate.compat import import_with_c_datetime, sha256_hex
from migrate.model import Extraction, Fact, build_fact
from migrate.scan import storedfiles

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    import sqlite3
    from typing import Any, BinaryIO
else:
    class _Sqlite3:
        """sqlite3, imported when a name of it is first asked for (`connect` by Cache._connect, `Error` by an except
        clause an exception reached): a lint of a file edited since the cache was last written looks nothing up
        (extract.run) and does not import it (~3.5 M instructions of an edited-file lint)."""

        def __getattr__(self, name: str) -> object:
            return getattr(import_with_c_datetime("sqlite3"), name)  # not datetime.py's Python classes (compat)

    sqlite3 = _Sqlite3()

FACT_FIELDS = Fact.__slots__
_INT, _STR, _OPT_STR, _OPT_INT = (int,), (str,), (str, type(None)), (int, type(None))
# The type of each Fact field, in FACT_FIELDS order.
FACT_TYPES = {"kind": _STR, "name": _STR, "line": _INT, "column": _INT, "end_line": _INT, "end_column": _INT,
              "role": _STR, "text": _STR, "guard": _OPT_STR, "cell": _OPT_INT, "value": _OPT_INT}
FACT_ROW = tuple(FACT_TYPES[name] for name in FACT_FIELDS)
TABLES = ("facts", "results", "stats")
REPORTS_DIR = "reports"  # rendered reports of the most recently used scans, one file each (see migrate.scan.reportcache)
REPORTS_KEPT = 8
STATS_KEPT = 64  # trees whose files' stat entries are kept (migrate.scan.statcache)
# Reports and stat rows are evicted least recently used first, as cheaply as that goes: one that is
# read while among the older half of those kept is moved to the front (a utime, a rowid update), so a
# rescan of one of the trees most recently used writes nothing, and one read is kept for at least
# half as many newer ones as a new one is.


class BadRow(ValueError):
    """A cache row of the wrong shape or type."""

def default_dir() -> Path:
    """Where the cache directory is (storedfiles.default_dir, as a Path)."""
    return Path(storedfiles.default_dir())


def key(kind: str, data: bytes, version: str) -> str:
    return sha256_hex(f"{version}\0{kind}\0".encode() + data)


def content_digest(data: bytes | None) -> str:
    """The digest a file's readable bytes are known by (the stat cache's, the scan's row keys)."""
    import hashlib  # here: a lint of a few files does not import it (migrate/digest.py)

    return hashlib.blake2b(data or b"", digest_size=32).hexdigest()


@dataclass(frozen=True, slots=True)
class Known:
    """What a scan learnt of a file before analysing it (the report cache's key): the digest of its
    readable bytes, why it is skipped, and the bytes themselves when they were read then."""

    digest: str
    reason: str | None
    data: bytes | None = None


def typed_row(row: object, types: tuple[tuple[type, ...], ...]) -> list[Any]:
    """`row` if it is a list whose items have exactly these types (as JSON decodes them: a bool
    is not an int here), else BadRow. Checked as one lookup of the row's types among the shapes
    `types` allows (a warm lint of a tree decodes every file's facts and candidates this way)."""
    shapes = _SHAPES.get(types)
    if shapes is None:
        shapes = _shapes(types)
    if type(row) is not list or (tuple(map(type, row)) not in shapes if shapes else (
            len(row) != len(types) or not all(type(v) in allowed for v, allowed in zip(row, types, strict=True)))):
        raise BadRow(f"expected a row of {len(types)} typed fields")
    return row


_SHAPES: dict[tuple[tuple[type, ...], ...], frozenset[tuple[type, ...]]] = {}
MAX_SHAPES = 1024  # rows with more combinations of allowed types are checked field by field


def _shapes(types: tuple[tuple[type, ...], ...]) -> frozenset[tuple[type, ...]]:
    """Every tuple of item types a row of `types` may have (empty: too many to list)."""
    count = 1
    for allowed in types:
        count *= len(allowed)
    shapes = frozenset(itertools.product(*types)) if count <= MAX_SHAPES else frozenset()
    if len(_SHAPES) < 256:
        _SHAPES[types] = shapes
    return shapes


def typed_list(value: object, item: tuple[type, ...]) -> list[Any]:
    if type(value) is not list or not all(type(v) in item for v in value):
        raise BadRow(f"expected a list of {item}")
    return value


def fact_row(fact: Fact) -> list[Any]:
    return [getattr(fact, name) for name in FACT_FIELDS]


def fact_of(row: object, *, checked: bool = True) -> Fact:
    """The fact of a row; its text fields interned: a scan holds every file's facts at once, and the
    same names, kinds and roles recur in thousands of them (a decoded row's strings are new objects).
    `checked=False` only for a row this process's own code has just written (not read from a cache)."""
    values: list[Any] = typed_row(row, FACT_ROW) if checked else row  # type: ignore[assignment]
    # the str fields by place (FACT_ROW: kind, name, role, text; guard or None), not a type test of every value
    kind, name, line, column, end_line, end_column, role, text, guard, cell, value = values
    return build_fact((intern(kind), intern(name), line, column, end_line, end_column, intern(role), intern(text),
                       guard if guard is None else intern(guard), cell, value))



def dumps(extraction: Extraction) -> bytes:
    return jsonio.dumps({
        "facts": [fact_row(f) for f in extraction.facts],
        "lines": extraction.lines,
        "line_text": [[c, n, t] for (c, n), t in extraction.line_text.items()],
        "notes": list(extraction.notes),
        "error": extraction.error,
    })


def loads(text: str | bytes) -> Extraction:
    data = jsonio.loads(text)
    if not isinstance(data, dict):
        raise BadRow("not an object")
    return Extraction(
        facts=tuple(fact_of(row) for row in typed_list(data["facts"], (list,))),
        lines=typed_row([data["lines"]], (_INT,))[0],
        line_text={(c, n): t for c, n, t in (typed_row(r, (_INT, _INT, _STR)) for r in data["line_text"])},
        notes=tuple(typed_list(data["notes"], _STR)),
        error=typed_row([data["error"]], (_OPT_STR,))[0],
    )


class Cache:
    """Any failure, or a row that does not decode, just means a cache miss."""

    def __init__(self, directory: Path | None) -> None:
        self.path = directory / "facts.sqlite3" if directory else None
        self._db: sqlite3.Connection | None = None
        self._held: list[tuple[str, list[tuple[object, ...]]]] | None = None  # `hold_writes`' statements

    def hold_writes(self) -> None:
        """Keep the puts and keeps from now on, to `write_held` them in one transaction: each commit syncs the
        disk four times (a journal's in rollback mode), ~10-40 ms on this project's machine, and a first scan
        committed the tool's and the tree's stat rows, and their keeps, one by one."""
        self._held = []

    def write_held(self) -> None:
        """The held statements, in their order, in one transaction (any failure: none of them, a miss)."""
        held, self._held = self._held, None
        if not held:
            return
        if self._db is None:  # a first connection: the held statements go in the transaction that makes the tables
            self._connect(held)
            return
        db = self._db
        try:
            with db:
                for statement, rows in held:
                    db.executemany(statement, rows)
        except sqlite3.Error:
            pass

    def _connect(self, held: Sequence[tuple[str, list[tuple[object, ...]]]] = ()) -> sqlite3.Connection | None:
        """The connection, made with the tables the first time; `held`: statements (write_held's) written in the
        transaction that makes the tables, all or none of them (a savepoint), so that one commit does both."""
        if self._db is None and self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, timeout=5)
                # the tables in one transaction: each CREATE on its own is a commit of its own, four syncs to
                # disk each (a new cache's first scan waited ~40 ms per table on this project's machine)
                with self._db:
                    self._db.execute("BEGIN")
                    for table in TABLES:
                        self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, value)")
                    if held:
                        self._db.execute("SAVEPOINT held")
                        try:
                            for statement, rows in held:
                                self._db.executemany(statement, rows)
                        except sqlite3.Error:  # a failed write is a miss, as in _put: the tables stay
                            self._db.execute("ROLLBACK TO held")
                        self._db.execute("RELEASE held")
            except (OSError, sqlite3.Error):
                self.path, self._db = None, None
        return self._db

    def exists(self) -> bool:
        """Whether there is a cache file to read rows from (a fresh or disabled cache has none)."""
        return self.path is not None and self.path.exists()

    def written_ns(self) -> int | None:
        """When the cache file was last written (its mtime, ns); None where there is none to read rows from."""
        try:
            return os.stat(self.path).st_mtime_ns if self.path is not None else None
        except OSError:
            return None

    def get(self, cache_key: str) -> Extraction | None:
        row = self._get("facts", [cache_key]).get(cache_key)
        try:
            return loads(row) if isinstance(row, (str, bytes)) else None
        except (ValueError, KeyError, TypeError, RecursionError):
            return None

    def put_many(self, items: list[tuple[str, Extraction]]) -> None:
        self._put("facts", [(k, dumps(e)) for k, e in items])

    def get_rows(self, keys: list[str]) -> dict[str, bytes]:
        """Raw result rows by key (the caller decodes them, and treats a bad one as a miss)."""
        return {k: v for k, v in self._get("results", keys).items() if isinstance(v, bytes)}

    def put_rows(self, items: list[tuple[str, bytes]]) -> None:
        self._put("results", items)

    def get_stats(self, key: str) -> bytes | None:
        """A tree's stat entries (migrate.scan.statcache)."""
        row = self._get("stats", [key]).get(key)
        return row if isinstance(row, bytes) else None

    def put_stats(self, key: str, value: bytes) -> None:
        self._put("stats", [(key, value)])
        self._keep("stats", STATS_KEPT)

    def used_stats(self, key: str) -> None:
        """A stat row was read and is kept as it is: moved to the front if among the older half."""
        if self._held is not None and self.path is not None:  # the same, as one statement, in its place
            self._held.append(("UPDATE stats SET rowid = (SELECT max(rowid) FROM stats) + 1 WHERE key = ? AND "
                               "(SELECT count(*) FROM stats WHERE rowid > (SELECT rowid FROM stats WHERE key = ?)) >= ?",
                               [(key, key, STATS_KEPT // 2)]))
            return
        db = self._connect()
        try:
            if db is None:
                return
            newer = db.execute("SELECT count(*) FROM stats WHERE rowid > (SELECT rowid FROM stats WHERE key = ?)",
                               (key,)).fetchone()[0]
            if newer >= STATS_KEPT // 2:
                with db:
                    db.execute("UPDATE stats SET rowid = (SELECT max(rowid) FROM stats) + 1 WHERE key = ?", (key,))
        except sqlite3.Error:
            pass

    def open_report(self, key: str) -> BinaryIO | None:
        """A stored report's file, open (a regular file, not a link), or None."""
        return None if self.path is None else storedfiles.open_file(self.path.parent / REPORTS_DIR, key)

    def used_report(self, stored: BinaryIO) -> None:
        """A stored report (open, from `open_report`) was read: moved to the front if among the older half."""
        if self.path is not None:
            storedfiles.used(self.path.parent / REPORTS_DIR, stored, REPORTS_KEPT)

    def put_report(self, key: str, parts: Iterable[bytes]) -> None:
        """Store a report's bytes under `key`, keeping the REPORTS_KEPT most recently used."""
        if self.path is not None:
            storedfiles.put(self.path.parent / REPORTS_DIR, key, parts, kept=REPORTS_KEPT)

    def _keep(self, table: str, count: int) -> None:
        statement = f"DELETE FROM {table} WHERE rowid NOT IN (SELECT rowid FROM {table} ORDER BY rowid DESC LIMIT ?)"
        if self._held is not None and self.path is not None:
            self._held.append((statement, [(count,)]))
            return
        db = self._connect()
        try:
            if db is not None:
                with db:
                    db.execute(statement, (count,))
        except sqlite3.Error:
            pass

    def _get(self, table: str, keys: list[str]) -> dict[str, object]:
        db = self._connect()
        if db is None or not keys:
            return {}
        found: dict[str, object] = {}
        try:
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(db.execute(f"SELECT key, value FROM {table} WHERE key IN ({marks})", chunk).fetchall())
        except sqlite3.Error:
            return {}
        return found

    def _put(self, table: str, items: list[tuple[str, bytes]]) -> None:
        statement = f"INSERT OR REPLACE INTO {table} VALUES (?, ?)"
        if self._held is not None and self.path is not None:
            if items:
                self._held.append((statement, list(items)))
            return
        db = self._connect()
        if db is None or not items:
            return
        try:
            with db:
                db.executemany(statement, items)
        except sqlite3.Error:
            pass
