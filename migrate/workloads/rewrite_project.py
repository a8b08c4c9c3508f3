"""Whether a project of rewrite kernels is new development: the decision scan (workloads.components)
and lint (lint.run) share. Imports nothing of the report model, so lint stays light."""
from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Mapping, Sequence

from migrate.model import Fact, Finding, evolve
from migrate.rulebase.alternatives import Lane
from migrate.rulebase.load import RuleBase
from migrate.workloads.build_sources import resolve_include

# a __global__ kernel definition or a host launch (the rules that match them: rules/device.yaml)
KERNEL_CONSTRUCTS = frozenset({"kernel-definition", "kernel-launch"})
# Translation units (not headers): where a kernel library's templates are instantiated into kernels
SOURCE_SUFFIXES = (".cu", ".cc", ".cpp", ".cxx", ".c")
MACRO = "macro"  # a block a macro makes a function of (extract/c/xref.py): it names no function
HELPER_DEPTH = 4  # helpers that call rewrite helpers, this many levels up


def kernel_rules(rules: RuleBase) -> frozenset[str]:
    """The rules that match a kernel definition or launch (the constructs, not ids written here)."""
    return rules.construct_rules(KERNEL_CONSTRUCTS)


def whole_rewrites(findings: Sequence[Finding], lanes: Mapping[str, Lane], kernels: frozenset[str],
                   facts: Mapping[str, Sequence[Fact]] | None = None) -> list[Finding]:
    """The findings of one project, with its rewrite findings made `incompatible` when the project is
    mostly rewrite kernels: new development, not a port. Kernels are counted alike on both sides: a
    plain one is a file that defines or launches a kernel and has no rewrite finding; a rewrite one is a
    file with a rewrite finding that defines or launches a kernel, or a folder of translation units with
    a rewrite finding and no kernel of their own (where a library's kernel templates are instantiated:
    a CUTLASS GEMM's .cc, a folder of per-type instantiation files). The library's own headers (epilogues,
    iterators) are no kernel. With the files' `facts`, a kernel file
    that calls a device helper whose body is rewrite code (an `mma_m16n8k16()` wrapping `mma.sync` PTX in a
    header it includes) is a rewrite kernel too. A port with a named rewrite when the plain kernels are at least as many,
    whichever of its workloads holds them (a vendored attention among a library of plain kernels);
    otherwise the rewrite kernels are the project (a CUTLASS library, a Hopper GEMM repository).
    Ported and optional findings are left as they are."""
    required = [f for f in findings if f.status == ""]
    rewrite_files = {f.path for f in required if f.rule in lanes}
    if not rewrite_files:
        return list(findings)
    kernel_files = {f.path for f in required if f.rule in kernels}
    calling = rewrite_callers(required, lanes, facts) & kernel_files if facts else set()
    roots = library_roots(required, lanes, set(facts or ()) | {f.path for f in findings})
    plain = {p for p in kernel_files - rewrite_files - calling if not p.startswith(roots)}
    instantiating = {posixpath.dirname(p) + "/" for p in rewrite_files - kernel_files if p.endswith(SOURCE_SUFFIXES)}
    # a header-only library (tilefusion's CuTe tiles): nothing of its own instantiates them, the headers are the product
    rewrite = ((rewrite_files & kernel_files) | calling | instantiating) or rewrite_files
    if len(plain) >= len(rewrite):
        return list(findings)
    return [evolve(f, migration_class="incompatible") if f.status == "" and f.rule in lanes else f for f in findings]


def library_roots(required: Sequence[Finding], lanes: Mapping[str, Lane], paths: set[str]) -> tuple[str, ...]:
    """The folders of vendored rewrite libraries: beside an entry header that a rewrite finding includes
    (`include/cufftdx.hpp`), the folder of its stem (`include/cufftdx/`), whose headers include each other by
    relative paths, so no rule names them. A kernel there is the library's own, no plain kernel of the project."""
    entries = {f.symbol for f in required if f.rule in lanes and "." in posixpath.basename(f.symbol)}
    return tuple(sorted(posixpath.splitext(p)[0] + "/" for p in paths
                        if any(p == name or p.endswith("/" + name) for name in entries)))


def rewrite_callers(required: Sequence[Finding], lanes: Mapping[str, Lane],
                    facts: Mapping[str, Sequence[Fact]]) -> set[str]:
    """Files with a function that calls a rewrite helper: a function whose body holds a rewrite finding,
    or calls such a function, HELPER_DEPTH levels up. A call reaches a definition of its own file or of a
    header it includes (matched by the include's path suffix), so a name alone is no link."""
    lines: dict[str, list[int]] = defaultdict(list)
    for f in required:
        if f.rule in lanes:
            lines[f.path].append(f.line)
    spans: dict[str, list[tuple[int, int, str]]] = defaultdict(list)  # path -> (start, end, name) of definitions
    calls: dict[str, list[tuple[int, str]]] = defaultdict(list)  # path -> (line, name) of calls
    includes: dict[str, set[str]] = defaultdict(set)
    by_base: dict[str, list[str]] = defaultdict(list)
    for path in facts:
        by_base[posixpath.basename(path)].append(path)
    for path, found in facts.items():
        for fact in found:
            if fact.kind == "function_defined" and fact.text != MACRO:
                spans[path].append((fact.line, fact.end_line, fact.name))
            elif fact.kind == "function_reference" and fact.role == "call":
                calls[path].append((fact.line, fact.name))
            elif fact.kind == "include":
                includes[path].update(resolve_include(fact.name, by_base))
    helpers = {(path, name) for path, found in spans.items() for start, end, name in found
               if any(start <= line <= end for line in lines.get(path, ()))}
    callers: set[str] = set()
    for _ in range(HELPER_DEPTH):
        names = {name for _, name in helpers}
        more: set[tuple[str, str]] = set()
        for path, called in calls.items():
            seen = {path} | includes.get(path, set())
            for line, name in called:
                if name in names and any((p, name) in helpers for p in seen):
                    callers.add(path)
                    more.update((path, n) for start, end, n in spans.get(path, ()) if start <= line <= end)
        if more <= helpers:
            break
        helpers |= more
    return callers
