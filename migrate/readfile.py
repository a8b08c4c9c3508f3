"""Reading one file for extraction: the size limit, binary content, and UTF-8 where it matters.

Shared by scan and lint; imports nothing heavy."""
from __future__ import annotations

from migrate.model import SourceFile

BINARY_PROBE = 8192
BYTE_PARSED = frozenset({"cuda", "cpp", "hip"})  # tree-sitter reads bytes: Latin-1 comments do not stop a scan


def read(file: SourceFile, max_size: int) -> tuple[bytes | None, str | None]:
    """The file's bytes, or None and the reason it is skipped."""
    if file.size > max_size:
        return None, f"larger than the size limit ({file.size} > {max_size} bytes)"
    try:
        data = file.path.read_bytes()
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    if b"\0" in data[:BINARY_PROBE]:
        return None, "binary file (contains NUL bytes)"
    if file.kind not in BYTE_PARSED:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, f"not valid UTF-8 text (byte {exc.start})"
    return data, None
