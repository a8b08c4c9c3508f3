#!/usr/bin/env python3
"""Ported-sites benchmark: where did real CUDA-to-HIP ports have to change the code?

Projects that keep both paths (projects.yaml) are stripped of their HIP side with
unifdef (line numbers kept), and every run of lines that only the CUDA build sees is a
*site*: a place the port could not leave as it was. Each site gets a kind of change.

    python benchmarks/ported_sites/sites.py build --src /tmp/src --out /tmp/ported
        strip each project checked out under SRC/NAME at the listed commit into
        OUT/NAME (the CUDA-only tree) and rewrite sites.csv (site list, kinds)
    python benchmarks/ported_sites/sites.py score --out /tmp/ported [--save-findings F]
        run the real `rocm-migrate scan` on each stripped tree; print recall per kind
        (a site is found when a finding lies on one of its lines) and the judged precision
    python benchmarks/ported_sites/sites.py sample --out /tmp/ported --before A.json --after B.json
        a seeded sample of the findings that B (saved by score) has and A lacks, for judging
        by reading the code; the verdicts live in precision.csv

Kinds come from keyword evidence on the CUDA and HIP sides of each site (classify());
labels.csv holds judgements by reading the code, which win over the automatic kind.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
C_SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".hh", ".hxx", ".H", ".cpp", ".cc", ".cxx", ".c", ".C", ".inl", ".inc", ".tpp", ".ipp"}
KINDS = [
    "library", "intrinsics", "build", "types", "launch", "warp", "unavailable", "cxx", "other", "tuning", "config",
    "rename", "host", "elsewhere",
]
APART = ("tuning", "config", "rename", "host", "elsewhere")  # not counted in recall
KIND_TITLES = {
    "library": "library and runtime calls (CUB/hipCUB, cuBLAS, cuda* API ...)",
    "intrinsics": "intrinsics, PTX, inline asm",
    "build": "build, includes",
    "types": "bf16 / fp8 / half types and their bit-level use",
    "launch": "launch limits (threads per launch, dynamic shared memory opt-in)",
    "warp": "warp size and lane masks",
    "unavailable": "features unavailable on ROCm (switched off or stubbed)",
    "cxx": "C++ that nvcc accepts and hip-clang rejects",
    "other": "other (no specific evidence)",
    "tuning": "performance tuning (counted apart)",
    "config": "checks of the HIP build configuration on the CUDA side (counted apart)",
    "rename": "the project's own names or messages with the vendor word changed (counted apart)",
    "host": "fallbacks for host compilers that the HIP build also compiles (counted apart)",
    "elsewhere": "branches for other back ends or options, neither the CUDA nor the HIP path (counted apart)",
}


@dataclass(frozen=True)
class Project:
    name: str
    repo: str
    commit: str
    hip: dict[str, int]
    cuda: list[str]
    drop: list[str]
    perf: list[str]
    compiler: list[str]  # HIP macros only hip-clang defines (a plain host compiler of the HIP build lacks them)
    checkout: str = ""  # directory under --src (default: the repository's name)
    paths: tuple[str, ...] = ()  # subtrees taken (default: the whole tree)
    hip_paths: tuple[str, ...] = ()  # HIP-only subtrees whose names do not say so (deleted like hip/)


@dataclass
class Site:
    project: str
    path: str
    start: int
    end: int
    kind: str
    evidence: str
    cuda_text: str = ""
    hip_text: str = ""
    gates: tuple[int, ...] = ()  # the directives that open the site's branch and its conditional

    @property
    def key(self) -> str:
        return f"{self.project}:{self.path}:{self.start}"


def load_projects() -> list[Project]:
    data = yaml.safe_load((HERE / "projects.yaml").read_text())
    common = data["common"]
    out = []
    for p in data["projects"]:
        hip = {**common["hip"], **(p.get("hip") or {})}
        drop = [*common.get("drop", []), *(p.get("drop") or [])]
        out.append(Project(p["name"], p["repo"], p["commit"], hip, list(p.get("cuda") or []), drop,
                           list(p.get("perf") or []), list(common.get("compiler", [])),
                           p.get("dir") or p["repo"].split("/")[1], tuple(p.get("paths") or ()),
                           tuple(p.get("hip_paths") or ())))
    return out


# ---- stripping ---------------------------------------------------------------------

def unifdef(text: bytes, defs: dict[str, int], undefs: list[str]) -> bytes | None:
    args = ["unifdef", "-b", "-x", "2"]
    args += [f"-D{k}={v}" for k, v in defs.items()]
    args += [f"-U{u}" for u in undefs]
    proc = subprocess.run(args, check=False, input=text, capture_output=True)
    if proc.returncode == 2:
        print("   ", proc.stderr.decode()[:300].strip().replace("\n", " "), file=sys.stderr)
        return None
    return proc.stdout


def neutralise(text: str, macros: list[str], value: str) -> str:
    """Replace macros left in unresolved directives (`a || defined(HIP)`) by a constant."""
    names = "|".join(re.escape(m) for m in sorted(macros, key=len, reverse=True))
    defined = re.compile(rf"defined\s*\(\s*(?:{names})\s*\)|defined\s+(?:{names})\b")
    bare = re.compile(rf"\b(?:{names})\b")
    lines = text.split("\n")
    cont = False  # a continuation line of a directive (`#if a && \` / `   defined(HIP)`)
    for i, line in enumerate(lines):
        directive = cont or bool(re.match(r"\s*#\s*(if|elif|ifdef|ifndef)\b", line))
        cont = directive and line.rstrip().endswith("\\")
        if directive:
            new = bare.sub(value, defined.sub(value, line))
            if new != line:
                new = re.sub(r"#(\s*)ifdef\s+" + value + r"\b", r"#\1if " + value, new)
                new = re.sub(r"#(\s*)ifndef\s+" + value + r"\b", r"#\1if !" + value, new)
                lines[i] = new
    return "\n".join(lines)


# C++14 digit separators (0xff'ff'ff'ffu) read as char literals to unifdef: masked around its run
NUMBER_WITH_SEPARATORS = re.compile(rb"\b\d[0-9a-fA-FxXbB]*(?:'[0-9a-fA-F]+)+")
SEPARATOR_MASK = b"__DIGIT_SEPARATOR__"


def strip_file(project: Project, raw: bytes) -> tuple[str, str, str] | None:
    """The CUDA tree, the HIP tree (device pass) and what a host compiler of the HIP build sees."""
    masked = NUMBER_WITH_SEPARATORS.sub(lambda m: m.group(0).replace(b"'", SEPARATOR_MASK), raw)
    if masked != raw:
        out = strip_file(project, masked)
        return None if out is None else tuple(t.replace(SEPARATOR_MASK.decode(), "'") for t in out)  # type: ignore[return-value]
    cuda_defs = dict.fromkeys(project.cuda, 1)
    hip_undef = list(project.hip) + project.drop
    cuda = unifdef(raw, cuda_defs, hip_undef)
    hip = unifdef(raw, project.hip, project.cuda + project.drop)
    host_defs = {k: v for k, v in project.hip.items() if k not in project.compiler}
    host = unifdef(raw, host_defs, [*project.compiler, *CUDA_COMPILER, *project.cuda, *project.drop])
    if cuda is None or hip is None or host is None:
        return None
    c = neutralise(cuda.decode("utf-8", "replace"), list(project.hip), "0")
    return c, hip.decode("utf-8", "replace"), host.decode("utf-8", "replace")


# what only the CUDA compiler defines: a plain host compiler of either build sees neither
CUDA_COMPILER = ["__CUDACC__", "__CUDA_ARCH__", "__NVCC__", "__CUDACC_RDC__"]


COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def code_of(text: str) -> str:
    return COMMENT.sub(" ", text)


DIRECTIVE = re.compile(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b")


def hip_governed(lines: list[str], hip_macros: list[str]) -> tuple[list[bool], list[str]]:
    """Per line: does a conditional that names a HIP macro enclose it? And the line's directive kind."""
    names = re.compile(r"\b(?:" + "|".join(re.escape(m) for m in hip_macros) + r")\b")
    kinds = [""] * len(lines)
    group_of: list[int] = [-1] * len(lines)
    stack: list[int] = []
    hip_group: list[bool] = []
    enclosing: list[tuple[int, ...]] = []
    cont = False
    for i, line in enumerate(lines):
        m = None if cont else DIRECTIVE.match(line)
        if cont:
            kinds[i] = kinds[i - 1]
            group_of[i] = group_of[i - 1]
            if group_of[i] >= 0 and names.search(line):
                hip_group[group_of[i]] = True
        elif m:
            kind = m.group(1)
            kinds[i] = kind
            if kind in ("if", "ifdef", "ifndef"):
                hip_group.append(False)
                stack.append(len(hip_group) - 1)
            if stack:
                group_of[i] = stack[-1]
                if names.search(line):
                    hip_group[stack[-1]] = True
        enclosing.append(tuple(stack))
        if m and m.group(1) == "endif" and stack and not cont:
            stack.pop()
        cont = (bool(m) or cont) and line.rstrip().endswith("\\")
    governed = [any(hip_group[g] for g in groups) for groups in enclosing]
    return governed, kinds


def sites_of(project: Project, path: str, orig: str, cuda: str, hip: str, host: str = "",
             own: frozenset[str] = frozenset()) -> list[Site]:
    o, c, h = orig.split("\n"), cuda.split("\n"), hip.split("\n")
    hs = host.split("\n") if host else [""] * len(o)
    if not (len(o) == len(c) == len(h) == len(hs)):
        return []
    governing = [m for m in project.hip if not m.startswith(("HIP_VERSION", "ROCM_VERSION"))]
    governed, kinds = hip_governed(o, governing)
    hip_names = re.compile(r"\b(?:" + "|".join(re.escape(m) for m in governing) + r")\b")
    perf_only = hip_governed(o, [m for m in governing if m not in project.perf])[0] if project.perf else governed
    state = []  # per line: "c" cuda only, "h" hip only, "b" both, "" neither
    for lo, lc, lh, gov, kind in zip(o, c, h, governed, kinds, strict=False):
        if not lo.strip() or kind in ("else", "endif"):
            state.append("")
            continue
        inc, inh = bool(lc.strip()), bool(lh.strip())
        st = "b" if inc and inh else "c" if inc else "h" if inh else ""
        if kind and st == "c" and not hip_names.search(lo):
            st = ""  # a CUDA-macro directive left over from a chain, not a gate the port changed
        state.append(st if gov or st == "b" else "")
    out: list[Site] = []
    i, n = 0, len(state)
    while i < n:
        if state[i] != "c":
            i += 1
            continue
        j = i
        while j + 1 < n and state[j + 1] in ("c", ""):
            j += 1
        while state[j] != "c":
            j -= 1
        cuda_text = "\n".join(o[i:j + 1])
        hip_lines = [k for k in range(max(0, i - 60), min(n, j + 60)) if state[k] == "h" and _adjacent(state, k, i, j)]
        hip_text = "\n".join(o[k] for k in hip_lines)
        if code_of(cuda_text).strip() and tokens(cuda_text) != tokens(hip_text):  # equal: nothing changed
            gate = kinds[i] in ("if", "ifdef", "ifndef", "elif")
            kind, ev = classify(cuda_text, hip_text, gate)
            body = "\n".join(ln for ln in code_of(cuda_text).split("\n") if not DIRECTIVE.match(ln))
            renamed = _renamed(cuda_text, hip_text, own)
            if HIP_WORD.search(body):
                kind, ev = "config", "the CUDA side is about the HIP build: " + HIP_WORD.search(body).group(0)
            elif not any(perf_only[i:j + 1]) and kind != "intrinsics":
                kind, ev = "tuning", "architecture fast path: " + ", ".join(project.perf)
            elif renamed is not None:
                kind, ev = "rename", "only the vendor word differs" + (": " + ", ".join(renamed) if renamed else " (strings)")
            elif kind not in EVIDENT and body.strip() and all(hs[k].strip() or not o[k].strip() or kinds[k]
                                                               for k in range(i, j + 1)):
                kind, ev = "host", "a host compiler of the HIP build sees these lines too (" + kind + ")"
            out.append(Site(project.name, path, i + 1, j + 1, kind, ev, cuda_text, hip_text, _gates(kinds, o, i)))
        i = j + 1
    return out


EVIDENT = ("library", "intrinsics", "types", "launch", "build")  # kinds with a CUDA name as evidence
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
VENDOR = re.compile(r"CUDA|Cuda|cuda|HIP|Hip|hip|^Cu(?=[A-Z])")


def _renamed(cuda_text: str, hip_text: str, own: frozenset[str]) -> list[str] | None:
    """The CUDA side's own identifiers that the HIP side spells with its vendor word, when that is
    the only difference (strings aside); None when the sides differ otherwise."""
    if re.search(r"#\s*include", code_of(cuda_text)):
        return None  # an include names a file, not a message: HIP0029's business
    ct = tokens(STRING.sub('"S"', cuda_text))
    ht = tokens(STRING.sub('"S"', hip_text))
    if not ht or len(ct) != len(ht):
        return None
    names = []
    for a, b in zip(ct, ht, strict=False):
        if a != b:
            if VENDOR.sub("V", a) != VENDOR.sub("V", b) or a not in own:
                return None
            names.append(a)
    return sorted(set(names))


DEFINED = re.compile(r"\b(?:class|struct|union|enum|namespace|typedef\s[^;]*?|using)\s+(?:\w+::)*(\w+)|"
                     r"#\s*define\s+(\w+)|^[\w:<>,*&\s]*?\b(\w+)\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?\{",
                     re.M)


def own_names(texts: list[str]) -> frozenset[str]:
    """Names the project itself defines (classes, namespaces, aliases, macros, functions)."""
    names: set[str] = set()
    for text in texts:
        for m in DEFINED.finditer(code_of(text)):
            names.update(g for g in m.groups() if g)
    return frozenset(names)


def _gates(kinds: list[str], lines: list[str], i: int) -> tuple[int, ...]:
    """1-based lines (continuations included) of the #elif/#else that opens the branch holding
    line i and of the #if that opens its conditional."""
    def whole(k: int) -> list[int]:
        out = [k + 1]
        while k + 1 < len(lines) and lines[k].rstrip().endswith("\\"):
            k += 1
            out.append(k + 1)
        return out

    depth, found = 0, []
    for k in range(i - 1, -1, -1):
        kind = kinds[k]
        if not kind or (k > 0 and kinds[k - 1] == kind and lines[k - 1].rstrip().endswith("\\")):
            continue  # not a directive, or a continuation line of one
        if kind == "endif":
            depth += 1
        elif kind in ("if", "ifdef", "ifndef"):
            if depth == 0:
                return (*found, *whole(k))
            depth -= 1
        elif depth == 0 and not found:
            found = whole(k)
    return tuple(found)


def _adjacent(state: list[str], k: int, i: int, j: int) -> bool:
    """HIP-only line k belongs to the site [i, j] when nothing both sides see lies between."""
    lo, hi = (k, i) if k < i else (j, k)
    return all(s != "b" for s in state[lo:hi])


# ---- kinds ---------------------------------------------------------------------------

def _any(patterns: str, text: str) -> str | None:
    m = re.search(patterns, text)
    return m.group(0) if m else None


LIB = (r"\b(cub|thrust|cublas\w*|cusparse\w*|cusolver\w*|curand\w*|cufft\w*|nccl\w*|cudnn\w*|nvrtc\w*|"
       r"cutensor\w*|nvtx\w*|nvml\w*|cupti\w*|cuda[A-Z]\w*|cu[A-Z][a-z]\w*|CU_\w+|CUDA_[A-Z_]+|CUBLAS_\w+|"
       r"CUSPARSE_\w+|CUDART_\w+|CURAND_\w+|CUFFT_\w+|CUSOLVER_\w+|c10::cuda|at::cuda|cutlass|cute)\b")
INTR = (r"\basm\b|__asm__|\b__(shfl\w*|ballot\w*|any_sync|all_sync|activemask|syncwarp|ldg|ldcg|ldca|ldcs|ldlu|ldcv|"
        r"stcg|stcs|stwb|stwt|nanosleep|funnelshift\w*|byte_perm|dp4a|dp2a|vabs\w*|vadd\w*|vsub\w*|vmax\w*|vmin\w*|"
        r"vset\w*|vcmp\w*|prmt|fns|brev|clz|ffs|popc\w*|mul24|umul24|mulhi|umulhi|sad|usad|hadd|rhadd|"
        r"threadfence\w*|match_\w+|reduce_\w+_sync|isGlobal|isShared|cvta\w*|pipeline_\w+|trap|"
        r"float_as_uint|uint_as_float|int_as_float|float_as_int|double_as_longlong|longlong_as_double|"
        r"fdividef|expf|logf|sinf|cosf|powf|saturatef|frcp\w*|fsqrt\w*|frsqrt\w*|fmaf_\w+|fma_r\w|f\w+_r[nzdu])\b|"
        r"\b(clock64|clock|globaltimer|atomic\w+|__atomic\w+|mma|ldmatrix|wmma|nvcuda)\b|"
        r"\b(__nv_\w+|__int_as_float|__float2\w+|__double2\w+|__int2\w+|__uint2\w+|__ll2\w+)\b")
TYPES = (r"\b(__half2?|half2?|__nv_bfloat16\w*|nv_bfloat16\w*|__nv_fp8\w*|__nv_fp4\w*|bfloat16\w*|bf16\w*|"
         r"__hip_bfloat16|float8\w*|fp8\w*|Float8\w*|e4m3\w*|e5m2\w*|__float2half\w*|__half2float|"
         r"__float2bfloat16\w*|__bfloat162float|__hadd2?|__hmul2?|__hfma2?|__habs2?|__hneg2?|"
         r"__low2\w+|__high2\w+|__halves2half2|__half_raw|__half2_raw|__nv_bfloat16_raw|cuda_fp16|cuda_bf16|"
         r"cuda_fp8|at::Half|at::BFloat16|c10::Half|c10::BFloat16|__hip\w*|__\w*bfloat16\w*|__\w*half\w*|__\w*fp8\w*)\b")
WARP = (r"\b(warpSize|WARP_SIZE\w*|\w*WARP_SIZE|\w*[Ww]arp[Ss]ize\w*|\w*WARPSIZE\w*|kWarpSize\w*|warp_size\w*|"
        r"[Ll]ane\w*|LANE\w*|\w*_mask\b|\w*Mask\b|[Ww]arps?_?[Pp]er\w*|\w*[Ww]ave[Ff]ront\w*|WARPS\w*|num_warps\w*|"
        r"0xffffffff[uU]?[lL]*|0xFFFFFFFF[uU]?[lL]*|0x[fF]{16}\w*|lanemask\w*)\b|"
        r"(&\s*31|%\s*32|>>\s*5|/\s*32|<\s*32|\b32\b)")
LAUNCH = (r"\b(cudaFuncSetAttribute|cudaFuncAttributeMaxDynamicSharedMemorySize|MaxDynamicSharedMemory\w*|"
          r"sharedMemPerBlockOptin|SharedMemoryPerBlockOptin|cudaDevAttrMaxSharedMemoryPerBlockOptin|"
          r"maxThreadsPerBlock|MaxThreadsPerBlock|maxGridSize|MaxGridDim\w*|maxThreadsDim|cudaOccupancy\w*|"
          r"sharedMemPerBlock|sharedMemPerMultiprocessor|regsPerBlock|65535|2147483647|INT_MAX|"
          r"cudaFuncSetCacheConfig|cudaFuncCachePrefer\w*|cudaDeviceSetSharedMemConfig|cudaSharedMem\w*|"
          r"PreferredSharedMemoryCarveout|cudaLaunchCooperativeKernel\w*|cudaLaunchKernelEx|cudaLaunchAttribute\w*|"
          r"__launch_bounds__|launch_bounds|__maxnreg__)\b")
HIP_LIB = (r"\b(hipcub|rocprim|rocblas\w*|hipblas\w*|rocsparse\w*|hipsparse\w*|rocsolver\w*|hipsolver\w*|"
           r"rocrand\w*|hiprand\w*|rocfft\w*|hipfft\w*|rccl\w*|miopen\w*|roctx\w*|rocthrust|"
           r"hip[A-Z]\w*|HIP[A-Z_]+_\w+|HIPBLAS_\w+|ROCBLAS_\w+)\b")
UNAVAIL_HIP = (r"\b(not (yet )?(supported|implemented|available)|unsupported|NOT_IMPLEMENTED|NotImplemented|"
               r"abort|assert|throw|static_assert|error|Abort|GGML_ABORT|NO_DEVICE_CODE|printf|fprintf|"
               r"NOT_SUPPORTED|unimplemented|TODO)\b|#\s*error")


def tokens(text: str) -> list[str]:
    return re.findall(r"[A-Za-z_]\w*|\d[\w.]*|\S", code_of(text))


GATE = (r"\b(__CUDA_ARCH__|__CUDA_ARCH_\w+|CUDA_VERSION|CUDART_VERSION|__CUDACC_VER\w*|__CUDACC\w*|__NVCC__|"
        r"__NVCOMPILER\w*|CUB_VERSION|THRUST_VERSION|CUSPARSE_VERSION|CUBLAS_VER\w*|__CUDA\w*)\b")


def classify(cuda_text: str, hip_text: str, gate: bool = False) -> tuple[str, str]:
    """The kind of change of a site from its CUDA text and the HIP text beside it."""
    code = code_of(cuda_text)
    if gate:
        first = code.split("\n", 1)[0]
        hit = _any(GATE, first)
        if hit:
            return "build", "gate on " + hit
    hip_code = code_of(hip_text)
    lines = [ln.strip() for ln in code.splitlines() if ln.strip()]
    if lines and all(ln.startswith("#") and not re.match(r"#\s*define\b", ln) for ln in lines):
        inc = _any(r"#\s*(include|pragma)\s*\S+", code)
        if inc:
            return "build", inc
    ct, ht = tokens(cuda_text), tokens(hip_text)
    if ht and ct != ht and len(ct) == len(ht):
        diff = [(a, b) for a, b in zip(ct, ht, strict=True) if a != b]
        if all(re.fullmatch(r"\d[\w.]*", a) and re.fullmatch(r"\d[\w.]*", b) for a, b in diff):
            if any(a.rstrip("uUlL") == "32" and b.rstrip("uUlL") == "64" for a, b in diff):
                return "warp", "32 -> 64"
            return "tuning", "numbers only: " + ", ".join(f"{a}->{b}" for a, b in diff[:3])
    if re.search(r"__launch_bounds__|launch_bounds", code) and re.search(r"__launch_bounds__|launch_bounds", hip_code):
        return "tuning", "__launch_bounds__"
    for kind, pattern in (("launch", LAUNCH), ("types", TYPES)):
        hit = _any(pattern, code)
        if hit:
            return kind, hit
    warp = _any(WARP, code)
    if warp and (re.search(r"\b64\b|0x[fF]{16}|uint64|unsigned long long|__AMDGCN_WAVEFRONT_SIZE|warpSize|"
                           r"WAVEFRONT|wavefront|lane", hip_code) or not hip_code.strip()
                 or re.search(r"warp|lane|mask|WARP", code)) and (
            not re.fullmatch(r"\b32\b", warp) or re.search(r"warp|lane|WARP|mask|thread", code, re.I)):
        return "warp", warp
    intr = _any(INTR, code)
    if intr:
        return "intrinsics", intr
    lib = _any(LIB, code)
    if lib:
        return "library", lib
    if re.search(r"#\s*(include|pragma)", code):
        return "build", _any(r"#\s*(include|pragma)\s*\S+", code) or "#include"
    hip_lib = _any(HIP_LIB, hip_code)
    if hip_lib:
        return "library", "HIP side uses " + hip_lib
    if not hip_code.strip() or _any(UNAVAIL_HIP, hip_code):
        stub = "empty" if not hip_code.strip() else "stubbed: " + (_any(UNAVAIL_HIP, hip_code) or "")
        return "unavailable", "HIP side " + stub
    if ht and _cxx_only(ct, ht):
        return "cxx", "HIP side differs by C++ keywords only"
    return "other", ""


CXX_WORDS = {"template", "typename", "constexpr", "inline", "static", "const", "this", "->", "::", "auto",
             "__host__", "__device__", "__forceinline__", "volatile", "explicit", "(", ")", "<", ">", ",", "&", "*"}


def _cxx_only(ct: list[str], ht: list[str]) -> bool:
    cs, hs = Counter(ct), Counter(ht)
    delta = (cs - hs) + (hs - cs)
    return bool(delta) and all(t in CXX_WORDS or t.startswith("static_cast") for t in delta)


# ---- build ---------------------------------------------------------------------------

def project_files(src: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(src), "ls-tree", "-r", "--name-only", "HEAD"],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    return [p for p in out if p]


HIP_WORD = re.compile(r"\bHIP\b|\w*_HIP\w*|\bhip[A-Z]\w*|\bROCm\b|\bHIP_\w+")
# HIP-only files (a hip/ tree, vendors/hip.h, *_hip.cpp, ggml-hip/): not part of a CUDA-only project.
HIP_SOURCE = re.compile(r"(^|/|(?<!cuda)[_.-])(hip|HIP|Hip|rocm|ROCm|ROCM)([/_.-]|$)")  # not cuda_hip/
SCANNED = C_SUFFIXES | {".py", ".cmake", ".txt", ".toml", ".cfg", ".mk", ".in", ".cuf"}


def export_tree(src: Path, dest: Path, paths: tuple[str, ...] = ()) -> list[str]:
    """Copy the sources and build files of the commit (large data blobs may be absent), only
    those under `paths` when given."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    keep = [p for p in project_files(src)
            if (Path(p).suffix in SCANNED or Path(p).name in {"Makefile", "GNUmakefile", "Dockerfile"})
            and (not paths or any(p == d.rstrip("/") or p.startswith(d.rstrip("/") + "/") for d in paths))]
    for i in range(0, len(keep), 500):
        data = subprocess.run(["git", "-C", str(src), "archive", "HEAD", "--", *keep[i:i + 500]],
                              capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(dest, filter="data")
    return keep


def hip_only(project: Project, rel: str) -> bool:
    return bool(HIP_SOURCE.search(rel)) or any(rel.startswith(d) for d in project.hip_paths)


def build(src_root: Path, out_root: Path, only: list[str]) -> list[Site]:
    """Strip every project (or those in `only`; the other projects keep their rows of sites.csv)."""
    projects = load_projects()
    unknown = set(only) - {p.name for p in projects}
    if unknown:
        sys.exit(f"not in projects.yaml: {', '.join(sorted(unknown))}")
    kept = {p.name: [s for s in read_sites() if s.project == p.name] for p in projects if only and p.name not in only}
    sites: list[Site] = []
    for project in projects:
        if project.name in kept:
            sites.extend(kept[project.name])
            continue
        src = src_root / project.checkout
        head = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], check=False, capture_output=True,
                              text=True).stdout.strip()
        if head != project.commit:
            sys.exit(f"{project.name}: checkout is at {head}, the list is for {project.commit}")
        dest = out_root / project.name
        files = export_tree(src, dest, project.paths)
        for rel in [f for f in files if hip_only(project, f)]:
            (dest / rel).unlink(missing_ok=True)
        files = [f for f in files if not hip_only(project, f)]
        names = [*project.hip, *project.cuda, *project.drop]
        probe = re.compile("|".join(re.escape(m) for m in names).encode())
        count = 0
        own = own_names([(dest / f).read_text(errors="replace") for f in files
                         if Path(f).suffix in C_SUFFIXES and (dest / f).is_file() and not (dest / f).is_symlink()])
        for rel in files:
            p = dest / rel
            if Path(rel).suffix not in C_SUFFIXES or not p.is_file() or p.is_symlink() or HIP_SOURCE.search(rel):
                continue
            raw = p.read_bytes()
            if not probe.search(raw):
                continue
            stripped = strip_file(project, raw)
            if stripped is None:
                print(f"  {project.name}: unifdef could not parse {rel}", file=sys.stderr)
                continue
            cuda, hip, host = stripped
            p.write_text(cuda, encoding="utf-8")
            found = sites_of(project, rel, raw.decode("utf-8", "replace"), cuda, hip, host, own)
            count += len(found)
            sites.extend(found)
        print(f"{project.name}: {count} sites", file=sys.stderr)
    return sites


def apply_labels(sites: list[Site]) -> None:
    path = HERE / "labels.csv"
    if not path.exists():
        return
    with path.open() as f:
        labels = {row["site"]: row for row in csv.DictReader(f)}
    for s in sites:
        row = labels.get(s.key)
        if row:
            s.kind, s.evidence = row["kind"], "judged: " + row["reason"]


def write_sites(sites: list[Site]) -> None:
    with (HERE / "sites.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["project", "path", "start", "end", "kind", "evidence", "gates"])
        for s in sites:
            w.writerow([s.project, s.path, s.start, s.end, s.kind, s.evidence[:80], " ".join(map(str, s.gates))])


def read_sites() -> list[Site]:
    with (HERE / "sites.csv").open() as f:
        return [Site(r["project"], r["path"], int(r["start"]), int(r["end"]), r["kind"], r["evidence"],
                     gates=tuple(int(g) for g in r.get("gates", "").split()))
                for r in csv.DictReader(f)]


# ---- score ---------------------------------------------------------------------------

def scan(tree: Path, cache: str) -> list[dict]:
    env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": cache}
    proc = subprocess.run([sys.executable, "-m", "migrate", "scan", str(tree), "-f", "json", "--jobs", "2"],
                          check=False, capture_output=True, text=True, env=env)
    if proc.returncode not in (0, 1):
        sys.exit(f"scan of {tree} failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)["findings"]


def score(out_root: Path, save: Path | None, only: list[str], saved_findings: list[Path],
          own_misses: Path | None = None) -> None:
    """Recall per kind; the findings come from scanning each stripped tree, or from files that an
    earlier `score --save-findings` wrote (`--findings`, no scan)."""
    sites = read_sites()
    projects = sorted({s.project for s in sites} if not only else set(only))
    loaded: dict[str, list[dict]] = defaultdict(list)
    for path in saved_findings:
        for f in json.loads(path.read_text()):
            loaded[f["project"]].append(f)
    by_line: dict[tuple[str, str], set[int]] = defaultdict(set)
    rules_at: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    cache = os.environ.get("ROCM_MIGRATE_CACHE_DIR", "/tmp/rmc-ported")
    saved = []
    for name in projects:
        if saved_findings and name not in loaded:
            sys.exit(f"{name}: no findings in {', '.join(map(str, saved_findings))}")
        for f in (loaded[name] if saved_findings else scan(out_root / name, cache)):
            f = {k: v for k, v in f.items() if k != "project"}
            for line in range(f["line"], (f.get("end_line") or f["line"]) + 1):
                by_line[(name, f["path"])].add(line)
                rules_at[(name, f["path"], line)].append(f["rule"])
            saved.append({"project": name, **f})
    if save:
        save.write_text(json.dumps(saved))
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # found on its lines, sites, found with the gate
    misses: list[Site] = []
    strict_misses: list[tuple[Site, bool]] = []  # not found on its own lines; whether its gate has a finding
    opener = closing_brace_openers(out_root, [s for s in sites if s.project in projects])

    def on_lines(s: Site) -> bool:
        lines = range(s.start, s.end + 1)
        if s.key in opener:  # a site of closing braces is one edit with the site that opens the block
            lines = range(opener[s.key].start, opener[s.key].end + 1)
        return any(ln in by_line[(s.project, s.path)] for ln in lines)

    for s in sites:
        if s.project not in projects:
            continue
        strict = on_lines(s)
        hit = strict or any(ln in by_line[(s.project, s.path)] for ln in s.gates)
        if not strict:
            strict_misses.append((s, hit))
        table[s.kind][0] += strict
        table[s.kind][1] += 1
        table[s.kind][2] += hit
        if not hit:
            misses.append(s)
    print("| kind of change | sites | found on its lines | found, or its gate | recall (lines / with gate) |\n"
          "|---|---:|---:|---:|---:|")
    tot = [0, 0, 0]
    for kind in KINDS:
        if kind in table:
            h, n, g = table[kind]
            print(f"| {KIND_TITLES[kind]} | {n} | {h} | {g} | {100 * h / n:.0f} % / {100 * g / n:.0f} % |")
            if kind not in APART:
                tot = [tot[0] + h, tot[1] + n, tot[2] + g]
    if tot[1]:
        print(f"| **all but those counted apart** | {tot[1]} | {tot[0]} | {tot[2]} | "
              f"{100 * tot[0] / tot[1]:.0f} % / {100 * tot[2] / tot[1]:.0f} % |")
    per_project = Counter(s.project for s in sites if s.project in projects and s.kind not in APART)
    missed_project = Counter(s.project for s in misses if s.kind not in APART)
    print("\nper project (all but those counted apart): " + ", ".join(
        f"{p} {per_project[p] - missed_project[p]}/{per_project[p]}" for p in sorted(per_project)))
    if os.environ.get("PORTED_MISSES"):
        miss_file = Path(os.environ["PORTED_MISSES"])
        with miss_file.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["site", "kind", "evidence"])
            for s in misses:
                w.writerow([s.key, s.kind, s.evidence])
        print(f"misses: {miss_file}", file=sys.stderr)
    if own_misses:
        with own_misses.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["site", "end", "kind", "found_on_gate", "rules_on_gate", "evidence"])
            for s, on_gate in strict_misses:
                gate_rules = sorted({r for ln in s.gates for r in rules_at.get((s.project, s.path, ln), [])})
                w.writerow([s.key, s.end, s.kind, "yes" if on_gate else "no", " ".join(gate_rules), s.evidence])
        print(f"sites not found on their own lines: {own_misses}", file=sys.stderr)


CLOSING_ONLY = re.compile(r"[\s});,\]]*")
_STRINGS_AND_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|//.*')


def closing_brace_openers(out_root: Path, sites: list[Site]) -> dict[str, Site]:
    """Sites whose CUDA text is only closing braces (`}` of an `if` the port removed), each mapped to
    the site holding the `{` it closes: the same edit, so it is scored on that site's lines."""
    by_file: dict[tuple[str, str], list[Site]] = defaultdict(list)
    for s in sites:
        by_file[(s.project, s.path)].append(s)
    openers: dict[str, Site] = {}
    for (project, path), file_sites in by_file.items():
        try:
            text = (out_root / project / path).read_text(errors="replace").split("\n")
        except OSError:
            continue
        code = [_STRINGS_AND_COMMENTS.sub("", ln) for ln in text]
        for s in file_sites:
            body = "".join(code[s.start - 1:s.end])
            if "}" not in body or not CLOSING_ONLY.fullmatch(body):
                continue
            depth, ln = body.count("}"), s.start - 1
            while ln > 0 and depth > 0:
                ln -= 1
                for ch in reversed(code[ln]):
                    depth += 1 if ch == "}" else -1 if ch == "{" else 0
                    if depth == 0:
                        break
            partner = next((o for o in file_sites if o is not s and o.start <= ln + 1 <= o.end), None)
            if depth == 0 and partner:
                openers[s.key] = partner
    return openers


def sample(out_root: Path, before: Path, after: Path, n: int, seed: int, ignore: str) -> None:
    """Findings in `after` that `before` lacks, a seeded sample of n, each with its source line."""
    import random

    def keys(path: Path) -> dict[tuple, dict]:
        return {(f["project"], f["path"], f["line"], f["rule"], f["symbol"]): f for f in json.loads(path.read_text())}

    old, new = keys(before), keys(after)
    added = sorted(k for k in set(new) - set(old) if not (ignore and re.match(ignore, k[3])))
    print(f"{len(added)} findings added; sample of {min(n, len(added))} (seed {seed})", file=sys.stderr)
    for key in random.Random(seed).sample(added, min(n, len(added))):
        project, path, line, rule, symbol = key
        lines = (out_root / project / path).read_text(errors="replace").split("\n")
        context = " | ".join(x.strip() for x in lines[max(0, line - 2):line + 1])
        print(f"{project}:{path}:{line},{rule},{symbol}\n    {context[:300]}")


def precision() -> None:
    for path in sorted(HERE.glob("precision*.csv")):
        with path.open() as f:
            rows = list(csv.DictReader(f))
        right = sum(r["verdict"] == "right" for r in rows)
        print(f"\n{path.name}: {right}/{len(rows)} judged right by reading the code ({100 * right / len(rows):.0f} %)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--src", type=Path, required=True)
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--project", "--projects", action="append", default=[],
                   help="only these projects (repeat or comma-separate); the others keep their rows")
    s = sub.add_parser("score")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--save-findings", type=Path)
    s.add_argument("--project", "--projects", action="append", default=[],
                   help="only these projects (repeat or comma-separate)")
    s.add_argument("--findings", type=Path, nargs="+", default=[],
                   help="score findings saved by an earlier --save-findings instead of scanning")
    s.add_argument("--misses", type=Path, help="write every site not found on its own lines (CSV, with its gate)")
    m = sub.add_parser("sample")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--before", type=Path, required=True)
    m.add_argument("--after", type=Path, required=True)
    m.add_argument("-n", type=int, default=60)
    m.add_argument("--seed", type=int, default=14)
    m.add_argument("--ignore-rules", default="", help="regex of rule ids added by other work, left out")
    args = ap.parse_args()
    if args.cmd in ("build", "score"):
        args.project = [name for arg in args.project for name in arg.split(",") if name]
    if args.cmd == "sample":
        sample(args.out, args.before, args.after, args.n, args.seed, args.ignore_rules)
        return 0
    if args.cmd == "build":
        sites = build(args.src, args.out, args.project)
        apply_labels(sites)
        write_sites(sites)
        text_file = args.out / "sites-text.jsonl"
        kept = []  # rows of the projects not rebuilt
        if args.project and text_file.exists():
            kept = [ln for ln in text_file.read_text().splitlines()
                    if ln and json.loads(ln)["site"].split(":", 1)[0] not in args.project]
        with text_file.open("w") as f:
            f.writelines(ln + "\n" for ln in kept)
            for st in (s for s in sites if not args.project or s.project in args.project):
                f.write(json.dumps({"site": st.key, "kind": st.kind, "evidence": st.evidence,
                                    "cuda": st.cuda_text, "hip": st.hip_text}) + "\n")
        kinds = Counter(s.kind for s in sites)
        print(f"{len(sites)} sites: " + ", ".join(f"{k} {kinds[k]}" for k in KINDS if kinds[k]))
    else:
        score(args.out, args.save_findings, args.project, args.findings, args.misses)
        precision()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
