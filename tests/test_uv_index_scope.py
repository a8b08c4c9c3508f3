"""A uv package index that only extras install from (fixtures/workloads/optional/uv_index_*): an `explicit = true`
index serves only the packages [tool.uv.sources] pins to it; where none of them is in a plain install, or each is
pinned to it only for an extra, the default install never reads it and its CUDA wheels are an optional part."""
from __future__ import annotations

import pytest
from migrate.extract.text.pyproject import extract
from tests.test_optional_parts import report


def _index_status(data: dict) -> set[str]:
    return {f["status"] for f in data["findings"] if f["rule"] == "HIP7004" and f["path"] == "pyproject.toml"}


@pytest.mark.parametrize("case", ["uv_index_for_extras", "uv_index_per_extra"])
def test_an_explicit_index_only_extras_read_is_optional(case: str, rulebase) -> None:
    data = report(case, rulebase)
    assert _index_status(data) == {"optional"}
    assert data["summary"]["class"] == "native"


def test_an_explicit_index_a_plain_install_reads_is_required(rulebase) -> None:
    data = report("uv_index_for_extras_near", rulebase)
    assert _index_status(data) == {""}
    assert data["summary"]["class"] == "minor-adaptation"


@pytest.mark.parametrize(("index", "sources", "optional"), [
    ('name = "cu"\nurl = "https://download.pytorch.org/whl/cu124"\nexplicit = true\n', 'torch = { index = "cu" }', True),
    # not explicit: uv reads it for every package (https://docs.astral.sh/uv/concepts/indexes/)
    ('name = "cu"\nurl = "https://download.pytorch.org/whl/cu124"\n', 'torch = { index = "cu" }', False),
    # explicit, but no source names it: not read by extras alone either; left as it was
    ('name = "cu"\nurl = "https://download.pytorch.org/whl/cu124"\nexplicit = true\n', "", False),
])
def test_which_index_is_scoped_to_extras(index: str, sources: str, optional: bool) -> None:
    text = (f'[project]\nname = "x"\ndependencies = ["numpy"]\n[project.optional-dependencies]\ngpu = ["torch"]\n'
            f"[tool.uv.sources]\n{sources}\n[[tool.uv.index]]\n{index}")
    guards = {f.guard for f in extract(text.encode()).facts if f.name.startswith("index:")}
    assert guards == ({"optional"} if optional else {None})
