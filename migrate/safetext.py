r"""Text from a scanned repository made safe to show: the one escaping policy of every output.

File names, symbols, workload names and configuration keys can carry escape sequences, bidi
overrides (Trojan Source), tag characters and undecodable bytes. Every output shows them
visibly (`\x1b`, `\u202e`, `\U000e0041`, `\xff`): the terminal and lint (`terminal`), HTML and
Markdown (`visible`, `visible_data`), CSV (`csv_cell`: also no formula, every field quoted by
the caller); JSON outputs keep the exact value but write those characters as `\uXXXX` escapes
(`json_escaped`). Imports nothing heavy: lint and every command use it."""
from __future__ import annotations

import dataclasses
import re

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")

# C0 and C1 controls (tab and newline included: callers escape one field at a time), DEL,
# bidirectional and zero-width format characters, separators that end lines, and the lone
# surrogates that stand for undecodable bytes in file names.
UNSAFE_CHARS = ("\x7f-\x9f\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\u3164\ufeff\ufff9-\ufffb"
                "\U000e0000-\U000e007f")
SURROGATES = "\ud800-\udfff"  # undecodable bytes of a file name
TERMINAL_UNSAFE = re.compile(f"[\x00-\x1f{UNSAFE_CHARS}{SURROGATES}]")
# The same, but for text whose line breaks and tabs are layout (HTML, a code snippet).
DISPLAY_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f{UNSAFE_CHARS}{SURROGATES}]")
# In JSON text, outside the controls json.dumps escapes itself (surrogates become U+FFFD when written).
JSON_UNSAFE = re.compile(f"[{UNSAFE_CHARS}]")
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def terminal(text: object) -> str:
    """Text from a scanned repository made safe to print: escape sequences, bidi overrides and
    undecodable bytes are shown as `\\x1b`, `\\u202e`, `\\xff` instead of acting on the terminal."""
    return TERMINAL_UNSAFE.sub(_code, str(text))


def terminal_lines(text: str) -> str:
    """terminal() for every line of a multi-line text, keeping the line breaks."""
    return "\n".join(terminal(line) for line in text.split("\n"))


def visible(text: object) -> str:
    """terminal() that keeps line breaks and tabs: for HTML and snippets of code."""
    return DISPLAY_UNSAFE.sub(_code, str(text))


def visible_data(value: T) -> T:
    """A copy of plain data (dicts, lists, tuples, strings) with every string passed through
    visible(): what an HTML page's embedded JSON holds, since a script puts it into the page."""
    if isinstance(value, str):
        return visible(value)  # type: ignore[return-value]
    if isinstance(value, dict):
        return {visible_data(k): visible_data(v) for k, v in value.items()}  # type: ignore[return-value]
    if isinstance(value, list | tuple):
        return type(value)(visible_data(v) for v in value)
    return value


def csv_cell(value: object) -> object:
    """A CSV cell: text shown visibly, and a leading = + - @ tab or carriage return made text
    (CSV injection: a spreadsheet would run it as a formula). The writer quotes every field."""
    if not isinstance(value, str):
        return value
    return "'" + terminal(value) if value.startswith(FORMULA_LEADS) else terminal(value)


def json_escaped(text: str) -> str:
    """JSON text (from json.dumps with ensure_ascii=False) with bidi, tag, C1 and other invisible
    characters written as \\uXXXX escapes: the same value for a reader, nothing raw on a screen."""
    if text.isascii() and "\x7f" not in text:  # DEL: the one ASCII character of JSON_UNSAFE
        return text  # two scans at C speed instead of the regex engine's step per character
    return JSON_UNSAFE.sub(_json_code, text)


def _json_code(m: re.Match[str]) -> str:
    point = ord(m.group(0))
    if point > 0xFFFF:
        point -= 0x10000
        return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"
    return f"\\u{point:04x}"


def _code(m: re.Match[str]) -> str:
    point = ord(m.group(0))
    if 0xDC80 <= point <= 0xDCFF:  # surrogateescape of a byte that was not UTF-8
        return f"\\x{point - 0xDC00:02x}"
    if point > 0xFFFF:
        return f"\\U{point:08x}"
    return f"\\x{point:02x}" if point <= 0xFF else f"\\u{point:04x}"


UNDECODABLE = re.compile("[\ud800-\udfff]")


def unicode_text(text: str) -> str:
    """Text that encodes as UTF-8: the lone surrogates that stand for undecodable bytes of a file
    name become U+FFFD (reports are UTF-8 files; SARIF URIs keep the exact bytes, percent-encoded)."""
    if text.isascii():  # a flag of the string: no lone surrogate
        return text
    try:
        text.encode("utf-8")  # a third of the substitution's time over a whole report; fails only on a surrogate
    except UnicodeEncodeError:
        return UNDECODABLE.sub("\ufffd", text)
    return text


def unicode_bytes(text: str) -> bytes:
    """`unicode_text(text).encode("utf-8")`, encoded once: the check's encoding is the result (a rendered report
    of 16 MB was encoded twice)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return UNDECODABLE.sub("\ufffd", text).encode("utf-8")


def sanitized(value: T) -> T:
    """A copy of a report (or any tree of frozen dataclasses, tuples, lists and dicts) with every
    string passed through terminal(): what the terminal summary prints, whatever field it takes."""
    return _sanitized(value, {})  # type: ignore[return-value]


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
