"""A tree's file digests without reading the files again, as git's index does: each file's
(size, mtime, ctime, inode, device) with the digest and read verdict of its content, so that a
rescan of an unchanged tree stats the files and reads none.

One JSON row per scanned root and size limit in the per-file cache's sqlite file; a row or an
entry of the wrong shape or type is ignored (the file is read and hashed). Racy entries (git's
"racy clean"): a file changed in the same timestamp tick as the stat this run took keeps its
stamp, so an entry is trusted only when the file's mtime and ctime are older, by more than
RACY_NS, than the moment the run that hashed it started (before its stat); a newer one is
hashed again next time, and rewritten with that run's moment. ctime cannot be set back from
user space, so a file rewritten and its mtime restored with utime still looks changed."""
from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from migrate import jsonio
from migrate.model import SourceFile
from migrate.rulebase import filestamp
from migrate.scan.cache import BadRow, Cache, Known, content_digest, typed_row
from migrate.scan.readfile import read, read_regular

FORMAT = "2"  # 2: readfile skips nvcc's intermediates (scan.build_output): a stored verdict may be stale
RACY_NS = filestamp.RACY_NS  # a name of this module's own, so that a test can set it for statcache alone
_I, _S, _OS = (int,), (str,), (str, type(None))
# rel, kind, size, mtime_ns, ctime_ns, inode, device, checked_ns (the hashing run's start), digest, reason
ENTRY = (_S, _S, _I, _I, _I, _I, _I, _I, _S, _OS)

Stamp = filestamp.Stamp
Reader = Callable[[SourceFile, int], tuple[bytes | None, str | None]]  # readfile.read's shape


@dataclass(frozen=True, slots=True)
class Entry:
    """A file's kind and stamp when its digest was last checked, and when that was."""

    kind: str
    stamp: Stamp
    checked_ns: int
    digest: str  # hex digest of the bytes `readfile.read` gives (empty input when not read)
    reason: str | None  # why `readfile.read` would skip the file

    def trusted(self, stamp: Stamp, kind: str) -> bool:
        """Same stamp and kind, and not racy: the file was last changed well before it was hashed."""
        return stamp == self.stamp and kind == self.kind \
            and max(stamp[1], stamp[2]) < self.checked_ns - RACY_NS


stamp_of = filestamp.stamp_of


class Digests:
    """The digests of one scan's files; `save` writes the row back when anything changed.

    `started`: when the caller began to stat the files (discovery's `started_ns`); the stamps
    discovery took (`SourceFile.stamp`) are then used as they are. Without it each file is
    stat'ed here, after this object's birth. `keep_bytes`: the bytes of files read here are kept
    in `known`, up to this many in all, for the scan that may follow (so it reads them no more)."""

    def __init__(self, cache: Cache, scope: str, reader: Reader = read, *, started: int | None = None,
                 keep_bytes: int = 0) -> None:
        self.started = time.time_ns() if started is None else started  # before any file of this run is stat'ed
        self.given_stamps = started is not None
        self.keep_bytes = keep_bytes
        self.known: dict[str, Known] = {}  # rel -> digest, reason and (when kept) bytes
        self.cache = cache
        self.reader = reader  # the bytes whose digest is kept (and why a file is skipped)
        self.row_key = hashlib.sha256(f"stat\0{FORMAT}\0{scope}".encode("utf-8", "surrogateescape")).hexdigest()
        self.old = _decode(cache.get_stats(self.row_key)) if cache.exists() else {}
        self.new: dict[str, Entry] = {}
        self.hashed = 0  # files read and hashed this run

    def digest(self, file: SourceFile, max_file_size: int) -> tuple[str, str | None]:
        """The digest of the file's readable bytes (empty when it is skipped) and why it is skipped."""
        stamp = file.stamp if self.given_stamps and file.stamp is not None else _stamp(file)
        old = self.old.get(file.rel)
        if stamp is not None and old is not None and old.trusted(stamp, file.kind):
            self.new[file.rel] = old
            self.known[file.rel] = Known(old.digest, old.reason)
            return old.digest, old.reason
        data, reason = self.reader(file, max_file_size)
        digest = content_digest(data)
        self.hashed += 1
        kept = data if data is not None and len(data) <= self.keep_bytes else None
        self.keep_bytes -= len(kept or b"")
        self.known[file.rel] = Known(digest, reason, kept)
        if stamp is not None:
            self.new[file.rel] = Entry(file.kind, stamp, self.started, digest, reason)
        return digest, reason

    def save(self) -> None:
        """Write the entries when they differ from the stored ones (nothing is written for a tree
        that did not change, once its entries are no longer racy, but its use: `Cache.used_stats`)."""
        if self.new != self.old and self.cache.path is not None:
            self.cache.put_stats(self.row_key, _encode(self.new))
        elif self.old:
            self.cache.used_stats(self.row_key)


def _stamp(file: SourceFile) -> Stamp | None:
    try:
        return stamp_of(os.stat(file.path))
    except OSError:
        return None


def raw(file: SourceFile, limit: int) -> tuple[bytes | None, str | None]:
    """A file's bytes as they are (binary or not), for digests of the tool's own files."""
    try:
        return read_regular(file.path, limit), None
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"


def _encode(entries: dict[str, Entry]) -> bytes:
    return jsonio.dumps([FORMAT, [[rel, e.kind, *e.stamp, e.checked_ns, e.digest, e.reason]
                                  for rel, e in entries.items()]])


def _decode(row: bytes | None) -> dict[str, Entry]:
    """The stored entries; an entry of the wrong shape is left out, a bad row gives none."""
    if row is None:
        return {}
    try:
        data: Any = jsonio.loads(row)
    except (ValueError, RecursionError):
        return {}
    if type(data) is not list or len(data) != 2 or data[0] != FORMAT or type(data[1]) is not list:
        return {}
    entries: dict[str, Entry] = {}
    for item in data[1]:
        try:
            rel, kind, size, mtime, ctime, inode, device, checked, digest, reason = typed_row(item, ENTRY)
        except BadRow:
            continue
        entries[rel] = Entry(kind, (size, mtime, ctime, inode, device), checked, digest, reason)
    return entries
