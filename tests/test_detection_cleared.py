"""An option on by default that the file declaring it turns off where a detection fails
(fixtures/workloads/optional/cmake_option_cleared_on_detection, cut from shadowzhougit/THUNDER bb55b392:
`option(GPU_VERSION ... ON)`, `find_package(CUDA 8.0)`, `if(NOT ${CUDA_FOUND}) set(GPU_VERSION off) endif()`,
`if("${GPU_VERSION}") add_subdirectory(gpu)`): the GPU version is built only where NVIDIA's toolkit is found, so on the
AMD machine the report is for it is an optional part. Near misses keep it required."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.extract.text import buildfiles
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

CASE = ROOT / "fixtures" / "workloads" / "optional" / "cmake_option_cleared_on_detection"
KERNEL = "gpu/src/cuthunder.cu"
DETECTIONS = "find_package(CUDA 8.0)\n"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def edited(tmp_path: Path, old: str, new: str) -> Path:
    tree = Path(shutil.copytree(CASE, tmp_path / "thunder"))
    top = tree / "CMakeLists.txt"
    assert old in top.read_text()
    top.write_text(top.read_text().replace(old, new))
    return tree


def statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def test_an_option_a_failed_detection_turns_off_is_optional(rulebase) -> None:
    data = scanned(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = next(p for w in data["workloads"] for p in w["optional_parts"] if KERNEL in p["files"])
    assert (part["root"], part["class"]) == ("build switch GPU_VERSION", "migration-required")
    assert part["evidence"][0] == ("CMakeLists.txt:16 set(GPU_VERSION OFF) where CUDA_FOUND is false (a detection result: "
                                   "false where NVIDIA's toolkit is not installed) default ${CUDA_FOUND}")
    assert statuses(data, KERNEL) == {"optional"}
    # each detection that turns the option off serves it alone: the NCCL search goes with the part
    assert statuses(data, "CMakeLists.txt") == statuses(data, "cmake/FindNCCL.cmake") == {"optional"}


@pytest.mark.parametrize(("old", "new"), [
    # both detections REQUIRED: the configure stops without the toolkit, so the option stays on
    ("find_package(CUDA 8.0)\nif", "find_package(CUDA 8.0 REQUIRED)\nif"),
    # the file turns off another variable, not the option the branches test
    ("    set(GPU_VERSION off)\nendif(NOT ${CUDA_FOUND})", "    set(GPU_ENABLED off)\nendif(NOT ${CUDA_FOUND})"),
    # a detection of a library every machine may have (MPI), not NVIDIA's toolkit
    ("if(NOT ${CUDA_FOUND})", "if(NOT ${MPI_FOUND})"),
    # the set() inside a nested branch: not every configure runs it
    ("    set(GPU_VERSION off)\nendif(NOT ${CUDA_FOUND})",
     "    if(WIN32)\n        set(GPU_VERSION off)\n    endif()\nendif(NOT ${CUDA_FOUND})"),
])
def test_an_option_no_failed_nvidia_detection_turns_off_stays_required(old: str, new: str, tmp_path: Path,
                                                                      rulebase) -> None:
    tree = edited(tmp_path, old, new)
    if "REQUIRED" in new:  # and the NCCL search too
        top = tree / "CMakeLists.txt"
        top.write_text(top.read_text().replace("find_package(NCCL)", "find_package(NCCL REQUIRED)"))
    else:  # the NCCL search turns it off alone otherwise
        top = tree / "CMakeLists.txt"
        top.write_text(top.read_text().replace("if(NOT ${NCCL_FOUND})", "if(NOT ${FFTW_FOUND})"))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}


def test_a_set_in_a_subdirectory_leaves_the_parents_option_on(tmp_path: Path, rulebase) -> None:
    """A plain set() in a folder add_subdirectory() reads changes that folder's copy of the variable, not the option
    the parent's branches test (https://cmake.org/cmake/help/latest/command/set.html; LennartKoehler/dolphin
    backends/cuda/CMakeLists.txt:16-22 turns BUILD_CUDA off there, after the parent added the CUBE library)."""
    tree = Path(shutil.copytree(CASE, tmp_path / "thunder"))
    top = tree / "CMakeLists.txt"
    text = top.read_text()
    start, end = text.index(DETECTIONS), text.index('if("${CPU_VERSION}")')
    top.write_text(text[:start] + "add_subdirectory(detect)\n\n" + text[end:])
    (tree / "detect").mkdir()
    (tree / "detect" / "CMakeLists.txt").write_text(text[start:end])
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}


def test_the_cleared_switch_and_a_quoted_reference_are_read_from_the_cmake_text() -> None:
    def facts(text: bytes, kind: str) -> list[tuple[str, str]]:
        return [(f.name, f.text) for f in buildfiles.cmake(text).facts if f.kind == kind]

    assert facts(b"if(NOT ${CUDA_FOUND})\n  set(GPU_VERSION off)\nendif()\n", "switch_cleared") == [
        ("GPU_VERSION", "OFF CUDA_FOUND")]
    assert facts(b"if(CUDAToolkit_FOUND)\nelse()\n  set(USE_GPU 0)\nendif()\n", "switch_cleared") == [
        ("USE_GPU", "0 CUDAToolkit_FOUND")]
    assert facts(b"if(CUDA_FOUND)\n  set(USE_GPU OFF)\nendif()\n", "switch_cleared") == []  # set where it is found
    assert facts(b"if(X)\n  if(NOT CUDA_FOUND)\n    set(USE_GPU OFF)\n  endif()\nendif()\n", "switch_cleared") == []
    assert facts(b'if(NOT CUDA_FOUND OR WIN32)\n  set(USE_GPU OFF)\nendif()\n', "switch_cleared") == []
    assert ("GPU_VERSION", "if(GPU_VERSION)") in facts(b'if("${GPU_VERSION}")\n  add_subdirectory(gpu)\nendif()\n',
                                                       "switch_branch")
    assert facts(b'if("GPU_VERSION")\n  add_subdirectory(gpu)\nendif()\n', "switch_branch") == []


def test_a_reference_tested_by_another_operator_is_no_switch() -> None:
    """`if(EXISTS "${LDPC_WRAPPER_DIR}")` tests a path (Felicialalala/aerial-cuda-accelerated-ran 0e7770c2
    cuPHY/src/cuphy/CMakeLists.txt:403), `if(TARGET ${T})` a target: neither is a switch."""
    def branches(text: bytes) -> list[str]:
        return [f.name for f in buildfiles.cmake(text).facts if f.kind == "switch_branch"]

    assert branches(b'if(EXISTS "${LDPC_WRAPPER_DIR}" AND EXISTS "${LDPC_CUBIN_DIR}/x.s")\n  set(A 1)\nendif()\n') == []
    assert branches(b"if(TARGET ${CUDA_TARGET})\n  set(A 1)\nendif()\n") == []
    assert branches(b'if(WIN32 AND "${GPU_VERSION}")\n  set(A 1)\nendif()\n') == ["WIN32", "GPU_VERSION"]
