"""extract, Jupyter notebooks: each code cell as Python, located by cell and line."""
from __future__ import annotations

import json
import re

from migrate.extract.python import extractor as python_ast
from migrate.extract.text.lines import fact, line_texts
from migrate.model import Extraction, Fact

MAGIC = re.compile(r"^\s*[!%]")


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
    line_text: dict[tuple[int, int], str] = {}
    total = 0
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
        total += len(lines)
        cell_facts = _shell_lines(lines, number)
        code = "\n".join("" if MAGIC.match(line) else line for line in lines)
        try:
            found, cell_notes = python_ast.extract_text(code, cell=number)
            cell_facts += found
            notes += [f"cell {number}: {n}" for n in cell_notes]
        except SyntaxError as exc:
            notes.append(f"cell {number}: Python syntax error at line {exc.lineno}: {exc.msg}; cell skipped")
        facts += cell_facts
        line_text.update(line_texts(lines, cell_facts, cell=number))
    return Extraction(facts=tuple(facts), lines=total, line_text=line_text, notes=tuple(notes))


def _shell_lines(lines: list[str], cell: int) -> list[Fact]:
    out = []
    for number, line in enumerate(lines, start=1):
        if MAGIC.match(line) and (col := line.find("nvidia-smi")) >= 0:
            base = fact("construct", "subprocess-nvidia-smi", number, col, col + len("nvidia-smi"), text="nvidia-smi")
            out.append(Fact(**{**{s: getattr(base, s) for s in base.__slots__}, "cell": cell}))
    return out
