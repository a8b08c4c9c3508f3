"""Sections of a header compiled only after a CUDA library's header
(docs/decisions/2026-12-07-s31-library-include-guards.md).

NVIDIA's samples helper helper_cuda.h holds one error-string overload per library, each under that library header's
include guard (`#ifdef _CUFFT_H_`, `#ifdef CUSOLVER_COMMON_H_`): the preprocessor keeps a section only in a file that
includes the library's header before the helper (C17 6.10.1: `#ifdef` tests whether the name is defined at that
point). jhlee508/lu-decompn 5c92385e cublas/cublas_lu.cpp:48-50 includes cublas_v2.h and cuda_runtime.h, then
helper_cuda.h: its cuBLAS section is compiled, its cuFFT and cuSOLVER ones are not. Where no file of the project that
includes the header includes (itself or through a header of the project it includes first) a header that defines the
guard (rules/names/device.yaml `library_include_guards`) before the header, the section is off in every build. An
includer that is a header is read the same way through the files that include it: the section is compiled where one of
them includes such a header before it. A header included by no file, or reached only through a header nothing
includes, is left as it is."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.rulebase.name_lists import guard_map, header_suffixes
from migrate.workloads.fact_index import of_kind
from migrate.workloads.includes import includers_of

HEADER_SUFFIXES = header_suffixes()
DEPTH = 6  # headers between a source and the guarded header, at most (includes.GATED_DEPTH's reach)


def unreached_sections(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[tuple[int, int, str], ...]]:
    """Header -> (first line, last line, evidence) of each library-guarded section no includer compiles."""
    sections = of_kind(facts, "library_guard_branch")
    if not sections:
        return {}
    defining = guard_map("device", "library_include_guards")
    includes: dict[str, list[tuple[int, str]]] = {}  # file -> (line, base name included), in order
    for path, f in of_kind(facts, "include"):
        includes.setdefault(path, []).append((f.line, posixpath.basename(f.name)))
    headers: dict[str, list[str]] = {}  # base name -> the project's headers of that name
    for path in facts:
        if path.endswith(HEADER_SUFFIXES):
            headers.setdefault(posixpath.basename(path), []).append(path)
    includers = includers_of(facts)  # base name -> the files that include it
    out: dict[str, list[tuple[int, int, str]]] = {}
    for path, f in sections:
        base = posixpath.basename(path)
        first = sorted(p for p in includers.get(base, ()) if p != path)
        starts = defining.get(f.name, ())
        if not first or any(_compiled_after(p, base, starts, includes, headers, includers, frozenset({path}))
                            for p in first):
            continue
        out.setdefault(path, []).append(
            (f.line, f.end_line, f"{path}:{f.line} #ifdef {f.name}: compiled only after a header that defines "
                                 f"{f.name} ({' / '.join(s + '*' for s in starts)}), and no file that includes {base} "
                                 f"({', '.join(first)}) includes one before it"))
    return {path: tuple(items) for path, items in out.items()}


def _compiled_after(path: str, base: str, starts: Sequence[str], includes: Mapping[str, list[tuple[int, str]]],
                    headers: Mapping[str, list[str]], includers: Mapping[str, set[str]], seen: frozenset[str]) -> bool:
    """Whether a compile that reaches `path`'s include of `base` may have a header named with `starts` included first:
    `path` includes one before it, or `path` is a header and a file including it does so before it (to DEPTH levels).
    A header nothing includes, one met again, or one deeper than DEPTH may have: its compiles are not known."""
    if _defines_before(path, base, starts, includes, headers):
        return True
    if not path.endswith(HEADER_SUFFIXES):
        return False
    parents = [p for p in includers.get(posixpath.basename(path), ()) if p != path]
    if not parents or path in seen or len(seen) > DEPTH:
        return True
    return any(_compiled_after(p, posixpath.basename(path), starts, includes, headers, includers, seen | {path})
               for p in parents)


def _defines_before(path: str, base: str, starts: Sequence[str], includes: Mapping[str, list[tuple[int, str]]],
                    headers: Mapping[str, list[str]]) -> bool:
    """Whether `path` includes a header named with one of `starts` before its first include of `base`, itself or
    through the project's headers it includes before it (every include of those, whatever the line)."""
    own = includes.get(path, [])
    at = min((line for line, name in own if name == base), default=0)
    todo = [name for line, name in own if line < at]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name.startswith(tuple(starts)):
            return True
        for header in headers.get(name, ()):
            todo.extend(n for _, n in includes.get(header, ()))
    return False
