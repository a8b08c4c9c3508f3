"""Other projects' code kept inside the project, which discover does not walk unless asked: folders named for
copied or generated code (compared case-insensitively, as NTFS and APFS compare names), copies of libraries known by
the files they hold (Thrust's version.h, the CUDA toolkit's cuda_runtime_api.h beside driver_types.h, Boost's
version.hpp), wherever they sit, a library's public headers copied as loose files beside no sources of that library
(NVTX's nvToolsExt*.h, ggml's ggml*.h), and single files copied from CMake's own modules (FindCUDA.cmake). What names
them is data with its sources: rules/layout/vendored.yaml."""
from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import lru_cache

VENDORED_FILE = "layout/vendored.yaml"
MARKER_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Copy:
    """One library's signature: the files its folder holds, each with a marker in its text."""

    library: str
    folder: str | None
    files: tuple[tuple[str, re.Pattern[bytes]], ...]
    own_layout: frozenset[str]


@dataclass(frozen=True, slots=True)
class HeaderCopy:
    """A library's public headers copied as loose files: the files that tell them (each with a marker), the globs of
    the whole header set, and where the library's own sources sit, relative to the header folder, when it is built
    there."""

    library: str
    files: tuple[tuple[str, re.Pattern[bytes]], ...]
    headers: tuple[str, ...]
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ModuleCopy:
    """A file copied from CMake's own modules: its file name and a marker in its text."""

    library: str
    name: str
    marker: re.Pattern[bytes]
    own_layout: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Data:
    """rules/layout/vendored.yaml, read: the folder names and globs, the libraries' signatures."""

    names: frozenset[str]
    globs: tuple[str, ...]
    copies: tuple[Copy, ...]
    copy_files: frozenset[str]  # every file name some signature needs: most folders hold none
    modules: dict[str, ModuleCopy]  # file name -> the CMake module it may be a copy of
    archives: tuple[str, ...] = ()  # suffixes of the archives a release copy is unpacked from (.zip, .tar.gz)
    script_parents: frozenset[str] = frozenset()  # folders whose vendored-named child of scripts only is own (cmake)
    script_suffixes: tuple[str, ...] = ()  # the suffixes of those scripts (.cmake)
    header_sets: tuple[HeaderCopy, ...] = ()  # libraries' public headers copied as loose files (NVTX, ggml)


def vendored_folder(name: str) -> bool:
    """Whether a folder's name is one of copied or generated code's (case-insensitively)."""
    data = _data()
    folded = name.casefold()
    return folded in data.names or any(fnmatch.fnmatchcase(folded, g) for g in data.globs)


def script_parent(parent: str) -> bool:
    """Whether a vendored-named folder in a folder named `parent` may be the project's own build scripts (cmake/)."""
    return parent.casefold() in _data().script_parents


def own_build_scripts(parent: str, files: Collection[str]) -> bool:
    """Whether a vendored-named folder in a folder named `parent`, holding `files` (every file's name, at any depth),
    is the project's own build scripts (own_build_scripts: cmake/thirdparty/get_legate.cmake): each file a script."""
    suffixes = _data().script_suffixes
    return script_parent(parent) and bool(files) and all(name.casefold().endswith(suffixes) for name in files)


def library_copy(rel: str, names: Collection[str], read: Callable[[str], bytes]) -> Copy | None:
    """The library the folder at `rel` (relative to the scanned root, '/'-separated) is a copy of, or None:
    it holds every file of a signature with its marker (`read(name)` gives a file's first bytes) and is not where
    the library's own repository keeps that folder (then the scanned project is the library). The first signature
    the folder holds decides: CCCL's cub/cub, CUB 2.x with its version.cuh, is CUB's own layout, though it holds the
    files of CUB 1.8's signature too, whose own layout is cub/ alone."""
    data = _data()
    if data.copy_files.isdisjoint(names):
        return None
    folder = rel.rsplit("/", 1)[-1]
    for copy in data.copies:
        if copy.folder is not None and folder != copy.folder:
            continue
        if all(name in names and marker.search(_head(read, name)) for name, marker in copy.files):
            return None if rel in copy.own_layout else copy
    return None


def header_copy(names: Collection[str], read: Callable[[str], bytes],
                exists: Callable[[str], bool]) -> tuple[HeaderCopy, frozenset[str]] | None:
    """The library whose public headers a folder holding `names` keeps as a copy, with the names of those headers, or
    None: the folder holds each file of a header set's signature with its marker (`read(name)` gives a file's first
    bytes), and the library's sources are not where one of its layouts keeps them (`exists(rel)`, relative to the
    folder: ggml's ../src/ggml.c, or ggml.c beside the headers); there the folder is the library as the project
    builds it."""
    for copy in _data().header_sets:
        if all(name in names and marker.search(_head(read, name)) for name, marker in copy.files) \
                and not any(exists(rel) for rel in copy.sources):
            return copy, frozenset(n for n in names if any(fnmatch.fnmatchcase(n, g) for g in copy.headers))
    return None


def release_archive(name: str, siblings: Collection[str]) -> str | None:
    """The archive among a folder's siblings that the folder is named after (`gDel2D-Oct2015.zip` beside
    `gDel2D-Oct2015/`: unpacked from it), or None. Whether the folder is another project's (a build file of its own)
    is the walker's to tell."""
    suffixes = _data().archives
    return next((s for s in sorted(siblings) if s.casefold().endswith(suffixes)
                 and any(s.casefold() == name.casefold() + a for a in suffixes)), None)


def module_copy(rel: str, read: Callable[[], bytes]) -> ModuleCopy | None:
    """The CMake module the file at `rel` is a copy of, or None: its name is the module's, its first bytes hold the
    module's marker (`read()` gives them), and it is not where CMake's own repository keeps the module."""
    copy = _data().modules.get(rel.rsplit("/", 1)[-1])
    if copy is None or rel in copy.own_layout:
        return None
    try:
        head = read()[:MARKER_BYTES]
    except OSError:
        return None
    return copy if copy.marker.search(head) else None


def _head(read: Callable[[str], bytes], name: str) -> bytes:
    try:
        return read(name)[:MARKER_BYTES]
    except OSError:
        return b""


@lru_cache(maxsize=1)
def _data() -> _Data:
    from migrate.rulebase import datafile
    from migrate.rulebase.load import default_rules_dir

    raw = datafile.read(default_rules_dir() / VENDORED_FILE)
    copies = tuple(Copy(library=str(c["library"]), folder=c.get("folder"),
                        files=tuple((str(n), re.compile(str(m).encode())) for n, m in c["files"].items()),
                        own_layout=frozenset(str(p) for p in c["own_layout"])) for c in raw["library_copies"])
    header_sets = tuple(HeaderCopy(library=str(c["library"]),
                                   files=tuple((str(n), re.compile(str(m).encode())) for n, m in c["files"].items()),
                                   headers=tuple(str(g) for g in c["headers"]),
                                   sources=tuple(str(r) for r in c["sources"]))
                        for c in raw.get("header_copies", []))
    return _Data(names=frozenset(str(n).casefold() for n in raw["folders"]["names"]),
                 globs=tuple(str(g).casefold() for g in raw["folders"]["globs"]),
                 copies=copies, copy_files=frozenset(n for c in copies for n, _ in c.files), header_sets=header_sets,
                 modules={str(m["name"]): ModuleCopy(library=str(m["library"]), name=str(m["name"]),
                                                     marker=re.compile(str(m["marker"]).encode()),
                                                     own_layout=frozenset(str(p) for p in m["own_layout"]))
                          for m in raw.get("module_copies", [])},
                 archives=tuple(str(a).casefold() for a in (raw.get("release_copies") or {}).get("archives", [])),
                 script_parents=frozenset(str(n).casefold() for n in (raw.get("own_build_scripts") or {})
                                          .get("parents", [])),
                 script_suffixes=tuple(str(n).casefold() for n in (raw.get("own_build_scripts") or {})
                                       .get("suffixes", [])))
