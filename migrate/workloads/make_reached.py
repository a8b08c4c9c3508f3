"""What a project's Makefiles compile, file by file (docs/decisions/2026-12-07-s27-what-the-makefiles-name.md).

make compiles the sources its rules name and nothing else: a C/C++/CUDA file that no Makefile of the project names
(its own variables expanded, extract/text/make_reach.py) and that no file they name includes is compiled by no build of a
project whose only builds are its Makefiles, where the Makefile nearest to it (in its folder, else the nearest folder
above) compiles a CUDA source itself: a dated backup copy of the source folder beside the one the Makefile builds
(`2d_rtm_restart/Src_cuda727-1/` beside `SRCDIR = ./Src_working`), a scratch `.c` the nvcc line leaves out, an `old/`
folder no Makefile reaches. A header (or an included `.cu`) counts as the files that include it: it is unbuilt only
when some file includes it and every such file is unbuilt; one nothing includes keeps its reading (a header-only
library is read by its users). An include in quotes names the file beside the includer where there is one (the
preprocessor looks there first: https://gcc.gnu.org/onlinedocs/cpp/Search-Path.html), else every file whose path ends
with it.

The tool says nothing (the old readings stand) where it cannot tell: another build beside the Makefiles (CMake,
autoconf, Cargo, a Visual Studio project, a Python extension), a script that runs nvcc itself, a file whose nearest
Makefile compiles no CUDA source (`.cu` study programs beside a Makefile that compiles the C++ ones with g++,
rwx788/HackWeek_CUDA simple_cuda/, or a Makefile whose rules come from an included file), a file outside every
Makefile's folder (a folder compiled by hand), a file any script or run-time
compiler names by its name, and a file whose name matches what a Makefile names where the reading cannot place it
(`make_unplaced`: a source below an unassigned variable, an object no rule of the file compiles, `*` for
`$(shell find ...)`)."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.rulebase.name_lists import name_list
from migrate.vocabulary import C_SOURCE_KINDS
from migrate.workloads.build_scopes import MAKEFILES  # the names make reads by itself
from migrate.workloads.build_sources import as_build_source, closed, include_targets, named_files
from migrate.workloads.fact_index import of_kind
from migrate.workloads.includes import HEADER_SUFFIXES
from migrate.workloads.reached_files import compiled_by_hand, name_matcher, named_words, outermost_parts

MAKEFILE = "makefile"  # discover's kind of Makefiles and make fragments
# kinds of build files beside which the Makefiles are not the project's only build
OTHER_BUILDS = frozenset({"cmake", "cargo", "autoconf", "vsproject"})


def unbuilt_by_make(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """File -> (its part: the outermost folder/ whose every C/C++/CUDA file is unbuilt, or the file itself;
    evidence), for the C/C++/CUDA files no Makefile of a Makefile-only project compiles (module docstring)."""
    makefiles = sorted(p for p, kind in kinds.items() if kind == MAKEFILE)
    if not makefiles or any(kind in OTHER_BUILDS for kind in kinds.values()) or compiled_by_hand(facts, kinds) \
            or any(True for _ in of_kind(facts, "extension")):
        return {}
    files = frozenset(kinds)
    targets = include_targets(facts, files)
    roots: set[str] = set()
    patterns: list[str] = []
    cuda_folders: set[str] = set()  # folders with a Makefile that compiles a CUDA source itself
    for path in makefiles:
        own: set[str] = set()
        for f in facts.get(path, ()):
            if f.kind in ("make_source", "build_source"):
                found = [p for p in named_files(path, as_build_source(f), files) if p in files]
                own.update(found)
                if not found and f.kind == "build_source":
                    patterns.append(posixpath.basename(f.name))
            elif f.kind == "make_unplaced":
                patterns.append(f.name)
        roots |= own
        if any(kinds.get(p) == "cuda" for p in closed(own, targets)):
            cuda_folders.add(posixpath.dirname(path))
    reached = closed(roots, targets)
    if not cuda_folders:
        return {}  # the Makefiles compile no CUDA source: they say nothing of the project's GPU files
    folders = {posixpath.dirname(p) for p in makefiles}
    code = {p for p, kind in kinds.items() if kind in C_SOURCE_KINDS}
    named = named_words(facts, kinds, skip=frozenset({MAKEFILE}))
    matched = name_matcher(patterns)
    out = {p for p in code - reached if _nearest(p, folders) in cuda_folders
           and posixpath.basename(p) not in named and not matched(posixpath.basename(p))}
    out = _included_only_by(out, targets)
    if not out:
        return {}
    parts = outermost_parts(out, code)
    example = sorted(p for p in roots if kinds.get(p) == "cuda")[:1] or sorted(reached & code)[:1]
    return {p: (part, f"{part}: no Makefile of the project names it (their variables expanded), nor does a file they "
                      f"name include it; the Makefiles are the project's only build and compile CUDA elsewhere "
                      f"({', '.join(example)})")
            for p in sorted(out) for part in [parts[p]]}


def _included_only_by(out: set[str], targets: Mapping[str, set[str]]) -> set[str]:
    """`out` less the files some file outside it includes, and less the headers nothing includes, to a fixed point."""
    includers: dict[str, set[str]] = {}
    for path, found in targets.items():
        for target in found:
            if target != path:
                includers.setdefault(target, set()).add(path)
    kept = {p for p in out if includers.get(p) or not p.endswith(HEADER_SUFFIXES)}
    changed = True
    while changed:
        changed = False
        for p in sorted(kept):
            if not includers.get(p, set()) <= kept:
                kept.discard(p)
                changed = True
    return kept


def _nearest(path: str, folders: set[str]) -> str | None:
    """The nearest of the folders ("" the top) that holds the file or a folder above it, or None."""
    folder = posixpath.dirname(path)
    while True:
        if folder in folders:
            return folder
        if not folder:
            return None
        folder = posixpath.dirname(folder)


def unincluded_fragments(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """Fragment -> (its part: the file, evidence), for each make fragment (`common.mk`: rules/names/build.yaml
    `make_fragment_suffixes`, not a file another tool reads by itself, `make_tool_files`) that no Makefile of the
    project includes and no build file or script names (`make -f common.mk`): make reads the Makefile it runs and
    the files that includes, nothing else (https://www.gnu.org/software/make/manual/html_node/Include.html), so what
    the fragment's rules compile and link is in no build (a copy of the CUDA SDK's common.mk beside an IDE-generated
    makefile with its own nvcc line). An include is matched by file name. Nothing is said where a plain `include`
    names a file through a variable the Makefile does not assign (`include $(CONFIG)`: any fragment), nor where the
    project has no Makefile make reads by itself; a `-include` of one (`-include $(CU_DEPS)`, the generated
    prerequisites idiom) names files the build writes. Only a fragment that waits for an includer: one that reads an
    upper-case variable it never assigns, not make's own nor the environment's (`make_unassigned` facts,
    rules/names/build.yaml `make_own_variables`); a `tasks.mk` that assigns or reads nothing of the kind may be run on
    its own (`make -f tasks.mk`)."""
    makefiles = [p for p, kind in kinds.items() if kind == MAKEFILE]
    suffixes, tools = tuple(name_list("build", "make_fragment_suffixes")), name_list("build", "make_tool_files")
    fragments = [p for p in makefiles if p.endswith(suffixes) and posixpath.basename(p) not in tools]
    if not fragments or not any(posixpath.basename(p) in MAKEFILES for p in makefiles):
        return {}
    included: set[str] = set()
    for _, f in of_kind(facts, "make_include"):
        name = posixpath.basename(f.name)
        if "$" in name:
            if "optional" not in f.text.split():
                return {}  # `include $(CONFIG)`: any fragment may be the one
            continue
        included.add(name)
    named = named_words(facts, kinds)
    own = name_list("build", "make_own_variables")
    waits = {path: needed for path, f in of_kind(facts, "make_unassigned")
             if (needed := [n for n in f.text.split() if n not in own])}
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(fragments):
        name = posixpath.basename(path)
        if name in included or name in named or path not in waits:
            continue
        out[path] = (path, f"{path}: a make fragment (it reads {', '.join(waits[path][:3])}, which it never "
                           "assigns) that no Makefile of the project includes (include, -include, sinclude) and no "
                           "build file or script names; make reads only the Makefile it runs and the files that "
                           "includes")
    return out
