"""Makefiles for an NVIDIA build beside plain ones of the same folder (`makefile.cuda` beside `makefile.nolibs`,
rules/workloads/alternatives.yaml `build_variants.define_kinds`): make reads one only when the user names it, so a
`-DX` only such variants pass is an opt-in, and the `#if defined(X)` code is an optional part. Fixture cut from
ritukeshbharali/falcon 7044f6ef (its README); each near miss puts the code back in the default build."""
from __future__ import annotations

import shutil
from pathlib import Path

from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import CASES, optional_parts, report, scanned

CASE = "make_variant_defines"
VARIANT = "build/ALL_MAKEFILES/makefile.cuda"
SOLVER = ("src/solvers/linear/cuDSSSolver.cpp", "src/solvers/linear/cuDSSSolver.h")


def test_a_macro_only_the_nvidia_makefile_defines_is_an_optional_part(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)[f"make -f {VARIANT}"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0].startswith(f"{VARIANT}: a makefile file for an NVIDIA build (cuda) beside "
                                          "makefile.extlibs, makefile.nolibs")
    assert sorted(part["files"]) == sorted(SOLVER)
    for path in SOLVER:
        assert statuses(data, path) == {"optional"}, path


def test_a_macro_a_plain_makefile_defines_too_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "build/ALL_MAKEFILES/makefile.nolibs", "MY_CXX_STD_FLAGS =\n",
                  "MY_CXX_STD_FLAGS = -DWITH_CUDSS\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    for path in SOLVER:
        assert statuses(data, path) == {""}, path


def test_a_makefile_another_one_includes_is_no_variant(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "build/ALL_MAKEFILES/makefile.nolibs", "include $(JIVEDIR)/makefiles/prog.mk\n",
                  "include $(JIVEDIR)/makefiles/prog.mk\ninclude makefile.cuda\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    for path in SOLVER:
        assert statuses(data, path) == {""}, path


def test_a_makefile_without_an_nvidia_word_is_no_variant(tmp_path: Path, rulebase) -> None:
    tree = tmp_path / CASE
    shutil.copytree(CASES / CASE, tree)
    (tree / VARIANT).rename(tree / "build/ALL_MAKEFILES/makefile.solvers")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    for path in SOLVER:
        assert statuses(data, path) == {""}, path
