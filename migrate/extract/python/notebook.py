"""extract, Jupyter notebooks: the code cells as one Python module, each fact located by cell and line.

A notebook's cells run in one namespace, in order (IPython's kernel runs each cell with InteractiveShell.run_cell in
the one user namespace, `user_ns`: https://ipython.readthedocs.io/en/latest/api/generated/IPython.core.interactiveshell.html):
a name imported in one cell is the same object in every later cell
(`from torch.utils.cpp_extension import load_inline` in cell 1, `load_inline(cuda_sources=...)` in cell 2). The cells
that parse are read together, as a script of those cells in order, so a call resolves through an earlier cell's import
(each cell is parsed once: the module is the cells' trees, each moved down to its lines of the joined text); a cell that
does not parse is skipped with a note, as before."""
from __future__ import annotations

import ast
import bisect
import dataclasses
import json
import re

from migrate.extract.python import extractor as python_ast
from migrate.extract.text.lines import fact, line_texts
from migrate.model import Extraction, Fact

MAGIC = re.compile(r"^\s*[!%]")


@dataclasses.dataclass(frozen=True, slots=True)
class _Cell:
    number: int
    lines: list[str]
    code: str  # the cell with its IPython magic and shell lines blanked
    tree: ast.Module  # the parse of code


def extract(source: bytes) -> Extraction:
    try:
        document = json.loads(source.decode("utf-8"))
    except ValueError as exc:
        return Extraction(facts=(), lines=0, error=f"not a notebook (invalid JSON): {exc}")
    cells = document.get("cells", []) if isinstance(document, dict) else None
    if not isinstance(cells, list):
        return Extraction(facts=(), lines=0, error="not a notebook (no list of cells)")
    facts: list[Fact] = []
    notes: list[str] = []
    texts: list[tuple[int, list[str]]] = []  # every code cell's lines, parsed or not
    code_cells: list[_Cell] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        raw = cell.get("source", "")
        if isinstance(raw, list) and all(isinstance(part, str) for part in raw):
            text = "".join(raw)
        elif isinstance(raw, str):
            text = raw
        else:
            notes.append(f"cell {number}: its source is not text; cell skipped")
            continue
        lines = text.split("\n")
        texts.append((number, lines))
        facts += _shell_lines(lines, number)
        code = "\n".join("" if MAGIC.match(line) else line for line in lines)
        if (tree := _parse(code, number, notes)) is not None:
            code_cells.append(_Cell(number, lines, code, tree))
    facts += _joined(code_cells, notes)
    by_cell: dict[int | None, list[Fact]] = {}
    for f in facts:
        by_cell.setdefault(f.cell, []).append(f)
    line_text: dict[tuple[int, int], str] = {}
    for number, lines in texts:
        line_text.update(line_texts(lines, by_cell.get(number, []), cell=number))
    total = sum(len(lines) for _, lines in texts)
    return Extraction(facts=tuple(facts), lines=total, line_text=line_text, notes=tuple(notes))


def _parse(code: str, number: int, notes: list[str]) -> ast.Module | None:
    try:
        return python_ast.parse(code)
    except SyntaxError as exc:
        notes.append(f"cell {number}: Python syntax error at line {exc.lineno}: {exc.msg}; cell skipped")
        return None


def _joined(cells: list[_Cell], notes: list[str]) -> list[Fact]:
    """The facts of the cells read as one module, each moved back to its cell and line."""
    if not cells:
        return []
    starts: list[int] = []  # the 0-based line of the joined text where each cell starts
    body: list[ast.stmt] = []
    at = 0
    for cell in cells:
        starts.append(at)
        body += ast.increment_lineno(cell.tree, at).body
        at += len(cell.lines)
    module = ast.Module(body=body, type_ignores=[])
    found, module_notes = python_ast.extract_tree(module, "\n".join(c.code for c in cells))
    for note in module_notes:
        notes.append(_cell_note(note, cells, starts))
    out = []
    for f in found:
        index = _cell_at(starts, f.line)
        start, cell = starts[index], cells[index]
        end_line = min(f.end_line - start, len(cell.lines))
        out.append(dataclasses.replace(f, line=f.line - start, end_line=max(end_line, f.line - start),
                                       cell=cell.number))
    return out


LINE_NOTE = re.compile(r"^line (\d+): ")


def _cell_note(note: str, cells: list[_Cell], starts: list[int]) -> str:
    """A note of the joined module (`line N: ...`) said of its cell and the line in it."""
    m = LINE_NOTE.match(note)
    if not m:
        return note
    line = int(m.group(1))
    index = _cell_at(starts, line)
    return f"cell {cells[index].number}: line {line - starts[index]}: {note[m.end():]}"


def _cell_at(starts: list[int], line: int) -> int:
    """The index of the cell holding 1-based `line` of the joined text."""
    return max(0, bisect.bisect_right(starts, line - 1) - 1)


def _shell_lines(lines: list[str], cell: int) -> list[Fact]:
    out = []
    for number, line in enumerate(lines, start=1):
        if MAGIC.match(line) and (col := line.find("nvidia-smi")) >= 0:
            base = fact("construct", "subprocess-nvidia-smi", number, col, col + len("nvidia-smi"), text="nvidia-smi")
            out.append(Fact(**{**{s: getattr(base, s) for s in base.__slots__}, "cell": cell}))
    return out
