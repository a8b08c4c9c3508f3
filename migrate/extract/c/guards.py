"""Preprocessor context: which byte ranges sit in a branch of a HIP/ROCm guard."""
from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from migrate.extract.c import tree, ts
from migrate.extract.c.needles import LineNeedled, Needled
from migrate.extract.names import guard_map, name_list

# Macros that mark a HIP/ROCm build: __HIP_PLATFORM_AMD__, __HIPCC__, USE_ROCM, TORCH_HIP_VERSION, and the
# ROCm libraries' switches (KOKKOS_ENABLE_ROCTHRUST) ...
HIP_TOKEN = re.compile(r"^(HIP\w*|ROCM\w*|HCC|AMDGCN|ROC(THRUST|PRIM|RAND|BLAS|SPARSE|SOLVER|FFT|WMMA))$")
IDENT = re.compile(r"[A-Za-z_]\w*")


# `#if CUDA_VERSION >= 11020` (or CUDART_VERSION, alone or after `defined(...) &&`): false under hip-clang,
# which defines neither, so a chain that ends in a plain #else compiles that #else on ROCm.
CUDA_VERSION_GATE = re.compile(
    r"^\s*(?:defined\s*(?:\(\s*)?(CUDA_VERSION|CUDART_VERSION)\s*(?:\)\s*)?&&\s*)?(?:\(\s*)?(CUDA_VERSION|CUDART_VERSION)"
    r"\s*>=?\s*(?:\(\s*)?\d+\s*(?:\)\s*){0,2}$")
ERROR_DIRECTIVE = re.compile(rb"^\s*#\s*error\b", re.MULTILINE)
# `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600`: code for older NVIDIA GPUs only (the CUDA guide's double
# atomicAdd for pre-Pascal). False under hip-clang, which defines no __CUDA_ARCH__, so HIP never compiles it.
# The bare `#if __CUDA_ARCH__ < 600` is another matter: an undefined name reads as 0, so it is true there.
LEGACY_ARCH_GATE = re.compile(
    r"^\s*defined\s*(?:\(\s*)?__CUDA_ARCH__\s*(?:\)\s*)?&&\s*(?:\(\s*)?__CUDA_ARCH__\s*<=?\s*(?:\(\s*)?\d+\s*(?:\)\s*){0,2}$")
# C++'s alternative tokens for the logical operators, which the preprocessor reads too (`#if __CUDA_ARCH__ < 600 and
# defined(__CUDA_ARCH__)`): https://en.cppreference.com/w/cpp/language/operator_alternative
ALTERNATIVE_TOKENS = {"and": "&&", "or": "||", "not": "!"}
ALTERNATIVE_WORD = re.compile(r"\b(and|or|not)\b")


def _plain_operators(condition: str) -> str:
    return ALTERNATIVE_WORD.sub(lambda m: ALTERNATIVE_TOKENS[m.group(1)], condition)


def legacy_arch_gate(condition: str) -> bool:
    """LEGACY_ARCH_GATE in either order of its two terms, with `&&` or `and`."""
    terms = _plain_operators(condition).split("&&")
    return len(terms) == 2 and any(LEGACY_ARCH_GATE.match(f"{first} && {second}")
                                   for first, second in (terms, terms[::-1]))

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
# A macro the compiler predefines (__CUDACC__, __CUDA_ARCH__): a branch on it is kept as a switch's branch too;
# which of them follow a build's switch is the project's to say (rules/workloads/optional.yaml `compile_pass`).
PREDEFINED_NAME = re.compile(r"^__[A-Z][A-Z0-9_]*__$")


# A project's switch spelled with one leading underscore (cdcseacave/openMVS 5c6ab5a9 build/Templates/ConfigLocal.h.in:54
# `#cmakedefine _USE_CUDA`, a variable its CMakeLists.txt:158 sets TRUE only under `if(CUDA_FOUND)`; sources test
# `#ifdef _USE_CUDA`): kept as a switch's branch. workloads/parts.py counts such a name only where the project's build
# declares or sets it, so a compiler's or a library's own (_MSC_VER, _GLIBCXX_USE_CXX11_ABI) is never a switch.
# Irrlicht's spelling closes the name with one more underscore (buildaworldnet/IrrlichtBAW 9033b2a9
# include/irr/config/BuildConfigOptions.h.in:20 `#cmakedefine _IRR_COMPILE_WITH_CUDA_`, set from the option
# IRR_COMPILE_WITH_CUDA in source/Irrlicht/CMakeLists.txt:54; sources test `#ifdef _IRR_COMPILE_WITH_CUDA_`).
UNDERSCORED_SWITCH_NAME = re.compile(rf"^_{SWITCH}_?$")


# A compiler's macro written without its underscores (`#ifdef NVCC`; nvcc defines __NVCC__): a switch only a build
# that passes -DNVCC turns on (rules/names/device.yaml `compiler_lookalike_macros`; workloads/switches.never_defined)
LOOKALIKE_MACROS = name_list("device", "compiler_lookalike_macros")
# A one-word macro that turns a project's GPU code on (`#ifdef GPU`: darknet's `-DGPU`; rules/names/device.yaml
# `platform_switch_macros`): a switch too, decided by the build that defines it (workloads/switches.defined_only_under)
PLATFORM_MACROS = name_list("device", "platform_switch_macros")


def _switch_like(name: str) -> bool:
    return bool(SWITCH_NAME.match(name) or UNDERSCORED_SWITCH_NAME.match(name) or PREDEFINED_NAME.match(name)
                or name in LOOKALIKE_MACROS or name in PLATFORM_MACROS) and not _hip_name(name)
SWITCH_TERM = re.compile(r"^\(*\s*(?:defined\s*\(\s*([A-Za-z_]\w*)\s*\)|defined\s+([A-Za-z_]\w*)|([A-Za-z_]\w*))\s*\)*$")


# The include guard of a CUDA library header (`#ifdef _CUFFT_H_` in NVIDIA's samples helper helper_cuda.h): its branch
# is compiled only after that header (rules/names/device.yaml `library_include_guards`; workloads/library_guards.py).
LIBRARY_GUARDS = frozenset(guard_map("device", "library_include_guards"))


def library_guard(condition: str, positive: bool) -> str | None:
    """The library include guard a branch is taken on (`#ifdef _CUFFT_H_`, `#if defined(CURAND_H_)`), or None."""
    m = SWITCH_TERM.match(condition.strip()) if positive else None
    name = next((g for g in m.groups() if g), None) if m else None
    return name if name in LIBRARY_GUARDS else None


# Macros no ROCm build defines: nvcc's own (__NVCC__, __CUDACC__, __CUDA_ARCH__) and HIP's NVIDIA platform
# (__HIP_PLATFORM_NVIDIA__, its old name __HIP_PLATFORM_NVCC__): hip-clang on AMD leaves all five undefined
# (https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html, "Compiler defines: summary";
# clang defines __HIP__/__HIPCC__ for HIP and no __CUDA_ARCH__: https://reviews.llvm.org/D45441).
NVIDIA_ONLY = name_list("device", "nvidia_only_macros")


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
        if _switch_like(name):
            out.append(name)
    return out


def else_switches(chain: list[tuple[str, bool, int, int]]) -> list[str]:
    """The switches an `#else` is taken on: X of `#ifndef X` / `#if !defined(X)` followed by a plain `#else`
    (grouped_gemm's `#if !defined(GROUPED_GEMM_CUTLASS)` cuBLAS path `#else` CUTLASS path), and each of A, B of
    `#if !defined(A) || !defined(B)` (its `#else` is taken on A && B: ddemidov/vexcl 1bfbcb33 vexcl/spmat.hpp:259
    `#if !defined(VEXCL_BACKEND_CUDA) || !defined(VEXCL_USE_CUSPARSE)` ... `#else` includes the cuSPARSE headers)."""
    if len(chain) != 2 or chain[1][0] or chain[0][1]:
        return []
    terms = chain[0][0].split("||")
    out = []
    for term in terms:
        term = term.strip()
        if not term.startswith("!") and len(terms) > 1:
            return []
        m = SWITCH_TERM.match(term.lstrip("!").strip())
        name = next((g for g in m.groups() if g), "") if m else ""
        if not _switch_like(name):
            return []
        out.append(name)
    return out


# The one macro a branch is taken without: `#ifndef X`, `#if !defined(X)` (one term), or the plain `#else` of `#ifdef X` /
# `#if defined(X)`. workloads/project_defines.py reads such a branch against the macros every build of the project defines
# (cuimg's `#ifndef NO_CUDA` GPU code beside its top CMakeLists.txt's unconditional `ADD_DEFINITIONS(-DNO_CUDA)`).
NOT_DEFINED = re.compile(r"^!\s*defined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|\s([A-Za-z_]\w*))$")
DEFINED_TEST = re.compile(r"^defined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|\s([A-Za-z_]\w*))$")


def unless_branches(chain: Chain, source: bytes) -> list[tuple[str, int, int]]:
    """(macro, start, end) of the branches of one #if chain taken only while a macro is undefined: the first branch of
    `#ifndef X` / `#if !defined(X)`, or the `#else` of a two-branch `#ifdef X` / `#if defined(X)`. Not an include
    guard nor a default (`#ifndef X` / `#define X ...`: the file defines X itself), nor a compiler's macro (`__X__`)."""
    if not chain:
        return []
    cond, positive = chain[0][0].strip(), chain[0][1]
    ident = IDENT.fullmatch(cond)
    tested = NOT_DEFINED.match(cond) if not positive else DEFINED_TEST.match(cond)
    name = cond if ident is not None else (tested.group(1) or tested.group(2)) if tested is not None else ""
    if not name:
        return []
    if not positive:  # #ifndef X, #if !defined(X)
        branch = chain[0]
    elif len(chain) == 2 and not chain[1][0] \
            and (ident is None or _ifdef_directive(source, chain[0][2])):  # #ifdef X ... #else (`#if X`: a value test)
        branch = chain[1]
    else:
        return []
    if PREDEFINED_NAME.match(name) or name.startswith("__") or name.encode() in defined_names(source):
        return []
    return [(name, branch[2], branch[3])]


@functools.lru_cache(maxsize=8)
def defined_names(source: bytes) -> frozenset[bytes]:
    """The macros a file `#define`s anywhere (one pass over the file, kept for the file's every #if chain: a search
    per chain cost cuda-samples 2.3 s of CPU)."""
    return frozenset(m.group(1) for m in LIVE_DEFINE.finditer(source))


def _ifdef_directive(source: bytes, start: int) -> bool:
    return re.match(rb"[ \t]*#[ \t]*ifdef\b", source[start:start + 64]) is not None


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
    def build(cls, chains: list[tuple[ts.Node, Chain]], off: frozenset[str], source: bytes) -> GuardMap:
        """`chains`: each conditional of the file with its branches (chains_of). `off`: macros the file
        defines as 0 once and unconditionally; a branch on one of them (or on a literal 0) is compiled by
        no build and labelled 'off'. `source`: the file's bytes, for chains whose branches name the APIs."""
        ranges: list[tuple[int, int, str]] = []
        hip_text = b"hip" in source
        for node, chain in chains:
            ranges.extend((start, end, "off") for cond, _, start, end in chain if _always_false(cond, off))
            if any(mentions_hip(cond) for cond, _, _, _ in chain):
                ranges.extend(_label(chain))
            elif hip_text and (sides := api_sides(chain, source)):
                ranges.extend(sides)
            elif _version_gate_with_else(node, chain):
                ranges.extend((start, end, "cuda") for cond, _, start, end in chain if cond)
            elif chain and legacy_arch_gate(chain[0][0]):
                ranges.append((chain[0][2], chain[0][3], "cuda"))
            else:
                ranges.extend(_arch_untaken(node))
        ordered = tuple(sorted(ranges))
        points = _breakpoints(ordered)
        return cls(ordered, tuple(p for p, _ in points), tuple(label for _, label in points))

    def at(self, offset: int) -> str | None:
        """The label of the innermost HIP-guarded branch containing the byte offset."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return self.labels[index] if index >= 0 else None


ARCH_TOKENS = 64  # longer arch tests are not read (hand-written ones have a few terms)
ARCH_TOKEN = re.compile(r"\s*([A-Za-z_]\w*|\d+[uUlL]*|&&|\|\||[<>=!]=|[<>!()])")
# Macros hip-clang defines when it compiles HIP (clang: https://reviews.llvm.org/D45441; HIP porting guide,
# "Compiler defines: summary"): `defined(X)` of one of them is true in an arch test (`!defined(__CUDA_ARCH__) ||
# __CUDA_ARCH__ >= 600 || defined(__clang__)`); `defined` of one of NVIDIA_ONLY is false; any other name is unknown.
HIP_CLANG_DEFINES = name_list("device", "hip_clang_macros")


def arch_value(condition: str) -> int | None:
    """A condition that tests only __CUDA_ARCH__ against numbers (`__CUDA_ARCH__ >= 350`, `defined(__CUDA_ARCH__)
    && __CUDA_ARCH__ < 500`, `||`, `!`, `defined` of a compiler's macro) evaluated as hip-clang does, which defines
    no __CUDA_ARCH__ (0 in an #if) and defines HIP_CLANG_DEFINES:
    https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html. None for anything else, and
    for a test with no comparison (`#if __CUDA_ARCH__`, `defined(...)` alone): device-pass detection, which a
    port keeps under __HIP_DEVICE_COMPILE__ (the cuda-arch-gate rule), not code for NVIDIA GPUs only."""
    tokens: list[str] = []
    rest = condition.strip()
    while rest:
        m = ARCH_TOKEN.match(rest)
        if m is None or len(tokens) > ARCH_TOKENS:
            return None
        tokens.append(ALTERNATIVE_TOKENS.get(m.group(1), m.group(1)))
        rest = rest[m.end():].strip()
    if len(tokens) > ARCH_TOKENS or not any(t in COMPARE for t in tokens):
        return None
    try:
        value, end = _or(tokens, 0)
    except (IndexError, ValueError, RecursionError):  # RecursionError: a hostile `((((...` condition
        return None
    return value if end == len(tokens) else None


def _or(tokens: list[str], i: int) -> tuple[int, int]:
    value, i = _and(tokens, i)
    while i < len(tokens) and tokens[i] == "||":
        right, i = _and(tokens, i + 1)
        value = int(bool(value) or bool(right))
    return value, i


def _and(tokens: list[str], i: int) -> tuple[int, int]:
    value, i = _compare(tokens, i)
    while i < len(tokens) and tokens[i] == "&&":
        right, i = _compare(tokens, i + 1)
        value = int(bool(value) and bool(right))
    return value, i


COMPARE = {"<": int.__lt__, ">": int.__gt__, "<=": int.__le__, ">=": int.__ge__, "==": int.__eq__, "!=": int.__ne__}


def _compare(tokens: list[str], i: int) -> tuple[int, int]:
    left, i = _unary(tokens, i)
    while i < len(tokens) and tokens[i] in COMPARE:
        right, j = _unary(tokens, i + 1)
        left, i = int(COMPARE[tokens[i]](left, right)), j
    return left, i


def _unary(tokens: list[str], i: int) -> tuple[int, int]:
    token = tokens[i]
    if token == "!":
        value, i = _unary(tokens, i + 1)
        return int(not value), i
    if token == "(":
        value, i = _or(tokens, i + 1)
        if tokens[i] != ")":
            raise ValueError("unbalanced")
        return value, i + 1
    if token == "defined":  # defined(__CUDA_ARCH__) or defined __CUDA_ARCH__: false under hip-clang
        i += 1
        parenthesised = tokens[i] == "("
        name = tokens[i + 1] if parenthesised else tokens[i]
        if parenthesised and tokens[i + 2] != ")":
            raise ValueError("unbalanced")
        if name not in HIP_CLANG_DEFINES and name not in NVIDIA_ONLY:
            raise ValueError("not a compiler's macro")
        return int(name in HIP_CLANG_DEFINES), i + (3 if parenthesised else 1)
    if token == "__CUDA_ARCH__":
        return 0, i + 1
    if token[0].isdigit():
        return int(token.rstrip("uUlL")), i + 1
    raise ValueError(token)


def _arch_untaken(node: ts.Node) -> list[tuple[int, int, str]]:
    """The branches of an #if/#elif chain on __CUDA_ARCH__ versions that hip-clang does not take
    (`#if __CUDA_ARCH__ >= 200 && __CUDA_ARCH__ < 500` kernel `#else` stub; `#if __CUDA_ARCH__ < 320`
    macros `#else` PTX): code for NVIDIA GPUs only, labelled 'cuda' from after the directive's condition,
    so the gate itself stays a finding (the cuda-arch-gate rule). The branch hip-clang takes keeps its findings.
    Nothing when a branch before the taken one tests anything else."""
    out: list[tuple[int, int, str]] = []
    taken = False
    current: ts.Node | None = node
    while current is not None:
        alternative = current.child_by_field_name("alternative")
        end = alternative.start_byte if alternative is not None else current.end_byte
        if current.type == "preproc_else":
            value: int | None = 1
            start = current.start_byte
        elif current.type in ("preproc_if", "preproc_elif"):
            condition = current.child_by_field_name("condition")
            text = tree.text(condition)
            value = arch_value(text)
            start = condition.end_byte if condition is not None else current.start_byte
        else:
            value = None
            start = current.start_byte
        if value is None:
            return out if taken else []
        if taken or not value:
            out.append((start, end, "cuda"))
        taken = taken or bool(value)
        current = alternative
    return out


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
        if name is None:
            continue
        label = tree.text(name)
        counts[label] = counts.get(label, 0) + 1
        value = define.child_by_field_name("value")
        literal = tree.text(value).strip().strip("()").strip()
        if define.type == "preproc_def" and literal == "0" and define.parent is not None \
                and define.parent.type == "translation_unit":
            zero.add(label)
    once = {n for n in zero if counts[n] == 1}
    if not once:  # most files and every macro body: no scan of the source for #undef
        return frozenset()
    undefined = {m.decode("utf-8", "replace") for m in UNDEF.findall(source)}
    return frozenset(once - undefined)


UNDEF = Needled(re.compile(rb"^\s*#\s*undef\s+(\w+)", re.MULTILINE), b"undef")
# `//#define FULLCHECK` or `/* #define DEBUG_DUMP */` on a line of its own: a toggle the author left off
COMMENTED_DEFINE = LineNeedled(re.compile(rb"^[ \t]*(?://+|/\*)[ \t]*#[ \t]*define[ \t]+([A-Za-z]\w*)[ \t]*(?:\*/)?[ \t]*$",
                                          re.MULTILINE), b"define")
LIVE_DEFINE = LineNeedled(re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE), b"define")


def commented_toggles(source: bytes) -> frozenset[str]:
    """Macros a file defines only in a commented-out line (`//#define FULLCHECK`): off unless a build
    passes them, like a commented-out `USE_X := 1` in a Makefile (extract/text/buildfiles.py). Whether
    another file or a build flag defines them is the project's to say (workloads/parts.py)."""
    if b"define" not in source:
        return frozenset()
    commented = {m.decode("utf-8", "replace") for m in COMMENTED_DEFINE.findall(source)}
    if not commented:
        return frozenset()
    return frozenset(commented - {m.decode("utf-8", "replace") for m in defined_names(source)})


VALUELESS_DEFINE = LineNeedled(re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z]\w*)[ \t]*(?://.*|/\*.*)?$", re.MULTILINE),
                               b"define")
IFNDEF = re.compile(rb"#[ \t]*(?:ifndef[ \t]+|if[ \t]+!\s*defined\s*(?:\(\s*)?)(\w+)")


# A live `#define X [value]` of a switch-shaped name: what defines a switch a source tests (`#elif GPU_ENABLE_CUDA`);
# workloads/switches.py `never_defined` reads a tested switch that no file, flag or build variable defines as off.
SWITCH_DEFINE = LineNeedled(re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(" + SWITCH.encode() + rb")(?![\w(])[ \t]*([^\n]*)$",
                                       re.MULTILINE), b"define")
COMMENT_TAIL = re.compile(r"\s*(?://.*|/\*.*)$")


def switch_defines(source: bytes) -> list[tuple[str, str, int, int]]:
    """Live `#define X [value]` of switch-shaped names: (name, value without a trailing comment, start, end)."""
    if b"define" not in source:
        return []
    return [(m.group(1).decode("ascii"), COMMENT_TAIL.sub("", m.group(2).decode("utf-8", "replace")).strip()[:40],
             m.start(), m.end()) for m in SWITCH_DEFINE.finditer(source)]


def valueless_defines(source: bytes) -> list[tuple[str, int, int]]:
    """Live `#define X` with no value (name, start, end), but for include guards (X tested by #ifndef in
    the file): what turns a toggle on (parts.py reads them against commented_toggles of other files)."""
    if b"define" not in source:
        return []
    found = [(m.group(1).decode("utf-8", "replace"), m.start(), m.end()) for m in VALUELESS_DEFINE.finditer(source)]
    if not found:
        return []
    guarded = {m.decode("utf-8", "replace") for m in IFNDEF.findall(source)}
    return [item for item in found if item[0] not in guarded]


def toggle_names(condition: str, positive: bool, toggles: frozenset[str]) -> list[str]:
    """The commented-out toggles a branch is taken on (`#ifdef FULLCHECK`, `#if defined(X) && ...`), for
    names not already shaped like a switch (switch_names)."""
    if not toggles or not positive or not condition or "||" in condition:
        return []
    out = []
    for term in condition.split("&&"):
        m = SWITCH_TERM.match(term.strip())
        name = next((g for g in m.groups() if g), "") if m else ""
        if name in toggles and not SWITCH_NAME.match(name):
            out.append(name)
    return out


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


# HIP's runtime API by its names (hipMalloc, hipError_t, hipStream_t: the HIP runtime API reference,
# https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/modules.html) and CUDA's (cudaMalloc, cudaError_t:
# https://docs.nvidia.com/cuda/cuda-runtime-api/), as whole identifiers.
HIP_API_NAME = re.compile(rb"(?<![\w])hip[A-Z]\w*")
CUDA_API_NAME = re.compile(rb"(?<![\w])cuda[A-Z]\w*")


def api_sides(chain: Chain, source: bytes) -> list[tuple[int, int, str]]:
    """A preprocessor alternative on a project's own macro whose branches are the two back ends: one branch
    names HIP's runtime API and none of CUDA's, another CUDA's and none of HIP's (`#if TACHYON_CUDA` /
    `#define gpuMalloc cudaMalloc` / `#else` / `#define gpuMalloc hipMalloc`; kineto's `#ifdef HAS_CUPTI` /
    `#elif defined(HAS_ROCTRACER)`). The HIP build takes the HIP branch, so the CUDA one is labelled 'cuda'
    and the HIP one 'hip' (as on a chain that names a HIP macro); a branch naming neither keeps no label."""
    if len(chain) < 2:
        return []
    sides = []
    for _, _, start, end in chain:
        text = source[start:end]
        hip, cuda = bool(HIP_API_NAME.search(text)), bool(CUDA_API_NAME.search(text))
        sides.append("hip" if hip and not cuda else "cuda" if cuda and not hip else "")
    if "hip" not in sides or "cuda" not in sides:
        return []
    return [(start, end, side) for (_, _, start, end), side in zip(chain, sides, strict=True) if side]


def _version_gate_with_else(node: ts.Node, chain: list[tuple[str, bool, int, int]]) -> bool:
    """A chain on CUDA's version whose every test is `CUDA_VERSION >= N` and that ends in an #else
    without #error: hip-clang compiles the #else, the portable path, so the tested branches are CUDA's."""
    if len(chain) < 2 or chain[-1][0] or not all(CUDA_VERSION_GATE.match(cond) for cond, _, _, _ in chain[:-1]):
        return False
    last = node
    while (following := last.child_by_field_name("alternative")) is not None:
        last = following
    return not ERROR_DIRECTIVE.search(tree.raw(last))


Chain = list[tuple[str, bool, int, int]]  # (condition text, positive?, start, end) per branch of one #if chain

# A conditional directive at the start of a line (https://gcc.gnu.org/onlinedocs/cpp/Conditionals.html)
DIRECTIVE_LINE = LineNeedled(re.compile(rb"^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b([^\n]*)", re.MULTILINE), b"#")


def text_chains(source: bytes) -> list[Chain]:
    """The #if chains of a file read line by line, as the preprocessor reads them, not from the syntax tree: where the
    parse failed, a directive inside an expression (buildaworldnet/IrrlichtBAW 9033b2a9 src/irr/video/CCUDAHandler.cpp:41-46
    `cuda = CUDA(` / `#if defined(_IRR_WINDOWS_API_)` ... `#endif` / `);`) leaves the tree's chains misnested and the
    file-wide `#ifdef _IRR_COMPILE_WITH_CUDA_` (:4-693) out of them. Comments after a directive are dropped."""
    chains: list[Chain] = []
    open_: list[tuple[Chain, str, bool, int]] = []  # (the chain, the open branch's condition, positive?, start)
    for m in DIRECTIVE_LINE.finditer(source):
        word = m.group(1).decode()
        rest = re.sub(r"/\*.*?\*/|//.*$", "", m.group(2).decode("utf-8", "replace")).strip()
        if word in ("if", "ifdef", "ifndef"):
            open_.append(([], rest, word != "ifndef" and not (word == "if" and _negated(rest)), m.start()))
            continue
        if not open_:
            continue
        chain, cond, positive, start = open_.pop()
        chain.append((cond, positive, start, m.start()))
        if word == "endif":
            chains.append(chain)
        else:  # elif, else: the next branch of the same chain
            open_.append((chain, rest if word == "elif" else "", word == "else" or not _negated(rest), m.start()))
    return chains


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
            cond = tree.text(name)
            positive = not node.children[0].type.endswith("ndef")
        else:
            condition = node.child_by_field_name("condition")
            cond = tree.text(condition)
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
