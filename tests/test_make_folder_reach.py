"""A folder with a Makefile of its own that the top Makefile's default build never runs make in (issue 28, "an optional
part read as required"; the make analogue of a CMake folder no add_subdirectory reaches, workloads/reach.py). The
fixture is cut from jasonimercer/maglua (its README says where); each near miss has the default build reach the CUDA
folder, or leaves the tool unable to tell, and the CUDA code is then required."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.text import buildfiles
from tests.conftest import copied_tree
from tests.test_opt_in_build_graph import edited, statuses
from tests.test_optional_parts import CASES, report, scanned

CASE = "make_folder_not_entered"
KERNEL = "src/modules/cuda/anisotropy_cuda/spinoperationanisotropy.cu"
FRAGMENT = "src/makefile.common.gpu"


def entered(text: str) -> list[tuple[str, str, str]]:
    return [(f.name, f.text, f.role) for f in buildfiles.makefile(text.encode()).facts if f.kind == "make_enters"]


def test_the_folders_a_recipe_runs_make_in() -> None:
    assert entered("all: x\nx:\n\tcd src && $(MAKE)\n\t$(MAKE) --directory=gpu/ lib\n\tmake -f lib/Makefile\n"
                   "clean:\n\tmake -C src clean\n") == [
        (".", "", "default"), ("src", "", "default"), ("gpu", "lib", "default"), ("lib", "", "default"),
        ("src", "clean", "")]
    assert entered("all:\n\t@for d in $(DIRS); do (make -C $$d); done\n") == [(".", "", "default"), ("*", "", "default")]
    assert entered("all:\n\t@echo 'make -C cuda'\n") == []  # a message builds nothing: no default build to read


def test_cuda_modules_the_default_build_never_enters_are_optional(rulebase) -> None:
    """maglua: the top runs `make -C src`; src/Makefile enters src/modules/cuda only in `distclean`."""
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, KERNEL) == {"optional"}
    assert statuses(data, FRAGMENT) == {"optional"}  # included only by the unreached module Makefiles


@pytest.mark.parametrize(("path", "old", "new"), [
    # src/Makefile builds the CUDA modules in a goal that is not a cleaning one (its default goal cannot be read:
    # a file is included before its first rule, so every recipe of it counts)
    ("src/Makefile", "make -C modules/cuda distclean", "make -C modules/cuda"),
    # a goal of the top other than the default builds the CUDA module (a Makefile of tasks: `make cuda`; voschezang/
    # Holographic-Projector-Simulations' top Makefile, default goal `jupyter:`, `build:` running `make -C cuda build`)
    ("Makefile", "clean:\n", "cuda:\n\tmake -C src/modules/cuda/anisotropy_cuda\n\nclean:\n"),
    # the top builds in its own folder and enters none: src/ beside it may be a project of its own (paul1106/SMD-CUDA:
    # the top Makefile builds the CPU baseline, cuda/ beside it the CUDA port, the project's point)
    ("Makefile", "\tmake -C src", "\tg++ -o maglua src/main.cpp"),
    # the top runs make in a folder a variable names: what the default build reaches is not known
    ("Makefile", "\tmake -C src\n", "\tfor d in $(DIRS); do make -C $$d; done\n"),
])
def test_cuda_modules_the_default_build_may_enter_are_required(tmp_path: Path, rulebase, path: str, old: str,
                                                             new: str) -> None:
    data = scanned(edited(CASE, tmp_path, path, old, new), rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "" in statuses(data, KERNEL)


def test_another_build_beside_the_top_makefile_says_nothing(tmp_path: Path, rulebase) -> None:
    tree = copied_tree(CASES / CASE, tmp_path)
    (tree / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(maglua CXX)\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "" in statuses(data, KERNEL)


def test_a_makefile_the_top_includes_is_reached(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "Makefile", "\trm -f ${BIN}\n", "\trm -f ${BIN}\n\ninclude src/modules/cuda/Makefile\n")
    data = scanned(tree, rulebase)
    assert "" in statuses(data, KERNEL)


def test_many_makefile_folders_are_read_in_linear_time() -> None:
    """Each folder's components are looked up by its own prefixes, not against every folder the build enters: 20,000
    entered folders, each with an unentered one below, took 35 s when each looked at all the others."""
    import time

    from migrate.model import Fact
    from migrate.workloads.reach import unreached

    def enters(name: str, role: str = "") -> Fact:
        return Fact(kind="make_enters", name=name, line=1, column=0, end_line=1, end_column=0, role=role)

    n = 20_000
    facts = {"Makefile": [enters(".", "default"), *(enters(f"c{i}") for i in range(n))]}
    kinds = {"Makefile": "makefile", **{f"c{i}/{sub}Makefile": "makefile" for i in range(n) for sub in ("", "sub/")}}
    start = time.monotonic()
    found = unreached(facts, kinds)
    assert time.monotonic() - start < 10
    assert sorted(found) == sorted(f"c{i}/sub/Makefile" for i in range(n))
    assert found["c7/sub/Makefile"][0] == "c7/sub/"


def test_the_top_makefile_is_the_one_make_reads_first() -> None:
    """`make` reads GNUmakefile, makefile and Makefile in that order
    (https://www.gnu.org/software/make/manual/html_node/Makefile-Names.html): beside a Makefile, `makefile` is the one
    whose default goal counts."""
    from migrate.model import Fact
    from migrate.workloads.reach import unreached

    def enters(name: str, role: str = "") -> Fact:
        return Fact(kind="make_enters", name=name, line=1, column=0, end_line=1, end_column=0, role=role)

    kinds = dict.fromkeys(("Makefile", "makefile", "c0/Makefile", "c0/sub/Makefile"), "makefile")
    found = unreached({"makefile": [enters(".", "default"), enters("c0")], "Makefile": []}, kinds)
    assert sorted(found) == ["c0/sub/Makefile"]
    assert "no recipe of the top makefile" in found["c0/sub/Makefile"][1]
    # a GNUmakefile comes first: one whose default goal cannot be read says nothing
    assert unreached({"makefile": [enters(".", "default"), enters("c0")]}, {**kinds, "GNUmakefile": "makefile"}) == {}


def test_a_make_call_names_only_its_own_goals() -> None:
    """Bug: each call's goals were read from the rest of the line, past `;`/`&&` and later make calls, so `cuda` here
    was entered for `clean` (a cleaning call, which reach skips) rather than for its default goal."""
    from migrate.extract.text.make_goals import _entered

    assert _entered("cd cuda && $(MAKE) ; $(MAKE) -C docs clean") == [("cuda", ""), ("docs", "clean")]
    assert _entered("$(MAKE) -C src all CC=make && cd gpu; make install") == [("gpu", "install"), ("src", "all")]


def test_a_recipe_line_of_many_make_calls_is_read_in_linear_time() -> None:
    """`make -C a ` 200 times (2 kB) took 224 s: every option re-read the rest of the line's calls."""
    import time

    from migrate.extract.text.make_goals import _entered

    started = time.perf_counter()
    entered = _entered("make -C a " * 20_000)
    assert time.perf_counter() - started < 10
    assert entered == [("a", "")] * 20_000
