"""Other projects' code inside the project (rules/layout/vendored.yaml, migrate/scan/vendored.py): vendored folder
names compared case-insensitively, and copies of NVIDIA libraries known by the files they hold, wherever they sit."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.scan import pipeline as scan
from migrate.scan.discover import discover
from migrate.scan.vendored import header_copy, library_copy, vendored_folder
from migrate.settings import Settings
from tests.conftest import ROOT

COPIES = ROOT / "fixtures" / "trees" / "nvidia_library_copies"


@pytest.mark.parametrize(("name", "vendored"), [
    ("third_party", True), ("ThirdParty", True), ("thirdParty", True), ("Third_Party", True), ("3rdParty", True),
    ("External", True), ("externals", False), ("Vendor", True), ("3rd-party", True), ("pkg.EGG-INFO", True),
    ("thirdparty_kernels", False), ("externalities", False), ("vendored_ops", False), ("src", False),
    ("vendored", True), ("_vendor", True), ("vendors", False), ("_vendored_ops", False),
])
def test_vendored_folder_names_compare_case_insensitively(name: str, vendored: bool) -> None:
    assert vendored_folder(name) is vendored


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


THRUST = {"thrust/version.h": "#pragma once\n#define THRUST_VERSION 100200\n",
          "thrust/sort.h": "#include <thrust/detail/config.h>\nnamespace thrust { }\n"}


def test_a_thrust_copy_is_skipped_wherever_it_sits(tmp_path: Path) -> None:
    root = _tree(tmp_path, {f"hw/mp4/{k}": v for k, v in THRUST.items()} | {"hw/mp4/mp4.cu": "#include <thrust/sort.h>\n"})
    found = discover([root])
    assert [f.rel for f in found.files] == ["hw/mp4/mp4.cu"]
    assert [(s.path, s.reason.split(":")[0]) for s in found.skipped] == [("hw/mp4/thrust/", "a copy of Thrust")]
    assert "hw/mp4/thrust/sort.h" in {f.rel for f in discover([root], include_vendored=True).files}


def test_thrust_itself_is_not_a_copy(tmp_path: Path) -> None:
    """Where Thrust's own repository keeps the folder (thrust/ at its root; thrust/thrust in CCCL) the scanned
    project is Thrust, and a scan of the copy's own folder is a scan of that library."""
    root = _tree(tmp_path / "thrust-repo", THRUST | {"testing/sort.cu": "#include <thrust/sort.h>\n"})
    assert {f.rel for f in discover([root]).files} == {"thrust/version.h", "thrust/sort.h", "testing/sort.cu"}
    cccl = _tree(tmp_path / "cccl", {f"thrust/{k}": v for k, v in THRUST.items()})
    assert len(discover([cccl]).files) == 2
    assert len(discover([root / "thrust"]).files) == 2


@pytest.mark.parametrize("files", [
    {"lib/thrust/version.h": "#define THRUST_SOLVER_VERSION 3\n"},  # the project's own folder named thrust
    {"lib/other/version.h": "#define THRUST_VERSION 100200\n"},  # Thrust's marker, but not in a thrust/ folder
    {"inc/driver_types.h": "#if !defined(__DRIVER_TYPES_H__)\n#define __DRIVER_TYPES_H__\n#endif\n"},  # one of two
    {"inc/driver_types.h": "#pragma once\n", "inc/cuda_runtime_api.h": "#pragma once\n"},  # names, not the guards
])
def test_near_misses_are_walked(tmp_path: Path, files: dict[str, str]) -> None:
    root = _tree(tmp_path, files)
    found = discover([root])
    assert {f.rel for f in found.files} == set(files)
    assert not found.skipped


def test_signatures_need_every_file_and_marker() -> None:
    texts = {"cuda_runtime_api.h": b"#define __CUDA_RUNTIME_API_H__\n", "driver_types.h": b"#define __DRIVER_TYPES_H__\n"}
    copy = library_copy("sdk/include", set(texts), texts.__getitem__)
    assert copy is not None and copy.library == "the CUDA toolkit's headers"
    assert library_copy("sdk/include", set(texts), lambda name: b"") is None
    assert library_copy("cutlass", {"version.h"}, lambda name: b"#define CUTLASS_MAJOR 4\n") is not None
    assert library_copy("include/cutlass", {"version.h"}, lambda name: b"#define CUTLASS_MAJOR 4\n") is None


CUB_18 = {"cub.cuh": b"#pragma once\n", "util_namespace.cuh": b"#define CUB_NS_PREFIX namespace cub {\n"}


def test_a_cub_repository_copied_whole_is_a_copy_but_cccls_cub_is_not() -> None:
    """KYANJO/GeoFlood cf9a8234 keeps CUB 1.8's repository at its root (cub/cub/cub.cuh, no version.cuh): a copy.
    CCCL keeps CUB 2.x at cub/cub, with version.cuh beside the same two files: CUB's own layout."""
    copy = library_copy("cub/cub", set(CUB_18), CUB_18.__getitem__)
    assert copy is not None and copy.library == "CUB"
    assert library_copy("cub", set(CUB_18), CUB_18.__getitem__) is None  # CUB 1.8's own repository
    cccl = CUB_18 | {"version.cuh": b"#define CUB_VERSION 200200\n"}
    assert library_copy("cub/cub", set(cccl), cccl.__getitem__) is None
    assert library_copy("deps/cub", set(cccl), cccl.__getitem__) is not None


def test_a_build_folder_of_any_case_keeps_its_build_files(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"Build/linux/Makefile": "all:\n\tnvcc -o a a.cu\n", "Build/linux/a.cu": "int x;\n"})
    assert [f.rel for f in discover([root]).files] == ["Build/linux/Makefile"]


def test_the_sdk_copy_decided_the_class_before(rulebase) -> None:
    """The copied SDK's cuda_drvapi_dynlink.c names the D3D9 interop driver API (no HIP counterpart): read as the
    renderer's code it made the renderer incompatible; skipped, the renderer's own CUDA decides."""
    classes = {include: {w.name: w.migration_class
                         for w in scan.run([COPIES], Settings(jobs=1, cache_dir=None, include_vendored=include),
                                           rulebase).workloads} for include in (False, True)}
    assert classes[False]["renderer"] == "migration-required"
    assert classes[True]["renderer"] == "incompatible"


# matt-42/cuimg e2d2b8bc cmake/FindCUDA.cmake and cmake/FindCUDA/run_nvcc.cmake: CMake's FindCUDA module and its helper
# scripts, copied beside the project's CMakeLists.txt (loaded through CMAKE_MODULE_PATH)
FINDCUDA = ("# - Tools for building CUDA C files: libraries and build dependencies.\n"
            "# This script locates the NVIDIA CUDA C tools.\n#\n"
            "#  James Bigler, NVIDIA Corp (nvidia.com - jbigler)\n"
            "macro(CUDA_LINK_SEPARABLE_COMPILATION_OBJECTS output_file cuda_target options object_files)\n"
            "  set(CUDA_GENERATED_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})\nendmacro()\n")
RUN_NVCC = "#  James Bigler, NVIDIA Corp (nvidia.com - jbigler)\n#\n#  Copyright (c) 2008 - 2009 NVIDIA Corporation.\n"
CUIMG = {"CMakeLists.txt": "SET(CMAKE_MODULE_PATH ${CMAKE_SOURCE_DIR}/cmake)\nproject(cuimg)\nfind_package(CUDA)\n",
         "cmake/FindCUDA.cmake": FINDCUDA, "cmake/FindCUDA/run_nvcc.cmake": RUN_NVCC,
         "cmake/FindCUDA/make2cmake.cmake": RUN_NVCC}


def test_a_copy_of_cmakes_findcuda_module_is_skipped(tmp_path: Path) -> None:
    root = _tree(tmp_path, CUIMG)
    found = discover([root])
    assert [f.rel for f in found.files] == ["CMakeLists.txt"]
    assert sorted((s.path, s.reason.split(":")[0]) for s in found.skipped) == [
        ("cmake/FindCUDA.cmake", "a copy of CMake's FindCUDA module"),
        ("cmake/FindCUDA/", "a copy of CMake's FindCUDA module (its helper scripts)")]
    assert "cmake/FindCUDA.cmake" in {f.rel for f in discover([root], include_vendored=True).files}


def test_a_scan_reports_nothing_of_the_copied_module(tmp_path: Path, rulebase) -> None:
    """The copy's CUDA_GENERATED_OUTPUT_DIR and CUDA_LINK_SEPARABLE_COMPILATION_OBJECTS were the cuimg workload's build
    findings; what is left is the project's own find_package(CUDA)."""
    report = scan.run([_tree(tmp_path, CUIMG)], Settings(jobs=1, cache_dir=None), rulebase)
    assert {f.path for f in report.findings} == {"CMakeLists.txt"}


@pytest.mark.parametrize("files", [
    # mit-han-lab/inter-operator-scheduler's own 95-line cmake/FindCUDA.cmake ("Enhanced version of find CUDA")
    {"cmake/FindCUDA.cmake": "# Enhanced version of find CUDA.\nfind_path(CUDA_INCLUDE_DIRS cuda.h)\n"},
    {"cmake/FindCUDAToolkit.cmake": "# our own finder\nfind_program(CUDAToolkit_NVCC_EXECUTABLE nvcc)\n"},
    {"cmake/MyCUDA.cmake": FINDCUDA},  # the marker under another file name
    {"Modules/FindCUDA.cmake": FINDCUDA},  # where CMake's own repository keeps it: the scanned project is CMake
])
def test_a_cmake_module_of_the_projects_own_is_walked(tmp_path: Path, files: dict[str, str]) -> None:
    found = discover([_tree(tmp_path, files)])
    assert {f.rel for f in found.files} == set(files)
    assert not found.skipped


RELEASE = ROOT / "fixtures" / "trees" / "release_copy"


def test_a_release_unpacked_beside_its_archive_with_a_build_of_its_own_is_skipped() -> None:
    """AryaGosuDev/DelauneyTesselationCUDA's gDel2D-Oct2015/ beside gDel2D-Oct2015.zip (precision sample 26): the zip's
    own top folder holds the release's CMakeLists.txt; the project's kernel.cu includes nothing of it."""
    found = discover([RELEASE])
    assert [(s.path, s.reason.split(" beside")[0]) for s in found.skipped] == [
        ("gDel2D-Oct2015/", "unpacked from gDel2D-Oct2015.zip")]
    rels = {f.rel for f in found.files}
    assert not any(r.startswith("gDel2D-Oct2015/") for r in rels)
    assert {"kernel.cu", "scan_v1/scan.cu", "solver/step.cu", "solver/CMakeLists.txt"} <= rels  # the near misses
    walked = {f.rel for f in discover([RELEASE], include_vendored=True).files}
    assert "gDel2D-Oct2015/gDel2D-Oct2015/src/gDel2D/GPU/ThrustWrapper.cu" in walked


@pytest.mark.parametrize(("files", "skipped"), [
    ({"lib.zip": "", "lib/CMakeLists.txt": "project(lib)\n", "lib/a.cu": ""}, True),  # a build file at its top
    ({"lib.tar.gz": "", "lib/a.cu": ""}, False),  # the project's own sources kept as a tarball: no build file
    ({"lib-1.0.zip": "", "lib/Makefile": "all:\n", "lib/a.cu": ""}, False),  # an archive of another name
    ({"lib.zip": "", "lib/docs/x.txt": "", "lib/src/Makefile": "", "lib/a.cu": ""}, False),  # build file deeper down
])
def test_what_makes_a_release_copy(tmp_path: Path, files: dict[str, str], skipped: bool) -> None:
    root = _tree(tmp_path / "p", files)
    found = discover([root])
    assert ("lib/a.cu" not in {f.rel for f in found.files}) is skipped
    assert ([s.path for s in found.skipped] == ["lib/"]) is skipped


THIRD_PARTY = ROOT / "fixtures" / "trees" / "third_party_copies"


def test_third_party_copies_decided_the_class_before(rulebase) -> None:
    """Each copy (NVTX 2 headers, ggml's public headers, Boost, Eigen, a `vendored/` folder) carries CUDA text that
    made its workload required while it was read as the project's code (fixtures/trees/third_party_copies/README.md);
    skipped, the project's own code decides. The near misses (the project's own files beside a copy or under a copy's
    name) stay required either way."""
    classes = {include: {w.name: w.migration_class
                         for w in scan.run([THIRD_PARTY], Settings(jobs=1, cache_dir=None, include_vendored=include),
                                           rulebase).workloads} for include in (False, True)}
    for copy in ("terrain", "rwhisper", "beam", "powerflow"):
        assert (classes[False][copy], classes[True][copy]) == ("native", "migration-required"), copy
    for near_miss in ("hud", "profiler", "shims", "kernels"):
        assert classes[False][near_miss] == classes[True][near_miss] == "migration-required", near_miss


# ggml as whisper.cpp and llama.cpp keep it and build it (cut from bnosac/audio.whisper 03904914
# inst/whisper.cpp/ggml/): its public headers beside its sources, a CUDA back end among them
GGML_BUILT = {
    "ggml/include/ggml.h": "#pragma once\n#    define GGML_API extern\n#ifdef __CUDACC__\n"
                           "__host__ __device__ constexpr inline void ggml_unused_vars_impl() noexcept {}\n#endif\n",
    "ggml/include/ggml-backend.h": "#pragma once\n    typedef struct ggml_backend * ggml_backend_t;\n",
    "ggml/src/ggml.c": "#include \"ggml.h\"\nint ggml_n_dims(void) { return 1; }\n",
    "ggml/src/ggml-cuda/scale.cu": "static __global__ void scale_f32(float * dst) { dst[threadIdx.x] = 0.0f; }\n",
}


def test_ggml_headers_beside_ggml_sources_are_the_library_the_project_builds(tmp_path: Path, rulebase) -> None:
    root = _tree(tmp_path / "whisper.cpp", GGML_BUILT)
    assert {f.rel for f in discover([root]).files} == set(GGML_BUILT)
    assert {w.migration_class for w in scan.run([root], Settings(jobs=1, cache_dir=None), rulebase).workloads} \
        == {"migration-required"}
    # llama.cpp's older flat layout: ggml.c beside the headers (oneapi-src/SYCLomatic-test applications/src/llama/)
    flat = _tree(tmp_path / "llama", {"ggml.h": GGML_BUILT["ggml/include/ggml.h"], "ggml.c": "int x;\n",
                                      "ggml-backend.h": GGML_BUILT["ggml/include/ggml-backend.h"]})
    assert len(discover([flat]).files) == 3
    # without ggml.c beside them the headers are a copy, as in the R package's src/include/ggml/include/
    headers_only = _tree(tmp_path / "r-package", {k: v for k, v in GGML_BUILT.items() if k != "ggml/src/ggml.c"})
    assert {f.rel for f in discover([headers_only]).files} == {"ggml/src/ggml-cuda/scale.cu"}


@pytest.mark.parametrize(("names", "texts", "headers"), [
    # NVTX 2: the guard names the copy; the whole nvToolsExt*.h set goes, the project's own header stays
    ({"nvToolsExt.h", "nvToolsExtCuda.h", "zones.h"}, {"nvToolsExt.h": b"#ifndef NVTOOLSEXT_H_\n#define NVTOOLSEXT_H_\n"},
     {"nvToolsExt.h", "nvToolsExtCuda.h"}),
    ({"nvToolsExt.h"}, {"nvToolsExt.h": b"#pragma once\nvoid nvtxRangePushA(const char*);\n"}, None),  # a shim
    # ggml: both of its signature files with their markers
    ({"ggml.h", "ggml-backend.h", "gguf.h"}, {"ggml.h": b"#define GGML_API extern\n",
                                             "ggml-backend.h": b"typedef struct ggml_backend * ggml_backend_t;\n"},
     {"ggml.h", "ggml-backend.h", "gguf.h"}),
    ({"ggml.h"}, {"ggml.h": b"#define GGML_API extern\n"}, None),  # an old single-header ggml (a port's own copy)
])
def test_header_copies_need_their_signature(names: set[str], texts: dict[str, bytes], headers: set[str] | None) -> None:
    found = header_copy(names, lambda name: texts.get(name, b""), lambda rel: False)
    assert (None if found is None else set(found[1])) == headers
