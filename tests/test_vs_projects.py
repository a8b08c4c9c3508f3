"""Visual Studio project files (fixtures/workloads/vs_unlisted, through the real CLI): a C/C++/CUDA file below a
folder with a `.vcxproj`/`.vcproj` that no project lists and no listed file includes is not built (a copy of the CUDA
wizard's template, precision sample 18); a listed file, or one with another build file beside it, keeps its reading."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest
from migrate.extract.text.vsproject import extract
from tests.conftest import ROOT, run_cli

CASE = ROOT / "fixtures" / "workloads" / "vs_unlisted"


@pytest.fixture(scope="module")
def statuses() -> dict[str, set[str]]:
    result = run_cli("scan", str(CASE), "--format", "json", "--no-cache", "--no-hipify")
    assert result.returncode in (0, 1), result.stderr
    out: dict[str, set[str]] = defaultdict(set)
    for finding in json.loads(result.stdout)["findings"]:
        out[finding["path"]].add(finding["status"] or "required")
    return out


def test_a_cuda_file_no_project_lists_is_not_built(statuses: dict[str, set[str]]) -> None:
    assert statuses["wizard/Copy/kernel.cu"] == {"optional"}
    assert statuses["wizard/Copy/kernel_copy1.cu"] == {"required"}  # RelativePath=".\kernel_copy1.cu"


@pytest.mark.parametrize("path", ["listed/Sum/sum_kernel.cu", "cmake_beside/Scan/scan_extra.cu",
                                  "sibling_cmake/src/linux_only.cu"])  # a sibling folder's CMake glob compiles it
def test_a_listed_file_or_one_another_build_may_compile_stays_required(statuses: dict[str, set[str]], path: str) -> None:
    assert statuses[path] == {"required"}


@pytest.mark.parametrize(("text", "listed"), [
    ('<File\n\tRelativePath=".\\src\\k.cu"\n\t>', [("src/k.cu", 2, "File")]),
    ('<CudaCompile Include="a.cu;..\\b.cu" />', [("a.cu", 1, "CudaCompile"), ("../b.cu", 1, "CudaCompile")]),
    ('<ClCompile Include="$(SolutionDir)x.cpp">', [("$(SolutionDir)x.cpp", 1, "ClCompile")]),
    ('<ProjectReference Include="..\\lib\\lib.vcxproj" />', []),  # a project, not a file it builds
])
def test_the_extractor_reads_every_listed_item(text: str, listed: list[tuple[str, int, str]]) -> None:
    assert [(f.name, f.line, f.text) for f in extract(text.encode()).facts] == listed


def test_a_file_no_project_and_no_other_build_names_is_not_built(statuses: dict[str, set[str]]) -> None:
    assert statuses["sibling_cmake/src/old/draft.cu"] == {"optional"}  # not matched by the sibling's ../src/*.cu
