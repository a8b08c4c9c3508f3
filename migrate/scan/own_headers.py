"""Includes that name a project's own header: `#include "math_functions.h"` in a C++ audio library whose
core/src/core/math_functions.h holds its vector maths is that file, not CUDA's header of the name. A quoted
include is looked up beside the including file, then (as an angle-bracket one) on the include path, where the
project's -I folders come before the system's (GCC's and Clang's search order). The reading takes the header
as the project's when the name resolves to project files (beside a quoted include's file; else by the
header's path, or its bare name, anywhere in the scanned tree) and none of them gives a finding of its own:
a copy of NVIDIA's header, or a wrapper that includes CUDA's, still does, and keeps its includes CUDA's.
docs/decisions/2026-12-06-s25-no-gpu-code-of-its-own.md."""
from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence

from migrate.model import Fact

Site = tuple[str, int, str]  # the including file, the include's line, the header named


def own_includes(files: Sequence[tuple[str, Iterable[Fact]]], quiet: Iterable[str],
                 flagged: Iterable[Site]) -> frozenset[Site]:
    """The quoted includes of `files` (path, facts) that a finding names (`flagged`: path, line, symbol) whose
    header resolves to project files, all in `quiet` (the paths that gave no finding)."""
    sites = frozenset(flagged)
    holders = {path for path, _, _ in sites}
    if not holders:
        return frozenset()
    paths = {path for path, _ in files}
    silent = frozenset(quiet)
    by_base: dict[str, list[str]] = {}
    for path in paths:
        by_base.setdefault(posixpath.basename(path), []).append(path)
    own: set[Site] = set()
    for path, facts in files:
        if path not in holders:
            continue
        for fact in facts:
            if fact.kind != "include" or (path, fact.line, fact.name) not in sites:
                continue
            found = _resolve(path, fact.name, fact.text.startswith('"'), paths, by_base)
            if found and all(p in silent for p in found):
                own.add((path, fact.line, fact.name))
    return frozenset(own)


def _resolve(includer: str, header: str, quoted: bool, paths: set[str], by_base: dict[str, list[str]]) -> list[str]:
    beside = posixpath.normpath(posixpath.join(posixpath.dirname(includer), header))
    if quoted and beside in paths:
        return [beside]
    if "/" in header or header.startswith("."):
        return [p for p in paths if p.endswith("/" + header)]
    return by_base.get(header, [])
