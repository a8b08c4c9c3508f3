"""Text from a scanned repository made safe to print on a terminal (file names, symbols,
workload names and configuration keys can carry escape sequences and bidi overrides).
Imports nothing heavy: lint and every command use it."""
from __future__ import annotations

import dataclasses
import re
from typing import TypeVar, cast

T = TypeVar("T")

# C0 and C1 controls (tab and newline included: callers escape one field at a time), DEL,
# bidirectional and zero-width format characters, separators that end lines, and the lone
# surrogates that stand for undecodable bytes in file names.
TERMINAL_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")


def terminal(text: object) -> str:
    """Text from a scanned repository made safe to print: escape sequences, bidi overrides and
    undecodable bytes are shown as `\\x1b`, `\\u202e`, `\\xff` instead of acting on the terminal."""
    return TERMINAL_UNSAFE.sub(_code, str(text))


def terminal_lines(text: str) -> str:
    """terminal() for every line of a multi-line text, keeping the line breaks."""
    return "\n".join(terminal(line) for line in text.split("\n"))


def _code(m: re.Match[str]) -> str:
    point = ord(m.group(0))
    if 0xDC80 <= point <= 0xDCFF:  # surrogateescape of a byte that was not UTF-8
        return f"\\x{point - 0xDC00:02x}"
    return f"\\x{point:02x}" if point <= 0xFF else f"\\u{point:04x}"


UNDECODABLE = re.compile("[\ud800-\udfff]")


def unicode_text(text: str) -> str:
    """Text that encodes as UTF-8: the lone surrogates that stand for undecodable bytes of a file
    name become U+FFFD (reports are UTF-8 files; SARIF URIs keep the exact bytes, percent-encoded)."""
    return UNDECODABLE.sub("\ufffd", text)


def sanitized(value: T) -> T:
    """A copy of a report (or any tree of frozen dataclasses, tuples, lists and dicts) with every
    string passed through terminal(): what the terminal summary prints, whatever field it takes."""
    return cast(T, _sanitized(value, {}))


def _sanitized(value: object, seen: dict[int, object]) -> object:
    if isinstance(value, str):
        return terminal(value)
    if id(value) in seen:
        return seen[id(value)]
    result: object = value
    if isinstance(value, tuple | list):
        result = type(value)(_sanitized(v, seen) for v in value)
    elif isinstance(value, dict):
        result = {_sanitized(k, seen): _sanitized(v, seen) for k, v in value.items()}
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _sanitized(getattr(value, f.name), seen) for f in dataclasses.fields(value) if f.init}
        result = dataclasses.replace(value, **changes)
    seen[id(value)] = result
    return result
