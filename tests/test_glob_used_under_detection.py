"""A glob outside every branch whose variable only targets inside one switch's branches read
(`file(GLOB_RECURSE CUDA_SOURCES src/*.cu)`, `add_executable(cfd3d ${SOURCES} ${CUDA_SOURCES})` under
`if(${CUDAToolkit_FOUND})`): the files go with that branch. Fixture cut from chrismile/cfd3d (its README); the near
miss reads the variable outside the branches too."""
from __future__ import annotations

from pathlib import Path

from migrate.extract.text import cmakelists
from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import report, scanned

CASE = "cmake_glob_used_under_detection"
KERNEL = "src/CfdSolver/Cuda/BoundaryValuesCuda.cu"


def test_the_uses_of_a_globbed_variable_are_facts() -> None:
    text = b"file(GLOB K src/*.cu)\nset(X ${K})\nif(A)\n  add_library(k ${K} ${OTHER})\nendif()\n"
    found = [(f.name, f.line, f.text) for f in cmakelists.extract(text).facts if f.kind == "source_variable_use"]
    assert found == [("K", 2, "set"), ("K", 4, "add_library")]


def test_a_glob_only_detection_branches_read_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, KERNEL) == {"optional"}


def test_a_glob_a_target_outside_the_branches_reads_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "CMakeLists.txt", "include_directories(src)\n",
                  "include_directories(src)\nadd_library(cfd3d_gpu ${CUDA_SOURCES})\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}
