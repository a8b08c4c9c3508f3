"""Session 33, opt33a (issue 28 pattern 1): a detection branch that only configures (`if(CMAKE_CUDA_COMPILER)`
enabling CUDA and setting a flag that later source lists read) beside an else() that only reports: the else says
nothing about a build without CUDA, so the detection stays an optional part (switches._builds; fixture cut from
singhpratech/duckdbgpumetaldbram, near miss: the branch adds the folder it builds)."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import copied_tree, scan_tree
from tests.test_optional_parts import CASES, optional_parts, report, statuses_of

CASE = "cmake_detection_flag_else_reports"
KERNEL = "src/backends/cuda/sum_kernel.cu"


def test_a_detection_that_only_sets_a_flag_is_optional_beside_a_reporting_else(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch CMAKE_CUDA_COMPILER"]
    assert part["class"] == "migration-required"
    assert statuses_of(data, KERNEL) == {"optional"}


def test_a_detection_branch_that_builds_beside_a_reporting_else_is_the_only_build(tmp_path: Path, rulebase) -> None:
    """WaveBlender's shape: the branch itself adds what it builds (here the folder), the else() only reports."""
    tree = copied_tree(CASES / CASE, tmp_path, [
        ("CMakeLists.txt", "\nadd_subdirectory(src)\n", "\n"),
        ("CMakeLists.txt", '        message(STATUS "CUDA enabled")\n',
         '        message(STATUS "CUDA enabled")\n        add_subdirectory(src)\n'),
    ])
    data = scan_tree(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses_of(data, KERNEL) == {""}
