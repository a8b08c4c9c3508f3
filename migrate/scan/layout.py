"""A project's layout, read from the scanned paths and facts: the files of its own per-back-end
families (a `cuda` member beside a `hip` or `dpcpp` one, a folder of its CUTLASS code), which rules
leave alone, the sources of another programming model (SYCL) or vendor (a compat header that maps
CUDA's names to MUSA's), whose identifiers are not CUDA's, and (from their text) the code generators
that write CUDA as text. What names these (back ends, the CUTLASS folder word, the headers, the names,
a generator's device words) is data with its sources: rules/layout/backends.yaml."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

from migrate.model import Fact, FileResult, Finding, SourceFile
from migrate.rulebase import datafile
from migrate.rulebase.load import RuleBase, default_rules_dir

BACKENDS_FILE = "layout/backends.yaml"
PREBUILT_DEVICE_CODE = "prebuilt-cuda-device-code"  # vocabulary.BINARY_CONSTRUCTS (extract/binary.py)
DEVICE_SOURCE_SUFFIXES = (".cu", ".cuh", ".hip")  # the suffixes discover gives the kinds cuda and hip


def other_model_source(facts: Iterable[Fact]) -> bool:
    """Whether the file is another programming model's or another vendor's (rules/layout/backends.yaml):
    it includes a header only SYCL/DPC++ sources include, holds a construct only another language has (a GLSL
    `#extension` directive: shader code), or it is a compat header that maps CUDA's
    names to another vendor's. Its identifiers are that model's or vendor's and the project's, not CUDA's."""
    headers, constructs = _other_model_headers(), _other_model_constructs()
    return any((f.kind == "include" and f.name in headers) or (f.kind == "construct" and f.name in constructs)
               or other_vendor_alias(f) for f in facts)


def other_vendor_alias(fact: Fact) -> bool:
    """`#define cudaMalloc musaMalloc` (a `defined` fact whose text is the macro's one-identifier value):
    a CUDA name mapped to another vendor's, for that vendor's build; the CUDA build still calls CUDA's."""
    if fact.kind != "defined" or not fact.text:
        return False
    cuda_name, vendor_name = _vendor_alias()
    return bool(vendor_name.match(fact.text)) and bool(cuda_name.match(fact.name))


def other_vendor_source(facts: Iterable[Fact]) -> bool:
    """Whether the file is another vendor's own code in its CUDA-like dialect (rules/layout/backends.yaml,
    other_vendor_source): it names that vendor's runtime API or includes its headers, and names no CUDA API.
    Its kernels, launches and device calls are that vendor's, not CUDA code to port."""
    names, headers = _vendor_source()
    cuda_name, _ = _vendor_alias()
    vendor = False
    for f in facts:
        if f.kind == "identifier":
            if cuda_name.match(f.name):
                return False
            vendor = vendor or bool(names.match(f.name))
        elif f.kind == "include" and headers.match(f.name):
            vendor = True
    return vendor


def vendor_runtime_name(name: str) -> bool:
    """Whether an identifier names another vendor's runtime API (`musaStream_t`; other_vendor_source)."""
    return bool(_vendor_source()[0].match(name))


@lru_cache(maxsize=1)
def _vendor_source() -> tuple[re.Pattern[str], re.Pattern[str]]:
    data = datafile.read(default_rules_dir() / BACKENDS_FILE)["other_vendor_source"]
    return re.compile(str(data["names"])), re.compile(str(data["headers"]))


@lru_cache(maxsize=1)
def _other_model_headers() -> frozenset[str]:
    return frozenset(str(h) for h in datafile.read(default_rules_dir() / BACKENDS_FILE)["other_model_headers"])


@lru_cache(maxsize=1)
def _other_model_constructs() -> frozenset[str]:
    return frozenset(str(c) for c in datafile.read(default_rules_dir() / BACKENDS_FILE)["other_model_constructs"])


@lru_cache(maxsize=1)
def _vendor_alias() -> tuple[re.Pattern[str], re.Pattern[str]]:
    data = datafile.read(default_rules_dir() / BACKENDS_FILE)["other_vendor_alias"]
    return re.compile(str(data["cuda_name"])), re.compile(str(data["vendor_name"]))


def left_in_backend_files(rules: RuleBase, paths: Iterable[str]) -> Callable[[Finding], bool] | None:
    """Whether a finding is one of a rule with `in_backend_files: false` in a file of the project's
    own per-back-end family (`backend_files` of the scanned paths): a port adds the HIP twin of such a
    file and leaves the CUDA one as it is; or one of a prebuilt binary's device code in a project that
    holds CUDA or HIP source of its own (`left_beside_sources`). Read from the rule records (no rule is built)."""
    paths = list(paths)
    ids = frozenset(rule_id for rule_id, kept in zip(rules.ids, rules.in_backend_files(), strict=True) if not kept)
    files = backend_files(paths) if ids else frozenset()
    built = left_beside_sources(rules, paths)
    if not files:
        return built
    in_family: Callable[[Finding], bool] = lambda finding: finding.rule in ids and finding.path in files  # noqa: E731
    return in_family if built is None else (lambda finding: in_family(finding) or built(finding))


def left_beside_sources(rules: RuleBase, paths: Iterable[str]) -> Callable[[Finding], bool] | None:
    """Whether a finding is a prebuilt binary's CUDA device code (the `prebuilt-cuda-device-code` construct) in a
    project with a CUDA or HIP source file of its own: the binary is taken as that source's build output (a MATLAB
    `.mexa64` beside its `.cu`), and the source is what a port converts."""
    if not any(p.lower().endswith(DEVICE_SOURCE_SUFFIXES) for p in paths):
        return None
    ids = rules.construct_rules({PREBUILT_DEVICE_CODE})
    if not ids:
        return None
    return lambda finding: finding.rule in ids


def backend_files(paths: Iterable[str]) -> frozenset[str]:
    """The paths of a per-back-end family: under a `cuda` folder whose parent also holds a folder
    named for another back end (Ginkgo's cuda/test/base/memory.cpp beside hip/ or dpcpp/), or named
    `cuda_x` (or `x_cuda`, `x-cuda-y`) beside the same name for another back end in the same folder
    (cuda_timer.cpp beside hip_timer.hip.cpp or dpcpp_timer.dp.cpp), or under a folder of the
    project's CUTLASS code, the CUDA member of its family with or without the twin in the tree
    (rules/layout/backends.yaml). Only the scanned paths are read."""
    other_backends, cutlass_folder = _layout()
    paths = list(paths)
    split, folders, stems = _tree([p.replace("\\", "/") for p in paths])
    found = set()
    for path, parts in zip(paths, split, strict=True):
        if any(part == "cuda" and any((*parts[:i], other) in folders for other in other_backends)
               for i, part in enumerate(parts[:-1])) or any(cutlass_folder.search(part) for part in parts[:-1]):
            found.add(path)
        words = re.split(r"([_-])", parts[-1].split(".")[0])
        if "cuda" in words:
            at = words.index("cuda")
            if any((parts[:-1], "".join([*words[:at], other, *words[at + 1:]])) in stems for other in other_backends):
                found.add(path)
    return frozenset(found)


def hip_twinned(paths: Iterable[str]) -> frozenset[str]:
    """CUDA members of a per-back-end family whose HIP member is in the tree (rules/layout/backends.yaml,
    hip_twins): ext_cuda.h beside ext_hip.h, x_nvidia.c beside x_amdgpu.c, CudaMallocAllocator.hpp beside
    HipMallocAllocator.hpp, cuda/... beside hip/, a CUDA library's wrapper beside its ROCm library's (cuBLAS.cpp
    beside rocBLAS.cpp)."""
    return _hip_twinned(tuple(paths))


@lru_cache(maxsize=4)
def _hip_twinned(paths: tuple[str, ...]) -> frozenset[str]:
    """`hip_twinned`, read once per tree: a scan asks it for the same files in parts and in `hip_members`."""
    cuda_words, hip_words, library_words = _hip_twins()
    split, folders, stems = _tree(paths)
    found = set()
    stem_words = {**dict.fromkeys(cuda_words, hip_words), **library_words}
    for path, parts in zip(paths, split, strict=True):
        if any(part in cuda_words and any((*parts[:i], h) in folders for h in hip_words)
               for i, part in enumerate(parts[:-1])):
            found.add(path)
            continue
        stem = parts[-1].split(".")[0]  # lower case: CudaMallocAllocator beside HipMallocAllocator too
        for word, twins in stem_words.items():
            if word not in stem:  # most are not: no pattern to build and run
                continue
            for at in (m.start() for m in re.finditer(re.escape(word), stem)):
                if any((parts[:-1], stem[:at] + h + stem[at + len(word):]) in stems for h in twins):
                    found.add(path)
    return frozenset(found)


def hip_members(paths: Iterable[str]) -> frozenset[str]:
    """CUDA members of a per-back-end family whose own HIP member file is in the tree (`hip_twinned`, file by
    file): under a `cuda/` folder beside `hip/`, the same path under `hip/` with the same stem, or the stem's
    CUDA word turned into a HIP word, whatever the suffix (Traccc's device/cuda/src/sanity/contiguous_on.cuh beside
    device/hip/src/sanity/contiguous_on.hpp; Detray's device/cuda/propagator_cuda_kernel.cu beside
    device/hip/propagator_hip_kernel.hip); or a stem twin in the same folder (ext_cuda.h beside ext_hip.h)."""
    cuda_words, hip_words, _ = _hip_twins()
    paths = list(paths)
    split, _, stems = _tree(paths)
    twinned = hip_twinned(paths)
    found = set()
    for path, parts in zip(paths, split, strict=True):
        if path not in twinned:
            continue
        stem = parts[-1].split(".")[0]
        for i, part in enumerate(parts[:-1]):
            if part not in cuda_words:
                continue
            names = {stem, *twin_stems(stem)}
            if any(((*parts[:i], h, *parts[i + 1:-1]), name) in stems for h in hip_words for name in names):
                found.add(path)
        if not any(part in cuda_words for part in parts[:-1]):
            found.add(path)  # twinned by its name in its own folder
    return frozenset(found)


def twin_stems(stem: str) -> frozenset[str]:
    """The stems a HIP twin of a file stemmed `stem` (lower case) would have: each CUDA word of it turned into each HIP
    word (rules/layout/backends.yaml hip_twins: mpl_gpu_cuda -> mpl_gpu_hip, mpl_gpu_rocm, mpl_gpu_amdgpu)."""
    cuda_words, hip_words, _ = _hip_twins()
    return frozenset(stem.replace(word, h) for word in cuda_words if word in stem for h in hip_words)


def hip_sides(paths: Iterable[str]) -> frozenset[str]:
    """Files under the HIP folder of a per-back-end family (`hip/` beside `cuda/`, rules/layout/backends.yaml
    hip_twins): the family's HIP member, which the project builds only for AMD, whatever CUDA spelling it keeps for a
    hipify step to convert (optimum-quanto's extensions/hip/unpack.cu, loaded by torch.utils.cpp_extension, which
    hipifies it on ROCm, beside extensions/cuda/). A `hip/` folder with no CUDA sibling is no such member."""
    cuda_words, hip_words, _ = _hip_twins()
    paths = list(paths)
    split, folders, _ = _tree(paths)
    return frozenset(path for path, parts in zip(paths, split, strict=True)
                     if any(part in hip_words and any((*parts[:i], c) in folders for c in cuda_words)
                            for i, part in enumerate(parts[:-1])))


PathParts = tuple[str, ...]


def _tree(paths: Iterable[str]) -> tuple[list[PathParts], set[PathParts], set[tuple[PathParts, str]]]:
    """Each path's lower-case parts, every folder of them, and every (folder, file stem) pair."""
    split = [tuple(p.lower().split("/")) for p in paths]
    folders = {parts[:i + 1] for parts in split for i in range(len(parts) - 1)}
    stems = {(parts[:-1], parts[-1].split(".")[0]) for parts in split}
    return split, folders, stems


@lru_cache(maxsize=1)
def _hip_twins() -> tuple[frozenset[str], tuple[str, ...], dict[str, tuple[str, ...]]]:
    """(CUDA words, HIP words, CUDA library word -> its ROCm libraries' words) of rules/layout/backends.yaml's
    hip_twins."""
    data = datafile.read(default_rules_dir() / BACKENDS_FILE).get("hip_twins") or {}
    libraries = {str(k).lower(): tuple(str(w).lower() for w in v) for k, v in (data.get("library_words") or {}).items()}
    return (frozenset(str(w) for w in data.get("cuda_words", [])), tuple(str(w) for w in data.get("hip_words", [])),
            libraries)


@lru_cache(maxsize=1)
def _layout() -> tuple[tuple[str, ...], re.Pattern[str]]:
    """(other back ends, the pattern of a CUTLASS folder's name), from rules/layout/backends.yaml."""
    data = datafile.read(default_rules_dir() / BACKENDS_FILE)
    word = re.escape(str(data["cutlass_folder_word"]))
    return tuple(str(b) for b in data["other_backends"]), re.compile(rf"(^|[_-]){word}([_-]|$)")


@lru_cache(maxsize=1)
def _generators() -> tuple[frozenset[str], re.Pattern[str], int, tuple[bytes, ...]]:
    """(suffixes, the pattern of CUDA device code in a string literal's text, least lines, the bytes every such
    text holds one of: the device words and the launch's `<<<`) of rules/layout/backends.yaml's code_generators."""
    data = datafile.read(default_rules_dir() / BACKENDS_FILE).get("code_generators") or {}
    words = [str(w) for w in data.get("device_words", [])]
    launch = str(data.get("launch", ""))
    alternatives = "|".join(re.escape(w) for w in words)
    device = "|".join(p for p in (rf"\b(?:{alternatives})\b" if words else "", launch) if p) or r"(?!)"
    return (frozenset(str(s) for s in data.get("suffixes", [])), re.compile(device), int(data.get("min_lines", 1)),
            (*(w.encode() for w in words), b"<<<"))


C_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
PY_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
GENERATOR_KINDS = {"python": PY_STRING, "cpp": C_STRING}  # the kinds of the suffixes a generator may have


def string_device_lines(kind: str, data: bytes) -> int:
    """The lines of a file's bytes whose one-line string literals carry CUDA device code (`__global__`,
    `threadIdx`, a `<<<...>>>` launch; rules/layout/backends.yaml, code_generators), for a file of a kind a
    code generator may be (Python: its quotes; C or C++); 0 for other kinds. Counted where the file's bytes
    are read (scan.analyse, kept in its per-file result); `generators` applies the suffixes and least lines."""
    literal = GENERATOR_KINDS.get(kind)
    if literal is None or not any(needle in data for needle in _generators()[3]):
        return 0
    device = _generators()[1]
    return sum(1 for line in data.decode("utf-8", "replace").splitlines()
               if any(device.search(m.group()) for m in literal.finditer(line)))


def generator_lines(path: str, text: str) -> int:
    """The lines of a code generator's CUDA back end in one file (rules/layout/backends.yaml, code_generators):
    the lines of a source file that is not CUDA (Python, C, C++) whose one-line string literals carry CUDA
    device code (`__global__`, `threadIdx`, a `<<<...>>>` launch); 0 for any other file or below the least
    number of such lines (one stray literal is not a generator)."""
    suffix = Path(path).suffix.lower()
    return _generator(path, string_device_lines("python" if suffix == ".py" else "cpp", text.encode()))


def _generator(path: str, lines: int) -> int:
    """A file's string-literal device lines (`string_device_lines`) when it is a code generator: its suffix is
    a generator's and it has at least the least number of them; else 0."""
    suffixes, _, least, _ = _generators()
    return lines if lines >= least and Path(path).suffix.lower() in suffixes else 0


def generators(scanned: Iterable[tuple[SourceFile, FileResult]]) -> dict[str, int]:
    """The scanned files that are code generators (`generator_lines`), with their lines of CUDA device code in
    string literals, from their per-file results (nothing is read again)."""
    return {f.rel: lines for f, result in scanned if (lines := _generator(f.rel, result.string_device_lines))}


def code_generators(files: Iterable[SourceFile]) -> dict[str, int]:
    """The code generators among files read from disk (`generators` without a scan's results: a benchmark's
    tree). Only a file with a generator's suffix is read."""
    suffixes = _generators()[0]
    out: dict[str, int] = {}
    for f in files:
        if Path(f.rel).suffix.lower() not in suffixes:
            continue
        try:
            data = f.path.read_bytes()
        except OSError:
            continue
        if lines := _generator(f.rel, string_device_lines(f.kind, data)):
            out[f.rel] = lines
    return out
