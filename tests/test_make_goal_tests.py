"""Branches only a goal named on make's command line takes (`ifneq (,$(filter $(MAKECMDGOALS),optix))`): a plain
`make` leaves MAKECMDGOALS empty, so what such a branch adds is an optional part, with the stems its assignments
name and the `-DX` it passes; and a .cu file included only by sources no build compiles goes with them. Fixture cut
from fangq/mmc 4cefc497 (its README); each near miss puts the part back in the default build."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.text import buildfiles
from migrate.extract.text.make_goal_tests import asked_goals
from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned

CASE = "make_goal_branch"
OPTIX = ("src/mmc_optix_host.cpp", "src/mmc_optix_utils.cpp", "src/mmc_optix_utils.h")


def test_a_branch_only_a_named_goal_takes_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["make goal optix of src/Makefile"]
    assert part["class"] == "incompatible"
    assert part["evidence"][0] == ("src/Makefile:13: a branch taken only when make's command line names optix "
                                   "(MAKECMDGOALS); `make` alone names no goal")
    for path in (*OPTIX, "src/Makefile"):
        assert statuses(data, path) == {"optional"}, path


def test_a_cu_file_included_only_by_unbuilt_code_goes_with_it(rulebase) -> None:
    data = report(CASE, rulebase)
    part = optional_parts(data)["src/mmc_optix_rand.cu (built by nothing)"]
    assert part["evidence"] == ["included only by sources no build compiles (src/mmc_optix_ray.h)"]
    assert statuses(data, "src/mmc_optix_rand.cu") == {"optional"}


def test_a_branch_the_default_run_takes_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "src/Makefile", "ifneq (,$(filter $(MAKECMDGOALS),optix))",
                  "ifneq ($(MAKECMDGOALS),clean)")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    for path in OPTIX:
        assert statuses(data, path) == {""}, path


def test_a_stem_the_default_run_names_too_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "src/Makefile", "FILES=mmc_host mmc_cl_host", "FILES=mmc_host mmc_cl_host mmc_optix_host")
    data = scanned(tree, rulebase)
    part = optional_parts(data)["make goal optix of src/Makefile"]
    assert "src/mmc_optix_host.cpp" not in part["files"]  # (its only function is called under `#ifdef USE_OPTIX`)
    assert "src/mmc_optix_utils.cpp" in part["files"]


def test_a_cu_file_a_built_source_includes_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "src/mmc_host.c", '#include "mmc_host.h"\n',
                  '#include "mmc_host.h"\n#include "mmc_optix_rand.cu"\n')
    data = scanned(tree, rulebase)
    assert statuses(data, "src/mmc_optix_rand.cu") == {""}


@pytest.mark.parametrize(("directive", "test", "goals"), [
    ("ifneq", "(,$(filter $(MAKECMDGOALS),optix optixmex))", ["optix", "optixmex"]),
    ("ifneq", "($(filter cuda,$(MAKECMDGOALS)),)", ["cuda"]),
    ("ifneq", "($(findstring gpu,${MAKECMDGOALS}),)", ["gpu"]),
    ("ifeq", "($(MAKECMDGOALS),lib)", ["lib"]),
    ("ifneq", "($(MAKECMDGOALS),clean)", []),  # true in a plain `make`
    ("ifeq", "(,$(filter $(MAKECMDGOALS),cuda))", []),  # true in a plain `make`
    ("ifneq", "(,$(filter $(TARGETS),cuda))", []),  # not the command line's goals
    ("ifneq", "(,$(filter $(MAKECMDGOALS),$(GPU_GOALS)))", []),  # goals this file cannot tell
])
def test_the_tests_that_hold_only_for_a_named_goal(directive: str, test: str, goals: list[str]) -> None:
    assert asked_goals(directive, test) == goals


def test_the_branch_ends_at_its_else_and_stems_are_its_own() -> None:
    text = (b"FILES = host\nifneq (,$(filter $(MAKECMDGOALS),cuda))\n  FILES += cu_host host\n  ifdef X\n  else\n"
            b"  endif\nelse\n  FILES += cl_host\nendif\n")
    facts = buildfiles.makefile(text).facts
    assert [(f.name, f.line, f.end_line, f.text) for f in facts if f.kind == "make_goal_test"] == [
        ("cuda", 2, 7, "cuda")]
    assert [(f.name, f.line) for f in facts if f.kind == "make_stem"] == [("cu_host", 3)]
