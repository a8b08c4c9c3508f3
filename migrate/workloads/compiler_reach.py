"""Whether the project's default build runs the CUDA compiler at all (docs/decisions/2026-12-06-s23-the-cuda-compiler-
the-default-build-runs.md). A `.cu` file is compiled only by nvcc (or a build that enables CMake's CUDA language); where
every place the project's build files name the CUDA compiler (nvcc as a program or a variable's value, the CUDA
language enabled, FindCUDA/FindCUDAToolkit run) sits in one optional switch's branch, nothing of the default build
compiles CUDA: each CUDA translation unit goes with that switch, whatever build rule names it, and so do nvcc's own
flags (-gencode, -Xcompiler), which take effect only where nvcc runs. SPECFEM/specfem2d 98741db1: Makefile.in:162
`@COND_CUDA_TRUE@NVCC = nvcc` (automake's COND_CUDA, off unless configure --with-cuda) and no other nvcc; its pattern
rule `$O/%.cuda.o: $S/%.cu` (src/gpu/rules.mk:151) compiles the .cu files only through ${NVCC}.

Nothing is said (None) where Python code has a CUDA finding (a loader may compile .cu files at run time) or no build
file names the compiler at all (the tool cannot tell how the .cu files are compiled). Not seen: a build system whose
CUDA rules need not name nvcc (Bazel, Meson; discover does not read their files). A Visual Studio project that lists a
.cu file (`<CudaCompile Include=...>`, a `vs_source` fact) compiles it with nvcc in every configuration: a naming
outside every switch."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from migrate.model import Fact, Finding
from migrate.workloads.build_sources import named_files
from migrate.workloads.optional_words import Words, optional_root
from migrate.workloads.switches import Region, common_switch, gates, switches_around

CUDA_UNITS = (".cu",)
LOADER_KINDS = frozenset({"python", "notebook"})  # code that can read a .cu file and compile it at run time
CMAKE_LANGUAGE = "language:CUDA"
CMAKE_FIND = "find_package:"


def compiler_branch(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], findings: Iterable[Finding],
                    regions: Mapping[str, tuple[Region, ...]], gated: Mapping[str, Region],
                    switches: Mapping[str, tuple[str, ...]], known: Words) -> Region | None:
    """The optional branch every naming of the CUDA compiler in the project's build files sits in, or None."""
    sites: list[list[Region]] = []
    for f in findings:
        if optional_root(f.path, known) is not None:
            continue
        if kinds.get(f.path) in LOADER_KINDS and f.confidence != "low":
            return None
        if f.rule in known.compiler_rules:
            sites.append([r for r in switches_around(regions, gated, f.path, line=f.line) if r.switch in switches])
    packages = {f"{CMAKE_FIND}{name}" for name in known.compiler_packages}  # find_package(CUDA), (CUDAToolkit)
    for path, items in facts.items():
        if optional_root(path, known) is not None:
            continue
        for fact in items:
            if fact.kind == "vs_source" and fact.name.endswith(CUDA_UNITS):
                sites.append([])  # MSBuild's CUDA build customization: no switch of the tool's readings around it
            elif fact.kind == "cmake" and (fact.name in packages or fact.name == CMAKE_LANGUAGE
                                         or fact.name in known.cuda_commands):
                sites.append([r for r in switches_around(regions, gated, path, line=fact.line) if r.switch in switches])
    return common_switch(sites)


def units_to_gate(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                  regions: Mapping[str, tuple[Region, ...]], gated: Mapping[str, Region],
                  switches: Mapping[str, tuple[str, ...]], unbuilt: Mapping[str, str], known: Words) -> list[str]:
    """The CUDA translation units (outside optional folders, and built by something) that no optional switch gates
    yet, whatever rule names them (specfem2d's pattern rule `$O/%.cuda.o: $S/%.cu`) or none (a utility compiled by hand
    with nvcc); not those a CMake file lists outside every optional switch: CMake builds each source of a plain target
    in the default build, so a CPU library listing a .cu file compiles CUDA there (a make rule naming a source builds it
    only when a goal reaches the rule: its .cu files go with the compiler)."""
    files = frozenset(kinds)
    listed = {named for path, items in facts.items() if kinds.get(path) == "cmake" for f in items
              if f.kind == "build_source" and not any(r.switch in switches for r in
                                                      switches_around(regions, gated, path, line=f.line))
              for named in named_files(path, f, files)}
    return [path for path in sorted(kinds) if path.endswith(CUDA_UNITS) and optional_root(path, known) is None
            and path not in unbuilt and path not in listed
            and not any(r.switch in switches for r in gates(regions, gated, path))]

