"""Headers that go with the files including them: those only a switch's code includes (gated by it), and
those only files of optional folders include, to HEADER_DEPTH levels."""
from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence

from migrate.model import Fact
from migrate.rulebase.name_lists import header_suffixes
from migrate.workloads.build_sources import join, named_files, resolve_include
from migrate.workloads.fact_index import derived, of_kind, of_kinds
from migrate.workloads.optional_words import Words, optional_root
from migrate.workloads.switches import Region, switches_around

HEADER_SUFFIXES = header_suffixes()
HEADER_DEPTH = 3  # headers included only by optional files, this many levels down
# headers included only by a switch's code, this many levels down (decord's NVDEC SDK headers sit 4 down); deeper than
# for optional folders, where a library's own header tree, which only its examples include, is its product
GATED_DEPTH = 6
COMPILED_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")


def gate_headers(facts: Mapping[str, Sequence[Fact]], regions: Mapping[str, tuple[Region, ...]],
                 gated: dict[str, Region], optional: frozenset[str] = frozenset(), *,
                 unbuilt: frozenset[str] = frozenset()) -> None:
    """Adds to `gated` the headers a switch's code alone includes, to GATED_DEPTH levels; with `optional` (the
    switches that make code optional), also those every includer of which is in some optional switch's code
    (decord's NVDEC headers: included by sources a `USE_CUDA` glob adds and under `#if DECORD_USE_CUDA`). The
    includes of `unbuilt` files (unbuilt.unbuilt_sources: no build compiles them) do not count, unless they are a
    header's only ones (nv-legate/legate-sparse 49271fa8 src/sparse/util/cuda_help.h: included by .cu files
    `if(Legion_USE_CUDA)` adds and by scale_rect.cu, which no build names)."""
    # a source a switch already gates is built under that switch: its include of its header is that switch's code
    companions = {s: h for s, h in derived(facts, _unbuilt_companions).items() if s not in gated}
    includes = derived(facts, _include_sites)  # the same at every level and every call: made once
    named = Named()  # which header each include names, kept from level to level
    for _ in range(GATED_DEPTH):
        more = _gated_headers(facts, includes, regions, gated, optional, companions, named, unbuilt)
        if not more:
            break
        gated.update(more)
        gated.update({source: more[header] for source, header in companions.items() if header in more})


def _unbuilt_companions(facts: Mapping[str, Sequence[Fact]]) -> dict[str, str]:
    """Sources that implement a header of their own (`optix_scene.cpp` beside `optix_scene.h`, which it includes)
    and that no build file names: compiled only by a build that adds them from a variable scan does not resolve
    (a sample's `file(GLOB ... "${UTIL_DIR}/optix*.cpp")`), so they go with their header: source -> header. A source
    a build file names is built on its own and is not one (nor is any, when no build file names a source)."""
    files = frozenset(facts)
    named = {source for path, f in of_kind(facts, "build_source") for source in named_files(path, f, files)}
    if not named:
        return {}
    out: dict[str, str] = {}
    for path in sorted(files - named):
        stem, suffix = posixpath.splitext(path)
        if suffix not in COMPILED_SUFFIXES:
            continue
        for header in (stem + h for h in HEADER_SUFFIXES):
            if header in files and any(f.kind == "include" and posixpath.basename(f.name) == posixpath.basename(header)
                                       for f in facts[path]):
                out[path] = header
                break
    return out


IncludeSite = tuple[str, int, str, str, str]  # the including file, the line, the name written, its base name, local path


def _include_sites(facts: Mapping[str, Sequence[Fact]]) -> list[IncludeSite]:
    """Every #include of the project: where it is, what it names, and the path that name has beside the file."""
    return [(path, f.line, f.name, posixpath.basename(f.name), join(posixpath.dirname(path), f.name))
            for path, f in of_kind(facts, "include")]


def _gated_headers(facts: Mapping[str, Sequence[Fact]], includes: Sequence[IncludeSite],
                   regions: Mapping[str, tuple[Region, ...]], gated: Mapping[str, Region], optional: frozenset[str],
                   companions: Mapping[str, str], named: Named | None = None,
                   unbuilt: frozenset[str] = frozenset()) -> dict[str, Region]:
    """Headers every #include of which sits in one switch's code (a branch or a gated file): gated by it. The
    include of a header's unbuilt companion source (`_unbuilt_companions`) does not count: it goes with the header;
    nor does one from an `unbuilt` file beside includes from built ones.
    `named`: the headers the includes named at the level before (`Named`)."""
    by_name: dict[str, list[str]] = {}
    for path in facts:
        # with `optional`, a header gated by a switch that is none of them is looked at again: its includes may sit in
        # an optional switch's code too (`#if defined(VEXCL_BACKEND_CUDA)`, a macro defined only where a detection is)
        if path.endswith(HEADER_SUFFIXES) and (path not in gated or (optional and gated[path].switch not in optional)):
            by_name.setdefault(posixpath.basename(path), []).append(path)
    listed = {base: set(paths) for base, paths in by_name.items()}
    named = named if named is not None else Named()
    named.keep(by_name)
    seen: dict[str, list[tuple[str, list[Region]]]] = {}  # header -> (includer, the switches around its include)
    memo: dict[str, list[Region]] = {}  # regions and gated stay as they are through this loop
    for path, line, name, base, local in includes:
        if base not in by_name:
            continue
        # the header beside the file first, looked up in a set: 2,000 folders' own common.h read all 2,000 at each include
        header = local if local in listed[base] else named.header(by_name[base], base, name, path)
        if header is not None and header != path and companions.get(path) != header:
            seen.setdefault(header, []).append((path, switches_around(regions, gated, path, line=line, memo=memo)))
    out: dict[str, Region] = {}
    for header, found in seen.items():
        sites = [site for includer, site in found if includer not in unbuilt] or [site for _, site in found]
        common = set.intersection(*({r.switch for r in site} for site in sites))
        first = next((r for r in sites[0] if r.switch in common and r.switch in optional), None) \
            or next((r for r in sites[0] if r.switch in common), None)
        if first is None and optional and all(any(r.switch in optional for r in site) for site in sites):
            first = next(r for r in sites[0] if r.switch in optional)
        if first is not None and gated.get(header) != first:
            out[header] = first
    return out


class Named:
    """Which of the project's headers an include names when none of that base name is beside the including file:
    the one whose path ends in the name written (an include path from the project's top, `<vexcl/backend/cuda.hpp>`
    in vexcl/backend.hpp, names that file), the nearest to the including file among several. Kept from one level of
    `gate_headers` to the next for every base name whose headers are the same at both (a level gates a few headers;
    the others keep their lists): each include is looked up once, not at every level (6 levels, up to 4 calls a
    scan; a tree of 5 copies of one project has 5 of each header, and every include compared the 5 paths again)."""

    def __init__(self) -> None:
        self._by_base: dict[str, tuple[list[str], dict[tuple[str, str], str | None]]] = {}

    def keep(self, by_name: Mapping[str, list[str]]) -> None:
        """Forget what was found among headers of a base name whose list is not `by_name`'s now."""
        for base in [b for b, (paths, _) in self._by_base.items() if by_name.get(b) != paths]:
            del self._by_base[base]

    def header(self, paths: list[str], base: str, name: str, includer: str) -> str | None:
        """The header of `paths` (those of the name's base name, `keep` told of them) that `includer`'s `name` is."""
        entry = self._by_base.get(base)
        if entry is None:
            entry = self._by_base[base] = (paths, {})
        known = entry[1]
        key = (name, includer)
        if key not in known:
            found = [p for p in paths if p == name or p.endswith("/" + name)]
            known[key] = found[0] if len(found) == 1 else \
                max(found, key=lambda p: len(posixpath.commonprefix([p, includer])), default=None)
        return known[key]


def optional_includes(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, str]:
    """Headers that only files of optional folders include (a benchmark's tester.h and the timer and tensor
    helpers it includes), to HEADER_DEPTH levels: optional with them, as _gated_headers does for a switch's
    files. Only in a project with a compiled source of its own outside those folders: a header-only library's
    headers are its product, which its tests and examples are the only files to include."""
    if not any(p.endswith(COMPILED_SUFFIXES) and optional_root(p, known) is None for p in facts):
        return {}
    includers = includers_of(facts)
    headers = [p for p in facts if p.endswith(HEADER_SUFFIXES) and optional_root(p, known) is None]
    out: dict[str, str] = {}
    close_over_includes(out, headers, includers, lambda p: p in out or optional_root(p, known) is not None,
                         "included only by optional files")
    return out


def includers_of(facts: Mapping[str, Sequence[Fact]]) -> dict[str, set[str]]:
    """Each included file name (its basename) -> the files that include it."""
    out: dict[str, set[str]] = {}
    for path, f in of_kind(facts, "include"):
        out.setdefault(posixpath.basename(f.name), set()).add(path)
    return out


def close_over_includes(out: dict[str, str], headers: Sequence[str], includers: Mapping[str, set[str]],
                         inside: Callable[[str], bool], why: str) -> None:
    """Adds to `out`, to HEADER_DEPTH levels, each of `headers` that some other file includes and that only
    files `inside` (which may read `out`) include, with `why` and its includers."""
    for _ in range(HEADER_DEPTH):
        more = {}
        for header in headers:
            by = includers.get(posixpath.basename(header), set()) - {header}
            if header not in out and by and all(inside(p) for p in by):
                more[header] = f"{why} ({', '.join(sorted(by))})"
        if not more:
            break
        out.update(more)


def included_by_required(facts: Mapping[str, Sequence[Fact]], known: Words) -> frozenset[str]:
    """Files of optional folders that code outside them includes, to HEADER_DEPTH levels (fast.cu's
    top-level matmul.cu including examples/matmul/matmul_12.cuh): the required build compiles them, so
    the folder's name does not make them optional. An include reaches the files whose path ends with it; one
    that a file outside optional folders answers (its own `utils.h`) reaches no test's `utils.h`."""
    by_base: dict[str, list[str]] = {}
    for path in facts:
        by_base.setdefault(posixpath.basename(path), []).append(path)
    found: set[str] = set()
    frontier = [p for p in facts if optional_root(p, known) is None]
    for _ in range(HEADER_DEPTH):
        reached: set[str] = set()
        for path in frontier:
            for f in facts[path]:
                if f.kind != "include":
                    continue
                named = resolve_include(f.name, by_base)
                if all(optional_root(p, known) is not None for p in named):
                    reached.update(p for p in named if p not in found)
        found |= reached
        frontier = sorted(reached)
    return frozenset(found)


def linked_by_required(facts: Mapping[str, Sequence[Fact]], known: Words) -> frozenset[str]:
    """Files of optional folders that build a library code outside them links by name: a CMake `add_library(NAME ...)`
    in an optional folder (and no library of that name outside one) that a Go file's `#cgo LDFLAGS: -lNAME` or a
    `target_link_libraries(... NAME)` of a build file outside optional folders links; its build file, its sources and
    the headers they include, to HEADER_DEPTH levels. The required build needs them, so the folder's name does not
    make them optional: GeneTinderholm/cuda-example 860fe1c6 keeps its only native library in example/ (CMake
    `exampleshared`, `examplestatic`), which the Go packages shared/ and static/ link (`-lexampleshared`)."""
    linked: set[str] = set()
    own: set[str] = set()  # libraries defined outside optional folders
    defined: list[tuple[str, Fact]] = []
    for path, f in of_kinds(facts, "cmake_target", "link_library", "cmake_link"):
        optional = optional_root(path, known) is not None
        if f.kind == "cmake_target" and f.role == "add_library" and optional:
            defined.append((path, f))
        elif f.kind == "cmake_target" and f.role == "add_library":
            own.add(f.name)
        elif not optional and f.kind == "link_library":
            linked.add(f.name)
        elif not optional and f.kind == "cmake_link":
            linked.update(f.text.split("\n"))
    found: set[str] = set()
    for path, f in defined:
        if f.name in linked and f.name not in own:
            found.add(path)
            base = posixpath.dirname(path)
            found.update(p for item in f.text.split("\n") if (p := join(base, item)) in facts)
    by_base: dict[str, list[str]] = {}
    for path in facts:
        by_base.setdefault(posixpath.basename(path), []).append(path)
    frontier = sorted(found)
    for _ in range(HEADER_DEPTH):
        reached = {p for path in frontier for f in facts[path] if f.kind == "include"
                   for p in resolve_include(f.name, by_base) if p not in found and optional_root(p, known) is not None}
        found |= reached
        frontier = sorted(reached)
    return frozenset(found)
