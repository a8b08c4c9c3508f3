"""Session 33, opt33d (issue 28 pattern 1): the CUDA_STANDARD / CUDA_STANDARD_REQUIRED target properties are read only
by a target's CUDA sources; where every CUDA source is built under an optional switch they go with it
(rules/workloads/optional.yaml compile_pass.target_properties; fixture cut from nv-legate/legate-sparse; near miss:
the CUDA source listed outside the switch)."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import copied_tree, scan_tree
from tests.test_optional_parts import CASES, report, statuses_of

CASE = "cmake_cuda_target_properties"


def test_cuda_target_properties_go_with_the_switch_every_cuda_source_is_under(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses_of(data, "CMakeLists.txt") == {"optional"}


def test_with_a_cuda_source_in_the_default_build_the_properties_stay_required(tmp_path: Path, rulebase) -> None:
    # the default build compiles CUDA: the language is on in project() (a .cu file is compiled only where CUDA is
    # enabled; docs/decisions/2026-12-08-s35-cuda-a-cmake-build-compiles-only-on-request.md)
    tree = copied_tree(CASES / CASE, tmp_path, [("CMakeLists.txt", "list(APPEND sparse_SOURCES src/unzip_rect.cc)",
                                                 "list(APPEND sparse_SOURCES src/unzip_rect.cc src/unzip_rect.cu)"),
                                                ("CMakeLists.txt", "project(sparse LANGUAGES C CXX)",
                                                 "project(sparse LANGUAGES C CXX CUDA)")])
    data = scan_tree(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert {f["status"] for f in data["findings"] if f["symbol"].startswith("CUDA_STANDARD")} == {""}
