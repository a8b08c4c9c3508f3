"""What the default build reaches (issue 28): a part is optional when the project's default build does not reach it.
make's default goal and what its prerequisites reach; a CMake generator expression for CUDA sources over several
lines; a finding that holds only on some GPU targets in host code of a project whose every CUDA compile is optional;
a branch on a variable a dependency's package sets (never the project); a testsuite/ folder. Each fixture is cut from
a real case (its README says where); each near miss puts the part back in the default build, and it is then required."""
from __future__ import annotations

import shutil
from pathlib import Path

from migrate.extract.text import buildfiles, cmakelists
from migrate.model import Fact
from migrate.workloads.build_sources import named_files
from tests.test_optional_parts import CASES, optional_parts, report, scanned


def statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def evidence(data: dict) -> list[str]:
    return [e for w in data["workloads"] for p in w["optional_parts"] for e in p["evidence"]]


def edited(case: str, tmp_path: Path, path: str, old: str, new: str) -> Path:
    tree = tmp_path / case
    if not tree.exists():
        shutil.copytree(CASES / case, tree)
    text = (tree / path).read_text()
    assert old in text
    (tree / path).write_text(text.replace(old, new))
    return tree


MAKEFILE = "src/solver/Makefile"


def test_a_goal_outside_makes_default_goal_is_optional(rulebase) -> None:
    """Cuckoo Cycle: `all : simpletest meantest` builds the CPU solvers; only `make cuda29` builds mean.cu."""
    data = report("make_goal_outside_default", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)[f"make goal cuda29 of {MAKEFILE}"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0] == (f"{MAKEFILE}: make's default goal `all` (line 9) does not reach `cuda29`; "
                                   "only `make cuda29` builds it")
    for path in ("src/solver/mean.cu", "src/solver/kernel.cuh"):
        assert statuses(data, path) == {"optional"}, path
    assert statuses(data, MAKEFILE) == {"optional"}  # `NVCC ?= nvcc` (used only by cuda29's recipe) and -arch


def test_a_goal_the_default_goal_reaches_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited("make_goal_outside_default", tmp_path, MAKEFILE, "all : simpletest meantest # cudatest",
                  "all : simpletest meantest cuda29")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/solver/mean.cu") == {""}


def test_a_goal_another_makefile_asks_for_is_required(tmp_path: Path, rulebase) -> None:
    data = scanned(CASES / "make_goal_asked", rulebase)
    assert data["summary"]["class"] == "migration-required"


def test_a_default_goal_that_builds_nothing_says_nothing() -> None:
    """NVlabs/CGBN samples: the first rule `pick:` only prints which `make <arch>` to run; every goal builds CUDA."""
    text = b"pick:\n\t@echo Please run one of the following:\n\t@echo \"   make ampere\"\n\nampere:\n\tnvcc -o add add.cu\n"
    facts = buildfiles.makefile(text).facts
    assert not [f for f in facts if f.kind in ("make_goal_only", "make_call")]


def test_the_default_goal_is_read_as_make_reads_it() -> None:
    text = (b"include config.mk\nall: a\na: a.cpp\n\tg++ a.cpp\ngpu: g.cu\n\tnvcc g.cu\n", b"all: $(OBJS)\n\tg++ x.cpp\n"
            b"gpu: g.cu\n\tnvcc g.cu\n", b".PHONY: all\n.DEFAULT_GOAL := gpu\nall: a.cpp\n\tg++ a.cpp\ngpu: g.cu\n\tnvcc g.cu\n",
            b"%.o: %.cu\n\tnvcc -c $<\nall: a.cpp\n\tg++ a.cpp\ngpu: g.o\n\tnvcc g.o\n")
    found = [[(f.name, f.line, f.end_line) for f in buildfiles.makefile(t).facts if f.kind == "make_goal_only"]
             for t in text]
    # an include before the first rule may hold the default goal; a variable the file does not set may name any
    # target; .DEFAULT_GOAL picks the goal; a pattern rule is no default goal
    assert found == [[], [], [("all", 3, 4)], [("gpu", 5, 6)]]


def test_a_generator_expression_is_read_over_its_lines() -> None:
    """mlx/CMakeLists.txt:68-69: `$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/wd4244` / `-Xcompiler=/wd4267>)`."""
    text = (b"target_compile_options(\n  mlx PUBLIC $<$<COMPILE_LANGUAGE:CXX>:/wd4244 /wd4267>\n"
            b"  PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/wd4244\n  -Xcompiler=$<IF:$<BOOL:X>,/a,/b>>)\n")
    found = [(f.name, f.line, f.end_line) for f in cmakelists.extract(text).facts if f.kind == "cmake_genex"]
    assert found == [("COMPILE_LANGUAGE:CXX", 2, 2), ("COMPILE_LANGUAGE:CUDA", 3, 4)]


def test_a_cuda_back_end_off_by_default_takes_its_flags_and_target_only_findings(rulebase) -> None:
    """MLX: `-Xcompiler` in a two-line `$<$<COMPILE_LANGUAGE:CUDA>:...>`, and `448.0f` in portable FP8 code."""
    data = report("cmake_cuda_backend_off", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch MLX_BUILD_CUDA"]
    assert part["class"] == "migration-required"
    for path in ("mlx/CMakeLists.txt", "mlx/ops.cpp", "mlx/backend/cpu/quantized.cpp", "mlx/backend/cuda/copy.cu"):
        assert statuses(data, path) == {"optional"}, path


def test_a_cuda_back_end_on_by_default_keeps_them(tmp_path: Path, rulebase) -> None:
    tree = edited("cmake_cuda_backend_off", tmp_path, "CMakeLists.txt", '"Build cuda backend" OFF)',
                  '"Build cuda backend" ON)')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "mlx/ops.cpp") == {""}
    assert statuses(data, "mlx/CMakeLists.txt") == {""}


def test_results_of_a_find_only_an_opt_in_runs_go_with_it(rulebase) -> None:
    """OSL: CUDA is found (through the project's checked_find_package) only under `if (OSL_USE_OPTIX)`, OFF; its
    CUDA_VERSION and CUDA_TOOLKIT_ROOT_DIR are read in test and library CMake files; an OptiX direct-callable sits under
    `#ifdef __CUDA_ARCH__`; testsuite/ holds a CUDA example."""
    data = report("cmake_found_only_under", rulebase)
    assert data["summary"]["class"] == "native"
    for path in ("src/cmake/testing.cmake", "src/liboslexec/CMakeLists.txt", "src/liboslexec/llvm_ops.cpp",
                 "testsuite/example-cuda/example-cuda.cpp"):
        assert statuses(data, path) == {"optional"}, path
    assert any("CUDA_VERSION: a result of find_package(CUDA), which runs only under" in e for e in evidence(data))


def test_results_of_a_find_the_default_build_runs_are_required(tmp_path: Path, rulebase) -> None:
    tree = edited("cmake_found_only_under", tmp_path, "src/cmake/externalpackages.cmake",
                  "if (OSL_USE_OPTIX)\n", "if (OSL_USE_OPTIX)\nendif ()\nif (TRUE)\n")
    data = scanned(tree, rulebase)
    assert "" in statuses(data, "src/liboslexec/CMakeLists.txt")


def test_a_variable_only_a_dependency_sets_is_off_by_default(rulebase) -> None:
    """KWIVER: `if(fletch_BUILT_WITH_CUDA)`, set by the fletch package only; a helper's `set(${out} ...)` beside it."""
    data = report("cmake_dependency_built_with", rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, "CMake/kwiver-setup-scripts.cmake") == {"optional"}
    assert optional_parts(data)["build switch fletch_BUILT_WITH_CUDA"]["evidence"][0] == (
        "CMake/kwiver-setup-scripts.cmake:2 if(fletch_BUILT_WITH_CUDA) (no build file sets fletch_BUILT_WITH_CUDA) "
        "default OFF")


def test_a_variable_the_project_sets_is_no_opt_in(tmp_path: Path, rulebase) -> None:
    tree = edited("cmake_dependency_built_with", tmp_path, "CMakeLists.txt", "find_package(fletch)\n",
                  "find_package(fletch)\nset(fletch_BUILT_WITH_CUDA ${fletch_FOUND})\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "CMake/kwiver-setup-scripts.cmake") == {""}


def test_target_rules_are_the_c_rules_with_a_target() -> None:
    from migrate.rulebase.load import load_rules
    from migrate.workloads.optional_words import words

    assert words().target_rules == {r.id for r in load_rules().rules if r.target and r.id.startswith("HIP4")}


def test_results_of_a_find_every_build_runs_are_required(tmp_path: Path, rulebase) -> None:
    """f4exb/sdrangel: `find_package(CUDA)` without REQUIRED runs in every build; CUDA_TOOLKIT_ROOT_DIR read outside
    `if(CUDA_FOUND)` (sdrbase/CMakeLists.txt:63) is not gated by the find's own line."""
    tree = tmp_path / "cmake_found_only_under"
    shutil.copytree(CASES / "cmake_found_only_under", tree)
    (tree / "src/cmake/externalpackages.cmake").write_text(
        "find_package (CUDA)\nif (CUDA_FOUND)\n    include_directories (BEFORE \"${CUDA_INCLUDE_DIRS}\")\nendif ()\n")
    data = scanned(tree, rulebase)
    assert "" in statuses(data, "src/liboslexec/CMakeLists.txt")


NESTED = "cmake_nested_detection"
OSD = "opensubdiv/osd/CMakeLists.txt"


def test_a_source_listed_in_a_branch_inside_a_detection_goes_with_the_detection(rulebase) -> None:
    """OpenSubdiv: the Direct3D 11 interop buffer is listed under `if( DXSDK_FOUND )` inside `if( CUDA_FOUND )`, and the
    kernel file `osd/cudaKernel.cu` is handed up with PARENT_SCOPE to the folder above, whose target resolves it."""
    data = report(NESTED, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch CUDA_FOUND"]
    assert part["class"] == "incompatible"
    for path in ("opensubdiv/osd/cudaD3D11VertexBuffer.cpp", "opensubdiv/osd/cudaKernel.cu",
                 "opensubdiv/osd/cudaVertexBuffer.cpp"):
        assert statuses(data, path) == {"optional"}, path


def test_a_source_listed_in_the_inner_branch_alone_is_required(tmp_path: Path, rulebase) -> None:
    """Near miss: the DirectX branch outside the CUDA one (DXSDK_FOUND is no NVIDIA detection)."""
    tree = edited(NESTED, tmp_path, OSD, "    if( DXSDK_FOUND )\n        list(APPEND GPU_SOURCE_FILES\n"
                  "            cudaD3D11VertexBuffer.cpp\n        )\n    endif()\nendif()\n",
                  "endif()\nif( DXSDK_FOUND )\n    list(APPEND GPU_SOURCE_FILES\n        cudaD3D11VertexBuffer.cpp\n"
                  "    )\nendif()\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert statuses(data, "opensubdiv/osd/cudaD3D11VertexBuffer.cpp") == {""}


def test_a_name_handed_up_resolves_in_the_folder_above_only_when_its_own_folder_lacks_it() -> None:
    """`osd/cudaKernel.cu` in opensubdiv/osd/CMakeLists.txt is opensubdiv/osd/cudaKernel.cu (the folder above resolves
    the list handed up to it); near misses: a file of that name in the listing folder is that file, a plain name is not
    looked for above, nor is a name a non-CMakeLists file lists."""
    fact = Fact(kind="build_source", name="osd/cudaKernel.cu", line=1, column=1, end_line=1, end_column=1)
    plain = Fact(kind="build_source", name="cudaKernel.cu", line=1, column=1, end_line=1, end_column=1)
    files = frozenset({"opensubdiv/osd/cudaKernel.cu"})
    assert named_files("opensubdiv/osd/CMakeLists.txt", fact, files) == ["opensubdiv/osd/cudaKernel.cu"]
    assert named_files("opensubdiv/osd/CMakeLists.txt", fact, files | {"opensubdiv/osd/osd/cudaKernel.cu"}) == [
        "opensubdiv/osd/osd/cudaKernel.cu"]
    assert named_files("opensubdiv/osd/sub/CMakeLists.txt", plain, files) == ["opensubdiv/osd/sub/cudaKernel.cu"]
    assert named_files("opensubdiv/osd/Makefile", fact, files) == ["opensubdiv/osd/osd/cudaKernel.cu"]


def test_a_detection_around_an_option_on_by_default_keeps_it_optional(tmp_path: Path, rulebase) -> None:
    """PCL's guard `if(NOT (BUILD_GPU AND CUDA_FOUND)) return()` with BUILD_GPU turned ON: the GPU subsystem is still
    built only where a CUDA toolkit is found."""
    tree = edited("cmake_guard_return", tmp_path, "gpu/CMakeLists.txt", 'subsystems" OFF)', 'subsystems" ON)')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "native"
    assert "build switch CUDA_FOUND" in optional_parts(data)


def test_a_variable_set_to_an_option_in_its_branch_follows_the_option() -> None:
    """IrrlichtBAW source/Irrlicht/CMakeLists.txt:54: `set(_IRR_COMPILE_WITH_CUDA_ ${IRR_COMPILE_WITH_CUDA})`, a name
    closed by an underscore, then `#cmakedefine _IRR_COMPILE_WITH_CUDA_`."""
    facts = cmakelists.extract(b"if (IRR_COMPILE_WITH_CUDA)\n\tset(_IRR_COMPILE_WITH_CUDA_ ${IRR_COMPILE_WITH_CUDA})\n"
                               b"endif()\nset(X_PATH ${CMAKE_SOURCE_DIR}/x)\n").facts
    assert [(f.name, f.text) for f in facts if f.kind == "switch_value"] == [
        ("_IRR_COMPILE_WITH_CUDA_", "${IRR_COMPILE_WITH_CUDA}")]


CONFIG = "cmake_config_value_follows_option"


def test_a_config_macro_set_to_an_options_value_follows_the_option(rulebase) -> None:
    """IrrlichtBAW: `set(_IRR_COMPILE_WITH_CUDA_ ${IRR_COMPILE_WITH_CUDA})` under `if (IRR_COMPILE_WITH_CUDA)` (OFF),
    configured into a header by `#cmakedefine`; the CUDA handler sits under `#ifdef _IRR_COMPILE_WITH_CUDA_`."""
    data = report(CONFIG, rulebase)
    assert data["summary"]["class"] == "native"
    assert "build switch IRR_COMPILE_WITH_CUDA" in optional_parts(data)
    for path in ("src/irr/video/CCUDAHandler.h", "src/irr/video/CCUDAHandler.cpp"):
        assert statuses(data, path) == {"optional"}, path


def test_a_config_macro_set_outside_the_options_branch_is_required(tmp_path: Path, rulebase) -> None:
    """Near miss: the macro set to another variable's value outside the branch: it may be on in any build."""
    tree = edited(CONFIG, tmp_path, "source/Irrlicht/CMakeLists.txt", "endif()\n",
                  "endif()\nset(_IRR_COMPILE_WITH_CUDA_ ${IRR_CUDA_DEFAULT})\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/irr/video/CCUDAHandler.h") == {""}


def test_a_file_that_does_not_parse_has_its_switch_branches_read_line_by_line() -> None:
    """IrrlichtBAW CCUDAHandler.cpp: an `#if` inside a call's arguments misnests the parse; the file-wide
    `#ifdef _IRR_COMPILE_WITH_CUDA_` is read from the directives' lines. A file that parses gets the tree's branches only."""
    from migrate.extract.c import cuda_cpp, guards

    path = CASES / CONFIG / "src/irr/video/CCUDAHandler.cpp"
    branches = {(f.name, f.line) for f in cuda_cpp.extract(path.read_bytes()).facts if f.kind == "switch_branch"}
    assert ("_IRR_COMPILE_WITH_CUDA_", 4) in branches
    text = b"#ifdef USE_X\nint a;\n#else\nint b;\n#endif\n#if !defined(USE_Y) // c\nint c;\n#elif USE_Z\nint d;\n#endif\n"
    assert guards.text_chains(text) == [[("USE_X", True, 0, 20), ("", True, 20, 33)],
                                        [("!defined(USE_Y)", False, 40, 72), ("USE_Z", True, 72, 91)]]
    clean = b"#ifdef USE_X\nint a;\n#endif\n"
    assert [(f.name, f.line) for f in cuda_cpp.extract(clean).facts if f.kind == "switch_branch"] == [("USE_X", 1)]


NVCC_CASE = "make_nvcc_only_under_switch"
NVCC_FILES = ("src/gpu/update_cuda.cu", "src/gpu/smooth_cuda.cu", "src/gpu/mesh_constants_cuda.h",
              "src/gpu/smooth_cuda.h")


def test_cuda_sources_of_a_build_that_names_nvcc_only_under_a_switch_are_optional(rulebase) -> None:
    """specfem2d: `@COND_CUDA_TRUE@NVCC = nvcc` is the build's only nvcc, so the pattern rule that compiles the .cu
    files (outside any branch) runs nvcc only with --with-cuda; the -gencode variable goes with it."""
    data = report(NVCC_CASE, rulebase)
    assert data["summary"]["class"] == "native"
    for path in (*NVCC_FILES, "Makefile.in"):
        assert statuses(data, path) == {"optional"}, path
    assert any(e.startswith("Makefile.in:17 -gencode: a flag only nvcc takes, and the build names nvcc only under "
                            "COND_CUDA") for e in evidence(data))


def test_cuda_sources_of_a_build_that_names_nvcc_by_default_are_required(tmp_path: Path, rulebase) -> None:
    tree = edited(NVCC_CASE, tmp_path, "Makefile.in", "@COND_CUDA_TRUE@NVCC = nvcc\n@COND_CUDA_FALSE@NVCC = @CC@",
                  "NVCC = nvcc")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    for path in NVCC_FILES:
        assert statuses(data, path) == {""}, path
    assert statuses(data, "Makefile.in") == {""}


def test_a_second_nvcc_outside_the_switch_keeps_them_required(tmp_path: Path, rulebase) -> None:
    """A helper script that runs nvcc itself is a CUDA compile the switch does not govern."""
    tree = tmp_path / NVCC_CASE
    shutil.copytree(CASES / NVCC_CASE, tree)
    (tree / "build_gpu.sh").write_text("#!/bin/sh\nnvcc -c src/gpu/update_cuda.cu -o update_cuda.o\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/gpu/update_cuda.cu") == {""}


def test_cuda_sources_a_visual_studio_project_lists_are_required(tmp_path: Path, rulebase) -> None:
    """A .vcxproj beside the switched Makefile compiles the .cu files with nvcc in every configuration (review of
    session 23: the compiler reading counted only make and CMake namings)."""
    tree = edited(NVCC_CASE, tmp_path, "Makefile.in", "@COND_CUDA_TRUE@NVCC = nvcc", "@COND_CUDA_TRUE@NVCC = nvcc")
    (tree / "specfem2d.vcxproj").write_text('<Project>\n  <ItemGroup>\n    <CudaCompile Include="src\\gpu\\update_cuda.cu" />'
                                             '\n  </ItemGroup>\n</Project>\n')
    data = scanned(tree, rulebase)
    assert statuses(data, "src/gpu/update_cuda.cu") == {""}


PATTERN_CHAIN = "make_pattern_chain"


def test_programs_a_pattern_rule_links_are_built_by_the_default_goal(rulebase) -> None:
    """cardiac-simulation: `build: $(TARGETS)` names programs with no rule of their own; `%: %.o $(DEPS)` links each
    from its object and `%.o: src/%.cu` compiles that: every GPU variant is built by plain `make`."""
    data = report(PATTERN_CHAIN, rulebase)
    assert data["summary"]["class"] == "migration-required"
    for path in ("src/gpu_version1.cu", "src/gpu_version2.cu", "src/kernels.cu"):
        assert statuses(data, path) == {""}, path
    assert not optional_parts(data)


def test_a_program_the_default_goal_does_not_name_is_not_built(tmp_path: Path, rulebase) -> None:
    """Near miss: gpu_version2 left out of TARGETS (and of every other word of the Makefile): no rule makes it."""
    tree = edited(PATTERN_CHAIN, tmp_path, "Makefile", "cpu_version gpu_version1 gpu_version2", "cpu_version gpu_version1")
    edited(PATTERN_CHAIN, tmp_path, "Makefile", " gpu_version2.o", "")
    data = scanned(tree, rulebase)
    assert statuses(data, "src/gpu_version1.cu") == {""}
    assert statuses(data, "src/gpu_version2.cu") == {"optional"}


def test_the_pattern_chain_names_each_programs_source() -> None:
    facts = buildfiles.makefile((CASES / PATTERN_CHAIN / "Makefile").read_bytes()).facts
    named = {f.name for f in facts if f.kind == "make_source"}
    assert {"src/gpu_version1.cu", "src/gpu_version2.cu", "src/cpu_version.cu", "src/kernels.cu"} <= named
    assert "src/clean.cu" not in named  # `clean` has a recipe of its own: no pattern rule makes it


INCLUDED_SOURCE = "make_goal_included_source"


def test_a_source_a_built_file_includes_is_built_with_it(rulebase) -> None:
    """CUDAkalmanFilter: only `make matrix_kernel.o` / `make invert.o` name those sources, but kalman.cu, which the
    default goal compiles, #includes both: they are compiled into kalman.o."""
    data = report(INCLUDED_SOURCE, rulebase)
    for path in ("kalman.cu", "matrix_kernel.cu", "invert.cpp"):
        assert statuses(data, path) == {""}, path


def test_a_source_no_built_file_includes_stays_with_its_goal(tmp_path: Path, rulebase) -> None:
    """Near miss: the include of matrix_kernel.cu sits in a branch (`#ifdef USE_OWN_KERNELS`) and invert.cpp is no
    longer included: each is built only by its own goal, which the default goal does not reach."""
    tree = edited(INCLUDED_SOURCE, tmp_path, "kalman.cu", '#include "matrix_kernel.cu"\n#include "invert.cpp"\n',
                  '#ifdef USE_OWN_KERNELS\n#include "matrix_kernel.cu"\n#endif\n')
    data = scanned(tree, rulebase)
    assert statuses(data, "kalman.cu") == {""}
    assert statuses(data, "invert.cpp") == {"optional"}
    assert "optional" in statuses(data, "matrix_kernel.cu")
