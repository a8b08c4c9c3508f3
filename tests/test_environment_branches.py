"""`if(DEFINED ENV{X})` branches that only set CMake's own variables (CMAKE_CUDA_COMPILER, CMAKE_CUDA_ARCHITECTURES)
or print: they pick how the compiler runs and add no part (fixture cut from TornadoVM's CUTLASS bridge, its README).
The near miss adds a source in the branch: then the branch is code the user's environment turns on."""
from __future__ import annotations

from pathlib import Path

from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned

CASE = "cmake_environment_compiler_only"


def at(data: dict, line: int) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == "CMakeLists.txt" and f["line"] == line}


def test_a_branch_that_only_configures_the_compiler_is_no_part(rulebase) -> None:
    data = report(CASE, rulebase)
    assert not [root for root in optional_parts(data) if "ENV{" in root]
    assert at(data, 5) == {""}  # set(CMAKE_CUDA_COMPILER "$ENV{CUDA_PATH}/bin/nvcc")
    assert at(data, 12) == at(data, 15) == {""}  # CMAKE_CUDA_ARCHITECTURES from the environment, and its else()


def test_a_branch_that_adds_a_source_is_a_switch(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "CMakeLists.txt", '    message(STATUS "CUDA_ARCH from the environment: $ENV{CUDA_ARCH}")\n',
                  "    list(APPEND EXTRA_SOURCES src/sm90.cu)\n")
    (tree / "src" / "sm90.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(float* x) { x[0] = 1.f; }\n")
    data = scanned(tree, rulebase)
    assert "build switch DEFINED ENV{CUDA_ARCH}" in optional_parts(data)
    assert at(data, 12) == {"optional"}
    assert statuses(data, "src/tornado-cutlass.cu") == {""}
