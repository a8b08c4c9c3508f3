"""The words that name a part of a project optional (rules/workloads/optional.yaml, each section with its
source): folders a package does not need, scratch space, build-switch words, compile-pass macros, templates."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from migrate.model import Fact
from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir

SECTIONS = ("folders", "scratch_folders", "unused_folders", "switches", "detection", "compile_pass", "templates",
            "alternative_runtimes", "alternative_arrays", "portable_backends", "configure_hipify", "deployment",
            "cuda_compiler", "host_only_gates", "cpu_thrust", "cargo_cuda", "torch_extensions", "sample_programs")


class DataError(ValueError):
    """rules/workloads/optional.yaml is missing a source or a list."""


@dataclass(frozen=True, slots=True)
class Words:
    """What names a part optional (rules/workloads/optional.yaml)."""

    folders: frozenset[str]
    prefixes: tuple[str, ...]
    scratch: frozenset[str]
    switch_words: frozenset[str]
    suffix_words: frozenset[str]
    request_words: frozenset[str]
    compile_pass: frozenset[str]
    cuda_settings: tuple[str, ...]
    cuda_properties: frozenset[str]  # target properties only a target's CUDA sources read (compile_pass)
    templates: frozenset[str]
    platform_words: frozenset[str]
    off: frozenset[str]
    on: frozenset[str] = frozenset()  # the constants CMake's if() reads as true (ON, 1, TRUE ...)
    reserved: tuple[str, ...] = ()
    test_files: tuple[str, ...] = ()  # file name patterns of test modules (test_*.py)
    detected: frozenset[str] = frozenset()  # detection results, upper case (CUDATOOLKIT_FOUND, CMAKE_CUDA_COMPILER)
    # detection results true wherever CMake's CUDA language is enabled, upper case (CMAKE_CUDA_COMPILER, CUDA_FOUND)
    compiler_results: frozenset[str] = frozenset()
    nvidia_runtimes: frozenset[str] = frozenset()  # inference runtimes only NVIDIA GPUs run (tensorrt)
    portable_runtimes: frozenset[str] = frozenset()  # runtimes that run on other GPUs or the CPU (onnxruntime)
    gpu_arrays: frozenset[str] = frozenset()  # array libraries for NVIDIA GPUs (cupy)
    portable_arrays: frozenset[str] = frozenset()  # their CPU counterparts (numpy, scipy)
    cuda_genex: tuple[str, ...] = ()  # generator expressions true only for CUDA sources (COMPILE_LANGUAGE:CUDA)
    unused: frozenset[str] = frozenset()  # folder names of code no longer used (unused, legacy), lower case
    portable_headers: frozenset[str] = frozenset()  # headers of GPU interfaces AMD GPUs run (CL/cl.h, vulkan/vulkan.h)
    cuda_commands: frozenset[str] = frozenset()  # CMake commands that compile CUDA sources (FindCUDA's cuda_add_library)
    target_rules: frozenset[str] = frozenset()  # C/C++ rules that hold only on some GPU targets (FP8 format, wave size)
    detected_packages: tuple[str, ...] = ()  # find_package() names found only with NVIDIA's toolkit (CUDA, CUDAToolkit)
    hipify_modules: frozenset[str] = frozenset()  # modules a build script imports to hipify at configure time
    hipify_tools: frozenset[str] = frozenset()  # converters a build command runs by name (hipify-perl)
    driver_queries: frozenset[str] = frozenset()  # rules whose findings query NVIDIA's driver at run time (nvidia-smi)
    script_kinds: frozenset[str] = frozenset()  # file kinds of scripts a machine runs (shell)
    container_runs: frozenset[str] = frozenset()  # rules whose findings start a container on an NVIDIA host
    # rules whose findings set up a CUDA build environment (a CUDA base image, CUDA system packages)
    build_environments: frozenset[str] = frozenset()
    environment_kinds: frozenset[str] = frozenset()  # file kinds that set one up beside scripts (CI workflows)
    dev_containers: frozenset[str] = frozenset()  # folders of development containers (.devcontainer)
    cpu_variant_words: frozenset[str] = frozenset()  # words of a container file's name that mark a CPU image (cpu)
    amd_images: tuple[str, ...] = ()  # prefixes of AMD GPU base images (rocm/)
    gate_rules: frozenset[str] = frozenset()  # rules whose findings are CUDA compiler gates (__CUDA_ARCH__, __CUDACC__)
    compiler_rules: frozenset[str] = frozenset()  # rules whose findings name the CUDA compiler in a build (nvcc)
    compiler_packages: frozenset[str] = frozenset()  # find_package() names that set up the CUDA compiler (CUDA)
    nvcc_flag_rules: frozenset[str] = frozenset()  # rules whose findings are flags only nvcc takes (-gencode)
    thrust_macros: frozenset[str] = frozenset()  # macros that pick Thrust's device system (THRUST_DEVICE_SYSTEM)
    thrust_cpu_systems: frozenset[str] = frozenset()  # device systems that run on the CPU (CPP, OMP, TBB)
    thrust_rules: frozenset[str] = frozenset()  # rules whose findings are Thrust's headers and namespace
    thrust_package_rules: frozenset[str] = frozenset()  # package and source rules whose symbol may name Thrust
    thrust_package: frozenset[str] = frozenset()  # the name of Thrust's package, lower case (thrust)
    cuda_link_flags: frozenset[str] = frozenset()  # link flags of the CUDA runtime and driver (-lcudart, -lcuda)
    suffixes: tuple[str, ...] = ()  # endings of optional folder names (text_generation_benchmark), lower case
    cargo_cuda: frozenset[str] = frozenset()  # crates that compile or load a Cargo package's CUDA sources (bindgen_cuda)
    torch_extension_headers: frozenset[str] = frozenset()  # the header a PyTorch extension's binding includes
    install_scripts: frozenset[str] = frozenset()  # the setup script an install runs (setup.py)
    manifests: frozenset[str] = frozenset()  # files that make a folder a package pip installs (pyproject.toml)
    sample_programs: frozenset[str] = frozenset()  # NVIDIA's CUDA Samples utilities by file stem (deviceQuery)


@lru_cache(maxsize=4)
def words(directory: Path | None = None) -> Words:
    path = (directory or default_rules_dir()) / "workloads" / "optional.yaml"
    data = datafile.read(path) if path.is_file() else None
    if not isinstance(data, dict) or any(not str((data.get(s) or {}).get("source", "")).startswith("https://")
                                         for s in SECTIONS):
        raise DataError(f"{path}: each of {', '.join(SECTIONS)} needs a source URL")

    def names(section: str, key: str) -> list[str]:
        value = data[section].get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise DataError(f"{path}: {section}.{key}: a list of names")
        return value

    return Words(folders=frozenset(n.lower() for n in names("folders", "names")),
                 prefixes=tuple(names("folders", "prefixes")),
                 suffixes=tuple(n.lower() for n in names("folders", "suffixes")),
                 scratch=frozenset(n.lower() for n in names("scratch_folders", "names")),
                 unused=frozenset(n.lower() for n in names("unused_folders", "names")),
                 switch_words=frozenset(names("switches", "words")),
                 suffix_words=frozenset(names("switches", "suffix_words")),
                 request_words=frozenset(names("switches", "request_words")),
                 compile_pass=frozenset(names("compile_pass", "names")),
                 cuda_settings=tuple(names("compile_pass", "cmake_prefixes")),
                 cuda_properties=frozenset(names("compile_pass", "target_properties")),
                 cuda_genex=tuple(names("compile_pass", "generator_expressions")),
                 templates=frozenset(names("templates", "markers")),
                 torch_extension_headers=frozenset(names("torch_extensions", "headers")),
                 install_scripts=frozenset(names("torch_extensions", "install_scripts")),
                 manifests=frozenset(names("torch_extensions", "manifests")),
                 sample_programs=frozenset(names("sample_programs", "names")),
                 platform_words=frozenset(names("switches", "platform_words")),
                 off=frozenset(n.upper() for n in names("switches", "off_values")),
                 on=frozenset(n.upper() for n in names("switches", "on_values")),
                 reserved=tuple(names("switches", "reserved_prefixes")),
                 test_files=tuple(names("folders", "test_files")),
                 nvidia_runtimes=frozenset(n.lower() for n in names("alternative_runtimes", "nvidia_only")),
                 portable_runtimes=frozenset(n.lower() for n in names("alternative_runtimes", "portable")),
                 gpu_arrays=frozenset(n.lower() for n in names("alternative_arrays", "gpu")),
                 portable_arrays=frozenset(n.lower() for n in names("alternative_arrays", "portable")),
                 portable_headers=frozenset(names("portable_backends", "headers")),
                 cuda_commands=frozenset(names("detection", "cmake_commands")),
                 detected_packages=tuple(names("detection", "packages")),
                 target_rules=frozenset(names("compile_pass", "target_rules")),
                 hipify_modules=frozenset(names("configure_hipify", "modules")),
                 hipify_tools=frozenset(names("configure_hipify", "tools")),
                 driver_queries=frozenset(names("deployment", "driver_queries")),
                 script_kinds=frozenset(names("deployment", "script_kinds")),
                 container_runs=frozenset(names("deployment", "container_runs")),
                 build_environments=frozenset(names("deployment", "build_environments")),
                 environment_kinds=frozenset(names("deployment", "environment_kinds")),
                 dev_containers=frozenset(names("deployment", "dev_containers")),
                 cpu_variant_words=frozenset(n.lower() for n in names("deployment", "cpu_variant_words")),
                 amd_images=tuple(n.lower() for n in names("deployment", "amd_images")),
                 gate_rules=frozenset(names("host_only_gates", "rules")),
                 compiler_rules=frozenset(names("cuda_compiler", "rules")),
                 compiler_packages=frozenset(names("cuda_compiler", "packages")),
                 nvcc_flag_rules=frozenset(names("cuda_compiler", "flag_rules")),
                 thrust_macros=frozenset(names("cpu_thrust", "macros")),
                 thrust_cpu_systems=frozenset(names("cpu_thrust", "cpu_systems")),
                 thrust_rules=frozenset(names("cpu_thrust", "rules")),
                 thrust_package_rules=frozenset(names("cpu_thrust", "package_rules")),
                 thrust_package=frozenset(n.lower() for n in names("cpu_thrust", "package")),
                 cuda_link_flags=frozenset(names("cuda_compiler", "link_flags")),
                 cargo_cuda=frozenset(names("cargo_cuda", "crates")),
                 compiler_results=frozenset(n.upper() for n in names("detection", "compiler_results")),
                 detected=frozenset([f"{n.upper()}_FOUND" for n in names("detection", "packages")]
                                    + [n.upper() for n in names("detection", "variables")]))


def in_cuda_genex(line: str, column: int, known: Words) -> bool:
    """Whether the text at `column` (1-based) of a CMake line sits inside a generator expression that applies only
    to CUDA sources (`$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/utf-8>`: rules/workloads/optional.yaml
    `compile_pass.generator_expressions`)."""
    for condition in known.cuda_genex:
        start = line.find(f"$<$<{condition}")
        while start >= 0:
            body = line.find(">:", start + 4 + len(condition))
            end = line.find(">", body + 2) if body >= 0 else -1
            if body >= 0 and body + 2 <= column - 1 < (end if end >= 0 else len(line)):
                return True
            start = line.find(f"$<$<{condition}", start + 1)
    return False


SETTING = re.compile(r"\s*(?:set|list|string)\s*\(\s*(?:APPEND\s+)?(\w+)", re.IGNORECASE)


def sets_cuda_setting(line: str, known: Words) -> bool:
    """Whether a CMake line sets or appends to a variable that applies only to CUDA compiles
    (`set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -Xcompiler=/bigobj")`, `string(APPEND CMAKE_CUDA_FLAGS ...)`)."""
    m = SETTING.match(line)
    return m is not None and m.group(1).startswith(known.cuda_settings)


# optional_root's answers for the Words last asked of (told by identity: no hash of its sets a call); it is
# asked per finding (31k times for cuda-samples' report), of a few hundred paths
_ROOTS: dict[str, str | None] = {}
_ROOTS_OF: list[Words | None] = [None]


def optional_root(path: str, known: Words | None = None) -> str | None:
    """The optional folder a file sits in (`tests`, `pkg/experimental`, a top-level `dev`), or None."""
    known = known or words()
    if _ROOTS_OF[0] is not known or len(_ROOTS) > 100_000:
        _ROOTS.clear()
        _ROOTS_OF[0] = known
    try:
        return _ROOTS[path]
    except KeyError:
        root = _ROOTS[path] = _optional_root(path, known)
        return root


def _optional_root(path: str, known: Words) -> str | None:
    parts = posixpath.dirname(path).split("/")
    if parts[0].lower() in known.scratch:  # a file in a top-level scratch folder or below it (never the top's own)
        return parts[0]
    for i, part in enumerate(parts):
        lower = part.lower()
        if lower in known.folders or lower.startswith(known.prefixes) or lower.endswith(known.suffixes):
            return "/".join(parts[:i + 1])
    return None


def alternative_runtime_folders(paths: Iterable[str], known: Words) -> dict[str, str]:
    """Folders named after an NVIDIA-only inference runtime beside a sibling named after a portable one (rules/
    workloads/optional.yaml `alternative_runtimes`): folder -> the evidence."""
    children: dict[str, set[str]] = {}
    for path in paths:
        parts = path.split("/")[:-1]
        for i, part in enumerate(parts):
            children.setdefault("/".join(parts[:i]), set()).add(part)
    out: dict[str, str] = {}
    for parent, names in children.items():
        portable = sorted(n for n in names if _first_word(n) in known.portable_runtimes)
        if not portable:
            continue
        for name in sorted(n for n in names if _first_word(n) in known.nvidia_runtimes):
            folder = f"{parent}/{name}" if parent else name
            out[folder] = (f"{folder}/: a {name} back end beside {', '.join(portable[:3])} "
                           "(rules/workloads/optional.yaml alternative_runtimes)")
    return out


def alternative_runtime_scopes(facts: Mapping[str, Sequence[Fact]],
                               known: Words) -> dict[str, tuple[tuple[int, int, str], ...]]:
    """Functions and branches of a Python file that import an NVIDIA-only runtime (`import tensorrt` in
    `elif engine:` or in `def export_engine`) where another function or branch of the file imports a portable one
    (`import onnxruntime` in `elif onnx:`): one back end among alternatives the user picks, like the folders above.
    A scope that imports a portable runtime itself (an ONNX-to-TensorRT converter) stays required. The same for
    array libraries (`alternative_arrays`: `from cupyx.scipy import sparse` in `if which == "cupy":` beside `from
    scipy import sparse` in `elif which == "numpy":`): path -> the (first line, last line, evidence) of each such
    scope."""
    out: dict[str, tuple[tuple[int, int, str], ...]] = {}
    pairs = ((known.nvidia_runtimes, known.portable_runtimes, "runtime", "alternative_runtimes"),
             (known.gpu_arrays, known.portable_arrays, "array library", "alternative_arrays"))
    for path, items in facts.items():
        local = [(f, _scope_lines(f.role)) for f in items if f.kind == "python_import" and f.role.startswith("local:")]
        found: dict[tuple[int, int], str] = {}
        for gpu, cpu, what, section in pairs:
            portable = [(f, scope) for f, scope in local if _runtime(f.name, cpu)]
            for f, scope in local:
                if scope in found or not _runtime(f.name, gpu):
                    continue
                first, last = scope
                others = [(p, s) for p, s in portable if s != scope and not first <= p.line <= last]
                if others and not any(first <= p.line <= last for p, _ in portable):
                    p, _ = others[0]
                    found[scope] = (f"{path}:{f.line} imports {f.name} only in this function or branch (lines "
                                    f"{first}-{last}); {path}:{p.line} imports {p.name} in another: one {what} among "
                                    f"alternatives (rules/workloads/optional.yaml {section})")
        if found:
            out[path] = tuple((first, last, why) for (first, last), why in found.items())
    return out


def _scope_lines(role: str) -> tuple[int, int]:
    first, _, last = role.removeprefix("local:").partition("-")
    return int(first), int(last)


def _runtime(module: str, names: frozenset[str]) -> bool:
    root = module.split(".", maxsplit=1)[0].lower()
    return root in names or _first_word(root) in names


def _first_word(name: str) -> str:
    return re.split(r"[-_.]", name.lower(), maxsplit=1)[0]


def feature(switch: str, known: Words) -> str | None:
    """What a switch turns on (USE_CUDNN -> CUDNN, CAFFE_WITH_NCCL -> NCCL, GGML_USE_CUDA -> CUDA,
    X_CUTLASS_ENABLED -> X_CUTLASS), or None when the name has no switch word."""
    if switch.startswith(known.reserved) or " " in switch:  # CMake's own variables (CMAKE_BUILD_TYPE) are no
        return None  # project's switch, nor is `A OR B` one switch (switches.either_switches reads it)
    tokens = switch.split("_")
    for i, token in enumerate(tokens[:-1]):
        if token in known.switch_words:
            # switch words in a row name one request: BUILD_WITH_CUDA turns on CUDA, not a feature WITH_CUDA
            # (OFTNAI/Spike dc0fc001 CMakeLists.txt:30 `option(BUILD_WITH_CUDA "Enable CUDA backend" ON)`)
            while i + 2 < len(tokens) and tokens[i + 1] in known.switch_words:
                i += 1
            return "_".join(tokens[i + 1:])
    if len(tokens) > 1 and tokens[-1] in known.suffix_words:  # the project's prefix stays: GGML_CUDA_ENABLED
        return next((t for t in tokens[:-1] if t in known.platform_words), "_".join(tokens[:-1]))
    return None


def detection(name: str, known: Words) -> bool:
    """Whether a CMake variable is a detection result true only where NVIDIA's toolkit is installed
    (CUDAToolkit_FOUND, CMAKE_CUDA_COMPILER), or a reference to one (`${CUDA_FOUND}`, an option's default)."""
    if name.startswith("${") and name.endswith("}"):
        name = name[2:-1]
    return name.upper() in known.detected


def off_by_default(default: str, known: Words) -> bool:
    """Whether a switch's default leaves it off where no CUDA is installed: OFF, 0, or a detection result."""
    return default.upper() in known.off or detection(default, known)


def is_platform(switch_feature: str, known: Words) -> bool:
    """Whether a switch's feature is the GPU platform itself (CUDA, GPU), not a library or kernel family."""
    return switch_feature.split("_", maxsplit=1)[0] in known.platform_words
