"""What the build reaches, file by file (issue 28; workloads/reached_files.py): in a project whose only build is a
CMake project the tool reads completely, C/C++/CUDA files no build names and no built file includes are a part the
default build does not reach; a folder of optional name that holds the project's only program is required. Each
fixture is cut from a real case (its README says where); each near miss puts the file back in reach, or takes away
what the tool needs to tell, and today's reading stands."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.text import buildfiles
from migrate.model import Fact
from migrate.workloads.reached_files import unreferenced
from tests.test_optional_parts import optional_parts, report, scanned
from tests.test_reach import edited, statuses

COPY = "cmake_unreferenced_copy"
PROGRAM = "cmake_only_program_in_benchmarks"
KERNEL = "benchmarks/ReduceArray1/no_divergence_branch.cu"


def test_a_copy_no_built_file_includes_is_not_reached(rulebase) -> None:
    """MatrixMultiplicationCUDA: the CuTe/CUTLASS copy and hipeac's draft profiler.cu do not decide the class."""
    data = report(COPY, rulebase)
    assert data["summary"]["class"] == "migration-required"
    parts = optional_parts(data)
    assert parts["cutlass (not reached by the default build)"]["class"] == "incompatible"
    assert parts["cute (not reached by the default build)"]["evidence"][0].startswith(
        "cute/: no C/C++/CUDA file in it is named by a build file")
    assert "gpu/profiler.cu (not reached by the default build)" in parts
    for path in ("cutlass/gemm/gemm_sm90.hpp", "cute/container/array.hpp", "gpu/profiler.cu"):
        assert statuses(data, path) == {"optional"}, path
    for path in ("src/kernels.cu", "gpu/utils.cu", "main.cu"):  # named by the target, or included by a built file
        assert statuses(data, path) == {""}, path


def test_a_copy_a_built_file_includes_decides(tmp_path: Path, rulebase) -> None:
    tree = edited(COPY, tmp_path, {"main.cu": ('// #include "cutlass/gemm/gemm_sm90.hpp"',
                                               '#include "cutlass/gemm/gemm_sm90.hpp"')})
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    for path in ("cutlass/gemm/gemm_sm90.hpp", "cute/container/array.hpp", "cute/config.hpp"):
        assert statuses(data, path) == {""}, path
    assert statuses(data, "gpu/profiler.cu") == {"optional"}


def test_a_script_that_runs_nvcc_itself_says_nothing(tmp_path: Path, rulebase) -> None:
    tree = edited(COPY, tmp_path, {})
    (tree / "profile.sh").write_text("#!/bin/bash\nnvcc -O2 -o profiler gpu/profiler.cu -lcupti\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert statuses(data, "gpu/profiler.cu") == {""}


def test_a_source_below_a_folder_variable_is_named_by_its_file_name(tmp_path: Path, rulebase) -> None:
    tail = "target_link_libraries(matrix_multiplication"
    tree = edited(COPY, tmp_path, {"CMakeLists.txt": (tail, "add_executable(prof ${GPU_DIR}/profiler.cu)\n" + tail)})
    data = scanned(tree, rulebase)
    assert statuses(data, "gpu/profiler.cu") == {""}
    assert statuses(data, "cute/config.hpp") == {"optional"}
    facts = buildfiles.cmake(b"add_executable(prof ${GPU_DIR}/profiler.cu ${DIR}/${name}_kernel.cu)\n").facts
    assert [(f.kind, f.name, f.text) for f in facts if f.kind == "source_unplaced"] == [
        ("source_unplaced", "profiler.cu", "${GPU_DIR}/profiler.cu"),
        ("source_unplaced", "*_kernel.cu", "${DIR}/${name}_kernel.cu")]
    globs = buildfiles.cmake(b"file(GLOB_RECURSE SRCS src/ios/* ${DIR}/*.cu src/*.cu)\n").facts  # inter-operator-scheduler
    assert [(f.kind, f.name) for f in globs if f.kind in ("source_unplaced", "build_source")] == [
        ("source_unplaced", "*"), ("source_unplaced", "*.cu"), ("build_source", "src/*.cu")]


def _include(name: str, text: str, line: int = 1) -> Fact:
    return Fact(kind="include", name=name, line=line, column=1, end_line=line, end_column=1, text=text)


def test_a_toolkit_header_by_its_bare_name_is_not_a_copys_file() -> None:
    """`#include <mma.h>` in a built header is CUDA's WMMA header, not the copy's cutlass/gemm/thread/mma.h."""
    facts = {"CMakeLists.txt": buildfiles.cmake(b"project(x LANGUAGES CXX CUDA)\nadd_executable(x k.cu)\n").facts,
             "k.cu": (_include("mma.h", "<mma.h>"),),
             "cutlass/gemm/thread/mma.h": (_include("cutlass/array.h", '"cutlass/array.h"'),),
             "cutlass/array.h": ()}
    kinds = {"CMakeLists.txt": "cmake", "k.cu": "cuda", "cutlass/gemm/thread/mma.h": "cpp", "cutlass/array.h": "cpp"}
    assert unreferenced(facts, kinds, {}) == {}  # without the rule base's word, the copy's mma.h may be the one
    found = unreferenced(facts, kinds, {}, frozenset({("k.cu", 1, "mma.h")}))
    assert {p: part for p, (part, _) in found.items()} == {"cutlass/gemm/thread/mma.h": "cutlass/",
                                                             "cutlass/array.h": "cutlass/"}
    facts["k.cu"] = (_include("mma.h", '"mma.h"'),)  # written in quotes: a file of the project may answer
    assert unreferenced(facts, kinds, {}, frozenset({("k.cu", 1, "mma.h")})) == {}


def test_the_only_program_in_a_benchmarks_folder_is_required(rulebase) -> None:
    """cuda_reduce_benchmark: the top CMakeLists.txt adds benchmarks/, which holds every file and the only target."""
    data = report(PROGRAM, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}
    assert statuses(data, "benchmarks/bm_base/benchmark_entry.cc") == {""}


def test_benchmarks_beside_a_library_stay_optional(tmp_path: Path, rulebase) -> None:
    tree = edited(PROGRAM, tmp_path, {"CMakeLists.txt": ("add_subdirectory(benchmarks)",
                                                         "add_library(reduce src/reduce.cu)\nadd_subdirectory(benchmarks)")})
    (tree / "src").mkdir()
    (tree / "src/reduce.cu").write_text("__global__ void r(float *x) { x[threadIdx.x] = 0; }\n")
    data = scanned(tree, rulebase)
    assert statuses(data, KERNEL) == {"optional"}
    assert statuses(data, "src/reduce.cu") == {""}


def test_benchmarks_the_top_build_does_not_add_stay_optional(tmp_path: Path, rulebase) -> None:
    tree = edited(PROGRAM, tmp_path, {"CMakeLists.txt": ("add_subdirectory(benchmarks)", "# add_subdirectory(benchmarks)")})
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] != "migration-required"
    assert statuses(data, KERNEL) == {"optional"}


PASS = "compile_pass_without_cuda"
SETUP = "src/glm/detail/setup.hpp"


def test_a_cuda_compiler_branch_no_compile_takes_is_optional(rulebase) -> None:
    """xsngine: GLM's `#elif defined(__CUDACC__)` in an OpenGL engine with no CUDA source and no CUDA build."""
    data = report(PASS, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch __CUDACC__"]
    assert part["evidence"][0].startswith("only a CUDA compile defines __CUDACC__")
    assert statuses(data, SETUP) == {"optional"}


def test_a_cuda_compiler_branch_beside_a_cuda_source_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(PASS, tmp_path, {})
    (tree / "src/Renderer/blur.cu").write_text('#include "../glm/detail/setup.hpp"\n__global__ void blur(float *x) {}\n')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, SETUP) == {""}


SUBPROJECT = "cmake_subproject_unreferenced"
UNBUILT = ("scheduler/engine/warmUp.cu", "scheduler/engine/cutil.h")


def test_a_file_a_cmake_project_in_a_folder_does_not_reach_is_not_reached(rulebase) -> None:
    """hadoopgis: no top build; the scheduler's CMake project lists ThreadPool.cpp, not warmUp.cu (nor cutil.h, which
    only warmUp.cu includes): the CUDA SDK helper does not make the pthreads engine migration-required."""
    data = report(SUBPROJECT, rulebase)
    assert _classes(data) == {"ExecEngine": "native", "Runtime": "native", "spatial": "migration-required"}
    for path in UNBUILT:
        assert statuses(data, path) == {"optional"}, path
    part = optional_parts(data)["scheduler/engine/warmUp.cu (not reached by the default build)"]
    assert part["evidence"][0].endswith("scheduler/CMakeLists.txt is the only build of scheduler/ (no build file in a "
                                        "folder above it), and it and the folders it reaches name every source it "
                                        "compiles")


@pytest.mark.parametrize("edits", [
    # the engine's target lists it
    {"scheduler/engine/CMakeLists.txt": ("set(libsrcs ThreadPool.cpp)", "set(libsrcs ThreadPool.cpp warmUp.cu)")},
    # a file of another build includes the header (the other build may reach it: cutil.h stays required)
    {"spatial/spatial.cu": ("#include <cstdio>", '#include <cstdio>\n#include "cutil.h"')},
])
def test_a_file_the_project_or_another_build_reaches_stays_required(edits: dict[str, tuple[str, str]], tmp_path: Path,
                                                                    rulebase) -> None:
    data = scanned(edited(SUBPROJECT, tmp_path, edits), rulebase)
    assert statuses(data, "scheduler/engine/cutil.h") == {""}


def test_a_build_file_above_the_cmake_project_says_nothing(tmp_path: Path, rulebase) -> None:
    """A Makefile above the CMake project's folder may configure or compile it its own way."""
    tree = edited(SUBPROJECT, tmp_path, {})
    (tree / "Makefile").write_text("all:\n\tcd scheduler && cmake . && $(MAKE)\n")
    data = scanned(tree, rulebase)
    assert _classes(data)["ExecEngine"] == "migration-required"
    for path in UNBUILT:
        assert statuses(data, path) == {""}, path


def _classes(data: dict) -> dict[str, str]:
    return {w["name"]: w["class"] for w in data["workloads"]}


FRAGMENT = "make_unincluded_fragment"


def test_a_make_fragment_no_makefile_includes_is_not_reached(rulebase) -> None:
    """pso_gpu: the CUDA SDK's common.mk beside the Nsight makefile, which includes sources.mk, subdir.mk, objects.mk
    (and `-include $(CU_DEPS)`, the generated prerequisites): its nvcc flags are no build finding of the project."""
    data = report(FRAGMENT, rulebase)
    assert statuses(data, "pso/common/common.mk") == {"optional"}
    assert "pso/common/common.mk (not reached by the default build)" in optional_parts(data)
    assert statuses(data, "pso/Pso.cu") == {""} and statuses(data, "pso/Debug/subdir.mk") == {""}


@pytest.mark.parametrize("edits", [
    {"pso/Debug/makefile": ("-include objects.mk", "-include objects.mk\ninclude ../common/common.mk")},
    # a plain include through a variable the makefile does not assign may name any fragment
    {"pso/Debug/makefile": ("-include objects.mk", "-include objects.mk\ninclude $(SDK_CONFIG)")},
    # an include through $(eval) names files through its loop's variable: any fragment may be one
    {"pso/Debug/makefile": ("-include objects.mk", "-include objects.mk\n$(foreach p,$(PARTS),$(eval include $(p).mk))")},
    # a file that waits for no includer (it assigns what it reads) may be run on its own: `make -f common.mk`
    {"pso/common/common.mk": ("$(OBJDIR)/%.cu.o : $(SRCDIR)%.cu $(CU_DEPS)", "obj/%.cu.o : %.cu")},
])
def test_an_included_or_possibly_included_fragment_stays_required(edits: dict[str, tuple[str, str]], tmp_path: Path,
                                                                   rulebase) -> None:
    data = scanned(edited(FRAGMENT, tmp_path, edits), rulebase)
    assert statuses(data, "pso/common/common.mk") == {""}


BESIDE = "make_folder_beside_cmake"


def test_the_sources_a_makefile_beside_the_cmake_project_names_are_reached(rulebase) -> None:
    """cuCTRU_Light: the top CMake project builds the C code; gpu/Makefile compiles every `*.cu` of its folder by
    `$(wildcard $(SRCDIR)/*.cu)`: the CUDA port is built by that Makefile, required."""
    data = report(BESIDE, rulebase)
    assert _classes(data)["gpu"] == "migration-required"
    for path in ("gpu/fips202.cu", "gpu/fips202.cuh", "gpu/ctru.cu"):
        assert statuses(data, path) == {""}, path


def test_a_source_the_makefile_beside_it_leaves_out_stays_unreached(tmp_path: Path, rulebase) -> None:
    """The same Makefile naming ctru.cu alone: fips202.cu is named by no build (not reached), its header is included
    by ctru.cu (reached)."""
    tree = edited(BESIDE, tmp_path, {"gpu/Makefile": ("$(wildcard $(SRCDIR)/*.cu)", "$(SRCDIR)/ctru.cu")})
    data = scanned(tree, rulebase)
    assert statuses(data, "gpu/fips202.cu") == {"optional"}
    assert "gpu/fips202.cu (not reached by the default build)" in optional_parts(data)
    for path in ("gpu/fips202.cuh", "gpu/ctru.cu"):
        assert statuses(data, path) == {""}, path


PLACEHOLDER = "cmake_placeholder_builds_nothing"
SWEEP = "src/sweepline.cu"


def test_a_cmake_placeholder_that_builds_nothing_leaves_the_sources_required(rulebase) -> None:
    """parallel-sweepline: src/CMakeLists.txt is three blank lines; the project's GPU sweepline keeps its reading."""
    data = report(PLACEHOLDER, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, SWEEP) == {""}
    assert not optional_parts(data)


def test_a_cmake_project_that_only_configures_builds_nothing(tmp_path: Path, rulebase) -> None:
    """Configuring commands alone (project, find_package, set, if) define no target: the same reading."""
    tree = edited(PLACEHOLDER, tmp_path, {"src/CMakeLists.txt": (
        "\n\n\n", "cmake_minimum_required(VERSION 3.18)\nproject(pdrc LANGUAGES CXX CUDA)\nfind_package(CUDAToolkit)\n"
        "if(MSVC)\n  add_compile_options(/W4)\nendif()\nset(CMAKE_CUDA_ARCHITECTURES 80)\n")})
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, SWEEP) == {""}


@pytest.mark.parametrize("cmake", [
    "add_executable(drc sweepline.cpp)\n",  # a target of the host sources only: sweepline.cu is left out of a build
    "pdrc_add_module(sweepline)\n",  # a project function, which may define a target: today's reading
])
def test_a_cmake_project_with_a_target_or_another_command_stays_the_build(cmake: str, tmp_path: Path,
                                                                          rulebase) -> None:
    tree = edited(PLACEHOLDER, tmp_path, {"src/CMakeLists.txt": ("\n\n\n", cmake)})
    data = scanned(tree, rulebase)
    assert statuses(data, SWEEP) == {"optional"}  # not reached by the build, or built by nothing
    assert any(part.startswith(f"{SWEEP} (") for part in optional_parts(data))
