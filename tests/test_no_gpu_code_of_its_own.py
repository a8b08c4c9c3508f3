"""Session 25, nogpu (issue 28): projects with no GPU code of their own, read from what only names a GPU
(docs/decisions/2026-12-06-s25-no-gpu-code-of-its-own.md; fixtures cut from the real cases, each with a near miss)."""
from __future__ import annotations

from pathlib import Path

from tests.test_optional_parts import scanned

WORKLOADS = Path(__file__).resolve().parent.parent / "fixtures" / "workloads"


def _rules_at(data: dict) -> set[tuple[str, int, str]]:
    return {(f["path"], f["line"], f["rule"]) for f in data["findings"]}


def test_an_include_that_resolves_to_the_projects_own_header_is_not_cudas(rulebase) -> None:
    """steam-audio: core/src/core/math_functions.h is the library's maths header, included beside it ("...") and
    on the include path (<...>); it holds no CUDA, so neither include is CUDA's math_functions.h."""
    data = scanned(WORKLOADS / "own_header", rulebase)
    assert data["findings"] == []
    assert data["summary"]["class"] == "native"


def test_a_cuda_header_no_project_file_is_named_like_or_a_copy_with_cuda_code_stays(rulebase) -> None:
    data = scanned(WORKLOADS / "own_header_near", rulebase)
    assert _rules_at(data) == {("src/main.cpp", 3, "HIP0002"), ("src/main.cpp", 4, "HIP0002"),
                               ("include/vector_types.h", 3, "HIP0001")}
    assert data["summary"]["class"] == "migration-required"
