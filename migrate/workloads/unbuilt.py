"""CUDA sources no build compiles (left out of an explicit source list, or a template a code generator
renders), and the headers only such files include."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.assemble import resolve_sources
from migrate.workloads.build_sources import GLOB_CHARS, named_files
from migrate.workloads.fact_index import of_kind, of_kinds
from migrate.workloads.includes import HEADER_SUFFIXES, close_over_includes, includers_of
from migrate.workloads.optional_words import Words

UNBUILT_SUFFIXES = (".cu",)
# facts of other builds and run-time loaders that name a source to compile (beside build_source and extension)
LISTING_KINDS = ("vs_source", "make_source", "runtime_source", "source_unplaced")


def unbuilt_sources(facts: Mapping[str, Sequence[Fact]], known: Words, *, builds_cuda: bool = True,
                    by_hand: frozenset[tuple[str, str]] = frozenset()) -> dict[str, str]:
    """CUDA sources no build compiles: a .cu file that no build file names (nor any glob or extension source
    list) and no file includes, beside a .cu file of the same folder that a build file (or a torch extension's
    literal source list) names by name (a source left out of, or commented out of, an explicit list), or named
    as a template a code generator renders (`x.tmpl.cu`, rules/workloads/optional.yaml `templates`); and the
    headers (and included .cu files) only such files include. A project whose build names no source of a folder
    says nothing about it.
    Where no build of the project compiles CUDA at all (`builds_cuda` false: no build file has a CUDA finding,
    no CMake project enables the CUDA language, no Python code has a CUDA tie that could load a .cu at run time),
    a .cu file below a folder whose sources a build file names, one by one or by a pattern that leaves it out
    (`$(shell ls src/*.cpp)`, `file(GLOB SRC src/*.cpp)`), is built by nothing either: CMake and make compile only
    the sources their targets list, and CMake only in the languages the project enables
    (https://cmake.org/cmake/help/latest/command/project.html: LANGUAGES, C and CXX by default). `by_hand`: (folder/,
    stem) of the objects scripts write with a CUDA compiler (reached_files.compiled_by_scripts); the source of that stem
    in or below the folder is what the script compiles (christos-tsotskas/LBM2 src/simple_compile: `nvcc --compile -o
    kernels3.o kernels3.cu`, a source src/Makefile's list leaves out), not built by nothing (a template still is).
    A .cu file of a folder holding a PyTorch extension's binding (a file including torch/extension.h, rules/workloads/
    optional.yaml `torch_extensions`) of which no build file, setup.py or load() names any source is built by nothing
    too: such an extension is compiled only by those (rwkv5_model/wkv5_op.cpp and wkv5_cuda.cu beside a model that
    loads neither)."""
    files = frozenset(facts)
    named: dict[str, str] = {}  # file -> where a build names it
    explicit: set[str] = set()
    if any(not f.text for _, f in of_kind(facts, "extension")):
        return {}  # an extension whose sources are not known could build any of them
    for path, f in of_kinds(facts, "build_source", "extension"):
        if f.kind == "build_source":
            for source in named_files(path, f, files):
                named.setdefault(source, f"{path}:{f.line}")
                if not any(c in f.name for c in GLOB_CHARS):
                    explicit.add(source)
        elif f.kind == "extension":
            base = posixpath.dirname(path)
            for item in filter(None, f.text.split("\n")):  # a literal item lists its source by name, as CMake's do
                found = resolve_sources(item, base, files)
                named.update(dict.fromkeys(found, f"{path}:{f.line}"))
                if not item.startswith("glob:"):
                    explicit.update(found)
    includers = includers_of(facts)
    siblings: dict[str, str] = {}  # folder -> the first .cu file a build names there by name
    listing: dict[str, str] = {}  # folder -> the first source a build names there by name (any language)
    for source in sorted(explicit):
        if source.endswith(UNBUILT_SUFFIXES):
            siblings.setdefault(posixpath.dirname(source), source)
    for source in sorted(named):  # by name or by a pattern (`$(shell ls src/*.cpp)`, `file(GLOB ... *.cpp)`)
        listing.setdefault(posixpath.dirname(source), source)
    bindings = _torch_bindings(facts, known)
    # the file names a torch extension's source list holds, wherever its path resolves (a path joined from a
    # variable the extractor resolves only in part names the file all the same)
    extension_names = {posixpath.basename(item.removeprefix("glob:")) for _, f in of_kind(facts, "extension")
                       for item in f.text.split("\n") if item}
    out: dict[str, str] = {}
    for path in sorted(files):
        template = bool(set(posixpath.basename(path).lower().split(".")[1:-1]) & known.templates)
        if not path.endswith(UNBUILT_SUFFIXES + (HEADER_SUFFIXES if template else ())) or path in named \
                or includers.get(posixpath.basename(path)):
            continue
        sibling = siblings.get(posixpath.dirname(path))
        if template:
            out[path] = f"{path} is a template a code generator renders (its name says so); no build file names it"
        elif _compiled_by(path, by_hand):
            continue
        elif sibling is not None:
            out[path] = f"{named[sibling]} names {sibling} beside it; no build file names {path} and nothing includes it"
        elif not builds_cuda and (above := _listed_above(path, listing)) is not None:
            how = "one by one" if above in explicit else "by a pattern that leaves this file out"
            out[path] = (f"{named[above]} names {above} {how}, and no build of the project compiles CUDA; "
                         f"no build file names {path} and nothing includes it")
        elif (binding := bindings.get(posixpath.dirname(path))) is not None \
                and posixpath.dirname(path) not in listing \
                and not {posixpath.basename(path), posixpath.basename(binding)} & extension_names:
            out[path] = (f"{binding} includes a PyTorch extension header: such an extension is compiled by a setup.py, "
                         f"a load() or a build linking Torch, and none names {path} or its folder's sources")
    # headers, and a .cu file another includes (`#include "mmc_optix_rand.cu"` in mmc_optix_ray.h) that no build lists
    # (a Visual Studio project's CudaCompile item compiles it on its own): each is compiled with its includers
    listed = {posixpath.basename(f.name) for _, f in of_kinds(facts, *LISTING_KINDS)}
    candidates = [p for p in sorted(files - set(out) - set(named))
                  if p.endswith(HEADER_SUFFIXES) or (p.endswith(UNBUILT_SUFFIXES) and includers.get(posixpath.basename(p))
                                                     and posixpath.basename(p) not in listed)]
    close_over_includes(out, candidates, includers, lambda p: p in out,
                         "included only by sources no build compiles")
    return out


def _torch_bindings(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, str]:
    """folder -> the first file there that includes a PyTorch extension header (torch/extension.h)."""
    out: dict[str, str] = {}
    for path, f in of_kind(facts, "include"):
        if f.name in known.torch_extension_headers:
            folder = posixpath.dirname(path)
            out[folder] = min(out.get(folder, path), path)
    return out


def _listed_above(path: str, listing: Mapping[str, str]) -> str | None:
    """A source a build file names by name in the file's folder or a folder above it (not the top folder alone:
    a build that lists only top-level files says nothing of the tree below)."""
    folder = posixpath.dirname(path)
    while folder:
        if folder in listing:
            return listing[folder]
        folder = posixpath.dirname(folder)
    return None


def _compiled_by(path: str, objects: frozenset[tuple[str, str]]) -> bool:
    """Whether a file is the source of one of the objects: its stem, in the folder/ ("" the top) or below it."""
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    return any(stem == name and path.startswith(folder) for folder, name in objects)
