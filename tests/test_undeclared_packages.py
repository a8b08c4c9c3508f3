"""Session 22, pyreach (issue 28): what a default run of a Python package reaches. A GPU package the project's declared
dependencies do not bring (rules/workloads/installs.yaml) runs only where the user installs it: an import of it in a
function or branch, or at the top of a package module nothing imports at load time, is an optional part
(migrate/workloads/undeclared.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.model import Fact
from migrate.workloads.undeclared import load, undeclared_scopes
from tests.test_optional_parts import _copy, optional_parts, report, scanned

CASE = "undeclared_backend_package"
GPU = "src/qibojit/backends/gpu.py"
CLIFFORD = "src/qibojit/backends/clifford_operations_gpu.py"


def _import(name: str, line: int, role: str = "", guard: str | None = None) -> Fact:
    return Fact(kind="python_import", name=name, line=line, column=1, end_line=line, end_column=10, role=role,
                guard=guard)


def _requirement(name: str, guard: str | None = None) -> Fact:
    return Fact(kind="requirement", name=name, line=1, column=1, end_line=1, end_column=10, guard=guard)


KINDS = {"pyproject.toml": "pyproject", "pkg/__init__.py": "python", "pkg/gpu.py": "python", "pkg/ops.py": "python"}


def _facts(*, requirements: list[Fact], gpu: list[Fact], init: list[Fact] | None = None) -> dict[str, list[Fact]]:
    return {"pyproject.toml": requirements, "pkg/__init__.py": init or [], "pkg/gpu.py": gpu, "pkg/ops.py": []}


@pytest.mark.parametrize(("requirement", "undeclared"), [
    ("numba", True), ("cupy", False), ("cupy-cuda12x", False), ("cupy-rocm-5-0", False), ("cupy-cuda11x", False),
    ("cupyx", True),  # no distribution of that name
])
def test_a_cupy_distribution_among_the_dependencies_brings_it(requirement: str, undeclared: bool) -> None:
    facts = _facts(requirements=[_requirement(requirement)], gpu=[_import("cupy", 5, role="local:3-9")])
    assert bool(undeclared_scopes(facts, KINDS)) is undeclared


def test_an_extra_does_not_bring_it_and_nothing_declared_says_nothing() -> None:
    gpu = [_import("cupyx.scipy.sparse", 5, role="local:3-9")]
    found = undeclared_scopes(_facts(requirements=[_requirement("numba"), _requirement("cupy-cuda12x", "optional")],
                                     gpu=gpu), KINDS)
    assert [s[:2] for s in found["pkg/gpu.py"]] == [(3, 9)]
    assert undeclared_scopes(_facts(requirements=[_requirement("cupy", "optional")], gpu=gpu), KINDS) == {}


def test_a_module_imported_at_load_time_makes_the_package_needed() -> None:
    top = [_import("cupy", 1)]
    lazy = _facts(requirements=[_requirement("numba")], gpu=top, init=[_import("pkg.gpu", 3, role="local:2-4")])
    assert [s[:2] for s in undeclared_scopes(lazy, KINDS)["pkg/gpu.py"]] == [(0, 0)]
    loaded = _facts(requirements=[_requirement("numba")], gpu=top, init=[_import("pkg.gpu", 1)])
    assert undeclared_scopes(loaded, KINDS) == {}
    # the package needed there is needed by the deferred imports too
    loaded["pkg/ops.py"] = [_import("cupyx", 7, role="local:6-8")]
    assert undeclared_scopes(loaded, KINDS) == {}


def test_a_script_outside_a_package_is_run_directly() -> None:
    kinds = {"pyproject.toml": "pyproject", "demo.py": "python"}
    facts = {"pyproject.toml": [_requirement("numba")], "demo.py": [_import("pycuda.driver", 1)]}
    assert undeclared_scopes(facts, kinds) == {}


def test_the_data_names_its_sources() -> None:
    assert {p.name for p in load()} >= {"CuPy", "PyCUDA"}


def test_a_backend_package_the_install_does_not_bring_is_optional(rulebase) -> None:
    """qibojit: CuPy imported in CupyBackend's methods and at the top of a module nothing imports; the
    dependencies are numba, qibo and scipy."""
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    parts = optional_parts(data)
    assert set(parts) == {f"{CLIFFORD} (a package the install does not bring)",
                          f"{GPU}:14-23 (a package the install does not bring)",
                          f"{GPU}:26-28 (a package the install does not bring)"}
    part = parts[f"{GPU}:14-23 (a package the install does not bring)"]
    assert part["class"] == "migration-required"  # cupyx.scipy.sparse has no ROCm build
    assert part["evidence"] == [f"{GPU}:16 imports cupy only in the function or branch of lines 14-23; the project's "
                                "dependencies (pyproject.toml) name none of its distributions "
                                "(rules/workloads/installs.yaml)"]


@pytest.mark.parametrize(("path", "old", "new"), [
    # a CuPy wheel among the dependencies: every install brings it
    ("pyproject.toml", 'scipy = "^1.10.1"\n', 'scipy = "^1.10.1"\ncupy-cuda12x = "^13.0"\n'),
    # the package imports the module that imports CuPy at its top level: every run needs it
    ("src/qibojit/backends/__init__.py", "from qibojit.backends.gpu import CupyBackend\n",
     "from qibojit.backends.gpu import CupyBackend\nfrom qibojit.backends import clifford_operations_gpu\n"),
])
def test_a_backend_package_every_run_needs_stays_required(path: str, old: str, new: str, tmp_path: Path,
                                                          rulebase) -> None:
    tree = _copy(CASE, tmp_path)
    text = (tree / path).read_text()
    assert old in text
    (tree / path).write_text(text.replace(old, new, 1))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"


@pytest.mark.parametrize(("requirement", "undeclared"), [
    ("torch", True), ("tensorrt", True), ("torch-tensorrt", False),
])
def test_torch_tensorrt_among_the_dependencies_brings_it(requirement: str, undeclared: bool) -> None:
    facts = _facts(requirements=[_requirement(requirement)], gpu=[_import("torch_tensorrt", 5, role="local:3-9")])
    assert bool(undeclared_scopes(facts, KINDS)) is undeclared


def test_tensorrt_itself_is_not_listed() -> None:
    """Projects built around TensorRT often install it from NVIDIA's packages and declare nothing."""
    facts = _facts(requirements=[_requirement("numpy")], gpu=[_import("tensorrt", 5, role="local:3-9")])
    assert undeclared_scopes(facts, KINDS) == {}


TRT = "undeclared_trt_backend"


def test_a_tensorrt_backend_the_install_does_not_bring_is_optional(rulebase) -> None:
    """pytorch/benchmark: torch_tensorrt imported inside the fx2trt and torch_trt back ends of a registry the
    --backend option picks from; requirements.txt names no TensorRT distribution."""
    data = report(TRT, rulebase)
    assert data["summary"]["class"] == "native"
    parts = optional_parts(data)
    assert {root: p["class"] for root, p in parts.items()} == {
        "torchbenchmark/util/backends/trt.py:10-14 (a package the install does not bring)": "incompatible",
        "torchbenchmark/util/backends/trt.py:22-25 (a package the install does not bring)": "incompatible"}


def test_a_declared_torch_tensorrt_is_required(tmp_path: Path, rulebase) -> None:
    tree = _copy(TRT, tmp_path)
    (tree / "requirements.txt").write_text("torch-tensorrt\nnumpy\n", encoding="utf-8")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
