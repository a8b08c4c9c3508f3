"""Files kept in the cache directory, one per key, least recently used first out: the report
cache's rendered reports (migrate.scan.reportcache) and the replayed outputs of whole commands
(migrate.scan.replay). Imports nothing but the standard library's os layer, so that a command served
from here starts as lightly as the interpreter: folders are path strings (or any os.PathLike), and
typing's names are read by the type checker only."""
from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # typing's own constant would import typing (~10 ms of a replayed lint's ~50)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import BinaryIO

    Folder = str | os.PathLike[str]

NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
READ_FLAGS = os.O_RDONLY | NO_FOLLOW | getattr(os, "O_NONBLOCK", 0)


def default_dir() -> str:
    """The cache directory: $ROCM_MIGRATE_CACHE_DIR, else $XDG_CACHE_HOME/rocm-migrate, else ~/.cache/rocm-migrate."""
    if env := os.environ.get("ROCM_MIGRATE_CACHE_DIR"):
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rocm-migrate")


def open_file(folder: Folder, key: str) -> BinaryIO | None:
    """A stored file, open (a regular file, not a link), or None."""
    try:
        fd = os.open(os.path.join(folder, key), READ_FLAGS)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return os.fdopen(fd, "rb")
    except OSError:
        pass
    os.close(fd)
    return None


def used(folder: Folder, stored: BinaryIO, kept: int) -> None:
    """A stored file (open, from `open_file`) was read: moved to the front (its mtime set to now)
    if it is among the older half of the `kept`."""
    try:
        mine = os.fstat(stored.fileno()).st_mtime_ns
        with os.scandir(folder) as entries:
            newer = sum(1 for e in entries
                        if not e.name.startswith(".") and e.stat(follow_symlinks=False).st_mtime_ns > mine)
        if newer >= kept // 2:
            os.utime(stored.fileno())
    except (OSError, NotImplementedError):
        pass


def put(folder: Folder, key: str, parts: Iterable[bytes], *, kept: int) -> None:
    """Store `parts` under `key` (written aside, then renamed into place), keeping the `kept` most
    recently used files of the folder."""
    aside = os.path.join(folder, f".{key}.{os.getpid()}")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NO_FOLLOW, 0o644), "wb") as out:
            for part in parts:
                out.write(part)
        os.replace(aside, os.path.join(folder, key))
        newest = sorted((e for e in os.scandir(folder) if not e.name.startswith(".")),
                        key=lambda e: e.stat(follow_symlinks=False).st_mtime_ns, reverse=True)
        for old in newest[kept:]:
            os.unlink(old.path)
    except OSError:
        import contextlib  # not on a replay's way: put() follows a recorded run

        with contextlib.suppress(OSError):
            os.unlink(aside)
