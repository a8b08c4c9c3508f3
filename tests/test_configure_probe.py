"""Session 33, opt33d (issue 28 pattern 1): a source only try_run()/try_compile() names is a configure probe, not code
of the default build (workloads/configure_probes.py; fixture cut from isce-framework/isce3's DetectDevices.cu; near
miss: a target of the default build lists the same file)."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import copied_tree, scan_tree
from tests.test_optional_parts import CASES, report, statuses_of

CASE = "cmake_configure_probe"
PROBE = ".cmake/DetectDevices.cu"


def test_a_source_only_try_run_compiles_is_a_configure_probe(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses_of(data, PROBE) == {"optional"}
    assert statuses_of(data, "src/cuda/Device.cu") == {"optional"}


def test_a_probe_source_a_default_target_lists_stays_required(tmp_path: Path, rulebase) -> None:
    tree = copied_tree(CASES / CASE, tmp_path, [("CMakeLists.txt", "add_library(isce3 src/core/Basis.cpp)",
                                                 "add_library(isce3 src/core/Basis.cpp .cmake/DetectDevices.cu)")])
    data = scan_tree(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses_of(data, PROBE) == {""}
