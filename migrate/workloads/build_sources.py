"""What a build file names: the project files a `build_source` fact (a CMake source list, a glob, a make rule)
points at, and the path helpers the parts share."""
from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache

from migrate.model import Fact
from migrate.workloads import path_globs
from migrate.workloads.fact_index import of_kind

GLOB_CHARS = frozenset("*?[")
INCLUDED_SOURCES = (".cu", ".cpp", ".cc", ".cxx", ".c")  # a source a translation unit #includes: compiled with it
# make fragments another Makefile includes (`include src/gpu/rules.mk`): make reads the names in them from the folder
# it runs in, the includer's, above the fragment (https://www.gnu.org/software/make/manual/html_node/Include.html);
# a Makefile's own names are its folder's (make runs there)
MAKE_FRAGMENTS = (".mk", ".mak")


def file_glob(source: Fact) -> bool:
    """Whether a `build_source` fact is a pattern of CMake's file(GLOB|GLOB_RECURSE <variable> ...), which lists
    files without building them; a source name built from a variable (`${DIR}/x.cpp`, text "GLOB variable" from
    extract/text/cmakelists.py) is a target's source."""
    return source.text.startswith(("GLOB ", "GLOB_RECURSE ")) and source.text != "GLOB variable"


def named_files(path: str, source: Fact, files: frozenset[str]) -> list[str]:
    """The project files a `build_source` fact of a build file names. A relative name in a CMake module
    (`cmake/CUDA.cmake`, include()d by a CMakeLists) resolves against the including folder
    (CMAKE_CURRENT_SOURCE_DIR, https://cmake.org/cmake/help/latest/command/include.html): the module's own
    folder or the nearest one above it where the file is. A glob (`*.cu`, GLOB_RECURSE) expands over the
    project's files (https://cmake.org/cmake/help/latest/command/file.html#glob). A name with a folder in it that a
    CMakeLists.txt lists but its own folder lacks is one of a list handed up (`set(X ${X} PARENT_SCOPE)`,
    https://cmake.org/cmake/help/latest/command/set.html#set-normal-variable) to a folder above, whose targets
    resolve it (PixarAnimationStudios/OpenSubdiv 7d0ab553 opensubdiv/osd/CMakeLists.txt:341-344 lists
    `osd/cudaKernel.cu` for opensubdiv/CMakeLists.txt:161): the nearest folder above where the file is. A name with a
    folder in it that a make fragment (`src/gpu/rules.mk`) names resolves the same way (make runs in the includer's
    folder above it)."""
    here = posixpath.dirname(path)
    bases = [here]
    if path.endswith(".cmake") and here:
        parts = here.split("/")
        bases += ["/".join(parts[:i]) for i in range(len(parts) - 1, -1, -1)]
    if GLOB_CHARS.isdisjoint(source.name):
        if "/" in source.name and here and (path.endswith("CMakeLists.txt") or path.endswith(MAKE_FRAGMENTS)):
            parts = here.split("/")
            bases += [b for b in ("/".join(parts[:i]) for i in range(len(parts) - 1, -1, -1)) if b not in bases]
        for base in bases:
            if (named := join(base, source.name)) in files:
                return [named]
        return [join(here, source.name)]
    recurse = source.text.startswith("GLOB_RECURSE")
    for base in bases:
        folder = join(base, posixpath.dirname(source.name)) if posixpath.dirname(source.name) else base
        name = posixpath.basename(source.name)
        found = sorted(f for f in files if path_globs.matches(posixpath.basename(f), name)
                       and (path_globs.matches(posixpath.dirname(f), folder)
                            or (recurse and (folder in ("", ".") or f.startswith(folder + "/")))))
        if found:
            return found
    return []


def named_by_make(path: str, f: Fact, files: frozenset[str], folders: frozenset[str]) -> list[str]:
    """The files a Makefile's source name points at: named_files', or, for a bare name its folder lacks, the one file
    of that name in a folder the Makefile's recipes compile from (`folders`, recipe_folders: `./src/$(CSRCS)` read as
    src/ by extract/text/make_reach.py), else the one nearest below the Makefile's folder; none where two are as near
    (a recipe's folder prefix or a VPATH supplies the folder make is not told in the name: cerati/p2z-tests e56eac66
    Makefile:402 `CSRCS = propagate-toz-test_CUDA_v1.cu`, compiled at :800 as `./src/$(CSRCS)`)."""
    found = [p for p in named_files(path, f, files) if p in files]
    if found or "/" in f.name or not GLOB_CHARS.isdisjoint(f.name):
        return found
    here = posixpath.dirname(path)
    below = sorted((p.count("/"), p) for p in files if posixpath.basename(p) == f.name
                   and (not here or p.startswith(here + "/")))
    recipes = [p for _, p in below if posixpath.dirname(p) in folders]
    if len(recipes) == 1:
        return recipes
    if not below or (len(below) > 1 and below[0][0] == below[1][0]):
        return []
    return [below[0][1]]


def recipe_folders(path: str, items: Sequence[Fact]) -> frozenset[str]:
    """The folders (relative to the project) of the sources the Makefile's rules and recipes compile (`make_source`)."""
    here = posixpath.dirname(path)
    return frozenset(posixpath.normpath(posixpath.join(here, posixpath.dirname(f.name))) for f in items
                     if f.kind == "make_source" and "/" in f.name)


def as_build_source(f: Fact) -> Fact:
    """A Makefile's `make_source` (extract/text/make_reach.py) read as the `build_source` it is: named_files resolves
    both alike (a path relative to the build file's folder, a glob where `$(wildcard)` gave one)."""
    return f if f.kind == "build_source" else Fact(kind="build_source", name=f.name, line=f.line, column=f.column,
                                                    end_line=f.end_line, end_column=f.end_column, text="make")


SOURCE_KINDS = frozenset({"build_source", "extension"})  # the facts `sources_named` reads; every other names none


def sources_named(path: str, fact: Fact, files: frozenset[str]) -> list[str]:
    """The project files a fact of a build file names as sources: a `build_source` (named_files) or each
    item of a setup.py `extension`'s source list (assemble.resolve_sources); none for any other fact
    (SOURCE_KINDS)."""
    if fact.kind == "build_source":
        return named_files(path, fact, files)
    if fact.kind == "extension":
        # imported here: lint reads build names through this module and must not load assemble (and pathspec)
        from migrate.workloads.assemble import resolve_sources

        base = posixpath.dirname(path)
        return [n for item in filter(None, fact.text.split("\n")) for n in resolve_sources(item, base, files)]
    return []


@lru_cache(maxsize=1 << 15)
def join(folder: str, name: str) -> str:
    """A name relative to a folder of the project, normalised. Cached: the parts' readings join the same
    include and source names again and again (~17,000 calls on cuda-samples, normpath in Python)."""
    return posixpath.normpath(posixpath.join(folder, name)) if folder else posixpath.normpath(name)


def prefixes(path: str) -> Iterable[str]:
    """The path itself, then each folder above it (`a/b/`, `a/`)."""
    yield path
    parts = path.split("/")
    for i in range(len(parts) - 1, 0, -1):
        yield "/".join(parts[:i]) + "/"


def resolve_include(header: str, by_base: Mapping[str, list[str]]) -> list[str]:
    """The scanned files an `#include` names: those whose path ends with it (`./x.h`, `../x.h` trimmed)."""
    header = header.replace("\\", "/")
    while header.startswith(("./", "../")):
        header = header.partition("/")[2]
    return [p for p in by_base.get(posixpath.basename(header), ()) if p == header or p.endswith("/" + header)]


def include_targets(facts: Mapping[str, Sequence[Fact]], files: frozenset[str],
                    skip: Callable[[str, Fact], bool] | None = None) -> dict[str, set[str]]:
    """Each file -> the scanned files its includes name: in quotes, the file beside it where there is one, else
    every file whose path ends with the include (resolve_include)."""
    by_base: dict[str, list[str]] = {}
    for path in files:
        by_base.setdefault(posixpath.basename(path), []).append(path)
    out: dict[str, set[str]] = {}
    for path, f in of_kind(facts, "include"):
        if skip is not None and skip(path, f):
            continue
        beside = join(posixpath.dirname(path), f.name.replace("\\", "/"))
        if not f.text.startswith("<") and beside in files:
            out.setdefault(path, set()).add(beside)
        else:
            out.setdefault(path, set()).update(resolve_include(f.name, by_base))
    return out


def closed(roots: set[str], targets: Mapping[str, set[str]]) -> set[str]:
    """The roots and every file their includes name, to a fixed point."""
    reached = set(roots)
    todo = sorted(roots)
    while todo:
        for target in targets.get(todo.pop(), ()):
            if target not in reached:
                reached.add(target)
                todo.append(target)
    return reached


def included_by(built: Iterable[str], facts: Mapping[str, Sequence[Fact]], files: frozenset[str],
                inside: Callable[[str, Fact], bool] = lambda path, f: False) -> set[str]:
    """The files the `built` sources `#include`, to a fixed point, less the built ones: the preprocessor pastes them
    into a translation unit the build compiles (`#include "matrix_kernel.cu"`), so they are compiled with it
    (https://gcc.gnu.org/onlinedocs/cpp/Include-Operation.html). Only sources (INCLUDED_SOURCES): headers keep the
    readings of includes.py (gate_headers). An include `inside` says sits in a switch's branch (`#ifdef USE_X`) does
    not count."""
    roots = set(built)
    return {p for p in closed(roots, include_targets(facts, files, inside)) - roots if p.endswith(INCLUDED_SOURCES)}
