"""A package a Dockerfile or setup script installs that the project's manifest declares only as an extra
(workloads/extra_installs.py; fixture fixtures/workloads/optional/extra_installed_by_image, cut from
NVIDIA-BioNeMo/nvSubquadratic): as opt-in there as in the manifest, an optional part with its own class. Near misses:
the manifest also requires the package, or does not name it at all; a package an extra's package requires
(rules/workloads/installs.yaml `requires`) once no extra names that package."""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import ROOT, copied_tree, scan_tree

CASE = ROOT / "fixtures" / "workloads" / "optional" / "extra_installed_by_image"
EXTRA = 'dali = ["nvidia-dali-cuda120==1.53.0"]\n'
QUACK = 'quack = ["quack-kernels"]\n'
SCRIPT = "scripts/slurm/setup_env.sh"


def dali_in_image(data: dict) -> dict:
    return next(f for f in data["findings"] if f["path"] == "Dockerfile" and f["symbol"] == "nvidia-dali-cuda120")


def cutlass_in_script(data: dict) -> dict:
    return next(f for f in data["findings"] if f["path"] == SCRIPT and f["symbol"] == "nvidia-cutlass-dsl")


def test_an_image_installing_an_extras_package_makes_it_no_requirement(rulebase) -> None:
    data = scan_tree(CASE, rulebase)
    assert data["summary"]["class"] == "minor-adaptation"  # the PyTorch CUDA wheels of the setup script
    assert dali_in_image(data)["status"] == "optional"
    root = next(w for w in data["workloads"] if w["root"] == ".")
    part = next(p for p in root["optional_parts"] if p["root"] == "Dockerfile:6 (an extra's package)")
    assert part["class"] == "incompatible"  # its own class, kept
    assert part["evidence"] == ["Dockerfile:6 installs nvidia-dali-cuda120, which the project declares only as an "
                                "extra (pyproject.toml:22): a plain install of the project does not bring it"]
    assert cutlass_in_script(data)["status"] == "optional"  # quack-kernels' requirement, installed after it
    script = next(p for p in root["optional_parts"] if p["root"] == f"{SCRIPT}:17 (an extra's package)")
    assert script["evidence"][0] == (f"{SCRIPT}:17 installs nvidia-cutlass-dsl, which only a package the project "
                                     "declares as an extra requires (pyproject.toml:18): a plain install of the "
                                     "project does not bring it")


def test_a_requirement_of_no_extras_package_stays_required(tmp_path: Path, rulebase) -> None:
    data = scan_tree(copied_tree(CASE, tmp_path, [("pyproject.toml", QUACK, "")]), rulebase)
    assert cutlass_in_script(data)["status"] == ""
    assert dali_in_image(data)["status"] == "optional"


@pytest.mark.parametrize("change", ["required", "undeclared"])
def test_a_package_the_manifest_requires_or_does_not_name_stays_required(change: str, tmp_path: Path,
                                                                        rulebase) -> None:
    tree = copied_tree(CASE, tmp_path)
    manifest = tree / "pyproject.toml"
    text = manifest.read_text()
    assert EXTRA in text
    if change == "required":  # the same package among the dependencies a plain install brings
        text = text.replace('"numpy>=1.21.0",\n', '"numpy>=1.21.0",\n    "nvidia-dali-cuda120",\n')
    else:  # no extra names it: nothing says the image's install is opt-in
        text = text.replace(EXTRA, 'docs = ["sphinx"]\n')
    manifest.write_text(text)
    data = scan_tree(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert dali_in_image(data)["status"] == ""
