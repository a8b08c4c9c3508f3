"""A GPU switch a function hands up from a package it finds (`set(Legion_USE_CUDA ${Legion_USE_CUDA} PARENT_SCOPE)`
after `rapids_find_package(legate ...)`): the installed package's setting, not the option's ON default
(extract/text/cmakelists.py `switch_from_package`, workloads/switches.from_found_packages), and the project's own
cmake/thirdparty/ of CMake scripts is read (scan/vendored.own_build_scripts). Fixture cut from nv-legate/legate-sparse
49271fa8 (its README); each near miss keeps the CUDA sources required."""
from __future__ import annotations

from pathlib import Path

from migrate.extract.text.cmakelists import extract
from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned

CASE = "switch_from_found_package"
SCRIPT = "cmake/thirdparty/get_legate.cmake"


def _handed_up(text: str) -> list[tuple[str, int, str]]:
    return [(f.name, f.line, f.text) for f in extract(text.encode()).facts if f.kind == "switch_from_package"]


def test_a_value_handed_up_after_a_find_is_a_fact() -> None:
    assert _handed_up("function(get_x)\n  find_package(x CONFIG QUIET)\n  set(X_USE_CUDA ${X_USE_CUDA} PARENT_SCOPE)\n"
                      "  set(out ${X_USE_CUDA} PARENT_SCOPE)\nendfunction()\n") == [("X_USE_CUDA", 3, "x get_x")]
    assert _handed_up("function(get_x)\n  set(X_USE_CUDA ${X_USE_CUDA} PARENT_SCOPE)\nendfunction()\n") == []
    assert _handed_up("find_package(x)\nset(X_USE_CUDA ${X_USE_CUDA} PARENT_SCOPE)\n") == []  # no function


def test_a_cuda_switch_the_found_package_sets_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["skipped"] == []
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch Legion_USE_CUDA"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0] == (
        f"{SCRIPT}:8 set(Legion_USE_CUDA ${{Legion_USE_CUDA}} PARENT_SCOPE) after find_or_configure_legate() finds "
        "legate: the installed legate's setting, built without CUDA where NVIDIA's toolkit is not; read as default OFF")
    assert statuses(data, "src/sparse/spmv.cu") == {"optional"}


def test_a_function_that_hands_nothing_up_leaves_the_option_on(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, SCRIPT, "  set(Legion_USE_CUDA ${Legion_USE_CUDA} PARENT_SCOPE)\n", "")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/sparse/spmv.cu") == {""}


def test_a_value_handed_up_without_a_find_is_the_option(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, SCRIPT, "  rapids_find_package(legate ${PKG_VERSION} EXACT CONFIG QUIET "
                  "GLOBAL_TARGETS legate::legate)\n", "")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"


def test_a_thirdparty_folder_with_sources_is_a_copy(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "README.md", "A Legate", "A Legate")
    (tree / "cmake" / "thirdparty" / "legate.c").write_text("int legate_version(void) { return 25; }\n")
    data = scanned(tree, rulebase)
    assert data["skipped"] == [{"path": "cmake/thirdparty/", "reason": "vendored or build directory (use "
                                "--include-vendored)"}]
    assert data["summary"]["class"] == "migration-required"
