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


def test_a_project_listing_many_names_is_read_in_bounded_time() -> None:
    """review23: 100,000 unplaceable items (`$(A)xN.cu`) against 300 `.cu` files compared every file with every item
    (1074 s on a 1.4 MB .vcxproj); names are looked up in a set and each file's part counted per folder once."""
    import time

    from migrate.model import Fact
    from migrate.workloads.reached_files import unlisted_by_vs_project

    items = [Fact(kind="vs_source", name=f"$(A)x{i}.cu", line=1, column=1, end_line=1, end_column=2, text="CudaCompile")
             for i in range(100000)]
    kinds = {"app.vcxproj": "vsproject", **{f"src/d{i % 30}/k{i}.cu": "cuda" for i in range(300)}}
    facts = {"app.vcxproj": items}
    started = time.process_time()
    found = unlisted_by_vs_project(facts, kinds)
    assert time.process_time() - started < 5
    assert len(found) == 300 and found["src/d0/k0.cu"][0] == "src/"  # every file unlisted: the whole folder
    listed = {"app.vcxproj": [*items[:10], Fact(kind="vs_source", name="src/d0/k0.cu", line=2, column=1, end_line=2,
                                                 end_column=2, text="CudaCompile")]}
    assert "src/d0/k0.cu" not in unlisted_by_vs_project(listed, kinds)
    assert unlisted_by_vs_project(listed, kinds)["src/d1/k1.cu"][0] == "src/d1/"  # a folder all unlisted
