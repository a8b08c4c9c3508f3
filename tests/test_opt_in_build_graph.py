"""Parts the build reaches only through a user's opt-in, read from the build graph rather than from names (issue 28):
a one-word option off by default, a branch on either of two opt-ins, macros two detections of the toolkit define, CMake's
CUDA settings where the CUDA language is enabled only on a detection, and .cu files that only FindCUDA's commands in an
opt-in branch compile. Each fixture is cut from a real case (its README says where); each near miss turns the opt-in on
or makes the build compile CUDA by default, and the same code is then required."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.extract.c import guards
from migrate.extract.text import cmakelists
from tests.test_optional_parts import CASES, optional_parts, report, scanned


def statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def edited(case: str, tmp_path: Path, path: str, old: str, new: str) -> Path:
    tree = tmp_path / case
    shutil.copytree(CASES / case, tree)
    text = (tree / path).read_text()
    assert old in text
    (tree / path).write_text(text.replace(old, new))
    return tree


def test_a_one_word_option_off_by_default_gates_its_sources(rulebase) -> None:
    """CLBlast: `option(CUDA "Build CLBlast with a CUDA API (beta)" OFF)`; `elseif(CUDA)` adds the driver-API source."""
    data = report("cmake_word_option", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch CUDA"]
    assert part["class"] == "migration-required"
    assert part["evidence"][:2] == ["CMakeLists.txt:6 option(CUDA) default OFF",
                                    "CUDA is off by default: the default build has none of its code"]
    assert statuses(data, "src/clblast_cuda.cpp") == {"optional"}
    assert statuses(data, "include/clblast_cuda.h") == {"optional"}


def test_a_one_word_option_on_by_default_is_required(tmp_path: Path, rulebase) -> None:
    """The CUDA API picked by default and the OpenCL one off (with OpenCL on too, the OpenCL back end is a portable
    default beside it: test_a_cuda_back_end_beside_a_portable_one_on_by_default_is_optional)."""
    tree = edited("cmake_word_option", tmp_path, "CMakeLists.txt", 'API (beta)" OFF)', 'API (beta)" ON)')
    cmake = tree / "CMakeLists.txt"
    cmake.write_text(cmake.read_text().replace('OpenCL API (default)" ON)', 'OpenCL API (default)" OFF)'))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/clblast_cuda.cpp") == {""}


def test_one_word_branches_are_kept_and_constants_are_not() -> None:
    facts = cmakelists.extract(b"if(CUDA)\n  set(X 1)\nendif()\nif(ON)\n  set(Y 1)\nendif()\n"
                               b"if(NOT CUDA)\n  set(Z 1)\nendif()\n").facts
    assert [(f.name, f.line) for f in facts if f.kind == "switch_branch"] == [("CUDA", 1)]


def test_either_of_two_opt_ins_off_by_default_is_optional(rulebase) -> None:
    """Tengine: `IF (TENGINE_ENABLE_CUDA OR TENGINE_ENABLE_TENSORRT)` finds the toolkit and cuDNN; both are OFF."""
    data = report("cmake_either_switch", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch TENGINE_ENABLE_CUDA"]
    assert "cmake/cuda.cmake:1 if(TENGINE_ENABLE_CUDA OR TENGINE_ENABLE_TENSORRT) (each of TENGINE_ENABLE_CUDA, " \
           "TENGINE_ENABLE_TENSORRT is optional)" in part["evidence"]
    assert statuses(data, "cmake/cuda.cmake") == {"optional"}
    assert statuses(data, "cmake/modules/FindCUDNN.cmake") == {"optional"}


def test_either_of_two_opt_ins_one_of_them_on_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited("cmake_either_switch", tmp_path, "CMakeLists.txt", '"With nVIDIA TensorRT support"              OFF)',
                  '"With nVIDIA TensorRT support"              ON)')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert statuses(data, "cmake/cuda.cmake") == {""}


def test_an_or_with_anything_but_plain_switches_is_no_switch() -> None:
    facts = cmakelists.extract(b"if(USE_A OR NOT USE_B)\nset(X 1)\nendif()\nif(USE_A OR USE_B)\nset(X 1)\nendif()\n"
                               b'if(USE_A OR X STREQUAL "Y")\nset(X 1)\nendif()\n').facts
    assert [f.name for f in facts if f.kind == "switch_branch"] == ["USE_A OR USE_B"]


def test_cuda_settings_go_with_a_language_enabled_only_on_a_detection(rulebase) -> None:
    """Falcor: CMAKE_CUDA_ARCHITECTURES set for everyone, the CUDA language enabled only under if(CMAKE_CUDA_COMPILER)."""
    data = report("cmake_language_on_detection", rulebase)
    assert data["summary"]["class"] == "native"
    arch = [f for f in data["findings"] if f["symbol"] == "CMAKE_CUDA_ARCHITECTURES"]
    assert arch and {f["status"] for f in arch} == {"optional"}
    assert statuses(data, "Source/Core/CudaUtils.cpp") == {"optional"}


def test_cuda_settings_of_a_build_that_always_enables_cuda_are_required(tmp_path: Path, rulebase) -> None:
    tree = edited("cmake_language_on_detection", tmp_path, "CMakeLists.txt", "LANGUAGES CXX C)", "LANGUAGES CXX C CUDA)")
    data = scanned(tree, rulebase)
    # the CUDA language enabled by project() makes if(CMAKE_CUDA_COMPILER) always taken (rules/workloads/optional.yaml
    # detection.compiler_results): the CUDA code it adds is required too, not only the settings (session 26: the
    # class had been minor-adaptation, the code optional on a detection no configure sees false)
    assert data["summary"]["class"] == "migration-required"
    assert {f["status"] for f in data["findings"] if f["symbol"] == "CMAKE_CUDA_ARCHITECTURES"} == {""}
    assert statuses(data, "Source/Core/CudaUtils.cpp") == {""}


@pytest.mark.parametrize(("old", "new", "status"), [
    # enable_language(CUDA) outside every branch of the top file: no configure sees CMAKE_CUDA_COMPILER false
    ("add_subdirectory(Source/Core)", "enable_language(CUDA)\nadd_subdirectory(Source/Core)", ""),
    # ... inside the detection's own branch: only where the compiler was found (the fixture as cut)
    ("    enable_language(CUDA)\n", "    enable_language(CUDA)\n", "optional"),
    # ... inside another switch's branch: not every configure runs it
    ("add_subdirectory(Source/Core)", "if(WIN32)\n  enable_language(CUDA)\nendif()\nadd_subdirectory(Source/Core)",
     "optional"),
    # a CUDA source property names the language without enabling it
    ("add_subdirectory(Source/Core)",
     "set_source_files_properties(k.cu PROPERTIES LANGUAGE CUDA)\nadd_subdirectory(Source/Core)", "optional"),
])
def test_a_language_enabled_for_every_configure_makes_the_detection_always_true(old: str, new: str, status: str,
                                                                                tmp_path: Path, rulebase) -> None:
    """rules/workloads/optional.yaml detection.compiler_results: CMake stops where no CUDA compiler works, so a top-level
    enable_language(CUDA) makes CMAKE_CUDA_COMPILER (and CUDA_FOUND, CUDAToolkit_FOUND) true in every configure."""
    tree = edited("cmake_language_on_detection", tmp_path, "CMakeLists.txt", old, new)
    assert statuses(scanned(tree, rulebase), "Source/Core/CudaUtils.cpp") == {status}


def test_a_nested_project_enabling_cuda_leaves_the_top_detection_optional(tmp_path: Path, rulebase) -> None:
    """A nested CMakeLists.txt with project(... CUDA) that no add_subdirectory() names is a project of its own (a plugin
    built on request): the top's configure never reads it. Only the top file is read (a subdirectory the top adds
    unconditionally and that enables CUDA is not: left)."""
    tree = edited("cmake_language_on_detection", tmp_path, "CMakeLists.txt", "add_subdirectory(Source/Core)",
                  "add_subdirectory(Source/Core)")
    plugin = tree / "plugins" / "cuda" / "CMakeLists.txt"
    plugin.parent.mkdir(parents=True)
    plugin.write_text("project(cuda_plugin LANGUAGES CXX CUDA)\nadd_library(cuda_plugin SHARED plugin.cu)\n")
    assert statuses(scanned(tree, rulebase), "Source/Core/CudaUtils.cpp") == {"optional"}


def test_cu_files_only_findcuda_compiles_in_an_opt_in_branch_are_optional(rulebase) -> None:
    """cuBERT: the .cu files sit in an unconditional source list; only `cuda_add_library` under cuBERT_ENABLE_GPU (OFF)
    compiles them, the CPU branch's add_library() does not (the CUDA language is never enabled)."""
    data = report("cmake_findcuda_branch", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch cuBERT_ENABLE_GPU"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0] == "CMakeLists.txt:4 option(cuBERT_ENABLE_GPU) default OFF"
    assert statuses(data, "src/op/GELU.cu") == {"optional"}


@pytest.mark.parametrize(("old", "new"), [
    # the GPU build on by default
    ('"Enable GPU support" OFF)', '"Enable GPU support" ON)'),
    # FindCUDA's command outside the branch: the default build compiles the kernels
    ("else ()\n    add_library(cuBERT SHARED ${SOURCE_FILES})", "else ()\n    cuda_add_library(cuBERT SHARED ${SOURCE_FILES})"),
])
def test_cu_files_a_default_build_compiles_are_required(tmp_path: Path, rulebase, old: str, new: str) -> None:
    tree = edited("cmake_findcuda_branch", tmp_path, "CMakeLists.txt", old, new)
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "" in statuses(data, "src/op/GELU.cu")


def test_a_macro_two_detections_define_gates_the_headers_it_selects(rulebase) -> None:
    """VexCL: VEXCL_BACKEND_CUDA defined under `if (CUDA_FOUND)` and `if (CUDAToolkit_FOUND)`; backend.hpp includes the
    CUDA headers (by their path from the top) only under `#if defined(VEXCL_BACKEND_CUDA)`, spmat.hpp the cuSPARSE one
    only in the `#else` of `#if !defined(VEXCL_BACKEND_CUDA) || !defined(VEXCL_USE_CUSPARSE)`."""
    data = report("cmake_detection_twins", rulebase)
    assert data["summary"]["class"] == "native"
    for path in ("vexcl/backend/cuda.hpp", "vexcl/backend/cuda/context.hpp", "vexcl/backend/cuda/cusparse.hpp"):
        assert statuses(data, path) == {"optional"}, path


def test_a_macro_defined_where_a_detection_is_required_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited("cmake_detection_twins", tmp_path, "CMakeLists.txt", "find_package(CUDAToolkit)\n",
                  "find_package(CUDAToolkit REQUIRED)\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "" in statuses(data, "vexcl/backend/cuda/context.hpp")


def test_the_else_of_negated_switches_is_taken_on_all_of_them() -> None:
    chain = [("!defined(VEXCL_BACKEND_CUDA) || !defined(VEXCL_USE_CUSPARSE)", False, 0, 10), ("", True, 10, 20)]
    assert guards.else_switches(chain) == ["VEXCL_BACKEND_CUDA", "VEXCL_USE_CUSPARSE"]
    assert guards.else_switches([("!defined(A_B) || defined(C_D)", False, 0, 10), ("", True, 10, 20)]) == []
    assert guards.else_switches([("USE_X", False, 0, 10), ("", True, 10, 20)]) == ["USE_X"]


def test_a_leading_underscore_switch_counts_only_where_the_build_sets_it() -> None:
    assert guards.switch_names("defined(_USE_CUDA)", True) == ["_USE_CUDA"]
    assert guards.switch_names("_WIN32", True) == []
    facts = cmakelists.extract(b"if(CUDA_FOUND)\n  set(_USE_CUDA TRUE)\nendif()\nif(_USE_CUDA)\n  set(X 1)\nendif()\n").facts
    assert ("switch_value", "_USE_CUDA") in {(f.kind, f.name) for f in facts}
    assert "_USE_CUDA" in {f.name for f in facts if f.kind == "switch_branch"}


def test_a_cuda_back_end_beside_a_portable_one_on_by_default_is_optional(rulebase) -> None:
    """ethminer: `option(ETHASHCL ... ON)` adds the OpenCL miner (CLMiner.h includes CL/cl2.hpp), `option(ETHASHCUDA ...
    ON)` the CUDA one and the `#if ETH_ETHASHCUDA` code of the program: the CUDA miner is one the user turns off."""
    data = report("cmake_portable_backend_beside", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch ETHASHCUDA"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0] == "CMakeLists.txt:5 option(ETHASHCUDA) default ON"
    assert part["evidence"][1].startswith("ETHASHCL builds a portable back end beside it, on by default: ")
    for path in ("libethash-cuda/CUDAMiner_cuda.cu", "libethash-cuda/CUDAMiner.cpp", "ethminer/main.cpp"):
        assert statuses(data, path) == {"optional"}, path


@pytest.mark.parametrize(("path", "old", "new"), [
    # the OpenCL miner off by default: the default build is the CUDA one
    ("CMakeLists.txt", 'option(ETHASHCL "Build with OpenCL mining" ON)', 'option(ETHASHCL "Build with OpenCL mining" OFF)'),
    # the other option builds no portable GPU back end (a CPU miner)
    ("libethash-cl/CLMiner.h", '#include "CL/cl2.hpp"', "#include <vector>"),
])
def test_a_cuda_back_end_without_a_portable_default_beside_it_is_required(tmp_path: Path, rulebase, path: str, old: str,
                                                                          new: str) -> None:
    tree = edited("cmake_portable_backend_beside", tmp_path, path, old, new)
    if path.endswith(".h"):
        (tree / "libethash-cl" / "CL" / "cl2.hpp").unlink()
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "libethash-cuda/CUDAMiner_cuda.cu") == {""}


SHARED_UTILS = "cmake_gpu_folder_shared_utils"


def test_sources_only_gated_folders_name_are_gated(rulebase) -> None:
    """low-fidelity-dynamic-models: the `-gpu` folders, each added only under its OFF option, name
    `../utils/utils_gpu.cu(h)`; FindCUDA's CUDA_NVCC_FLAGS_DEBUG is set outside every branch, while CUDA is compiled
    only in those folders."""
    data = report(SHARED_UTILS, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, "utils/utils_gpu.cuh") == {"optional"}
    assert any("CUDA_NVCC_FLAGS_DEBUG: takes effect only where CUDA is compiled" in e
               for w in data["workloads"] for part in w["optional_parts"] for e in part["evidence"])
    assert {f["status"] for f in data["findings"] if f["symbol"] == "CUDA_NVCC_FLAGS_DEBUG"} == {"optional"}


def test_a_projects_declared_switches_are_read_once_per_build(rulebase, monkeypatch: pytest.MonkeyPatch) -> None:
    """declared_switches walks every fact of a project; parts.build works it out once and passes it to the readings
    that use it (set_only_under, gated_by_build's folders), which the shared-utilities tree all reaches (its gated
    folders name sources outside them), with the same verdict as above."""
    from migrate.workloads import parts, switches

    calls: list[int] = []
    real = switches.declared_switches

    def counted(facts):  # type: ignore[no-untyped-def]
        calls.append(len(facts))
        return real(facts)

    monkeypatch.setattr(switches, "declared_switches", counted)
    monkeypatch.setattr(parts, "declared_switches", counted)
    data = report(SHARED_UTILS, rulebase)
    assert statuses(data, "utils/utils_gpu.cuh") == {"optional"}
    assert len(calls) == 1


@pytest.mark.parametrize(("path", "old", "new"), [
    # the CPU folder, on by default, compiles the GPU utilities too
    ("11dof/CMakeLists.txt", "utils/utils.cpp\n)", "utils/utils.cpp\n    ${CMAKE_CURRENT_SOURCE_DIR}/../utils/utils_gpu.cuh\n"
                                                "    ${CMAKE_CURRENT_SOURCE_DIR}/../utils/utils_gpu.cu\n)"),
    # a glob outside every branch lists them: a default target may compile them
    ("CMakeLists.txt", "if(BUILD_11DOF)\n",
     "file(GLOB UTILS utils/*.cu utils/*.cuh)\nadd_library(utils ${UTILS})\nif(BUILD_11DOF)\n"),
])
def test_sources_a_default_build_may_name_are_required(path: str, old: str, new: str, tmp_path: Path,
                                                      rulebase) -> None:
    data = scanned(edited(SHARED_UTILS, tmp_path, path, old, new), rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "utils/utils_gpu.cuh") == {""}
