"""Shared helpers for the line-oriented extractors (build, dependency, container files)."""
from __future__ import annotations

import re
from typing import Iterator

from migrate.model import Extraction, Fact

HASH_COMMENT = re.compile(r"(^|\s)#.*$")
FLAG = re.compile(r"(?<![\w-])(-{1,2}[A-Za-z][\w-]*)(?:=([^\s\"');,]+)|(?=[ \t]+([^\s\"');,-][^\s\"');,]*)))?")
# Flags that only belong to nvcc when their value names an NVIDIA target (-arch x86_64 is macOS).
NVIDIA_TARGET_FLAGS = frozenset({"-arch", "--gpu-architecture", "-code"})
NVIDIA_TARGET = re.compile(r"^(sm|compute|lto)_\d+[a-z]?|^(native|all|all-major)$")


def numbered(text: str, *, strip_hash_comments: bool = True) -> Iterator[tuple[int, str, str]]:
    """(1-based line number, line without a # comment, original line)."""
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, HASH_COMMENT.sub("", line) if strip_hash_comments else line, line


def fact(kind: str, name: str, line: int, start: int, end: int, *, text: str = "", role: str = "") -> Fact:
    """A fact on one line; start/end are 0-based character offsets."""
    return Fact(kind=kind, name=name, line=line, column=start + 1, end_line=line, end_column=end + 1,
                text=text, role=role)


def flags(line: str, number: int, wanted: re.Pattern[str]) -> list[Fact]:
    """Compiler flags on a line whose name matches `wanted` (-gencode, -arch, --use_fast_math ...)."""
    out = []
    for m in FLAG.finditer(line):
        name, value = m.group(1), m.group(2) or m.group(3) or ""
        if not wanted.match(name) or name in NVIDIA_TARGET_FLAGS and not NVIDIA_TARGET.match(value):
            continue
        out.append(fact("flag", name, number, m.start(), m.end(), text=m.group(0)))
    return out


def finish(text: str, facts: list[Fact], notes: list[str] | None = None) -> Extraction:
    lines = text.split("\n")
    line_text = {(0, f.line): lines[f.line - 1].strip() for f in facts if 0 < f.line <= len(lines)}
    return Extraction(facts=tuple(facts), lines=len(lines), line_text=line_text, notes=tuple(notes or ()))
