"""The comments of a source file, read as real tokens: tree-sitter comment nodes for C/C++/CUDA,
tokenize COMMENT tokens for Python and notebooks, Fortran's `!` comments as its reader finds them, and quote-aware
`#` comments for the line-oriented kinds (CMake, Dockerfile, YAML, TOML, shell, Makefile, requirements)."""
from __future__ import annotations

import io
import json
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

from migrate.extract.text.lines import hash_comment_start
from migrate.vocabulary import C_SOURCE_KINDS

MAGIC = re.compile(r"^\s*[!%]")  # notebook shell and magic lines, as in extract/python/notebook.py


@dataclass(frozen=True, slots=True, kw_only=True)
class Comment:
    line: int  # 1-based
    column: int  # 1-based, in characters
    end_line: int
    text: str
    standalone: bool  # nothing but whitespace before it on its line
    lines: tuple[str, ...]  # the stripped text of lines line..end_line
    cell: int | None = None

    def line_text(self, line: int) -> str:
        return self.lines[line - self.line] if self.line <= line <= self.end_line else ""


def of(kind: str, source: bytes) -> list[Comment]:
    """Every comment of one file of the given kind (a file kind from migrate.scan.discover)."""
    if kind in C_SOURCE_KINDS:
        from migrate.extract.budget import BudgetExceeded, WorkExceeded

        try:
            return c_comments(source)
        except (WorkExceeded, BudgetExceeded):  # a file tree-sitter cannot parse in bounded time
            return []
    if kind == "binary":  # a prebuilt library or program: bytes, no comments (a marker there suppresses nothing)
        return []
    text = source.decode("utf-8", "replace")
    if kind == "python":
        return python_comments(text)
    if kind == "notebook":
        return notebook_comments(text)
    if kind == "requirements":
        return hash_comments(text, quotes=False)  # pip: '#' at the start or after whitespace
    if kind == "setupcfg":
        return hash_comments(text, full_line=True)  # configparser: whole-line '#' and ';' comments
    if kind in FORTRAN_KINDS:
        return fortran_comments(text, fixed=kind == "fortran_fixed")
    return hash_comments(text)


FORTRAN_KINDS = ("fortran", "fortran_fixed")


def fortran_comments(text: str, *, fixed: bool) -> list[Comment]:
    from migrate.extract.text import fortran

    rows = text.split("\n")
    return [Comment(line=line, column=column + 1, end_line=line, text=comment,
                    standalone=not rows[line - 1][:column].strip(), lines=(rows[line - 1].strip(),))
            for line, column, comment in fortran.comments(text, fixed=fixed)]


def c_comments(source: bytes) -> list[Comment]:
    rows = source.split(b"\n")
    out = []
    for (r1, c1), (r2, _), text in sorted(_c_spans(source, 0, 0)):
        prefix = rows[r1][:c1]
        out.append(Comment(
            line=r1 + 1, column=len(prefix.decode("utf-8", "replace")) + 1, end_line=r2 + 1,
            text=text.decode("utf-8", "replace"), standalone=not prefix.strip(),
            lines=tuple(r.decode("utf-8", "replace").strip() for r in rows[r1:r2 + 1]),
        ))
    return out


def _c_spans(source: bytes, row0: int, col0: int) -> Iterator[tuple[tuple[int, int], tuple[int, int], bytes]]:
    """(start, end, text) of comment nodes, as (row, byte column) of the outer file. A macro's
    body is raw text to tree-sitter, so it is parsed again, as cuda_cpp does for its facts."""
    from migrate.extract.c import ts

    def shift(point: tuple[int, int]) -> tuple[int, int]:
        return row0 + point[0], point[1] + (col0 if point[0] == 0 else 0)

    caps = ts.captures("comments", ts.parse(source))
    for node in caps.get("comment", []):
        yield shift(node.start_point), shift(node.end_point), source[node.start_byte:node.end_byte]
    for node in caps.get("macro", []):
        body = source[node.start_byte:node.end_byte]
        if b"/" in body:
            yield from _c_spans(body, *shift(node.start_point))


def python_comments(text: str, *, cell: int | None = None) -> list[Comment]:
    lines = text.split("\n")
    out = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                row, col = token.start
                out.append(Comment(line=row, column=col + 1, end_line=row, text=token.string,
                                   standalone=not token.line[:col].strip(), lines=(lines[row - 1].strip(),),
                                   cell=cell))
    except (tokenize.TokenError, SyntaxError):
        pass  # the comments before the error still count; the extractor reports the error
    return out


def notebook_comments(text: str) -> list[Comment]:
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return []
    out: list[Comment] = []
    for number, cell in enumerate(cells, start=1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            raw = cell.get("source", "")
            code = "".join(raw) if isinstance(raw, list) else str(raw)
            lines = code.split("\n")
            python = "\n".join("" if MAGIC.match(line) else line for line in lines)
            shell = "\n".join(line if MAGIC.match(line) else "" for line in lines)
            out += python_comments(python, cell=number) + hash_comments(shell, cell=number)
    return sorted(out, key=lambda c: (c.cell or 0, c.line, c.column))


def hash_comments(text: str, *, quotes: bool = True, full_line: bool = False,
                  cell: int | None = None) -> list[Comment]:
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        if full_line:
            start = len(line) - len(line.lstrip()) if line.lstrip()[:1] in ("#", ";") else -1
        else:
            start = hash_comment_start(line, quotes)
        if start >= 0:
            out.append(Comment(line=number, column=start + 1, end_line=number, text=line[start:],
                               standalone=not line[:start].strip(), lines=(line.strip(),), cell=cell))
    return out


