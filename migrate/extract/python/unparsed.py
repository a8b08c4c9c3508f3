"""extract, Python that does not parse: a line-level reading of a .py file Python 3 rejects (Python 2 code with print
statements, a listing cut from an interactive session, CUDA C saved under .py). Such a file still imports what it
imports and still hands its kernel strings to a run-time compiler; only these two are read, by lines: the import
statements outside strings, and the CUDA source (KERNEL_MARKERS) of its triple-quoted strings, or of the whole file
when it holds no such string and declares a kernel on a line of its own."""
from __future__ import annotations

import re

from migrate.extract.names import alternatives
from migrate.model import Fact

_MARKERS = alternatives("python", "kernel_markers")
KERNEL = re.compile(rf"(?<![\w]){_MARKERS}(?![\w])")
# a triple-quoted literal with its prefix: the prefix, the quote, the content
TRIPLE = re.compile(r"""(?<![\w'"])([rRuUbBfF]{0,2})('''|\"\"\")(.*?)\2""", re.DOTALL)
IMPORT = re.compile(r"^([ \t]*)import[ \t]+([A-Za-z_][\w.]*(?:[ \t]+as[ \t]+\w+)?"
                    r"(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*(?:[ \t]+as[ \t]+\w+)?)*)[ \t]*(?:#.*)?$")
FROM = re.compile(r"^([ \t]*)from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+\(?([\w, \t]+|\*)\)?[ \t]*(?:#.*)?$")
# a line of C that declares a kernel: `__global__ void f(`, `extern "C" __global__`
KERNEL_LINE = re.compile(rf"^\s*(?:extern\s+\"C\"\s+)?{KERNEL.pattern}", re.MULTILINE)


def facts(text: str, cell: int | None = None) -> tuple[list[Fact], list[str]]:
    """The imports and embedded CUDA facts of a Python file that does not parse, and notes."""
    from migrate.extract.budget import WorkExceeded
    from migrate.extract.c import cuda_cpp

    literals = list(TRIPLE.finditer(text))
    spans = [(m.start(), m.end()) for m in literals]
    out = _imports(text, spans, cell)
    notes: list[str] = []
    pieces = [(m.start(3), m.group(3)) for m in literals if KERNEL.search(m.group(3))]
    if not spans and KERNEL_LINE.search(text):
        pieces = [(0, text)]
    for start, piece in pieces:
        row0 = text.count("\n", 0, start)
        col0 = start - (text.rfind("\n", 0, start) + 1)
        try:
            found, snippet_notes = cuda_cpp.extract_snippet(piece.encode(), row0=row0, col0=col0, cell=cell)
        except WorkExceeded as exc:
            notes.append(f"line {row0 + 1}: embedded CUDA source not analysed ({exc})")
            continue
        out += found
        notes += snippet_notes
    return out, notes


def _imports(text: str, spans: list[tuple[int, int]], cell: int | None) -> list[Fact]:
    out: list[Fact] = []
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        start, offset = offset, offset + len(line) + 1
        if any(a <= start < b for a, b in spans):
            continue
        if m := IMPORT.match(line):
            for part in m.group(2).split(","):
                name = part.split()[0]
                out.append(_fact(name, "", number, len(m.group(1)), line, cell))
        elif m := FROM.match(line):
            imported = "\n".join(n.split()[0] for n in m.group(3).split(",") if n.strip() and n.strip() != "*")
            out.append(_fact(m.group(2), imported, number, len(m.group(1)), line, cell))
    return out


def _fact(name: str, imported: str, line: int, indent: int, text: str, cell: int | None) -> Fact:
    return Fact(kind="python_import", name=name, text=imported, cell=cell, line=line, column=indent + 1,
                end_line=line, end_column=len(text.rstrip()) + 1)
