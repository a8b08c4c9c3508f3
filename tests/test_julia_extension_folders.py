"""Session 33, opt33a (issue 28 pattern 1): files a Julia package extension includes by literal paths (a subfolder of
ext/, `include(joinpath("cuda", "x.jl"))`) load only with the extension (julia_packages.extension_files; fixture cut
from CliMA/ClimaCore.jl, near misses: the package's own src/ includes the file too; the extension does not include it)."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.text import julia
from tests.conftest import copied_tree, scan_tree
from tests.test_optional_parts import CASES, report, statuses_of

CASE = "julia_extension_subfolder"
UTILS = "ext/cuda/cuda_utils.jl"


def test_a_file_only_the_extension_includes_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses_of(data, UTILS) == {"optional"}


@pytest.mark.parametrize(("path", "old", "new"), [
    # the package's own code includes the file too: every install loads it
    ("src/ClimaCoreLite.jl", 'include("DataLayouts.jl")\n',
     'include("DataLayouts.jl")\ninclude(joinpath("..", "ext", "cuda", "cuda_utils.jl"))\n'),
    # the extension does not include it: nothing says only the extension loads it
    ("ext/ClimaCoreLiteCUDAExt.jl", 'include(joinpath("cuda", "cuda_utils.jl"))\n', ""),
])
def test_a_file_the_package_loads_or_the_extension_does_not_stays_required(path: str, old: str, new: str,
                                                                          tmp_path: Path, rulebase) -> None:
    data = scan_tree(copied_tree(CASES / CASE, tmp_path, [(path, old, new)]), rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses_of(data, UTILS) == {""}


@pytest.mark.parametrize(("source", "name"), [
    ('include(joinpath("cuda", "adapt.jl"))', "cuda/adapt.jl"),
    ('include(joinpath(@__DIR__, "x.jl"))', "x.jl"),
    ("include(joinpath(@__DIR__, f))", ""),  # computed: any file
    ('include(joinpath(dir, "a.jl"))', ""),
])
def test_includes_of_joined_literals_name_their_path(source: str, name: str) -> None:
    assert [f.name for f in julia.extract(source.encode()).facts if f.kind == "julia_include"] == [name]
