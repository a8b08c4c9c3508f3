"""What the project's build reaches, file by file (docs/decisions/2026-12-06-reached-from-the-build.md).

A source file is compiled when a build file names it (by name or by a glob that matches it), and a header when a
compiled file includes it, directly or through other headers. In a project whose only build is a CMake project the
tool reads completely (workloads/reach.py `cmake_reached`), a C/C++/CUDA file that nothing of that reaches is
compiled by no build: a copy of someone else's headers beside the project's own (a CuTe/CUTLASS tree no built
source includes), a draft `.cu` no target lists. It is reported as a part of its own, not reached by the default
build, and never decides the class. The tool says nothing where it cannot tell: another build beside the CMake one,
a shell or Python script that runs nvcc itself, a file any build file, script or run-time compiler names, a source
named below a folder variable (`${SRC_DIR}/k.cu`), by a file(GLOB) pattern not read as sources (`src/ios/*`) or by a
list entry or glob that names no file where the tool looks (`${PROJECT_SOURCE_DIR}/src/*.cu` in a subfolder's
CMakeLists.txt): every file of that name or pattern counts as named; and an install() that may ship headers (then only
sources are read, headers keep their reading). A Makefile in a folder the CMake project does not reach is a build of its
own: the sources it names (its variables expanded, a `$(wildcard *.cu)` glob: `make_named`) are reached, and those
it names where the reading cannot place them count as named. A CMake project that only configures (no command beside
those of rules/names/build.yaml `cmake_configure_only_commands`, or none: an empty placeholder) builds nothing and is
no such build (`builds_nothing`): its folder's files keep their own reading.

The same reading gives way the other way round (`only_programs`): a folder named as optional (`benchmarks/`,
rules/workloads/optional.yaml) that the top CMakeLists.txt reaches through add_subdirectory, where every C/C++/CUDA
file of the project lies in such folders and the targets they define are all the project builds, holds the
project's only program: the default build compiles it, and the folder's name does not make it optional."""
from __future__ import annotations

import fnmatch
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from migrate.model import Fact
from migrate.rulebase.name_lists import name_list
from migrate.vocabulary import BUILD_FILE_KINDS, C_SOURCE_KINDS
from migrate.workloads.build_sources import (
    SOURCE_KINDS,
    as_build_source,
    join,
    named_files,
    prefixes,
    resolve_include,
    sources_named,
)
from migrate.workloads.fact_index import each_of_kinds, indexed, of_kind, of_kinds
from migrate.workloads.includes import HEADER_SUFFIXES
from migrate.workloads.optional_words import Words, optional_root
from migrate.workloads.reach import CMAKE_ROOT, OTHER_ROOTS, cmake_reached, subdirectories_reached

# kinds of files that run commands: one that runs nvcc may compile any .cu file of the project by hand
SCRIPT_KINDS = frozenset({"shell", "python", "notebook", "dockerfile"})
GLOB_CHARS = re.compile(r"[*?[]")  # fnmatch's special characters: a pattern without them names one file name
NAME_WORD = re.compile(r"[A-Za-z0-9_.+-]+")
# facts that name a file of the project outside the include graph and the build's source lists
NAMING_KINDS = frozenset({"runtime_source", "source_unplaced"})


def unreferenced(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                 unreached: Mapping[str, tuple[str, str]], toolkit: frozenset[tuple[str, int, str]] = frozenset()
                 ) -> dict[str, tuple[str, str]]:
    """File -> (its part: the outermost folder/ whose every C/C++/CUDA file is unreached, or the file itself;
    evidence), for the C/C++/CUDA files the project's only build does not reach: the top CMake project's, or, where
    the top has no CMakeLists.txt, each CMake project's in its own folder (`cmake_projects`). Files of parts
    `unreached` already holds (a folder with a build of its own) keep that reading. `toolkit`: the (file, line,
    header) of the includes the rule base maps as an NVIDIA toolkit or library header (a finding on the include):
    written `<mma.h>`, with no folder, such an include is the toolkit's header, not a same-named file of a copy in the
    project (cutlass/gemm/thread/mma.h)."""
    projects = cmake_projects(kinds)
    if not projects or compiled_by_hand(facts, kinds) or any(not f.text for _, f in of_kind(facts, "extension")):
        return {}
    named: set[str] | None = None  # read once, where a project is read at all
    by_base: dict[str, list[str]] = {}
    for path in kinds:
        by_base.setdefault(posixpath.basename(path), []).append(path)
    out: dict[str, tuple[str, str]] = {}
    for root in projects:
        view, within = _project_view(facts, kinds, root)
        if cmake_reached(view, within) is None or builds_nothing(view, within):
            continue
        named = named_words(facts, kinds) if named is None else named
        outside = _included_from_outside(facts, kinds, root, by_base) if root else set()
        for path, (part, why) in _unreferenced(view, within, unreached, toolkit, named, root, outside).items():
            out[root + path] = (root + part, why)
    return out


def builds_nothing(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> bool:
    """Whether a CMake project's files (its CMakeLists.txt files and .cmake modules) hold no command but those that
    only configure (rules/names/build.yaml `cmake_configure_only_commands`), or none at all: such a project defines no
    target and compiles nothing, so it is no build of its folder's sources (gilgamsh/parallel-sweepline cbfbdfd6
    src/CMakeLists.txt, three blank lines beside the project's sweepline.cu), and they keep their own reading."""
    configure_only = name_list("build", "cmake_configure_only_commands")
    return all(f.kind != "cmake" or f.role != "command" or f.name.lower() in configure_only
               for path in kinds if path.endswith((CMAKE_ROOT, ".cmake")) for f in facts.get(path, ()))


def cmake_projects(kinds: Mapping[str, str]) -> list[str]:
    """The folders/ ("" the top) of the CMake projects a user configures: the top's where it has a CMakeLists.txt,
    else each CMakeLists.txt with none in a folder above it and no other build file (OTHER_ROOTS: a Makefile or
    setup.py that may configure or compile it its own way) in a folder above it."""
    if CMAKE_ROOT in kinds:
        return [""]
    folders = {posixpath.dirname(p) for p in kinds if posixpath.basename(p) == CMAKE_ROOT}
    others = {posixpath.dirname(p) for p in kinds if posixpath.basename(p) in OTHER_ROOTS}
    return [f"{folder}/" for folder in sorted(folders)
            if not any(above in folders or above in others for above in _above(folder))]


def _above(folder: str) -> list[str]:
    """The folders above one ("" the top), innermost first."""
    out = []
    while folder:
        folder = posixpath.dirname(folder)
        out.append(folder)
    return out


def _project_view(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], root: str
                  ) -> tuple[Mapping[str, Sequence[Fact]], Mapping[str, str]]:
    """The facts and kinds of the files below a project's folder, with paths relative to it (CMake reads the paths of
    a project's own files from its top: `${CMAKE_SOURCE_DIR}`, `add_subdirectory`). A folder's view is indexed as the
    scan's own mapping is, so that the readings of it (cmake_reached, _unreferenced) look facts up by kind in it."""
    if not root:
        return facts, kinds  # the scan's own mapping, with its index of facts by kind
    return (indexed((p[len(root):], tuple(items)) for p, items in facts.items() if p.startswith(root)),
            {p[len(root):]: kind for p, kind in kinds.items() if p.startswith(root)})


def _included_from_outside(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], root: str,
                           by_base: Mapping[str, list[str]]) -> set[str]:
    """The files below a project's folder (relative to it) that a C/C++/CUDA file outside it includes (`by_base`:
    the project's files by file name): another build of the repository may reach them, so the project's own reading
    starts from them too."""
    return {found[len(root):] for path, f in of_kind(facts, "include")
            if not path.startswith(root) and kinds.get(path) in C_SOURCE_KINDS
            for found in resolve_include(f.name, by_base) if found.startswith(root)}


def _unreferenced(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                  unreached: Mapping[str, tuple[str, str]], toolkit: frozenset[tuple[str, int, str]],
                  named: set[str], root: str, outside: set[str]) -> dict[str, tuple[str, str]]:
    """`unreferenced` for one CMake project, its paths relative to its folder (`root` below the repository's top);
    `outside`: its files that files outside its folder include."""
    files = frozenset(kinds)
    roots = {p for p in files if root + p in unreached} | outside
    toolkit = frozenset((p[len(root):], line, header) for p, line, header in toolkit if p.startswith(root))
    patterns = [posixpath.basename(f.name) for _, f in of_kind(facts, "source_unplaced")]
    for path, f in of_kinds(facts, *sorted(SOURCE_KINDS)):  # the kinds that name a source (sources_named)
        found = [p for p in sources_named(path, f, files) if p in files]
        roots.update(found)
        if f.kind == "build_source" and not found:  # a list entry or glob the tool cannot place (a path from
            patterns.append(posixpath.basename(f.name))  # another folder variable): every file of its name
    made, unplaced = make_named(facts, files)
    roots |= made
    patterns += unplaced
    reached = close_includes(roots, facts, files, toolkit)
    headers = not any(f.name == "install" for p, f in of_kind(facts, "cmake") if p.endswith((CMAKE_ROOT, ".cmake")))
    code = {p for p, kind in kinds.items() if kind in C_SOURCE_KINDS}
    matched = name_matcher(patterns)
    out = {p for p in code - reached
           if (headers or not p.endswith(HEADER_SUFFIXES)) and posixpath.basename(p) not in named
           and not matched(posixpath.basename(p))}
    if not out:
        return {}
    parts = outermost_parts(out, code)
    grown = {p: parts[p] for p in sorted(out)}
    return {p: (part, _evidence(root + part, root)) for p, part in grown.items()}


def make_named(facts: Mapping[str, Sequence[Fact]], files: frozenset[str]) -> tuple[set[str], list[str]]:
    """The files the project's Makefiles name as sources (`make_source`: their own variables expanded, a
    `$(wildcard *.cu)` glob over the Makefile's folder), and the file name patterns of what they name where the
    reading cannot place it (`make_unplaced`): a Makefile in a folder the CMake project does not reach is a build of
    its own that compiles them (`make` in that folder; the wildcard function lists the folder's files that match:
    https://www.gnu.org/software/make/manual/html_node/Wildcard-Function.html), so they are reached by a build."""
    named: set[str] = set()
    patterns: list[str] = []
    for path, f in of_kinds(facts, "make_source", "make_unplaced"):
        if f.kind == "make_unplaced":
            patterns.append(f.name)
        else:
            named.update(p for p in named_files(path, as_build_source(f), files) if p in files)
    return named, patterns


VS_PROJECT = "vsproject"  # discover's kind of .vcxproj / .vcproj files
# build files of other systems: one in or above a Visual Studio project's folder may build what the project does not list
OTHER_BUILD_KINDS = BUILD_FILE_KINDS | {"autoconf"}


def unlisted_by_vs_project(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                           toolkit: frozenset[tuple[str, int, str]] = frozenset()) -> dict[str, tuple[str, str]]:
    """File -> (its part, evidence), for the C/C++/CUDA files below a folder holding a Visual Studio project that no
    project of the repository lists (`vs_source`, extract/text/vsproject.py) and no listed file includes: MSBuild
    compiles the items a project lists and nothing else (a copy of the CUDA wizard's `kernel.cu` beside a project
    that lists its own sources, jdinkla/parallel2012_gpucomputing e78edf11 C-Cpp/Copy/kernel.cu). Files with any
    other build file (CMake, make, setup.py, ...) in or above their folder keep their reading, as do files another
    build file names as its sources from any folder (a path or glob; one it cannot place names every file of its
    name), and all files where a script runs a CUDA compiler itself; a listed path the tool cannot place
    (`$(SolutionDir)`, a wildcard) names every file of its name."""
    projects = sorted(p for p, kind in kinds.items() if kind == VS_PROJECT)
    if not projects or compiled_by_hand(facts, kinds):
        return {}
    files = frozenset(kinds)
    roots: set[str] = set()
    patterns: list[str] = []
    for project in projects:
        for f in facts.get(project, ()):
            if f.kind != "vs_source":
                continue
            if "$(" not in f.name and (listed := join(posixpath.dirname(project), f.name)) in files:
                roots.add(listed)
            else:
                patterns.append(posixpath.basename(f.name))
    for path, items in facts.items():  # what another build names as its sources, from any folder (a sibling
        for f in items:  # folder's CMakeLists.txt with `file(GLOB ... ../src/*.cu)`), as `unreferenced` reads them
            found = [p for p in sources_named(path, f, files) if p in files]
            roots.update(found)
            if f.kind == "build_source" and not found:
                patterns.append(posixpath.basename(f.name))
    folders = {posixpath.dirname(p) + "/" for p in projects}
    others = {posixpath.dirname(p) + "/" for p, kind in kinds.items()
              if kind in OTHER_BUILD_KINDS or posixpath.basename(p) in OTHER_ROOTS}
    governed = {p for p, kind in kinds.items() if kind in C_SOURCE_KINDS
                and (above := set(prefixes(posixpath.dirname(p) + "/")) | {"/"}) & folders and not above & others}
    reached = close_includes(roots, facts, files, toolkit)
    named = named_words(facts, kinds)
    matched = name_matcher(patterns)
    out = {p for p in governed - reached if posixpath.basename(p) not in named and not matched(posixpath.basename(p))}
    code = {p for p, kind in kinds.items() if kind in C_SOURCE_KINDS}
    parts = outermost_parts(out, code)
    return {p: (part, f"{part}: no Visual Studio project of the repository lists it, nor does a file they list include "
                      "it, and no other build file sits in or above its folder")
            for p in sorted(out) for part in [parts[p]]}


def close_includes(roots: set[str], facts: Mapping[str, Sequence[Fact]], files: frozenset[str],
           toolkit: frozenset[tuple[str, int, str]]) -> set[str]:
    """The roots and every file they include, through other files, to a fixed point. An include reaches each
    scanned file whose path ends with it (a `tensor.hpp` any folder holds), never fewer, except a toolkit header
    (`unreferenced`)."""
    by_base: dict[str, list[str]] = {}
    for path in files:
        by_base.setdefault(posixpath.basename(path), []).append(path)
    reached = set(roots)
    todo = sorted(roots)
    while todo:
        path = todo.pop()
        for f in facts.get(path, ()):
            if f.kind != "include" or ((path, f.line, f.name) in toolkit and f.text.startswith("<") and "/" not in f.name):
                continue
            for found in resolve_include(f.name, by_base):
                if found not in reached:
                    reached.add(found)
                    todo.append(found)
    return reached


def compiled_by_hand(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> bool:
    """Whether a script runs a CUDA compiler itself (`nvcc -o k kern.cu` in run.sh): what it compiles is not known."""
    compilers = name_list("build", "cuda_compiler_drivers")  # NVIDIA's CUDA compiler drivers
    return any(kinds.get(path) in SCRIPT_KINDS and f.name in compilers for path, f in of_kind(facts, "flag"))


OBJECT_SUFFIXES = (".o", ".obj")  # the object a compiler writes from one source (`nvcc -c -o kernels3.o kernels3.cu`)


def compiled_by_scripts(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> frozenset[tuple[str, str]]:
    """(folder/ ("" the top), stem) of each object a script writes with a CUDA compiler (a line that runs one,
    rules/names/build.yaml `cuda_compiler_drivers`, with `-o kernels3.o`: `compiler_output_options`): the source of
    that stem in or below the script's folder is what the line compiles (christos-tsotskas/LBM2 src/simple_compile:
    `nvcc --compile -o kernels3.o kernels3.cu`). A program's name (`-o bin/mesh2sdf`) names no source."""
    compilers = name_list("build", "cuda_compiler_drivers")
    outputs = name_list("build", "compiler_output_options")
    lines: dict[str, set[int]] = {}  # script -> its lines that run a CUDA compiler
    objects: list[tuple[str, int, str]] = []  # (script, line, the object's stem)
    for path, f in of_kind(facts, "flag"):
        if kinds.get(path) not in SCRIPT_KINDS:
            continue
        if f.name in compilers:
            lines.setdefault(path, set()).add(f.line)
        elif f.name in outputs and len(words := f.text.split()) == 2 and words[1].endswith(OBJECT_SUFFIXES):
            objects.append((path, f.line, posixpath.basename(words[1]).rsplit(".", 1)[0]))
    return frozenset((posixpath.dirname(path) + "/" if "/" in path else "", stem) for path, line, stem in objects
                     if line in lines.get(path, ()))


def named_words(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], skip: frozenset[str] = frozenset()
                ) -> set[str]:
    """The words of every fact of a file that is not C/C++/CUDA code (build files, scripts, Python), and the file
    names NAMING_KINDS facts give: a file named there may be compiled or read by them. `skip`: kinds of files whose
    words are read otherwise (make_reached reads the Makefiles' own)."""
    out = {posixpath.basename(f.name) for _, f in each_of_kinds(facts, *sorted(NAMING_KINDS))}
    read: set[str] = set()  # a text read once: build files repeat their lines (215 near-copies in cuda-samples)
    for path, items in facts.items():  # the words of the other files' other facts (a C/C++/CUDA file's: none)
        if kinds.get(path) not in C_SOURCE_KINDS and kinds.get(path) not in skip:
            for f in items:
                if f.kind not in NAMING_KINDS and (said := f"{f.name} {f.text}") not in read:
                    read.add(said)
                    out.update(w.rpartition("/")[2] for w in NAME_WORD.findall(said))
    return out


def name_matcher(patterns: Sequence[str]) -> Callable[[str], bool]:
    """Whether a file name matches one of the names or globs (fnmatch, case-sensitive): names by set lookup and each
    distinct glob once, so a build file listing 100,000 names costs one pass, not one per file (review23: 1074 s)."""
    names = {p for p in patterns if not GLOB_CHARS.search(p)}
    globs = sorted({p for p in patterns if GLOB_CHARS.search(p)})
    combined = re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs)) if globs else None
    return lambda name: name in names or (combined is not None and combined.match(name) is not None)


def outermost_parts(out: set[str], code: set[str]) -> dict[str, str]:
    """For each file of `out`, the outermost folder/ above it whose every C/C++/CUDA file is in `out`, else the file:
    counted per folder once (a check of every code file per folder per file was quadratic in the files)."""
    total: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    for path in code:
        for folder in _folders(path):
            total[folder] += 1
            inside[folder] += path in out
    return {path: next((f for f in _folders(path) if inside[f] == total[f]), path) for path in out}


def _folders(path: str) -> list[str]:
    """`a/`, `a/b/` for `a/b/c.cu`: the folders above a file, outermost first."""
    parts = path.split("/")
    return ["/".join(parts[:i]) + "/" for i in range(1, len(parts))]


def _evidence(part: str, root: str) -> str:
    what = "no C/C++/CUDA file in it is" if part.endswith("/") else "it is not"
    top = f"the top {CMAKE_ROOT} is the project's only build" if not root else \
        f"{root}{CMAKE_ROOT} is the only build of {root} (no build file in a folder above it)"
    return (f"{part}: {what} named by a build file, a script or a run-time compiler, nor included by a file the "
            f"build compiles; {top}, and it and the folders it reaches name every source it compiles")


def only_programs(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], known: Words) -> frozenset[str]:
    """Files of optional-named folders that hold the project's only program: every C/C++/CUDA file of the project
    lies in optional folders, and the top CMakeLists.txt reaches (through add_subdirectory) a folder among them that
    defines a target (chanzhennan/cuda_reduce_benchmark 4ada8eb3: `add_subdirectory(benchmarks)`,
    `cuda_add_executable(cuda_benchmark ...)` in benchmarks/CMakeLists.txt). The files of that optional folder (not
    those of another optional folder below it, `benchmarks/tests/`) are required."""
    if CMAKE_ROOT not in kinds:
        return frozenset()
    code = [p for p, kind in kinds.items() if kind in C_SOURCE_KINDS]
    if not code or any(optional_root(p, known) is None for p in code):
        return frozenset()
    cmake = {p: facts.get(p, ()) for p in kinds if posixpath.basename(p) == CMAKE_ROOT}
    folders = {posixpath.dirname(p) for p in cmake}
    reached = subdirectories_reached(cmake, folders)
    roots = {root for folder in reached if folder
             and any(f.kind == "cmake_target" and f.role != "target_sources"
                     for f in cmake[posixpath.join(folder, CMAKE_ROOT)])
             and (root := optional_root(posixpath.join(folder, CMAKE_ROOT), known)) is not None}
    return frozenset(p for p in kinds if (root := optional_root(p, known)) in roots
                     and optional_root(p[len(root) + 1:], known) is None)
