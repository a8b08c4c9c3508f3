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


REACH_LIMIT = 2000  # headers followed from one resolved header before the reading gives up (bounded work)


def own_includes(files: Sequence[tuple[str, Iterable[Fact]]], quiet: Iterable[str],
                 flagged: Iterable[Site]) -> frozenset[Site]:
    """The includes of `files` (path, facts) that a finding names (`flagged`: path, line, symbol) whose header
    resolves to project files none of which, nor any project file they include in turn, is outside `quiet` (the
    paths that gave no finding): a copy of CUB whose cub.cuh only includes its other headers is still CUB."""
    sites = frozenset(flagged)
    by_path: dict[str, set[tuple[int, str]]] = {}  # the flagged (line, header) of each file, grouped once
    for path, line, name in sites:
        by_path.setdefault(path, set()).add((line, name))
    holders = by_path.keys()
    if not holders:
        return frozenset()
    tree = _Tree(files, frozenset(quiet))
    own: set[Site] = set()
    for path, facts in files:
        if path not in holders:
            continue
        includes = [f for f in facts if f.kind == "include" and (path, f.line, f.name) in sites]
        # a bare name found only elsewhere in the tree (not beside the file) is the project's header only for a
        # file that names nothing else of CUDA: isce3's cuArrays.h includes CUDA's <cuda.h> and uses its driver
        # API, whatever python/extensions/.../cuda.h holds
        alone = by_path[path] <= {(f.line, f.name) for f in includes}
        for fact in includes:
            quoted = fact.text.startswith('"')
            found = tree.resolve(path, fact.name, quoted)
            if "/" not in fact.name and not alone and not (quoted and tree.beside(path, fact.name) in found):
                continue
            if tree.own(found):
                own.add((path, fact.line, fact.name))
    return frozenset(own)


class _Tree:
    """The scanned files' include graph, read on demand."""

    def __init__(self, files: Sequence[tuple[str, Iterable[Fact]]], silent: frozenset[str]) -> None:
        self.files = files
        self.silent = silent
        self.paths = frozenset(path for path, _ in files)
        self.by_base: dict[str, list[str]] = {}
        for path in self.paths:
            self.by_base.setdefault(posixpath.basename(path), []).append(path)
        self._includes: dict[str, list[Fact]] | None = None
        self._quiet: dict[str, bool] = {}
        # header name -> the files whose path ends in it, looked for once per name (the same list for every includer:
        # a tree of 5 copies of a project has 5 of each header, and each of 5 times the includes read the 5 again)
        self._ending: dict[str, list[str]] = {}

    def resolve(self, includer: str, header: str, quoted: bool) -> list[str]:
        """The project files a header names: beside the includer for a quoted include, else by its path's end
        (a list shared by every call for the name: never change it)."""
        beside = self.beside(includer, header)
        if quoted and beside in self.paths:
            return [beside]
        found = self._ending.get(header)
        if found is None:
            tail = header.lstrip("./")
            found = self._ending[header] = [p for p in self.by_base.get(posixpath.basename(header), [])
                                            if p == tail or p.endswith("/" + tail)]
        return found

    @staticmethod
    def beside(includer: str, header: str) -> str:
        return posixpath.normpath(posixpath.join(posixpath.dirname(includer), header))

    def own(self, found: list[str]) -> bool:
        """Whether the files, and every project file they include, gave no finding."""
        return bool(found) and all(self._quiet_below(p) for p in found)

    def _quiet_below(self, start: str) -> bool:
        if start not in self._quiet:
            includes = self._include_facts()
            seen: set[str] = set()
            stack = [start]
            quiet = True
            while stack and quiet:
                path = stack.pop()
                if path in seen:
                    continue
                seen.add(path)
                quiet = path in self.silent and len(seen) <= REACH_LIMIT
                for fact in includes.get(path, ()):
                    stack.extend(self.resolve(path, fact.name, fact.text.startswith('"')))
            self._quiet[start] = quiet
        return self._quiet[start]

    def _include_facts(self) -> dict[str, list[Fact]]:
        if self._includes is None:
            self._includes = {}
            for path, facts in self.files:
                found = [f for f in facts if f.kind == "include"]
                if found:
                    self._includes[path] = found
        return self._includes
