"""An installer of the project's own that installs the ROCm build of a package (a launch script's `pip install torch
--index-url .../whl/rocm5.7`, a launcher's pip command string from TheRock's index) is `install` evidence of a ROCm
path: with no CUDA source of the project's own to port, the project runs on ROCm already
(docs/decisions/2026-12-06-s26-an-installer-that-picks-rocm-builds.md; fixtures cut from
lshqqytiger/stable-diffusion-webui-amdgpu, with near misses)."""
from __future__ import annotations

from pathlib import Path

from migrate.extract import extract
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from migrate.workloads import ported
from tests.conftest import ROOT

CASES = ROOT / "fixtures" / "workloads"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def evidence(kind: str, text: str) -> list[tuple[str, int, str]]:
    return [(f.name, f.line, f.text) for f in extract(kind, text.encode()).facts if f.kind == "rocm_path"]


def test_a_launcher_that_installs_pytorchs_rocm_build_runs_on_rocm(rulebase) -> None:
    """The AMD fork's launcher installs PyTorch from ROCm indexes; its capability checks and GFX override are the
    ROCm build's own, not a port's to do."""
    data = scanned(CASES / "ported_installer", rulebase)
    assert data["summary"]["class"] == "native"
    shown = {e for w in data["workloads"] for e in w["rocm_path"]}
    assert "webui.sh:9 https://download.pytorch.org/whl/nightly/rocm" in shown
    assert "modules/launch_utils.py:9 https://rocm.nightlies.amd.com/" in shown
    assert {f["status"] for f in data["findings"] if f["path"] == "modules/devices.py"} == {"ported"}


def test_a_launcher_that_installs_pytorchs_cuda_build_is_no_rocm_path(rulebase) -> None:
    """Near miss: the same launcher with a CUDA index (whl/cu121); the capability checks stay a minor adaptation."""
    data = scanned(CASES / "ported_installer_near", rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert all(w["rocm_path"] == [] for w in data["workloads"])
    assert {f["status"] for f in data["findings"] if f["path"] == "modules/devices.py"} == {""}


def test_a_rocm_installer_does_not_port_the_projects_own_cuda_source(rulebase) -> None:
    """Near miss: the ROCm installer beside a CUDA kernel of the project's own with no HIP branch: installing
    PyTorch's ROCm build ports nothing of it, so there is no ROCm path (as for a HIP build branch alone)."""
    data = scanned(CASES / "ported_installer_kernel", rulebase)
    assert all(w["rocm_path"] == [] for w in data["workloads"])
    assert {f["status"] for f in data["findings"] if f["path"] == "csrc/scale.cu"} == {""}
    assert data["summary"]["class"] == "minor-adaptation"


def test_rocm_indexes_in_shell_lines_and_python_pip_strings() -> None:
    script = ("# pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\n"
              "pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\n"
              "pip install https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4/torch-2.6.0-cp312-linux_x86_64.whl\n"
              "pip install torch --index-url https://download.pytorch.org/whl/cu121\n"
              "echo see https://rocm.docs.amd.com/\n")
    assert evidence("shell", script) == [("install", 2, "https://download.pytorch.org/whl/rocm"),
                                         ("install", 3, "https://repo.radeon.com/rocm/")]
    launcher = ('cmd = "pip install torch --index-url https://rocm.nightlies.amd.com/v2/gfx94X-dcgpu/"\n'
                'url = "https://rocm.nightlies.amd.com/v2/gfx94X-dcgpu/"\n'  # a URL alone runs no pip
                'cuda = "pip install torch --index-url https://download.pytorch.org/whl/cu121"\n')
    assert evidence("python", launcher) == [("install", 1, "https://rocm.nightlies.amd.com/")]


def test_install_evidence_needs_hip_sources_or_no_cuda_source() -> None:
    install = ported.Evidence("webui.sh", 9, "install", "https://download.pytorch.org/whl/rocm")
    source = ported.Evidence("src/k.cu", 3, "source", "defined(__HIP_PLATFORM_AMD__)")
    assert ported.rocm_path([install], has_cuda_sources=False) == (install,)
    assert ported.rocm_path([install], has_cuda_sources=True) == ()
    assert ported.rocm_path([install, source], has_cuda_sources=True) == (install, source)
