"""Reading one file for extraction: the size limit, binary content, and UTF-8 where it matters.

Every read of a scanned repository's files goes through `read_regular`: it opens without
blocking (a FIFO or a device never stalls the scan), checks on the open descriptor that the
file is a regular one, and never reads more than it was asked for. Shared by scan and lint;
imports nothing heavy."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from migrate.model import SourceFile
from migrate.scan.build_output import nvcc_intermediate

BINARY_PROBE = 8192
BYTE_PARSED = frozenset({"cuda", "cpp", "hip"})  # tree-sitter reads bytes: Latin-1 comments do not stop a scan
BOM = b"\xef\xbb\xbf"
BINARY_KIND = "binary"  # the one kind whose bytes are not text (discover: .so, .dll, ELF without a suffix ...)
READ_CAP = 256 << 20  # no scanned file is read past this, whatever the size limit
OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


class NotRegular(OSError):
    """The path is a FIFO, a device, a socket or a directory: such files are never read."""


class Outside(OSError):
    """The opened file lies outside the scanned tree (a link, or a link swapped in after discovery)."""


def real_path(fd: int, path: Path | str) -> str:
    """Where an open descriptor's file really is: /proc/self/fd on Linux (the file that was opened,
    whatever the path names now), else the path resolved, checked against the descriptor's inode."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = os.path.realpath(path)
        opened, named = os.fstat(fd), os.stat(real)
        if (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino):
            raise Outside(f"{path}: changed while it was opened") from None
        return real


def inside(real: str, top: str) -> bool:
    """`real` (a resolved path) is `top` (a resolved folder) or lies under it."""
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def read_inside(path: Path | str, top: Path | str, limit: int) -> bytes:
    """read_regular for a file that must lie inside the folder `top`: the opened file's real path is
    checked after opening, so a link (or a link swapped in after discovery) never reads outside.
    Raises Outside, NotRegular or OSError."""
    fd = os.open(path, OPEN_FLAGS)
    try:
        if not inside(real_path(fd, path), os.path.realpath(top)):
            raise Outside(f"{os.path.basename(path)}: outside the scanned tree")
        return _read_fd(fd, path, limit)
    finally:
        os.close(fd)


def read_regular(path: Path | str, limit: int) -> bytes:
    """At most `limit` bytes of a regular file. Raises NotRegular or OSError."""
    fd = os.open(path, OPEN_FLAGS)
    try:
        return _read_fd(fd, path, limit)
    finally:
        os.close(fd)


def _read_fd(fd: int, path: Path | str, limit: int) -> bytes:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise NotRegular(f"{os.path.basename(path)}: not a regular file")
    chunks, left = [], limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def tree_of(file: SourceFile) -> str:
    """The scanned folder a discovered file belongs to: its path less its relative path."""
    path = str(file.path)
    depth = file.rel.count("/") + 1
    for _ in range(depth):
        path = os.path.dirname(path)
    return path


def read(file: SourceFile, max_size: int) -> tuple[bytes | None, str | None]:
    """The file's bytes (a UTF-8 byte order mark removed), or None and the reason it is skipped.
    Never more than READ_CAP bytes, whatever `max_size` (--max-file-size 6G is no licence to
    hold a 5 GB file in memory)."""
    if file.size > READ_CAP:
        return None, f"larger than the largest file rocm-migrate reads ({file.size} > {READ_CAP} bytes)"
    max_size = min(max_size, READ_CAP)
    if file.size > max_size:
        return None, f"larger than the size limit ({file.size} > {max_size} bytes)"
    try:
        data = read_inside(file.path, tree_of(file), max_size + 1)
    except NotRegular:
        return None, "not a regular file"
    except Outside:
        return None, "symlink to outside the scanned tree"
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    if len(data) > max_size:  # it grew since discovery
        return None, f"larger than the size limit (> {max_size} bytes)"
    if file.kind == BINARY_KIND:  # a prebuilt library or program: its headers are read, bounded (extract/binary.py)
        return data, None
    data = data.removeprefix(BOM)
    nul = data.find(b"\0")
    if 0 <= nul < BINARY_PROBE:
        return None, "binary file (contains NUL bytes)"
    if nul >= 0:
        return None, f"binary file (a NUL byte at offset {nul})"
    if file.kind in BYTE_PARSED and (generated := nvcc_intermediate(file.rel, data)):
        return None, generated
    if file.kind not in BYTE_PARSED:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, f"not valid UTF-8 text (byte {exc.start})"
    return data, None
