"""Which parts of a C/C++/CUDA line are code, comment or string literal.

hipify-perl works on raw text, so to judge its output we need to know, per line, where
a name sits. A small lexer is enough: `//` and `/* */` comments (with backslash line
continuations), string and character literals with escapes, raw strings `R"d(...)d"`,
digit separators (`1'000`), and `#include "x.h"` (an include, not a string)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

CODE, COMMENT, STRING = "code", "comment", "string"
_INCLUDE = re.compile(r"[ \t]*#[ \t]*include\b")
_RAW = re.compile(r'"([^ ()\\\t\n]{0,16})\(')
_NOT_NEWLINE = re.compile(r"[^\n]")


@dataclass(frozen=True, slots=True)
class Masked:
    """Three copies of the text, each the same length as the original: only code, only
    comments, only string-literal characters kept (everything else blanked, newlines kept)."""

    code: str
    comment: str
    string: str

    def lines(self, part: str) -> list[str]:
        return {CODE: self.code, COMMENT: self.comment, STRING: self.string}[part].split("\n")


def mask(text: str) -> Masked:
    spans = _spans(text)
    parts = {CODE: [], COMMENT: [], STRING: []}  # type: dict[str, list[str]]
    at = 0
    for start, end, cls in [*spans, (len(text), len(text), CODE)]:
        for part, out in parts.items():
            out.append(text[at:start] if part == CODE else _blank(text[at:start]))
            out.append(text[start:end] if part == cls else _blank(text[start:end]))
        at = end
    return Masked(code="".join(parts[CODE]), comment="".join(parts[COMMENT]), string="".join(parts[STRING]))


def _blank(segment: str) -> str:
    return _NOT_NEWLINE.sub(" ", segment)


def plain(text: str) -> Masked:
    """For files that are not C/C++ (a Python file with embedded CUDA): all of it is code."""
    blank = _blank(text)
    return Masked(code=text, comment=blank, string=blank)


@lru_cache(maxsize=4096)
def word(name: str) -> re.Pattern[str]:
    """`name` as a whole word, as hipify-perl's `\\bname\\b` sees it."""
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")


def words(names: frozenset[str]) -> re.Pattern[str] | None:
    """One pattern for many whole-word names, longest first."""
    if not names:
        return None
    alternation = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternation})(?!\w)")


def where(name: str, masked_lines: dict[str, str]) -> frozenset[str]:
    """The parts of one line ({part: masked line}) where `name` is a whole word."""
    pattern = word(name)
    return frozenset(part for part, line in masked_lines.items() if pattern.search(line))


def _spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, COMMENT or STRING) for every comment and literal, in order."""
    out: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    include_line = bool(_INCLUDE.match(text, 0))
    while i < n:
        ch = text[i]
        if ch == "\n":
            include_line = bool(_INCLUDE.match(text, i + 1))
            i += 1
            continue
        two = text[i:i + 2]
        if two == "//":
            end, cls = _line_comment_end(text, i), COMMENT
        elif two == "/*":
            close = text.find("*/", i + 2)
            end, cls = (n if close < 0 else close + 2), COMMENT
        elif ch == '"' and not include_line:
            end, cls = _raw_string_end(text, i) or _quoted_end(text, i, '"'), STRING
        elif ch == "'" and not _digit_separator(text, i):
            end, cls = _quoted_end(text, i, "'"), STRING
        else:
            i += 1
            continue
        out.append((i, end, cls))
        i = end
    return out


def _raw_string_end(text: str, i: int) -> int | None:
    if i == 0 or text[i - 1] != "R":
        return None
    m = _RAW.match(text, i)
    if not m:
        return None
    close = text.find(f"){m.group(1)}\"", m.end())
    return len(text) if close < 0 else close + len(m.group(1)) + 2


def _line_comment_end(text: str, i: int) -> int:
    while True:
        end = text.find("\n", i)
        if end < 0:
            return len(text)
        if text[end - 1] == "\\" or text[end - 2:end] == "\\\r":
            i = end + 1
            continue
        return end


def _quoted_end(text: str, i: int, quote: str) -> int:
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == quote:
            return j + 1
        if c == "\n":  # unterminated: stop at the end of the line
            return j
        j += 1
    return len(text)


def _digit_separator(text: str, i: int) -> bool:
    """`1'000'000` or `0xFF'FF`: the quote sits inside a number token."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_'."):
        j -= 1
    return j < i and text[j].isdigit()
