"""Folders of code the project no longer uses: a folder named so (rules/workloads/optional.yaml `unused_folders`:
fastflow's cmake.modules/unused/, Heteroflow's legacy/) that nothing outside it references. The name alone is not
enough: a legacy/ folder that a build compiles or a source includes is required code."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.build_sources import resolve_include, sources_named
from migrate.workloads.optional_words import Words

WORD = re.compile(r"[A-Za-z0-9_.+-]+")
# facts that can name another file or folder of the project
REFERENCE_KINDS = frozenset({"include", "python_import", "build_source", "cmake", "cmake_subdirectory", "extension",
                             "runtime_source"})


def unused_folders(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, str]:
    """Files of such folders (the outermost of nested ones) -> the folder. A folder is referenced when a file outside
    it names a file inside as a build source or an extension source, includes one, or names the folder itself in a
    build file, an include, an import or a CMake command (a path built from variables is read by its words)."""
    files = frozenset(facts)
    folders: set[str] = set()
    for path in files:
        parts = path.split("/")[:-1]
        for i, part in enumerate(parts):
            if part.lower() in known.unused:
                folders.add("/".join(parts[:i + 1]))
                break
    if not folders:
        return {}
    by_base: dict[str, list[str]] = {}
    for path in files:
        by_base.setdefault(posixpath.basename(path), []).append(path)
    out: dict[str, str] = {}
    for folder in sorted(folders):
        name = posixpath.basename(folder)
        inside = [p for p in files if p.startswith(folder + "/")]
        if not _referenced(folder, name, facts, files, by_base):
            out.update(dict.fromkeys(inside, folder))
    return out


def evidence(folder: str) -> str:
    """Why a folder of `unused_folders` is an optional part."""
    return (f"{folder}/: a folder named as code no longer used (rules/workloads/optional.yaml unused_folders), "
            "and nothing outside it builds, includes or imports a file in it")


def _referenced(folder: str, name: str, facts: Mapping[str, Sequence[Fact]], files: frozenset[str],
                by_base: Mapping[str, list[str]]) -> bool:
    for path, items in facts.items():
        if path.startswith(folder + "/"):
            continue
        for f in items:
            if any(n.startswith(folder + "/") for n in sources_named(path, f, files)):
                return True
            if f.kind == "include" and (found := resolve_include(f.name, by_base)) \
                    and all(n.startswith(folder + "/") for n in found):  # not a same-named header elsewhere
                return True
            if f.kind in REFERENCE_KINDS \
                    and name in _words(f.name, f.text):
                return True
    return False


def _words(*texts: str) -> set[str]:
    """The path components and dotted names a fact's name and text hold."""
    out: set[str] = set()
    for text in texts:
        for word in WORD.findall(text or ""):
            out.update(word.split("."))
    return out
