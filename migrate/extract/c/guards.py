"""Preprocessor context: which byte ranges sit in a branch of a HIP/ROCm guard."""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from migrate.extract.c import ts

# Macros that mark a HIP/ROCm build: __HIP_PLATFORM_AMD__, __HIPCC__, USE_ROCM, TORCH_HIP_VERSION, and the
# ROCm libraries' switches (KOKKOS_ENABLE_ROCTHRUST) ...
HIP_TOKEN = re.compile(r"^(HIP\w*|ROCM\w*|HCC|AMDGCN|ROC(THRUST|PRIM|RAND|BLAS|SPARSE|SOLVER|FFT|WMMA))$")
IDENT = re.compile(r"[A-Za-z_]\w*")


# `#if CUDA_VERSION >= 11020` (or CUDART_VERSION, alone or after `defined(...) &&`): false under hip-clang,
# which defines neither, so a chain that ends in a plain #else compiles that #else on ROCm.
CUDA_VERSION_GATE = re.compile(
    r"^\s*(?:defined\s*\(?\s*(CUDA_VERSION|CUDART_VERSION)\s*\)?\s*&&\s*)?\(?\s*(CUDA_VERSION|CUDART_VERSION)\s*>=?\s*"
    r"\(?\s*\d+\s*\)?\s*\)?\s*$")
ERROR_DIRECTIVE = re.compile(rb"^\s*#\s*error\b", re.MULTILINE)
# `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600`: code for older NVIDIA GPUs only (the CUDA guide's double
# atomicAdd for pre-Pascal). False under hip-clang, which defines no __CUDA_ARCH__, so HIP never compiles it.
# The bare `#if __CUDA_ARCH__ < 600` is another matter: an undefined name reads as 0, so it is true there.
LEGACY_ARCH_GATE = re.compile(
    r"^\s*defined\s*\(?\s*__CUDA_ARCH__\s*\)?\s*&&\s*\(?\s*__CUDA_ARCH__\s*<=?\s*\(?\s*\d+\s*\)?\s*\)?\s*$")

# A name that also says CUDA (MFEM_USE_CUDA_OR_HIP, an include guard GKO_CUDA_HIP_MATH_HPP_) covers both builds.
BOTH_TOKEN = re.compile(r"^(CUDA|GPU|HPP|H|CUH|INCLUDED)$")


def mentions_hip(condition: str) -> bool:
    return any(_hip_name(ident) for ident in IDENT.findall(condition))


def _hip_name(ident: str) -> bool:
    tokens = [tok for tok in ident.split("_") if tok]
    return any(HIP_TOKEN.match(tok) for tok in tokens) and not any(BOTH_TOKEN.match(tok) for tok in tokens)


# A macro named like a build switch (USE_CUDNN, CAFFE_WITH_NCCL): upper case words joined by `_`. Whether
# the switch makes its code optional is the project's to say (rules/workloads/optional.yaml, workloads/parts.py).
SWITCH = r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"  # for patterns that find such a name in a flag or a comment
SWITCH_NAME = re.compile(rf"^{SWITCH}$")
SWITCH_TERM = re.compile(r"^\(*\s*(?:defined\s*\(\s*([A-Za-z_]\w*)\s*\)|defined\s+([A-Za-z_]\w*)|([A-Za-z_]\w*))\s*\)*$")


# Macros no ROCm build defines: nvcc's own (__NVCC__, __CUDACC__, __CUDA_ARCH__) and HIP's NVIDIA platform
# (__HIP_PLATFORM_NVIDIA__, its old name __HIP_PLATFORM_NVCC__): hip-clang on AMD leaves all five undefined
# (https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html, "Compiler defines: summary";
# clang defines __HIP__/__HIPCC__ for HIP and no __CUDA_ARCH__: https://reviews.llvm.org/D45441).
NVIDIA_ONLY = frozenset({"__NVCC__", "__CUDACC__", "__CUDA_ARCH__", "__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__"})


def needs_nvidia(condition: str) -> bool:
    """Whether a condition is true only under an NVIDIA toolchain: a conjunction (no `||`) with an un-negated
    term on one of NVIDIA_ONLY (`defined(__NVCC__) && defined(__HIPCC__)`: HIP on NVIDIA, never a ROCm build)."""
    if "||" in condition:
        return False
    for term in condition.split("&&"):
        m = SWITCH_TERM.match(term.strip())
        if m and next((g for g in m.groups() if g), "") in NVIDIA_ONLY:
            return True
    return False


def switch_names(condition: str, positive: bool) -> list[str]:
    """The switch macros a branch is taken on: `#ifdef USE_X`, `#if defined(USE_X) && ...`, `#if USE_X`.
    None for a negated or `||` condition, a HIP macro, or a name not shaped like a switch."""
    if not positive or not condition or "||" in condition:
        return []
    out = []
    for term in condition.split("&&"):
        m = SWITCH_TERM.match(term.strip())
        name = next((g for g in m.groups() if g), "") if m else ""
        if SWITCH_NAME.match(name) and not _hip_name(name):
            out.append(name)
    return out


def else_switch(chain: list[tuple[str, bool, int, int]]) -> str:
    """The switch an `#else` is taken on: X of `#ifndef X` / `#if !defined(X)` followed by a plain `#else`
    (grouped_gemm's `#if !defined(GROUPED_GEMM_CUTLASS)` cuBLAS path `#else` CUTLASS path), or ""."""
    if len(chain) != 2 or chain[1][0] or chain[0][1]:
        return ""
    m = SWITCH_TERM.match(chain[0][0].strip().lstrip("!").strip())
    name = next((g for g in m.groups() if g), "") if m else ""
    return name if SWITCH_NAME.match(name) and not _hip_name(name) else ""


def _negated(condition: str) -> bool:
    return condition.lstrip().startswith("!")


@dataclass(frozen=True, slots=True)
class GuardMap:
    """Branch ranges with a label, 'hip' or 'cuda' (nested or disjoint, as the preprocessor makes
    them), flattened into breakpoints: from each offset on, the label of the innermost branch."""

    ranges: tuple[tuple[int, int, str], ...]
    starts: tuple[int, ...] = ()
    labels: tuple[str | None, ...] = ()

    @classmethod
    def build(cls, chains: list[tuple[ts.Node, Chain]], off: frozenset[str] = frozenset()) -> GuardMap:
        """`chains`: each conditional of the file with its branches (chains_of). `off`: macros the file
        defines as 0 once and unconditionally; a branch on one of them (or on a literal 0) is compiled by
        no build and labelled 'off'."""
        ranges: list[tuple[int, int, str]] = []
        for node, chain in chains:
            ranges.extend((start, end, "off") for cond, _, start, end in chain if _always_false(cond, off))
            if any(mentions_hip(cond) for cond, _, _, _ in chain):
                ranges.extend(_label(chain))
            elif _version_gate_with_else(node, chain):
                ranges.extend((start, end, "cuda") for cond, _, start, end in chain if cond)
            elif chain and LEGACY_ARCH_GATE.match(chain[0][0]):
                ranges.append((chain[0][2], chain[0][3], "cuda"))
        ordered = tuple(sorted(ranges))
        points = _breakpoints(ordered)
        return cls(ordered, tuple(p for p, _ in points), tuple(label for _, label in points))

    def at(self, offset: int) -> str | None:
        """The label of the innermost HIP-guarded branch containing the byte offset."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return self.labels[index] if index >= 0 else None


def _always_false(condition: str, off: frozenset[str]) -> bool:
    bare = condition.strip().strip("()").strip()
    return bare == "0" or bare in off


def off_macros(defines: list[ts.Node], source: bytes) -> frozenset[str]:
    """Object-like macros defined as 0 exactly once, outside every #if, and never #undef'd: a feature
    the file turns off for every build (`#define USE_NO_CACHE_ALLOCATE_FOR_WEIGHT_LOADS 0`). A default
    under `#ifndef X` is a switch a build may set, so it is not one of them."""
    counts: dict[str, int] = {}
    zero: set[str] = set()
    for define in defines:
        name = define.child_by_field_name("name")
        if name is None or name.text is None:
            continue
        label = name.text.decode("utf-8", "replace")
        counts[label] = counts.get(label, 0) + 1
        value = define.child_by_field_name("value")
        literal = value.text.decode("utf-8", "replace").strip().strip("()").strip() if value is not None and value.text else ""
        if define.type == "preproc_def" and literal == "0" and define.parent is not None \
                and define.parent.type == "translation_unit":
            zero.add(label)
    once = {n for n in zero if counts[n] == 1}
    if not once:  # most files and every macro body: no scan of the source for #undef
        return frozenset()
    undefined = {m.decode("utf-8", "replace") for m in UNDEF.findall(source)}
    return frozenset(once - undefined)


UNDEF = re.compile(rb"^\s*#\s*undef\s+(\w+)", re.MULTILINE)


def _breakpoints(ranges: tuple[tuple[int, int, str], ...]) -> list[tuple[int, str | None]]:
    """One sweep with a stack of open branches (linear after the sort; an 800-deep #if nest or
    800 chains of 50 branches cost no more than their size)."""
    points: list[tuple[int, str | None]] = []
    open_: list[tuple[int, str]] = []

    def close(until: float) -> None:
        while open_ and open_[-1][0] <= until:
            stop = open_.pop()[0]
            points.append((stop, open_[-1][1] if open_ else None))

    for start, stop, label in ranges:
        close(start)
        open_.append((stop, label))
        points.append((start, label))
    close(float("inf"))
    return points


def _version_gate_with_else(node: ts.Node, chain: list[tuple[str, bool, int, int]]) -> bool:
    """A chain on CUDA's version whose every test is `CUDA_VERSION >= N` and that ends in an #else
    without #error: hip-clang compiles the #else, the portable path, so the tested branches are CUDA's."""
    if len(chain) < 2 or chain[-1][0] or not all(CUDA_VERSION_GATE.match(cond) for cond, _, _, _ in chain[:-1]):
        return False
    last = node
    while (following := last.child_by_field_name("alternative")) is not None:
        last = following
    return not ERROR_DIRECTIVE.search(last.text or b"")


Chain = list[tuple[str, bool, int, int]]  # (condition text, positive?, start, end) per branch of one #if chain


def chains_of(conditionals: list[ts.Node]) -> list[tuple[ts.Node, Chain]]:
    """Each conditional with its branches, read once for every reader of the file's guards."""
    return [(node, list(branches(node))) for node in conditionals]


def branches(node: ts.Node | None) -> Iterator[tuple[str, bool, int, int]]:
    """(condition text, positive?, start, end) for each branch of an #if/#ifdef chain."""
    while node is not None:
        kind = node.type
        alternative = node.child_by_field_name("alternative")
        end = alternative.start_byte if alternative is not None else node.end_byte
        if kind == "preproc_else":
            yield "", True, node.start_byte, node.end_byte
            return
        if kind in ("preproc_ifdef", "preproc_elifdef"):
            name = node.child_by_field_name("name")
            cond = name.text.decode("utf-8", "replace") if name is not None and name.text else ""
            positive = not node.children[0].type.endswith("ndef")
        else:
            condition = node.child_by_field_name("condition")
            cond = condition.text.decode("utf-8", "replace") if condition is not None and condition.text else ""
            positive = not _negated(cond)
        yield cond, positive, node.start_byte, end
        node = alternative


def labels(chain: list[tuple[str, bool, int, int]]) -> list[str]:
    """Each branch's side, 'hip' or 'cuda', in order."""
    return [label for _, _, label in _label(chain)]


def _label(branches: list[tuple[str, bool, int, int]]) -> list[tuple[int, int, str]]:
    out = []
    hip_seen = False
    for cond, positive, start, end in branches:
        is_hip = mentions_hip(cond) and positive and not needs_nvidia(cond)
        if not cond:  # #else: HIP if no earlier branch was the HIP one
            is_hip = not hip_seen
        hip_seen = hip_seen or is_hip
        out.append((start, end, "hip" if is_hip else "cuda"))
    return out
