"""GPU code no configuration of the build compiles, and CUDA sources a ROCm build converts at configure time
(fixtures/workloads/optional/{macro_never_defined,cmake_hard_off,configure_hipify}, each cut from a real case, with
near misses; docs/decisions/2026-12-06-unbuilt-gpu-paths-and-configure-time-hipify.md)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.extract.c import guards
from migrate.extract.text.cmakelists import extract as cmake_extract
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

CASES = ROOT / "fixtures" / "workloads" / "optional"
CUDA_BRANCH = 25  # macro_never_defined/hj/hardware/gpu.h: `#elif GPU_ENABLE_CUDA`


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def copy(case: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(CASES / case, tmp_path / case))


def edit(tree: Path, path: str, old: str, new: str) -> None:
    file = tree / path
    text = file.read_text() if file.exists() else ""
    assert old in text, (path, old)
    file.write_text(text.replace(old, new, 1))


def statuses(data: dict, path: str, first: int = 1) -> set[str]:
    """The statuses of a file's findings from line `first` on."""
    found = {f["status"] for f in data["findings"] if f["path"] == path and f["line"] >= first}
    assert found, path
    return found


def parts(data: dict) -> dict[str, dict]:
    return {p["root"]: p for w in data["workloads"] for p in w["optional_parts"]}


def test_switch_defines_are_live_defines_of_switch_shaped_names() -> None:
    source = (b"#define GPU_ENABLE_CUDA 1 // on\n#define USE_CUDA\n// #define WITH_CUDA\n#define MAX_N(a) a\n"
              b"#define GPU_H_\n#  define USE_HIP 0\n")
    assert [(n, v) for n, v, _, _ in guards.switch_defines(source)] == [("GPU_ENABLE_CUDA", "1"), ("USE_CUDA", ""),
                                                                        ("USE_HIP", "0")]


def test_a_top_level_set_and_a_script_a_cmake_command_runs_are_facts() -> None:
    facts = cmake_extract(b"set ( X_USE_CUDA OFF )\nif(WIN32)\n  set(Y_USE_CUDA OFF)\nendif()\n"
                          b"set(CMD ${DIR}/build_amd.py --out ${OUT})\nexecute_process(COMMAND ${CMD}\n"
                          b"  OUTPUT_VARIABLE HIPIFY_FILES RESULT_VARIABLE hipify_result)\n"
                          b"execute_process(COMMAND hipify-perl a.cu)\n").facts
    assert [(f.name, f.role) for f in facts if f.kind == "switch_value"] == [("X_USE_CUDA", "top"), ("Y_USE_CUDA", "")]
    assert [(f.name, f.line) for f in facts if f.kind == "build_script"] == [("build_amd.py", 5), ("hipify-perl", 8)]


def test_a_branch_on_a_macro_nothing_defines_is_off_by_default(rulebase) -> None:
    """high-jump's `#elif GPU_ENABLE_CUDA`: no file, flag or build variable defines it (tests define CUDA_ENABLE)."""
    data = scanned(CASES / "macro_never_defined", rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, "hj/hardware/gpu.h", first=CUDA_BRANCH) == {"optional"}
    assert parts(data)["build switch GPU_ENABLE_CUDA"]["evidence"][0] == \
        "hj/hardware/gpu.h:25 #elif GPU_ENABLE_CUDA (nothing in the project defines GPU_ENABLE_CUDA) default OFF"


@pytest.mark.parametrize(("path", "old", "new"), [
    ("hj/config.h", "", "#define GPU_ENABLE_CUDA 1\n"),  # a header defines it
    ("CMakeLists.txt", "add_library(hj INTERFACE)", "add_library(hj INTERFACE)\nadd_definitions(-DGPU_ENABLE_CUDA)"),
    ("CMakeLists.txt", "add_library(hj INTERFACE)", "add_library(hj INTERFACE)\noption(GPU_ENABLE_CUDA \"cuda\" ON)"),
    # defined to 0, but tested with defined(): the branch is on
    ("hj/hardware/gpu.h", "#elif GPU_ENABLE_CUDA", "#elif defined(GPU_ENABLE_CUDA)\n#define GPU_ENABLE_CUDA 0"),
])
def test_a_macro_the_project_defines_keeps_its_branch_required(path: str, old: str, new: str, tmp_path: Path,
                                                                  rulebase) -> None:
    tree = copy("macro_never_defined", tmp_path)
    edit(tree, path, old, new)
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "hj/hardware/gpu.h", first=CUDA_BRANCH) == {""}


def test_a_macro_every_define_of_which_gives_zero_is_hard_coded_off(tmp_path: Path, rulebase) -> None:
    tree = copy("macro_never_defined", tmp_path)
    (tree / "hj" / "config.h").write_text("#define GPU_ENABLE_CUDA 0\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, "hj/hardware/gpu.h", first=CUDA_BRANCH) == {"optional"}


def test_a_switch_set_off_in_no_block_before_its_test_is_off_in_every_configuration(rulebase) -> None:
    """SuiteSparse's GraphBLAS: `set ( GRAPHBLAS_USE_CUDA OFF )`, the ON line commented out."""
    data = scanned(CASES / "cmake_hard_off", rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, "CUDA/GB_cuda_colscale.cu") == {"optional"}
    assert parts(data)["build switch GRAPHBLAS_USE_CUDA"]["evidence"][0].startswith(
        "CMakeLists.txt:6 set(GRAPHBLAS_USE_CUDA OFF) in no block, before CMakeLists.txt:11")


@pytest.mark.parametrize(("old", "new"), [
    ("  set ( GRAPHBLAS_USE_CUDA OFF )", "if(WIN32)\n  set ( GRAPHBLAS_USE_CUDA OFF )\nendif()"),  # only on Windows
    ("# set ( GRAPHBLAS_USE_CUDA ON )", "if(DEV)\n set ( GRAPHBLAS_USE_CUDA ON )\nendif()"),  # set true somewhere
])
def test_a_switch_set_off_only_in_some_configurations_is_not_hard_off(old: str, new: str, tmp_path: Path,
                                                                       rulebase) -> None:
    tree = copy("cmake_hard_off", tmp_path)
    edit(tree, "CMakeLists.txt", old, new)
    data = scanned(tree, rulebase)
    assert not any("in no block" in e for p in parts(data).values() for e in p["evidence"])


def test_cuda_sources_a_rocm_build_hipifies_at_configure_time_are_ported(rulebase) -> None:
    """gloo: the USE_ROCM build runs tools/amd_build/build_amd.py (pyHIPIFY.hipify_python) and builds the hip* outputs."""
    data = scanned(CASES / "configure_hipify", rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, "gloo/cuda.cu") == {"ported"}


def test_a_converter_run_by_name_is_a_configure_time_hipify(tmp_path: Path, rulebase) -> None:
    tree = copy("configure_hipify", tmp_path)
    (tree / "tools" / "amd_build" / "build_amd.py").unlink()
    edit(tree, "cmake/Hipify.cmake", "  ${HIPIFY_SCRIPTS_DIR}/build_amd.py", "  hipify-perl")
    assert statuses(scanned(tree, rulebase), "gloo/cuda.cu") == {"ported"}


def test_a_script_that_imports_no_converter_is_no_configure_time_hipify(tmp_path: Path, rulebase) -> None:
    """Near miss: the same CMake runs a code generator; the CUDA sources stay left out of the HIP build."""
    tree = copy("configure_hipify", tmp_path)
    edit(tree, "tools/amd_build/build_amd.py", "from pyHIPIFY import hipify_python", "import generator as hipify_python")
    assert statuses(scanned(tree, rulebase), "gloo/cuda.cu") == {"optional"}


def test_cgo_ldflags_name_the_libraries_a_go_file_links() -> None:
    from migrate.extract.text import cgo

    facts = cgo.extract(b'/*\n   #cgo LDFLAGS: -lexampleshared -L${SRCDIR}/../example/build -lcuda\n*/\nimport "C"\n'
                        b"// #cgo linux CFLAGS: -I/usr/include -lnot\n").facts
    assert [(f.name, f.line, f.column, f.text) for f in facts] == [
        ("exampleshared", 2, 18, "${SRCDIR}/../example/build"), ("cuda", 2, 63, "${SRCDIR}/../example/build")]


def test_a_library_in_an_example_folder_that_a_go_package_links_is_required(rulebase) -> None:
    """cuda-example: the project's only native library is example/'s `exampleshared`, which shared/ links by cgo."""
    data = scanned(CASES / "linked_example_library", rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "example/library.cu") == {""}
    assert not {w["name"]: w for w in data["workloads"]}["examplestatic"]["optional"]


def test_an_example_folder_nothing_links_stays_optional(tmp_path: Path, rulebase) -> None:
    tree = copy("linked_example_library", tmp_path)
    edit(tree, "shared/cuda_wrapper.go", "-lexampleshared ", "")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, "example/library.cu") == {"optional"}


@pytest.mark.parametrize(("link", "required"), [("examplestatic", True), ("other_lib", False)])
def test_a_library_in_an_example_folder_a_required_target_links_is_required(link: str, required: bool, tmp_path: Path,
                                                                            rulebase) -> None:
    """The CMake spelling: the top build adds example/ and links its library into the project's own program."""
    tree = copy("linked_example_library", tmp_path)
    (tree / "shared" / "cuda_wrapper.go").unlink()
    (tree / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.22)\nproject(app CXX)\n"
                                         "add_subdirectory(example)\nadd_executable(app main.cpp)\n"
                                         f"target_link_libraries(app {link})\n")
    (tree / "main.cpp").write_text('#include "example/library.cuh"\nint main() { return 0; }\n')
    data = scanned(tree, rulebase)
    assert statuses(data, "example/library.cu") == ({""} if required else {"optional"})


def test_a_setup_py_reading_the_hipify_version_is_no_configure_time_hipify(tmp_path: Path, rulebase) -> None:
    """Near miss (Dao-AILab/flash-attention setup.py:182): `from torch.utils.hipify import __version__` picks a flag."""
    tree = copy("configure_hipify", tmp_path)
    edit(tree, "cmake/Hipify.cmake", "  ${HIPIFY_SCRIPTS_DIR}/build_amd.py", "  ${HIPIFY_SCRIPTS_DIR}/gen.py")
    (tree / "setup.py").write_text("def detect_hipify_v2():\n    from torch.utils.hipify import __version__\n"
                                   "    return __version__\n")
    assert statuses(scanned(tree, rulebase), "gloo/cuda.cu") == {"optional"}
