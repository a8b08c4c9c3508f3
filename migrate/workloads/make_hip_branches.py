"""Sources a Makefile names only outside the branches where it builds for AMD: not credited by its ROCm path.

A Makefile whose every `build` ROCm-path line (`CXX=hipcc`) sits inside a switch's branch (`ifeq ($(COMPILER),openarc)`
... `ifeq ($(OPENARC_ARCH),5)`) builds for AMD only there. A source it names only in branches that hold none of those
lines (`ifeq ($(MODE),cudav1)` / `CSRCS = propagate-toz-test_CUDA_v1.cu`, cerati/p2z-tests e56eac66 Makefile:400-404
beside the hipcc of :227) is compiled by another of its builds, never by the HIP one: the ROCm path does not port it
(issue 28 pattern 5; docs/decisions/2026-12-04-ported-credit-scoped-to-the-hip-build.md scopes CMake's the same way).
A make conditional selects its branch by the values make sees (https://www.gnu.org/software/make/manual/html_node/
Conditional-Syntax.html), so a source named beside the hipcc line, in a branch enclosing it, or outside every branch
is in the HIP build. What else the project's build files name (CMake, a Makefile with a hipcc line outside every
branch) is left as it was. These sources keep the status the other readings give them (a default build's file stays
required), where the CMake reading makes its left-out files optional parts."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads import ported
from migrate.workloads.build_sources import named_by_make, recipe_folders

MAKE_RULE = "make rule"  # a rule's or recipe's source outside every switch (extract/text/buildfiles.py)

Span = tuple[int, int]


def outside_hip_branches(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> dict[str, str]:
    """File -> why: the sources every mention of which is in a Makefile's branches away from its hipcc lines."""
    files = frozenset(facts)
    mentions: dict[str, list[str]] = {}  # file -> where each mention outside the HIP branches is ("" for one inside)
    for path in sorted(facts):
        items = facts[path]
        scoped = kinds.get(path) == "makefile" and _hip_branches(path, items)
        folders = recipe_folders(path, items) if kinds.get(path) == "makefile" else frozenset()
        for f in items:
            if f.kind != "build_source":
                continue
            away = "" if not scoped or f.text == MAKE_RULE or _reached(f.line, items, scoped) else f"{path}:{f.line}"
            for source in named_by_make(path, f, files, folders):
                mentions.setdefault(source, []).append(away)
    return {source: f"{where[0]} names {source} only in branches of make that do not build with hipcc"
            for source, where in mentions.items() if all(where)}


def _hip_branches(path: str, items: Sequence[Fact]) -> list[Span]:
    """The switch branches holding the file's `build` ROCm-path lines; none where one such line is outside every
    branch (an unconditional hipcc build) or there is none."""
    branches = [(f.line, f.end_line) for f in items if f.kind == "switch_branch"]
    lines = [f.line for f in items if f.kind == "rocm_path" and ported.fact_strength(path, f) == "build"]
    holding = [b for b in branches if any(b[0] <= n <= b[1] for n in lines)]
    if not lines or any(not any(a <= n <= b for a, b in branches) for n in lines):
        return []
    return holding


def _reached(line: int, items: Sequence[Fact], hip: list[Span]) -> bool:
    """Whether a source named on `line` is in the HIP build: outside every branch, or in one holding a hipcc line."""
    around = [(f.line, f.end_line) for f in items if f.kind == "switch_branch" and f.line <= line <= f.end_line]
    return not around or any(b in hip for b in around)
