"""Configure probes: a source a CMake project compiles only at configure time (try_compile, try_run), to learn
something of the compiler or the machine (the installed GPUs' architectures, whether a feature compiles), and that no
target of the build compiles. Its result is a variable; the project's built code does not contain it, so it is a part
of its own, not reached by the default build (https://cmake.org/cmake/help/latest/command/try_run.html,
https://cmake.org/cmake/help/latest/command/try_compile.html; rules/names/build.yaml configure_probe_commands).
A probe source that a target lists as well, or that another file includes, keeps its reading."""
from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.build_sources import named_files
from migrate.workloads.fact_index import of_kinds
from migrate.workloads.includes import includers_of

PROBE_ROLE = "probe"  # the role extract/text/cmakelists.py gives a source try_compile()/try_run() names


def configure_probes(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[str, str]]:
    """File -> (the file itself as its part; evidence), for the sources only configure probes name. A source named
    below a folder variable (`${SRC_DIR}/k.cu`, `source_unplaced`) counts as built wherever its name matches."""
    named = of_kinds(facts, "build_source", "source_unplaced")
    if not any(f.role == PROBE_ROLE for _, f in named):  # most projects: no source list of theirs to resolve
        return {}
    files = frozenset(facts)
    probes: dict[str, str] = {}  # file -> where a probe names it
    built: set[str] = set()
    for path, f in named:
        found = named_files(path, f, files) if f.kind == "build_source" else \
            [p for p in files if fnmatch.fnmatchcase(posixpath.basename(p), f.name)]
        if f.role == PROBE_ROLE:
            for source in found:
                probes.setdefault(source, f"{path}:{f.line}")
        else:
            built.update(found)
    includers = includers_of(facts)
    return {p: (p, f"{p}: a configure probe: {where} compiles it with try_compile()/try_run() while CMake "
                   f"configures, to set a variable; no target of the build lists it nor does a file include it")
            for p, where in probes.items() if p not in built and not includers.get(posixpath.basename(p))}
