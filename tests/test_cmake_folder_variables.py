"""Sources named below a variable the CMakeLists sets to a fixed folder of its own (`set(CPP_SOURCES_FOLDER
"${CMAKE_CURRENT_LIST_DIR}/src")`, then `${CPP_SOURCES_FOLDER}/backend/cudnn/device.cc`): the extractor places them
in that folder, so a switch's branch that lists them gates them (fixtures/workloads/optional/cmake_folder_variable,
cut from Ogarantia/phoenix_core)."""
from __future__ import annotations

from pathlib import Path

from migrate.extract.text import cmakelists
from tests.test_opt_in_build_graph import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned


def sources(text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.name) for f in cmakelists.extract(text.encode()).facts if "source" in f.kind]


def test_a_folder_variable_below_the_lists_folder_places_its_sources() -> None:
    text = 'set(SRC "${CMAKE_CURRENT_LIST_DIR}/src")\nadd_library(a ${SRC}/gpu/k.cu ${SRC}/main.cc)\n'
    assert sources(text) == [("build_source", "src/gpu/k.cu"), ("build_source", "src/main.cc")]


def test_the_folder_itself_still_places_its_sources() -> None:
    text = "set(ROOT_PATH ${CMAKE_CURRENT_SOURCE_DIR})\nadd_library(a ${ROOT_PATH}/k.cu)\n"
    assert sources(text) == [("build_source", "k.cu")]


def test_a_variable_set_to_two_folders_or_to_another_variable_places_nothing() -> None:
    twice = 'set(SRC "${CMAKE_CURRENT_LIST_DIR}/src")\nset(SRC "${CMAKE_CURRENT_LIST_DIR}/lib")\n' \
            "add_library(a ${SRC}/k.cu)\n"
    assert sources(twice) == [("source_unplaced", "k.cu")]
    other = 'set(SRC "${MY_ROOT}/src")\nadd_library(a ${SRC}/k.cu)\n'
    assert sources(other) == [("source_unplaced", "k.cu")]
    upward = 'set(SRC "${CMAKE_CURRENT_LIST_DIR}/../src")\nadd_library(a ${SRC}/k.cu)\n'
    assert sources(upward) == [("source_unplaced", "k.cu")]


def test_a_back_end_listed_below_a_folder_variable_in_an_off_branch_is_optional(rulebase) -> None:
    data = report("cmake_folder_variable", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch WITH_CUDNN"]
    assert part["class"] == "migration-required"
    assert statuses(data, "src/backend/cudnn/device.cc") == {"optional"}
    assert statuses(data, "src/backend/cudnn/kernels.cu") == {"optional"}


def test_the_same_back_end_on_by_default_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited("cmake_folder_variable", tmp_path, "CMakeLists.txt", 'backend (GPU)" OFF)', 'backend (GPU)" ON)')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/backend/cudnn/device.cc") == {""}
