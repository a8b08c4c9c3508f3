"""What a ported project's HIP build leaves out: sources CMake names only in a branch a HIP build skips,
files that stop a HIP build with `#error` on the HIP side, and sub-projects built on their own without a
ROCm path."""
from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence

from migrate.model import Fact
from migrate.workloads import ported
from migrate.workloads.build_sources import named_files
from migrate.workloads.includes import COMPILED_SUFFIXES, HEADER_SUFFIXES, close_over_includes, includers_of
from migrate.workloads.optional_words import Words, feature


def hipified_at_configure(facts: Mapping[str, Sequence[Fact]], known: Words) -> str | None:
    """Where the build runs a hipify converter at configure time (rules/workloads/optional.yaml `configure_hipify`):
    a CMake command that runs a converter by name or a project script importing a converter module, or a build script
    (setup.py) importing one. None when it does not."""
    drivers: dict[str, str] = {}  # script file name -> the import that makes it a converter's driver
    for path, items in facts.items():
        for f in items:
            if f.kind == "python_import" and _hipify_module(f, known):
                name = posixpath.basename(path)
                drivers.setdefault(name, f"{path}:{f.line} imports {f.name}")
                if name in ported.BUILD_SCRIPTS:
                    return drivers[name]
    for path, items in sorted(facts.items()):
        for f in items:
            if f.kind == "build_script" and (f.name in known.hipify_tools or f.name in drivers):
                how = f"runs {f.name}" + (f" ({drivers[f.name]})" if f.name in drivers else "")
                return f"{path}:{f.line} {how}"
    return None


def _hipify_module(f: Fact, known: Words) -> bool:
    names = {f.name, *f.name.split("."), *f.text.replace(",", " ").split()}
    return bool(names & known.hipify_modules) or any(f.name.startswith(f"{m}.") for m in known.hipify_modules)


def left_out_of_hip(facts: Mapping[str, Sequence[Fact]], known: Words,
                    reached: Callable[[str], bool] = lambda folder: True) -> tuple[dict[str, str], frozenset[str]]:
    """Files a HIP build does not compile: named by CMake only in branches a HIP build skips, stopped
    with #error on the HIP side of a guard, or built by a sub-project of their own with no ROCm path (its
    folder is returned too) inside a build the project's ROCm path reaches (`reached`: build_scopes' reading of
    which builds the evidence covers). Beside a HIP branch of the same file (`if(USE_ROCM)` with its own source list),
    the branch of the CUDA platform's switch (`if(USE_CUDA)`) is one a HIP build skips, unless the build hipifies
    at configure time (`hipified_at_configure`): then it builds the converted copies of what it skips."""
    listed: dict[str, list[tuple[bool, str]]] = {}  # file -> (named in a CUDA-only branch?, where) per mention
    twins: set[str] = set()  # sources a HIP branch names by their hipified name (src/devices/hip/x-hip.hip)
    out: dict[str, str] = {}
    files = frozenset(facts)
    for path, items in facts.items():
        cuda_only = [(f.line, f.end_line) for f in items if f.kind == "backend_branch" and f.name == "cuda"]
        hip_only = [(f.line, f.end_line) for f in items if f.kind == "backend_branch" and f.name == "hip"]
        if hip_only:
            cuda_only += [(f.line, f.end_line) for f in items
                          if f.kind == "switch_branch" and feature(f.name, known) in known.platform_words]
        for f in items:
            if f.kind == "build_source" and f.text != "make rule":  # a Makefile's rule builds for its own back end
                skipped = any(a <= f.line <= b for a, b in cuda_only)
                for source in named_files(path, f, files):
                    listed.setdefault(source, []).append((skipped, f"{path}:{f.line}"))
                    if any(a <= f.line <= b for a, b in hip_only):
                        twins.add(_cuda_twin(source))
            elif f.kind == "hip_rejected" and path not in out:
                out[path] = f"{path}:{f.line} {f.text.strip()} (a HIP build stops here)"
    converted = hipified_at_configure(facts, known) is not None  # the sources the HIP build skips are hipified
    for source, mentions in listed.items():
        if all(skipped for skipped, _ in mentions) and source not in twins and not converted:
            out.setdefault(source, f"{mentions[0][1]} names {source} only where a HIP build does not")
    _headers_of_left_out(facts, out, frozenset(listed))
    subprojects = {path: folder for path, folder in _own_builds_without_rocm(facts, listed).items() if reached(folder)}
    for path, folder in subprojects.items():
        out.setdefault(path, f"{folder}/setup.py builds {folder} on its own, with no ROCm path")
    return out, frozenset(subprojects.values())


def _headers_of_left_out(facts: Mapping[str, Sequence[Fact]], out: dict[str, str], built: frozenset[str]) -> None:
    """Adds to `out` the headers that only files a HIP build leaves out include (vLLM's custom_all_reduce.cuh, which
    only custom_all_reduce.cu, listed under `if(VLLM_GPU_LANG STREQUAL "CUDA")`, and its test include): no HIP build
    compiles them either. `built`: the files a build file names; a source no build names (that test, compiled by
    hand) is no includer a HIP build compiles, but a header only such sources include is not left out by the HIP
    build. A header nothing includes, or that any other file includes, stays."""
    includers = includers_of(facts)

    def by_hand(path: str) -> bool:
        return path.endswith(COMPILED_SUFFIXES) and path not in built

    headers = [p for p in facts if p.endswith(HEADER_SUFFIXES)
               and not all(by_hand(w) for w in includers.get(posixpath.basename(p), ()))]
    close_over_includes(out, headers, includers, lambda path: path in out or by_hand(path),
                        "only files a HIP build leaves out include it")


def _own_builds_without_rocm(facts: Mapping[str, Sequence[Fact]],
                             listed: Mapping[str, list[tuple[bool, str]]]) -> dict[str, str]:
    """Files of a sub-project (path -> its folder): a folder below the root with a setup.py of its own that compiles an
    extension, and no ROCm build evidence under it (HIP branches in sources copied from the parent are
    none): detectron2's projects/TensorMask builds its op with a setup.py that never asks for HIP. The
    root's HIP build does not reach them unless a build file outside the folder names them as sources.
    A setup.py that compiles nothing (a pure Python package whose GPU sources are generated or built
    otherwise) makes no sub-project: there is no build of its own to lack a ROCm path."""
    scripts = sorted(posixpath.dirname(p) for p, items in facts.items()
                     if posixpath.basename(p) == "setup.py" and "/" in p
                     and any(f.kind == "extension" for f in items))
    out: dict[str, str] = {}
    for folder in scripts:
        inside = [p for p in facts if p.startswith(folder + "/")]
        if any(_builds_for_rocm(p, f) for p in inside for f in facts[p]):
            continue
        for path in inside:
            named_outside = any(not where.startswith(folder + "/") for _, where in listed.get(path, []))
            if not named_outside:
                out.setdefault(path, folder)
    return out


def _builds_for_rocm(path: str, fact: Fact) -> bool:
    """ROCm-path evidence of a build (CI, a package, a HIP branch of a build file, a setup.py that asks
    for HIP), as `ported.collect` ranks it; a HIP branch in a source is not."""
    return fact.kind == "rocm_path" and ported.fact_strength(path, fact) in {*ported.STRONG, "build"}


def _cuda_twin(path: str) -> str:
    """The CUDA file a hipified source is made from: hipify renames cuda to hip in paths and .cu to .hip
    (PyTorch's hipify_torch: src/devices/hip/fastllm-hip.hip from src/devices/cuda/fastllm-cuda.cu)."""
    stem, suffix = posixpath.splitext(path)
    return stem.replace("hip", "cuda") + (".cu" if suffix == ".hip" else suffix)
