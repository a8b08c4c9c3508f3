"""Shared helpers for the line-oriented extractors (build, dependency, container files)."""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from migrate.model import Extraction, Fact, build_fact

FLAG = re.compile(r"(?<![\w-])(-{1,2}[A-Za-z][\w-]*)(?:=([^\s\"');,]+)|(?=[ \t]+([^\s\"');,-][^\s\"');,]*)))?")
# A whole string that is an NVIDIA architecture option (`--gpu-architecture=compute_80`, `-arch=sm_{}`,
# `-gencode=arch=compute_...`): NVRTC options and nvcc arguments built in Python or C++ code.
ARCH_OPTION = re.compile(r"^(?:(?:--gpu-architecture|-arch)[= ]?(?:sm|compute|lto)_[0-9a-z{}%]*"
                         r"|(?:-gencode|--generate-code)[= ]?arch=(?:sm|compute)_.*)$", re.DOTALL)
# A shell word: runs of unquoted characters, escapes and quoted strings.
WORD = re.compile(r"""(?:[^\s"'\\;&|()`]|\\.|"(?:[^"\\]|\\.)*"|'[^']*')+|[;&|()`]+""")
SEPARATOR = re.compile(r"^[;&|()`]+$")
# The reserved words that open a shell block (a compound command) and those that close one, for every reader of shell
# blocks (autoconf.py's configure script, host_tools.py's presence tests):
# https://pubs.opengroup.org/onlinepubs/9799919799/utilities/V3_chap02.html#tag_19_09_04
SHELL_OPENS = ("if", "case", "for", "while", "until")
SHELL_CLOSES = ("fi", "esac", "done")


def numbered(text: str, *, strip_hash_comments: bool = True) -> Iterator[tuple[int, str, str]]:
    """(1-based line number, line without a # comment, original line)."""
    for number, line in enumerate(text.split("\n"), start=1):
        start = hash_comment_start(line, True) if strip_hash_comments else -1
        yield number, line[:start] if start >= 0 else line, line


def code_lines(text: str) -> list[str]:
    """A shell-like text's lines with their `#` comments taken off (`hash_comment_start`: at a word's start, outside
    quotes, so `${1#--}` and `"#"` stay; a shebang is a comment)."""
    return [code for _, code, _ in numbered(text)]


def fact(kind: str, name: str, line: int, start: int, end: int, *, text: str = "", role: str = "") -> Fact:
    """A fact on one line; start/end are 0-based character offsets. Made by `build_fact` (Fact's fields in order):
    the line extractors make one for every flag and command of a build file, and Fact's keyword __init__ cost twice
    as much (its __init__ was 0.95 % of the workers' py-spy samples in a first scan of cuda-samples)."""
    return build_fact((kind, name, line, start + 1, line, end + 1, role, text, None, None, None))


def flags(line: str, number: int, column: int = 0) -> list[Fact]:
    """Every flag on a line, with its value in the text (`-arch=sm_80`, `-x cu`): the rules decide
    which are nvcc's (a rule's `value:` tells `-arch sm_80` from macOS's `-arch x86_64`). `column`: where
    `line` starts on its physical line (a piece of a longer line is not padded: padding is quadratic)."""
    return [fact("flag", m.group(1), number, column + m.start(), column + m.end(), text=flag_text(m))
            for m in FLAG.finditer(line)]


def flag_text(m: re.Match[str]) -> str:
    """The flag with its value: `-arch=sm_80` as written, `-x cu` for a value after a space."""
    return f"{m.group(1)} {m.group(3)}" if m.group(3) else m.group(0)


# An entry point's object reference (https://packaging.python.org/en/latest/specifications/entry-points/):
# `name = module.path:attr.path [extras]`; the function called is the last part of attr.path
ENTRY_POINT = re.compile(r"^\s*[^=\s][^=]*?\s*=\s*([A-Za-z_][\w.]*)\s*:\s*([A-Za-z_][\w.]*)\s*(?:\[[^\]]*\])?\s*$")


def entry_point(spec: str, number: int, start: int, end: int) -> Fact | None:
    """An `entry_point` fact for an object reference, or None when the text is not one."""
    m = ENTRY_POINT.match(spec)
    return fact("entry_point", m.group(2).rpartition(".")[2], number, start, end, text=m.group(1)) if m else None


LINE_TEXT_CHARS = 4096  # a longer line keeps its first 4096 characters (fingerprints stay linear in the file)


def line_texts(lines: list[str], facts: list[Fact], *, cell: int | None = None) -> dict[tuple[int, int], str]:
    """The stripped source line of each fact (of one cell), for fingerprints and snippets."""
    numbers = {f.line for f in facts if f.cell == cell and 0 < f.line <= len(lines)}
    return {(cell or 0, n): lines[n - 1].strip()[:LINE_TEXT_CHARS] for n in sorted(numbers)}


def finish(text: str, facts: list[Fact], notes: list[str] | None = None) -> Extraction:
    lines = text.split("\n")
    return Extraction(facts=tuple(facts), lines=len(lines), line_text=line_texts(lines, facts),
                      notes=tuple(notes or ()))


@dataclass(frozen=True, slots=True)
class Logical:
    """Physical lines joined at trailing backslashes, with a map back to (line, column)."""

    text: str
    pieces: tuple[tuple[int, int, int], ...]  # (offset in text, 1-based line, 0-based column)

    @property
    def line(self) -> int:
        return self.pieces[0][1]

    def _piece(self, offset: int) -> int:
        """Index of the piece holding `offset` (a binary search: continuations can run to 100k lines)."""
        return max(0, bisect.bisect_right(self.pieces, (offset, float("inf"), 0)) - 1)

    def where(self, offset: int) -> tuple[int, int]:
        start, line, column = self.pieces[self._piece(offset)]
        if offset < start:
            return line, column
        return line, column + offset - start

    def fact(self, kind: str, name: str, start: int, end: int, *, text: str = "") -> Fact:
        """A fact for text[start:end], clipped to the physical line it starts on."""
        line, column = self.where(start)
        index = self._piece(start)
        piece_end = (self.pieces[index + 1][0] if index + 1 < len(self.pieces) else len(self.text)) - 1
        return fact(kind, name, line, column, column + max(1, min(end, piece_end) - start), text=text)

    def words(self, start: int = 0, end: int | None = None) -> list[tuple[int, int, str]]:
        """Shell words of a slice as (start, end, unquoted value); separators come back as words too."""
        stop = len(self.text) if end is None else end
        return [(m.start(), m.end(), unquote(m.group(0))) for m in WORD.finditer(self.text, start, stop)]


def logical_lines(text: str, *, strip_comments: bool = True, dockerfile: bool = False) -> Iterator[Logical]:
    """Logical lines; in a Dockerfile, comment and blank lines inside a continuation are dropped."""
    parts: list[str] = []
    pieces: list[tuple[int, int, int]] = []
    offset = 0
    for number, line, original in numbered(text, strip_hash_comments=strip_comments):
        if dockerfile and pieces and (not original.strip() or original.lstrip().startswith("#")):
            continue
        body = line.rstrip()
        continued = body.endswith("\\") and not body.endswith("\\\\")
        if continued:
            body = body[:-1]
        if not pieces and not body.strip():
            continue
        pieces.append((offset, number, 0))
        parts.append(body + " ")
        offset += len(body) + 1
        if not continued:
            yield Logical("".join(parts), tuple(pieces))
            parts, pieces, offset = [], [], 0
    if pieces:
        yield Logical("".join(parts), tuple(pieces))


def commands(words: list[tuple[int, int, str]]) -> Iterator[list[tuple[int, int, str]]]:
    """Split shell words into simple commands at ; && || | & ( ) and backticks."""
    current: list[tuple[int, int, str]] = []
    for word in words:
        if SEPARATOR.match(word[2]):
            if current:
                yield current
            current = []
        else:
            current.append(word)
    if current:
        yield current


def unquote(word: str) -> str:
    out, i = [], 0
    while i < len(word):
        c = word[i]
        if c in "\"'":
            close = word.find(c, i + 1)
            while c == '"' and close > 0 and word[close - 1] == "\\":
                close = word.find(c, close + 1)
            close = len(word) if close < 0 else close
            out.append(word[i + 1:close])
            i = close + 1
        elif c == "\\" and i + 1 < len(word):
            out.append(word[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def hash_comment_start(line: str, quotes: bool) -> int:
    """Where a '#' comment starts on a line: at the start of a word, outside quotes; -1 if none."""
    quote, i = "", 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = ""
        elif char == "\\" and quotes:
            i += 1
        elif char in "'\"" and quotes:
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return i
        i += 1
    return -1


def split_args(args: str) -> list[str]:
    """`args` split at the commas outside parentheses and braces: a Make function's arguments (commas inside nested
    references kept), a Fortran declaration's attributes (`real(kind=8), dimension(n, m), device`)."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(args):
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(args[start:i])
            start = i + 1
    out.append(args[start:])
    return out
