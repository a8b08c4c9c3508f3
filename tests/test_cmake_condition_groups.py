"""An if() condition with a parenthesized group is read at its top level: `if (BUILD_NVIDIA AND (A OR B))` is taken
only where BUILD_NVIDIA is on (luminousmining/miner sources/CMakeLists.txt:4; https://cmake.org/cmake/help/latest/
command/if.html#condition-syntax: a group is evaluated first, as one operand). Fixture cut from the miner (its
README); the near miss puts an OR at the top level, where no one switch decides."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.text import cmakelists
from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import report, scanned

CASE = "cmake_condition_group"
KERNEL = "sources/algo/ethash/cuda/ethash.cu"


@pytest.mark.parametrize(("condition", "switches"), [
    ("BUILD_NVIDIA AND (BUILD_EXE_MINER OR BUILD_EXE_UNIT_TEST)", ["BUILD_NVIDIA"]),
    ("(A OR B) AND USE_CUDA", ["USE_CUDA"]),
    ("NOT (A AND B) AND USE_X", ["USE_X"]),
    ("(USE_CUDA)", ["USE_CUDA"]),  # one group around everything: read as before
    ("USE_CUDA OR (A AND B)", []),  # an OR at the top level
    ("USE_CUDA AND NOT (WIN32 OR APPLE)", ["USE_CUDA"]),
])
def test_the_top_level_of_a_grouped_condition(condition: str, switches: list[str]) -> None:
    text = f"if ({condition})\n  add_library(x a.cu)\nendif()\n".encode()
    found = [f.name for f in cmakelists.extract(text).facts if f.kind == "switch_branch"]
    assert found == switches


def test_a_library_behind_a_switch_and_a_group_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    parts = [p for w in data["workloads"] for p in w["optional_parts"] if p["root"] == "build switch BUILD_NVIDIA"]
    assert "migration-required" in {p["class"] for p in parts}
    assert statuses(data, KERNEL) == {"optional"}


def test_an_or_at_the_top_level_is_no_one_switch(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "sources/CMakeLists.txt", "if (BUILD_NVIDIA AND (", "if (BUILD_NVIDIA OR (")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}
