"""Sources a Makefile names only in the branch that builds the CUDA member of a per-back-end family, where another
branch of the same file builds that member's HIP twin: the CUDA back end's own files, which the HIP one stands in for.

automake's `if MPL_HAVE_CUDA` / `else` / `if MPL_HAVE_HIP` (pmodels/mpich 6a79bf65 src/mpl/src/gpu/Makefile.mk:8-26)
picks one back end per configure (https://www.gnu.org/software/automake/manual/html_node/Usage-of-Conditionals.html;
make's ifeq/else the same way, https://www.gnu.org/software/make/manual/html_node/Conditional-Syntax.html). The CUDA
branch names mpl_gpu_cuda.c, whose HIP twin mpl_gpu_hip.c (scan.layout.hip_twinned: the stem's CUDA word turned into
a HIP word, same folder) the other side names, and mpl_gpu_cuda_kernels.cu, which has no twin of its own: it is a
part of the CUDA member, which a ROCm build replaces by the HIP member. Such sources join the HIP-twinned files (the
project's parts give their findings status `ported`). A branch whose other side builds no HIP twin (a CPU fallback, a
Level Zero back end only) credits nothing, nor does a branch holding both twins; a source also named outside such
branches is left as the other readings give it."""
from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.build_sources import named_by_make, recipe_folders

Named = tuple[int, str]  # (the line of a Makefile naming a source, the project file it names)


def twinned_branch_sources(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], twinned: frozenset[str],
                           twins: Callable[[str], frozenset[str]]) -> frozenset[str]:
    """The files every Makefile mention of which sits in a branch that builds a CUDA twin whose HIP twin the same
    Makefile names outside that branch; `twinned`: the CUDA twins of the tree (scan.layout.hip_twinned), `twins`: the
    stems a stem's HIP twin may have (scan.layout.twin_stems)."""
    if not twinned:  # no CUDA twin in the tree: no branch builds one, and no Makefile needs reading
        return frozenset()
    files = frozenset(facts)
    mentions: dict[str, list[bool]] = {}  # file -> for each mention, whether a twinned branch holds it
    for path in sorted(facts):
        if kinds.get(path) != "makefile":
            continue
        items = facts[path]
        folders = recipe_folders(path, items)
        named = [(f.line, source) for f in items if f.kind == "build_source"
                 for source in named_by_make(path, f, files, folders)]
        spans = [(b.line, b.end_line) for b in items if b.kind == "switch_branch"
                 and _builds_cuda_twin(b.line, b.end_line, named, twinned, twins)]
        for line, source in named:
            mentions.setdefault(source, []).append(any(a < line < b for a, b in spans))
    return frozenset(source for source, seen in mentions.items() if all(seen))


def _builds_cuda_twin(start: int, end: int, named: Sequence[Named], twinned: frozenset[str],
                      twins: Callable[[str], frozenset[str]]) -> bool:
    """Whether the branch from `start` to `end` names a CUDA twin whose HIP twin is named outside the branch."""
    outside = {_stem_key(source) for line, source in named if not start < line < end}
    return any(source in twinned and any((posixpath.dirname(source), stem) in outside
                                         for stem in twins(_stem_key(source)[1]))
               for line, source in named if start < line < end)


def _stem_key(path: str) -> tuple[str, str]:
    """(folder, lower-case stem) of a project file, as scan.layout compares twins."""
    return posixpath.dirname(path), posixpath.basename(path).split(".")[0].lower()
