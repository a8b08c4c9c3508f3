"""What the default build reaches (issue 28): a part is optional when the project's default build does not reach it.
make's default goal and what its prerequisites reach; a CMake generator expression for CUDA sources over several
lines; a finding that holds only on some GPU targets in host code of a project whose every CUDA compile is optional;
a branch on a variable a dependency's package sets (never the project); a testsuite/ folder. Each fixture is cut from
a real case (its README says where); each near miss puts the part back in the default build, and it is then required."""
from __future__ import annotations

import shutil
from pathlib import Path

from migrate.extract.text import buildfiles, cmakelists
from tests.test_optional_parts import CASES, optional_parts, report, scanned


def statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def edited(case: str, tmp_path: Path, path: str, old: str, new: str) -> Path:
    tree = tmp_path / case
    if not tree.exists():
        shutil.copytree(CASES / case, tree)
    text = (tree / path).read_text()
    assert old in text
    (tree / path).write_text(text.replace(old, new))
    return tree


MAKEFILE = "src/solver/Makefile"


def test_a_goal_outside_makes_default_goal_is_optional(rulebase) -> None:
    """Cuckoo Cycle: `all : simpletest meantest` builds the CPU solvers; only `make cuda29` builds mean.cu."""
    data = report("make_goal_outside_default", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)[f"make goal cuda29 of {MAKEFILE}"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0] == (f"{MAKEFILE}: make's default goal `all` (line 9) does not reach `cuda29`; "
                                   "only `make cuda29` builds it")
    for path in ("src/solver/mean.cu", "src/solver/kernel.cuh"):
        assert statuses(data, path) == {"optional"}, path
    assert statuses(data, MAKEFILE) == {"optional"}  # `NVCC ?= nvcc` (used only by cuda29's recipe) and -arch


def test_a_goal_the_default_goal_reaches_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited("make_goal_outside_default", tmp_path, MAKEFILE, "all : simpletest meantest # cudatest",
                  "all : simpletest meantest cuda29")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/solver/mean.cu") == {""}


def test_a_goal_another_makefile_asks_for_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited("make_goal_outside_default", tmp_path, "src/Makefile", "\t$(MAKE) -C $@", "\t$(MAKE) -C $@ all cuda29")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"


def test_a_default_goal_that_builds_nothing_says_nothing() -> None:
    """NVlabs/CGBN samples: the first rule `pick:` only prints which `make <arch>` to run; every goal builds CUDA."""
    text = b"pick:\n\t@echo Please run one of the following:\n\t@echo \"   make ampere\"\n\nampere:\n\tnvcc -o add add.cu\n"
    facts = buildfiles.makefile(text).facts
    assert not [f for f in facts if f.kind in ("make_goal_only", "make_call")]


def test_the_default_goal_is_read_as_make_reads_it() -> None:
    text = (b"include config.mk\nall: a\na: a.cpp\n\tg++ a.cpp\ngpu: g.cu\n\tnvcc g.cu\n", b"all: $(OBJS)\n\tg++ x.cpp\n"
            b"gpu: g.cu\n\tnvcc g.cu\n", b".PHONY: all\n.DEFAULT_GOAL := gpu\nall: a.cpp\n\tg++ a.cpp\ngpu: g.cu\n\tnvcc g.cu\n",
            b"%.o: %.cu\n\tnvcc -c $<\nall: a.cpp\n\tg++ a.cpp\ngpu: g.o\n\tnvcc g.o\n")
    found = [[(f.name, f.line, f.end_line) for f in buildfiles.makefile(t).facts if f.kind == "make_goal_only"]
             for t in text]
    # an include before the first rule may hold the default goal; a variable the file does not set may name any
    # target; .DEFAULT_GOAL picks the goal; a pattern rule is no default goal
    assert found == [[], [], [("all", 3, 4)], [("gpu", 5, 6)]]


def test_a_generator_expression_is_read_over_its_lines() -> None:
    """mlx/CMakeLists.txt:68-69: `$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/wd4244` / `-Xcompiler=/wd4267>)`."""
    text = (b"target_compile_options(\n  mlx PUBLIC $<$<COMPILE_LANGUAGE:CXX>:/wd4244 /wd4267>\n"
            b"  PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/wd4244\n  -Xcompiler=$<IF:$<BOOL:X>,/a,/b>>)\n")
    found = [(f.name, f.line, f.end_line) for f in cmakelists.extract(text).facts if f.kind == "cmake_genex"]
    assert found == [("COMPILE_LANGUAGE:CXX", 2, 2), ("COMPILE_LANGUAGE:CUDA", 3, 4)]
