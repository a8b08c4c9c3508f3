"""CUDA code a CMake build compiles only under a condition that is false by default (issue 28, "an optional part read as
required"): a cache entry declared with no value (`SET(X CACHE BOOL "doc")`, an empty string, false), folders the
deprecated `SUBDIRS()` adds in such a branch, and .cu sources of a project that enables the CUDA language only where a
toolkit is found. Each fixture is cut from a real case (its README says where); each near miss turns the condition on
or compiles CUDA by default, and the same code is then required."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.text import cmakelists
from tests.test_opt_in_build_graph import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned

SUBDIRS_CASE = "cmake_subdirs_cache_bool"
LANGUAGE_CASE = "cmake_language_on_detection_sources"
SOLVER = "src/libs/vcl.math.cuda/vcl/math/solver/cuda/poisson3dsolver_cg.cpp"
KERNEL = "src/ska-sdp-func/clean/sdp_hogbom_clean.cu"
HOST = "src/ska-sdp-func/utility/sdp_mem.cpp"


def switches(text: str) -> list[tuple[str, str]]:
    return [(f.name, f.text) for f in cmakelists.extract(text.encode()).facts if f.kind == "build_switch"]


def folders(text: str) -> list[str]:
    return [f.name for f in cmakelists.extract(text.encode()).facts if f.kind == "cmake_subdirectory"]


def test_a_cache_entry_with_no_value_is_off() -> None:
    assert switches('SET(VCL_CUDA_SUPPORT CACHE BOOL "Turn off the VCL CUDA support")\n') == \
        [("VCL_CUDA_SUPPORT", "OFF set")]
    assert switches('set(VCL_CUDA_SUPPORT ON CACHE BOOL "doc")\n') == [("VCL_CUDA_SUPPORT", "ON set")]
    assert switches('set(CUDA_ARCH CACHE STRING "doc")\n') == []  # a string entry is no switch


def test_subdirs_adds_each_folder_it_names() -> None:
    assert folders("SUBDIRS(vcl.core vcl.math EXCLUDE_FROM_ALL)\n") == ["vcl.core", "vcl.math"]


def test_cuda_libraries_subdirs_adds_under_an_empty_cache_entry_are_optional(rulebase) -> None:
    """vcl: `IF(CUDA_FOUND AND VCL_CUDA_SUPPORT) SUBDIRS(vcl.math.cuda)`, the entry declared with no value."""
    data = report(SUBDIRS_CASE, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, SOLVER) == {"optional"}


def test_the_empty_cache_entry_alone_gates_its_folder(tmp_path: Path, rulebase) -> None:
    tree = edited(SUBDIRS_CASE, tmp_path, "src/libs/CMakeLists.txt", "IF(CUDA_FOUND AND VCL_CUDA_SUPPORT)",
                  "IF(VCL_CUDA_SUPPORT)")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch VCL_CUDA_SUPPORT"]
    assert part["evidence"][0] == "src/cmake/VCLCudaSupport.cmake:2 set(VCL_CUDA_SUPPORT) default OFF"


@pytest.mark.parametrize(("path", "old", "new"), [
    # the entry on by default (and the branch on it alone): the default build adds the CUDA folder
    ("src/libs/CMakeLists.txt", "IF(CUDA_FOUND AND VCL_CUDA_SUPPORT)", "IF(VCL_CUDA_SUPPORT)"),
    # SUBDIRS() outside the branch: every build adds it
    ("src/libs/CMakeLists.txt", "IF(CUDA_FOUND AND VCL_CUDA_SUPPORT)\n\tSUBDIRS(vcl.math.cuda)\nENDIF()",
     "SUBDIRS(vcl.math.cuda)"),
])
def test_cuda_libraries_a_default_build_adds_are_required(tmp_path: Path, rulebase, path: str, old: str,
                                                           new: str) -> None:
    tree = edited(SUBDIRS_CASE, tmp_path, path, old, new)
    if "SUBDIRS(vcl.math.cuda)" not in new:  # the entry alone, ON (its find_package branch left out: a detection's own)
        (tree / "src/cmake/VCLCudaSupport.cmake").write_text('SET(VCL_CUDA_SUPPORT ON CACHE BOOL "CUDA support")\n')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "" in statuses(data, SOLVER)


def test_cu_sources_of_a_language_enabled_only_where_a_toolkit_is_found_are_optional(rulebase) -> None:
    """ska-sdp-func: `if (CUDAToolkit_FOUND) enable_language(CUDA)`; the .cu files reach the library only through a
    list that branch appends, which the reading does not follow: CMake compiles no .cu source without the language."""
    data = report(LANGUAGE_CASE, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, KERNEL) == {"optional"}
    assert statuses(data, HOST) == {"optional"}
    assert "build switch CUDAToolkit_FOUND" in optional_parts(data)


@pytest.mark.parametrize(("old", "new"), [
    # the CUDA language enabled by project(): every configure compiles the kernels
    ("project(ska_sdp_func CXX C)", "project(ska_sdp_func CXX C CUDA)"),
    # ... by an enable_language() outside the branch
    ("include(sdp_func_macros)", "enable_language(CUDA)\ninclude(sdp_func_macros)"),
    # the .cu files given the host language: the C++ compiler builds them in every configure
    ("include(sdp_func_macros)",
     "include(sdp_func_macros)\nset_source_files_properties(src/ska-sdp-func/clean/sdp_hogbom_clean.cu "
     "PROPERTIES LANGUAGE CXX)"),
])
def test_cu_sources_every_configure_compiles_are_required(tmp_path: Path, rulebase, old: str, new: str) -> None:
    tree = edited(LANGUAGE_CASE, tmp_path, "CMakeLists.txt", old, new)
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "" in statuses(data, KERNEL)


def test_a_ci_job_and_a_script_that_set_up_the_optional_cuda_build_go_with_it(rulebase) -> None:
    """ska-sdp-func: an nvidia/cuda CI image with nvidia-smi, a wheel script installing CUDA packages."""
    data = report(LANGUAGE_CASE, rulebase)
    assert statuses(data, ".gitlab-ci.yml") == {"optional"}
    assert statuses(data, "scripts/build-wheels.sh") == {"optional"}
    part = optional_parts(data)["scripts/build-wheels.sh (the optional CUDA build's environment)"]
    assert part["evidence"][0].endswith("and so is a CI workflow or script that sets up its build")


@pytest.mark.parametrize(("path", "old", "new"), [
    # the CUDA kernels compiled by every configure: the environment serves a required build
    ("CMakeLists.txt", "project(ska_sdp_func CXX C)", "project(ska_sdp_func CXX C CUDA)"),
    # a script that compiles CUDA itself is more than an environment
    ("scripts/build-wheels.sh", "# Compile the Python wheels.", "nvcc -O3 -o probe src/ska-sdp-func/clean/probe.cu"),
])
def test_an_environment_beside_required_cuda_or_doing_more_stays_required(tmp_path: Path, rulebase, path: str, old: str,
                                                                         new: str) -> None:
    tree = edited(LANGUAGE_CASE, tmp_path, path, old, new)
    data = scanned(tree, rulebase)
    assert "" in statuses(data, "scripts/build-wheels.sh")
