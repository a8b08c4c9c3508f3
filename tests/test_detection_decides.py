"""A variable a detection decides (fixtures/workloads/optional/cmake_detection_decides_variable, cut from
Jerry-Jinfeng-Guo/gap 895458606b: `check_language(CUDA)`, `if(CMAKE_CUDA_COMPILER) set(GAP_ENABLE_CUDA ON) else()
set(GAP_ENABLE_CUDA OFF) endif()`, the CUDA back end added under `if(GAP_ENABLE_CUDA)` beside the CPU one, scripts
passing `-DGAP_ENABLE_CUDA=ON` and `=OFF`): the plain set()s hide the cache entry a -D made, so the back end is built only
where a CUDA compiler is found, an optional part on the AMD machine the report is for. Near misses keep it required."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.extract.text import cmakelists
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

CASE = ROOT / "fixtures" / "workloads" / "optional" / "cmake_detection_decides_variable"
KERNEL = "src/admittance/gpu/gpu_admittance_matrix.cu"
ON_SET = "        set(GAP_ENABLE_CUDA ON)\n"
ELSE_SET = "        project(GAP VERSION 1.0.0 LANGUAGES C CXX)\n        set(GAP_ENABLE_CUDA OFF)\n"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def edited(tmp_path: Path, old: str, new: str) -> Path:
    tree = Path(shutil.copytree(CASE, tmp_path / "gap"))
    top = tree / "CMakeLists.txt"
    assert top.read_text().count(old) == 1
    top.write_text(top.read_text().replace(old, new))
    return tree


def statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def decided(text: str) -> list[tuple[str, int, str]]:
    return [(f.name, f.line, f.text) for f in cmakelists.extract(text.encode()).facts if f.kind == "switch_decided"]


def test_a_back_end_a_detection_decides_is_optional(rulebase) -> None:
    data = scanned(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = next(p for w in data["workloads"] for p in w["optional_parts"] if KERNEL in p["files"])
    assert (part["root"], part["class"]) == ("build switch CMAKE_CUDA_COMPILER", "migration-required")
    assert part["evidence"][-1].startswith("src/CMakeLists.txt:7 if(GAP_ENABLE_CUDA) (GAP_ENABLE_CUDA is set true only "
                                           "in CMakeLists.txt:20, where CMAKE_CUDA_COMPILER is on)")
    assert statuses(data, KERNEL) == {"optional"}
    assert not any(w["class"] != "native" for w in data["workloads"])


@pytest.mark.parametrize(("old", "new"), [
    # the else() leaves the variable as a script's -DGAP_ENABLE_CUDA=ON set it
    (ELSE_SET, "        project(GAP VERSION 1.0.0 LANGUAGES C CXX)\n"),
    # a cache entry keeps the value a -D gave (https://cmake.org/cmake/help/latest/command/set.html#set-cache-entry)
    (ON_SET, '        set(GAP_ENABLE_CUDA ON CACHE BOOL "")\n'),
    # a detection of a library every machine may have, not NVIDIA's compiler
    ("    if(CMAKE_CUDA_COMPILER)\n", "    if(MPI_FOUND)\n"),
    # a failed detection stops the configure: there is no build without CUDA
    (ELSE_SET, '        message(FATAL_ERROR "CUDA not found")\n'),
    # the CUDA language enabled outside every branch: no configure finds no CUDA compiler
    ("set(CMAKE_CXX_STANDARD 20)\n", "set(CMAKE_CXX_STANDARD 20)\nenable_language(CUDA)\n"),
    ("cmake_minimum_required(VERSION 3.18)\n", "cmake_minimum_required(VERSION 3.18)\nproject(GAP_ALL LANGUAGES CXX CUDA)\n"),
])
def test_a_back_end_no_failed_detection_turns_off_stays_required(old: str, new: str, tmp_path: Path, rulebase) -> None:
    data = scanned(edited(tmp_path, old, new), rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}


def test_the_language_enabled_in_a_detections_branch_keeps_it_optional(tmp_path: Path, rulebase) -> None:
    """enable_language(CUDA) inside `if(CMAKE_CUDA_COMPILER)` runs only where the compiler was found."""
    tree = edited(tmp_path, "add_subdirectory(src)\n",
                  "add_subdirectory(src)\nif(CMAKE_CUDA_COMPILER)\n    enable_language(CUDA)\nendif()\n")
    assert statuses(scanned(tree, rulebase), KERNEL) == {"optional"}


def test_switch_decided_needs_both_plain_sets_in_one_if() -> None:
    assert decided("if(CUDA_FOUND)\n  set(HAS_GPU ON)\nelse()\n  set(HAS_GPU OFF)\nendif()\n") == [
        ("HAS_GPU", 2, "CUDA_FOUND")]
    # nested: the inner if() decides, whatever the outer branch
    assert decided("if(WIN32)\nelse()\n if(CUDA_FOUND)\n  set(HAS_GPU 1)\n else()\n  set(HAS_GPU 0)\n endif()\nendif()\n") \
        == [("HAS_GPU", 4, "CUDA_FOUND")]
    assert decided("if(CUDA_FOUND)\n  set(HAS_GPU ON)\nendif()\n") == []  # no else()
    assert decided("if(CUDA_FOUND)\n  set(HAS_GPU ON)\nelseif(X)\n  set(HAS_GPU OFF)\nendif()\n") == []  # an elseif
    assert decided("if(CUDA_FOUND)\n  set(HAS_GPU ON CACHE BOOL \"\")\nelse()\n  set(HAS_GPU OFF)\nendif()\n") == []
    assert decided("if(CUDA_FOUND AND X)\n  set(HAS_GPU ON)\nelse()\n  set(HAS_GPU OFF)\nendif()\n") == []
    # set in a nested if() of the branch: not every configure that takes the branch runs it
    assert decided("if(CUDA_FOUND)\n if(X)\n  set(HAS_GPU ON)\n endif()\nelse()\n  set(HAS_GPU OFF)\nendif()\n") == []
