"""A cache of extraction results keyed by file content, so a rescan of unchanged files is cheap."""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

from migrate.model import Extraction, Fact

FACT_FIELDS = Fact.__slots__


def default_dir() -> Path:
    if env := os.environ.get("ROCM_MIGRATE_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "rocm-migrate"


def key(kind: str, data: bytes, version: str) -> str:
    return hashlib.sha256(f"{version}\0{kind}\0".encode() + data).hexdigest()


def dumps(extraction: Extraction) -> str:
    return json.dumps({
        "facts": [[getattr(f, name) for name in FACT_FIELDS] for f in extraction.facts],
        "lines": extraction.lines,
        "line_text": [[c, n, t] for (c, n), t in extraction.line_text.items()],
        "notes": list(extraction.notes),
        "error": extraction.error,
    }, separators=(",", ":"))


def loads(text: str) -> Extraction:
    data = json.loads(text)
    return Extraction(
        facts=tuple(Fact(**dict(zip(FACT_FIELDS, row, strict=False))) for row in data["facts"]),
        lines=data["lines"],
        line_text={(c, n): t for c, n, t in data["line_text"]},
        notes=tuple(data["notes"]),
        error=data["error"],
    )


class Cache:
    """sqlite file of key -> serialized extraction. Any failure just means a cache miss."""

    def __init__(self, directory: Path | None) -> None:
        self.path = directory / "facts.sqlite3" if directory else None
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is None and self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, timeout=5)
                self._db.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, value TEXT)")
            except (OSError, sqlite3.Error):
                self.path = None
        return self._db

    def get(self, cache_key: str) -> Extraction | None:
        db = self._connect()
        if db is None:
            return None
        try:
            row = db.execute("SELECT value FROM facts WHERE key = ?", (cache_key,)).fetchone()
            return loads(row[0]) if row else None
        except (sqlite3.Error, ValueError, KeyError, TypeError):
            return None

    def put_many(self, items: list[tuple[str, Extraction]]) -> None:
        db = self._connect()
        if db is None or not items:
            return
        try:
            with db:
                db.executemany("INSERT OR REPLACE INTO facts VALUES (?, ?)", [(k, dumps(e)) for k, e in items])
        except sqlite3.Error:
            pass
