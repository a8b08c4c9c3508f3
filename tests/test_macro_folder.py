"""Files no workload claims are grouped by top folder (workloads/assemble.py `_leftovers`); a top folder of autoconf
macro files only (an m4/ beside configure.ac, as in cr-marcstevens/hashclash: m4/ax_cuda.m4, m4/ax_boost_base.m4 ...)
is configure code of the project at the root, not a workload of its own. Near misses: a folder that also holds code
stays its own workload, and with no root group to join the macro folder is left as it is."""
from __future__ import annotations

from pathlib import Path

from migrate.model import SourceFile
from migrate.workloads.assemble import workloads


def groups(files: dict[str, str]) -> dict[str, list[str]]:
    sources = [SourceFile(path=Path(rel), rel=rel, kind=kind, size=1) for rel, kind in files.items()]
    return {spec.root: spec.files for spec in workloads(sources, {}, root_name="hashclash")}


# the layout of cr-marcstevens/hashclash's top level (no Makefile: Makefile.am is automake's input)
HASHCLASH = {"configure.ac": "autoconf", "build.sh": "shell", "m4/ax_cuda.m4": "m4", "m4/ax_boost_base.m4": "m4",
             "src/md5birthdaysearch/cuda_cyclicbuffer.cu": "cuda", "src/md5birthdaysearch/main.cpp": "cpp"}


def test_a_folder_of_macro_files_only_joins_the_root_group() -> None:
    found = groups(HASHCLASH)
    assert "m4" not in found
    assert {"m4/ax_boost_base.m4", "m4/ax_cuda.m4"} <= set(found["."])


def test_a_macro_folder_that_holds_code_stays_a_workload() -> None:
    found = groups({**HASHCLASH, "m4/probe.c": "c"})
    assert found["m4"] == ["m4/ax_boost_base.m4", "m4/ax_cuda.m4", "m4/probe.c"]


def test_with_no_root_group_the_macro_folder_stays_as_it_is() -> None:
    found = groups({p: k for p, k in HASHCLASH.items() if "/" in p})
    assert found["m4"] == ["m4/ax_boost_base.m4", "m4/ax_cuda.m4"]
