"""Kubernetes NVIDIA keys written from Python (migrate/extract/python/extractor.py, K8S_NVIDIA_KEY): a string that is
whole an `nvidia.com/*` resource, label or taint key in code a package ships (a toleration or a resource request its
functions emit) is the deployment text a manifest line is (HIP9003, minor-adaptation); the same string only in the
package's tests leaves the class to the rest (session-31 convention)."""
from __future__ import annotations

import shutil
from pathlib import Path

from tests.test_optional_parts import scanned

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "HIP9003" / "pod_spec.py"
PYPROJECT = '[project]\nname = "compose-model-replica"\nversion = "0.1.0"\ndependencies = ["crossplane-function-sdk-python"]\n'


def _package(tmp_path: Path, folder: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "function").mkdir()
    (tmp_path / "function" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "function" / "fn.py").write_text("def compose() -> dict:\n    return {}\n", encoding="utf-8")
    (tmp_path / folder).mkdir(exist_ok=True)
    shutil.copy(FIXTURE, tmp_path / folder / ("backends.py" if folder == "function" else "test_backends.py"))
    return tmp_path


def test_a_toleration_the_package_writes_is_deployment_text(tmp_path: Path, rulebase) -> None:
    data = scanned(_package(tmp_path, "function"), rulebase)
    found = [(f["line"], f["symbol"], f["status"]) for f in data["findings"] if f["rule"] == "HIP9003"]
    assert found == [(6, "nvidia.com/gpu", ""), (10, "nvidia.com/gpu", ""), (18, "nvidia.com/gpu", ""),
                     (21, "nvidia.com/gpu", ""), (39, "nvidia.com/gpu.present", "")]
    assert data["summary"]["class"] == "minor-adaptation"


def test_the_same_keys_only_in_tests_leave_the_package_native(tmp_path: Path, rulebase) -> None:
    data = scanned(_package(tmp_path, "tests"), rulebase)
    assert data["summary"]["class"] == "native"
