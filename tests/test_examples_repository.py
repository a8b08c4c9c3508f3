"""A repository whose code is all examples (notebooks/, examples/): the files without code beside them (a shell
script, a requirements or container file) serve the examples and are optional with them, so the summary judges
the examples (docs/decisions/2026-12-07-s29-helper-files-of-an-examples-repository.md)."""
from __future__ import annotations

from tests.test_optional_parts import report


def _workloads(data: dict) -> dict[str, tuple[str, bool]]:
    return {w["root"]: (w["class"], w["optional"]) for w in data["workloads"]}


def test_a_helper_script_beside_example_notebooks_goes_with_them(rulebase) -> None:
    """cuOpt-Resources: print_env.sh (nvidia-smi) at the top, cuOpt notebooks below, no code of its own."""
    data = report("examples_repository_helper", rulebase)
    assert _workloads(data) == {".": ("minor-adaptation", True), "notebooks/routing": ("incompatible", True)}
    assert data["summary"]["class"] == "incompatible"


def test_code_of_the_projects_own_keeps_the_examples_optional(rulebase) -> None:
    """The same with a module at the top: the project has required code, the notebooks stay examples."""
    data = report("examples_repository_helper_near", rulebase)
    assert _workloads(data) == {".": ("minor-adaptation", False), "notebooks/routing": ("incompatible", True)}
    assert data["summary"]["class"] == "minor-adaptation"
