"""The header an #include names, found once per name (or per name and list of headers) instead of once per include:
each shortcut gives what the long way gives, on trees of several copies of one project (the same header in each
copy, includes that name it with and without a folder, and near misses), and a header that drops out of a level's
list is no longer named at the next. docs/decisions/2026-12-07-s29-a-scan-s-serial-tail.md."""
from __future__ import annotations

import posixpath
import random

from migrate.model import Fact
from migrate.scan import own_headers
from migrate.workloads.assemble import Spec
from migrate.workloads.graph import DependencyGraph
from migrate.workloads.includes import IncludeSite, Named, _gated_headers
from migrate.workloads.switches import Region

HEADERS = ("common/helper.h", "common/inc/helper.h", "helper.h", "src/util.cuh", "src/detail/util.cuh", "xhelper.h")
SOURCES = ("app/main.cu", "app/sub/k.cu", "src/detail/k.cu", "lib/a.cpp")
NAMES = ("helper.h", "inc/helper.h", "common/helper.h", "util.cuh", "detail/util.cuh", "./helper.h", "../helper.h",
         "../common/helper.h", "missing.h", "elper.h")


def _copies(n: int) -> list[str]:
    return [f"copy-{k}/{p}" for k in range(n) for p in (*HEADERS, *SOURCES)]


def _include(path: str, name: str, line: int = 1, quoted: bool = True) -> Fact:
    text = f'"{name}"' if quoted else f"<{name}>"
    return Fact(kind="include", name=name, line=line, column=1, end_line=line, end_column=10, text=text)


def _long_way(paths: list[str], name: str, includer: str) -> str | None:
    found = [p for p in paths if p == name or p.endswith("/" + name)]
    return found[0] if len(found) == 1 else \
        max(found, key=lambda p: len(posixpath.commonprefix([p, includer])), default=None)


def test_named_gives_the_long_way_s_header_for_every_include_of_every_copy() -> None:
    files = _copies(5)
    by_base: dict[str, list[str]] = {}
    for path in files:
        by_base.setdefault(posixpath.basename(path), []).append(path)
    named = Named()
    named.keep(by_base)
    for _ in range(2):  # the second round from what the first kept
        for includer in [p for p in files if not p.endswith((".h", ".cuh"))]:
            for name in NAMES:
                base = posixpath.basename(name)
                if base in by_base:
                    assert named.header(by_base[base], base, name, includer) == _long_way(by_base[base], name, includer)


def test_a_header_gone_from_the_list_is_not_named_again() -> None:
    named = Named()
    before = {"helper.h": ["copy-0/common/helper.h", "copy-1/common/helper.h"]}
    named.keep(before)
    assert named.header(before["helper.h"], "helper.h", "common/helper.h", "copy-1/app/main.cu") == \
        "copy-1/common/helper.h"
    after = {"helper.h": ["copy-0/common/helper.h"]}  # copy-1's was gated at the level before
    named.keep(after)
    assert named.header(after["helper.h"], "helper.h", "common/helper.h", "copy-1/app/main.cu") == \
        "copy-0/common/helper.h"
    named.keep({})  # none of the name left: nothing kept for it
    assert named.header(["x/helper.h"], "helper.h", "helper.h", "copy-1/app/main.cu") == "x/helper.h"


def test_gated_headers_carried_from_level_to_level_match_a_fresh_look_up() -> None:
    rng = random.Random(29)
    files = _copies(4)
    facts: dict[str, list[Fact]] = {p: [] for p in files}
    sites: list[IncludeSite] = []
    for includer in files:
        for line, name in enumerate(rng.sample(NAMES, 4), 1):
            sites.append((includer, line, name, posixpath.basename(name),
                          posixpath.normpath(posixpath.join(posixpath.dirname(includer), name))))
    branch = Region("CMakeLists.txt", 1, 9, "USE_CUDA", "if(USE_CUDA)")
    other = Region("CMakeLists.txt", 11, 19, "USE_MPI", "if(USE_MPI)")
    levels = [{"copy-0/": branch}, {"copy-0/": branch, "copy-1/": branch, "copy-2/common/": other},
              {"copy-0/": branch, "copy-1/": branch, "copy-2/": branch, "copy-1/common/helper.h": branch}]
    named = Named()
    for gated in levels:
        for optional in (frozenset(), frozenset({"USE_MPI"})):
            kept = _gated_headers(facts, sites, {}, gated, optional, {}, named)
            assert kept == _gated_headers(facts, sites, {}, gated, optional, {})


def test_own_headers_resolve_gives_the_long_way_s_files_for_every_includer() -> None:
    files = _copies(3)
    tree = own_headers._Tree([(p, ()) for p in files], frozenset())
    for _ in range(2):  # again, from what the first round kept
        for includer in files:
            for name in NAMES:
                for quoted in (True, False):
                    beside = posixpath.normpath(posixpath.join(posixpath.dirname(includer), name))
                    tail = name.lstrip("./")
                    expected = [beside] if quoted and beside in tree.paths else \
                        [p for p in tree.by_base.get(posixpath.basename(name), []) if p == tail or p.endswith("/" + tail)]
                    assert tree.resolve(includer, name, quoted) == expected


def test_the_dependency_graph_links_each_copy_to_its_own_header() -> None:
    files = _copies(3)
    specs = [Spec(name=f"copy-{k}", root=f"copy-{k}", kind="cmake", files=[p for p in files if p.startswith(f"copy-{k}/")])
             for k in range(3)]
    facts = {p: (_include(p, "common/helper.h"),) for p in files if p.endswith(".cu")}
    graph = DependencyGraph(specs, facts)
    for includer in files:
        for name in NAMES:
            local = posixpath.normpath(posixpath.join(posixpath.dirname(includer), name))
            expected = local if local in graph.owner else \
                _long_way(graph._by_basename.get(posixpath.basename(name), []), name, includer)
            assert graph._include(includer, name) == expected
    assert all(graph.direct(f"copy-{k}") == [] for k in range(3))  # every copy's include stays in the copy
