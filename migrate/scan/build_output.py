"""Files nvcc wrote while it compiled, committed beside the sources: build output, not code to port.

`nvcc --keep` (or a makefile that writes its intermediates into the source tree) leaves files such as
x.cudafe1.cpp, x.fatbin.c or a renamed x.cpp whose first line is a line marker naming one of them
(`# 1 "/tmp/tmpxft_..._x.compute_70.cudafe1.cpp"`): the CUDA toolkit's headers expanded around one .cu
file. Their findings are the toolkit's text, not the project's, so readfile skips them with a reason.
What names them is data with its sources: rules/layout/build-output.yaml."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

BUILD_OUTPUT_FILE = "layout/build-output.yaml"
LINE_MARKER = re.compile(rb'^#\s*(?:line\s+)?\d+\s+"((?:[^"\\\n]|\\.)*)"')


@dataclass(frozen=True, slots=True)
class _Screen:
    """What build output looks like: its suffixes and the patterns that name or show it."""

    suffixes: tuple[str, ...]
    marked_name: re.Pattern[str]
    preprocessed_source: re.Pattern[str]
    pseudo_files: frozenset[str]
    head_lines: int


def nvcc_intermediate(rel: str, data: bytes) -> str | None:
    """Why a C, C++ or CUDA file is nvcc's build output (rules/layout/build-output.yaml), or None: its name
    ends like one of nvcc's intermediate files, or its first line is a line marker naming one of them, or
    naming a .cu file with the preprocessor's own pseudo-files ("<built-in>") among the next lines."""
    screen = _screen()
    name = rel.rsplit("/", 1)[-1].lower()
    if name.endswith(screen.suffixes):
        return "nvcc's intermediate file (build output, not source to port)"
    if not data.startswith(b"#"):
        return None
    head = data[:4096].split(b"\n", screen.head_lines)[:screen.head_lines]
    first = LINE_MARKER.match(head[0])
    if first is None:  # most sources: `#include`, `#pragma` first
        return None
    named = first.group(1).decode("utf-8", "replace")
    base = named.rsplit("/", 1)[-1]
    if screen.marked_name.search(named):
        return f"nvcc's intermediate file, its first line names {base} (build output, not source to port)"
    marked = (m.group(1).decode("utf-8", "replace") for m in map(LINE_MARKER.match, head) if m)
    if screen.preprocessed_source.search(named) and not screen.pseudo_files.isdisjoint(marked):
        return f"preprocessor output of {base} (build output, not source to port)"
    return None


@lru_cache(maxsize=1)
def _screen() -> _Screen:
    from migrate.rulebase import datafile
    from migrate.rulebase.load import default_rules_dir

    data = datafile.read(default_rules_dir() / BUILD_OUTPUT_FILE)["nvcc_intermediates"]
    return _Screen(suffixes=tuple(str(s).lower() for s in data["suffixes"]),
                   marked_name=re.compile(str(data["marked_name"])),
                   preprocessed_source=re.compile(str(data["preprocessed_source"])),
                   pseudo_files=frozenset(str(p) for p in data["pseudo_files"]),
                   head_lines=int(data["head_lines"]))
