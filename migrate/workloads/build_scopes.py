"""Which files a ROCm path covers: the builds that hold its evidence, not the whole repository.

A repository whose top folder has no build file of its own is a collection of projects built apart
(intelligent-machine-learning/glake: a vLLM copy in GLakeServe/ with its CMake and setup.py, a CUDA driver-API
interposer in MultiPath/src/ with a Makefile, an allocator in GMLake/ built by patching PyTorch). A build compiles
the files under its own folder (and those its build files name elsewhere), so the HIP build of one of them ports
nothing of the others. Each top build folder (a folder holding a build file, with none above it) is a scope; two
scopes are one when a build file of one names sources of the other. Evidence in a scope covers that scope; evidence
outside every scope (a CI workflow at the top, a ROCm package) covers the repository, as before. A repository whose
top folder has a build file is one scope, so nothing changes for it."""
from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence

from migrate.model import Fact
from migrate.workloads import ported
from migrate.workloads.assemble import PYTHON_PROJECT_FILES
from migrate.workloads.build_sources import sources_named
from migrate.workloads.ported import Evidence

# the names make reads without -f, in the order it tries them: the first found is the one it reads
# (https://www.gnu.org/software/make/manual/html_node/Makefile-Names.html)
MAKE_ORDER = ("GNUmakefile", "makefile", "Makefile")
MAKEFILES = frozenset(MAKE_ORDER)
WHOLE = ""  # the scope of the whole project
BUILD_KINDS = frozenset({"cmake", "makefile", "pyproject", "setupcfg", "manifest", "dockerfile"})  # build, CI, images


def build_roots(facts: Mapping[str, Sequence[Fact]]) -> set[str]:
    """Folders holding a build of their own ("" for the top): the files assemble.py roots workloads at (a Python
    project file, a CMakeLists.txt with project(), a Makefile)."""
    roots: set[str] = set()
    for path, items in facts.items():
        name = posixpath.basename(path)
        if name in PYTHON_PROJECT_FILES or name in MAKEFILES or \
                (name == "CMakeLists.txt" and any(f.kind == "cmake_project" for f in items)):
            roots.add(posixpath.dirname(path))
    return roots


def top_scopes(facts: Mapping[str, Sequence[Fact]]) -> dict[str, str]:
    """Each top build folder -> the scope it belongs to (the first of the folders joined with it by a build file that
    names sources across them); {"": ""} where the top folder has a build file."""
    roots = build_roots(facts)
    if WHOLE in roots:
        return {WHOLE: WHOLE}
    tops = sorted(r for r in roots if not any(r.startswith(o + "/") for o in roots))
    parent = {t: t for t in tops}

    def find(t: str) -> str:
        while parent[t] != t:
            t = parent[t]
        return t

    files = frozenset(facts)
    for path, items in facts.items():
        here = _scope(path, tops)
        if here is None:
            continue
        for other in {_scope(named, tops) for named in _named(path, items, files)} - {None, here}:
            a, b = sorted((find(here), find(str(other))))
            parent[b] = a
    return {t: find(t) for t in tops}


def covered(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], collected: Sequence[Evidence],
            ) -> tuple[tuple[Evidence, ...], tuple[str, ...]]:
    """The project's ROCm path (ported.rocm_path) and the folders it covers (WHOLE for all): the scopes whose
    own evidence, with the evidence outside every scope, shows a ROCm path. Scoping only takes credit away: a
    project with no ROCm path as a whole has none in a scope."""
    has_cuda = "cuda" in kinds.values()
    evidence = ported.rocm_path(collected, has_cuda_sources=has_cuda)
    if not evidence:
        return (), ()
    scopes = top_scopes(facts)
    tops = sorted(scopes)
    wide = [e for e in collected if _scope(e.path, tops) is None]
    if set(scopes) <= {WHOLE} or ported.rocm_path(wide, has_cuda_sources=has_cuda):
        return evidence, (WHOLE,)
    groups: dict[str, list[Evidence]] = {}
    for e in collected:
        if (top := _scope(e.path, tops)) is not None:
            groups.setdefault(scopes[top], []).append(e)
    cuda_in = {scopes[top] for path, kind in kinds.items()
               if kind == "cuda" and (top := _scope(path, tops)) is not None}
    lit = {scope: found for scope, items in sorted(groups.items())
           if (found := ported.rocm_path([*wide, *items], has_cuda_sources=scope in cuda_in))}
    if not lit:
        return (), ()
    shown = tuple(dict.fromkeys(e for found in lit.values() for e in found))[:ported.SHOWN]
    return shown, tuple(t for t in tops if scopes[t] in lit)


def unreached(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], collected: Sequence[Evidence],
              scopes: Sequence[str]) -> tuple[str, ...]:
    """Builds nested in a covered scope (a folder below it with a build of its own: a CMake project(), a Makefile, a
    setup.py) that the ROCm path does not reach: none of its evidence lies inside the nested build, in a folder above
    it (the build that drives it, a script beside that build), in a build file anywhere (a CMake module, a
    pyproject) or is strong (CI, a package). Evidence in a sibling folder's sources or shell scripts is that folder's
    own: sedacs' amd/ (a build script setting CXX=hipcc, one hipified source) ports nothing of libnvda, the CMake
    project pip builds beside it in nvda/."""
    if not collected:
        return ()
    nested = sorted(r for r in build_roots(facts) if r != WHOLE and any(_below(r, s) for s in scopes))
    return tuple(r for r in nested if not any(_reaches(e, r, kinds) for e in collected))


def _reaches(e: Evidence, root: str, kinds: Mapping[str, str]) -> bool:
    folder = posixpath.dirname(e.path)
    return e.strength in ported.STRONG or e.path.startswith(root + "/") or _below(root, folder) \
        or kinds.get(e.path) in BUILD_KINDS or posixpath.basename(e.path) in ported.BUILD_SCRIPTS


def _below(folder: str, above: str) -> bool:
    """Whether `folder` lies strictly below `above` (WHOLE: the top folder)."""
    return folder != above and (above == WHOLE or folder.startswith(above + "/"))


def inside(path: str, folders: Iterable[str]) -> bool:
    """Whether a file (or a folder) lies in one of the covered folders."""
    return any(f in (WHOLE, path) or path.startswith(f + "/") for f in folders)


def _scope(path: str, tops: Sequence[str]) -> str | None:
    return next((t for t in tops if path.startswith(t + "/")), None)


def _named(path: str, items: Sequence[Fact], files: frozenset[str]) -> Iterable[str]:
    """The project files a build file names as sources (CMake lists, make rules, a setup.py's extensions)."""
    for f in items:
        yield from sources_named(path, f, files)
