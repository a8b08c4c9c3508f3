"""Session 33, opt33a (issue 28 pattern 1): a header included by an option's CUDA sources and by a source no build
compiles goes with the option's part (includes.gate_headers `unbuilt`; fixture cut from nv-legate/legate-sparse,
near misses: a built source outside the option includes it too; the left-out source named by the default list)."""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import copied_tree, scan_tree
from tests.test_optional_parts import CASES, report, statuses_of

CASE = "cmake_header_of_unbuilt_includer"
HEADER = "src/util/cuda_help.h"


def test_an_include_from_a_source_no_build_compiles_leaves_the_header_to_the_option(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses_of(data, HEADER) == {"optional"}
    assert statuses_of(data, "src/array/scale_rect.cu") == {"optional"}


@pytest.mark.parametrize(("path", "old", "new"), [
    # a CPU source of the default build includes the header: it is in that build
    ("src/array/unzip_rect.cc", "#include <cstddef>\n", '#include <cstddef>\n#include "../util/cuda_help.h"\n'),
    # the default list names scale_rect.cu: it is built, and its include with it
    ("CMakeLists.txt", "  src/array/zip_to_rect.cc\n)", "  src/array/zip_to_rect.cc\n  src/array/scale_rect.cu\n)"),
])
def test_a_built_includer_outside_the_option_keeps_the_header_required(path: str, old: str, new: str,
                                                                      tmp_path: Path, rulebase) -> None:
    edits = [(path, old, new)]
    if path.endswith(".txt"):  # a .cu file is compiled only where CUDA is enabled: the default build enables it
        edits.append(("CMakeLists.txt", "project(sparse LANGUAGES C CXX)", "project(sparse LANGUAGES C CXX CUDA)"))
    data = scan_tree(copied_tree(CASES / CASE, tmp_path, edits), rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses_of(data, HEADER) == {""}
