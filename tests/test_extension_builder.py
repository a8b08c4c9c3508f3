"""Which builder makes a setup.py extension (fixtures/workloads/plain_ext_nvcc, through the real CLI): torch's
CUDAExtension or BuildExtension make a torch extension that PyTorch's ROCm build hipifies (minor-adaptation); a plain
setuptools Extension whose own build_ext runs nvcc (precision sample 18) is ported like any CUDA source."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from migrate.model import Fact, SourceFile
from migrate.workloads.assemble import workloads
from tests.conftest import ROOT, run_cli

CASE = ROOT / "fixtures" / "workloads" / "plain_ext_nvcc"


@pytest.fixture(scope="module")
def report() -> dict:
    result = run_cli("scan", str(CASE), "--format", "json", "--no-cache", "--no-hipify")
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def by_root(report: dict) -> dict[str, tuple[str, str]]:
    return {w["root"]: (w["kind"], w["class"]) for w in report["workloads"] if w["kind"] != "python"}


def test_a_plain_extension_whose_build_ext_runs_nvcc_is_ported(by_root: dict[str, tuple[str, str]]) -> None:
    assert by_root["nvcc_in_pip"] == ("python-extension", "migration-required")


def test_python_that_builds_or_imports_a_plain_extension_depends_on_it(report: dict) -> None:
    [package] = [w for w in report["workloads"] if w["kind"] == "python" and w["root"] == "nvcc_in_pip"]
    assert package["depends_on"] == ["fastcuda"]  # demo.py's `import fastcuda`, setup.py's Extension


@pytest.mark.parametrize("root", ["torch_build_ext", "torch_cuda_ext"])
def test_an_extension_torch_builds_stays_a_torch_extension(by_root: dict[str, tuple[str, str]], root: str) -> None:
    # near misses: the same sources built by torch's BuildExtension (a plain Extension) or declared as CUDAExtension
    assert by_root[root] == ("torch-extension", "minor-adaptation")


def _fact(kind: str, name: str, line: int, role: str = "", text: str = "") -> Fact:
    return Fact(kind=kind, name=name, line=line, column=1, end_line=line, end_column=2, role=role, text=text)


@pytest.mark.parametrize(("facts", "kind"), [
    ([_fact("extension", "m", 3, "setup", "m.cu")], "python-extension"),
    ([_fact("extension", "m", 3, "setup", "m.cu"),
      _fact("python_attr", "torch.utils.cpp_extension.BuildExtension.with_options", 5, "call")], "torch-extension"),
    ([_fact("extension", "m", 3, "jit", "m.cu")], "torch-extension"),
    # torch's CUDA_HOME names where nvcc lives; it builds nothing
    ([_fact("extension", "m", 3, "setup", "m.cu"),
      _fact("python_attr", "torch.utils.cpp_extension.CUDA_HOME", 2, "value")], "python-extension"),
])
def test_the_kind_comes_from_the_builder_the_declaring_file_uses(facts: list[Fact], kind: str) -> None:
    files = [SourceFile(path=Path("/x") / p, rel=p, kind=k, size=1) for p, k in (("setup.py", "python"), ("m.cu", "cuda"))]
    specs = workloads(files, {"setup.py": tuple(facts)}, root_name="x")
    assert {s.kind for s in specs if "m.cu" in s.files} == {kind}
