"""CUDA source in a Python file's strings follows the file's GPU host code (migrate/workloads/embedded_hosts.py):
GPy's kernels are a module-level string that PyCUDA compiles only in a constructor the package reaches with
useGPU=True, from a package it does not install; where PyCUDA is a dependency, the kernels are required."""
from __future__ import annotations

import shutil
from pathlib import Path

from tests.test_optional_parts import scanned

TREE = Path(__file__).resolve().parent.parent / "fixtures" / "trees" / "pycuda_optional_host"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "gp"
    shutil.copytree(TREE, root)
    (root / "expected.txt").unlink()
    return root


def _statuses(data: dict) -> dict[str, str]:
    return {f["rule"]: f["status"] for f in data["findings"]}


def test_kernels_in_a_string_only_an_optional_host_compiles_are_optional(tmp_path: Path, rulebase) -> None:
    data = scanned(_copy(tmp_path), rulebase)
    assert _statuses(data) == {"HIP4002": "optional", "HIP6006": "optional"}
    assert data["summary"]["class"] == "native"


def test_kernels_of_a_required_host_are_required(tmp_path: Path, rulebase) -> None:
    root = _copy(tmp_path)
    toml = root / "pyproject.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('"numpy>=1.7"', '"numpy>=1.7", "pycuda"'), encoding="utf-8")
    data = scanned(root, rulebase)
    assert _statuses(data) == {"HIP4002": "", "HIP6006": "", "HIP7021": ""}  # HIP7021: pycuda as a requirement
    assert data["summary"]["class"] == "migration-required"

