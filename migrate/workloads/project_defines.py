"""Macros every build of the project defines, and the branches they switch off
(docs/decisions/2026-12-06-s26-project-wide-defines.md).

CMake's `add_definitions(-DX)` / `add_compile_definitions(X)` outside every block (no if(), function(), macro(),
foreach() or while() around it) defines X for every target of its folder and of the folders it adds with
add_subdirectory (https://cmake.org/cmake/help/latest/command/add_definitions.html, "adds definitions to the compiler
command line for targets in the current directory, whether added before or after this command is invoked, and for
the ones in sub-directories added after"). Where each CMake build of the project (outside folders a package does not
need) that compiles a file testing X defines X so, no build of the project compiles a branch taken only while X is
undefined (`#ifndef NO_CUDA`, the `#else` of `#ifdef NO_CUDA`): matt-42/cuimg e2d2b8bc CMakeLists.txt:21
`ADD_DEFINITIONS(-DNO_CUDA)` beside the GPU code under `#ifndef NO_CUDA` (cuimg/gpu/texture.h:41). Such a branch is an
optional part, off in every build. Nothing is said where another kind of build (a Makefile, setup.py, a script that
runs a compiler) may compile the project's code, where a CMake file compiling such a file does not define X or names
sources the tool cannot place, or where no build compiles any file testing X."""
from __future__ import annotations

import bisect
import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.vocabulary import BUILD_FILE_KINDS
from migrate.workloads.build_sources import join, sources_named
from migrate.workloads.fact_index import of_kind, of_kinds
from migrate.workloads.optional_words import Words, optional_root
from migrate.workloads.reach import CMAKE_ROOT
from migrate.workloads.reached_files import SCRIPT_KINDS, close_includes, compiled_by_hand
from migrate.workloads.switches import define_flags

TESTS = ("unless_branch", "switch_branch")  # facts of a file that tests a macro


def off_branches(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                 known: Words) -> dict[str, tuple[tuple[int, int, str], ...]]:
    """File -> (first line, last line, evidence) of each branch taken only while a macro every build defines is
    undefined."""
    defined = every_build_defines(facts, kinds, known)
    out: dict[str, list[tuple[int, int, str]]] = {}
    for path, f in of_kind(facts, "unless_branch"):
        if f.name in defined:
            out.setdefault(path, []).append(
                (f.line, f.end_line, f"{path}:{f.line} {f.text}: taken only while {f.name} is undefined, and "
                                     f"{defined[f.name]}"))
    return {path: tuple(items) for path, items in out.items()}


def every_build_defines(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], known: Words) -> dict[str, str]:
    """Macro -> evidence, for the macros that unless_branch facts name and every CMake build compiling a file that
    tests them defines outside every block (the module docstring's conditions)."""
    if not of_kind(facts, "unless_branch"):  # most projects test no macro that way: nothing to read
        return {}
    tested: dict[str, set[str]] = {}
    for path, f in of_kinds(facts, *TESTS):
        tested.setdefault(f.name, set()).add(path)
    required = {p for p in kinds if optional_root(p, known) is None}
    if compiled_by_hand(facts, kinds) or any(
            kinds.get(p) in BUILD_FILE_KINDS - {"cmake"} or kinds.get(p) in SCRIPT_KINDS - {"python", "notebook"}
            or any(f.kind == "extension" for f in facts.get(p, ())) for p in required):
        return {}
    lists = sorted(p for p in required if posixpath.basename(p) == CMAKE_ROOT)
    files = frozenset(kinds)
    in_effect = _definitions_in_effect(facts, lists)
    compiled: dict[str, set[str]] = {}
    unplaced: set[str] = set()
    for path in lists:
        named: set[str] = set()
        for f in facts.get(path, ()):
            if f.kind == "source_unplaced":
                unplaced.add(path)
            elif f.kind == "build_source":
                found = {p for p in sources_named(path, f, files) if p in files}
                named |= found
                if not found:
                    unplaced.add(path)
        compiled[path] = close_includes(named, facts, files, frozenset()) if named else set()
    out: dict[str, str] = {}
    for macro, testing in sorted(tested.items()):
        builds = [p for p in lists if compiled[p] & testing]
        if builds and all(macro in in_effect[p] for p in builds) \
                and not any(p in unplaced and macro not in in_effect[p] for p in lists):
            out[macro] = (f"every build of the project that compiles a file testing {macro} defines it "
                          f"({in_effect[builds[0]][macro]}, in no block)")
    return out


def _definitions_in_effect(facts: Mapping[str, Sequence[Fact]], lists: Sequence[str]) -> dict[str, dict[str, str]]:
    """CMakeLists.txt -> macro -> where it is defined, for the directory-wide definitions outside every block of the
    file and of the CMakeLists.txt files that add its folder (add_subdirectory), up the chain."""
    own = {path: {macro: f"{path}:{line} {command}(-D{macro})"
                  for macro, (line, command) in _unconditional_defines(facts.get(path, ())).items()} for path in lists}
    parent: dict[str, str] = {}
    by_folder = {posixpath.dirname(p): p for p in lists}
    for path in lists:
        for f in facts.get(path, ()):
            if f.kind == "cmake_subdirectory":
                child = by_folder.get(join(posixpath.dirname(path), f.name))
                if child is not None and child != path:
                    parent.setdefault(child, path)
    out: dict[str, dict[str, str]] = {}
    for path in lists:
        merged: dict[str, str] = {}
        seen, current = set(), path
        while current not in seen:
            seen.add(current)
            merged = {**own[current], **merged}
            if current not in parent:
                break
            current = parent[current]
        out[path] = merged
    return out


def _unconditional_defines(items: Sequence[Fact]) -> dict[str, tuple[int, str]]:
    """Macro -> (line, command) of each `-DX` an add_definitions() / add_compile_definitions() gives in no block: the
    CMake extractor marks those flags `top` (extract/text/cmakelists._top_definitions), as it marks a top-level set();
    the command is named for the evidence."""
    top = [(f, macro) for f, macro in define_flags(items) if f.role == "top"]
    if not top:
        return {}
    commands = sorted((f.line, f.name.lower()) for f in items if f.kind == "cmake" and f.role == "command")
    lines = [line for line, _ in commands]
    out: dict[str, tuple[int, str]] = {}
    for f, macro in top:
        at = bisect.bisect_right(lines, f.line) - 1  # the command the flag is an argument of
        out.setdefault(macro, (f.line, commands[at][1] if at >= 0 else "add_definitions"))
    return out
