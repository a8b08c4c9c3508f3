"""A site environment or job script of the project's own that loads the ROCm modules (`module load rocm`,
`PrgEnv-amd`, `craype-accel-amd-gfx90a`: rules/names/build.yaml `rocm_environment_modules`) is `environment` evidence
of a ROCm path: with no CUDA source of the project's own to port, the CUDA modules its NVIDIA sites' scripts load are
the twin of a setup the project already has for AMD systems (docs/decisions/2026-12-08-s35-rocm-environment-modules.md;
fixtures cut from eljens/multigrid-poisson, with near misses)."""
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


def statuses(data: dict, rule: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["rule"] == rule}


def test_cuda_modules_beside_the_sites_rocm_modules_are_a_twin(rulebase) -> None:
    """An OpenMP-offload code whose NVIDIA site scripts load cuda/nvhpc and whose AMD site script loads rocm runs on
    AMD systems already: the CUDA module loads are the NVIDIA side of a choice the project made for both."""
    data = scanned(CASES / "rocm_modules_offload", rulebase)
    assert data["summary"]["class"] == "native"
    assert {e for w in data["workloads"] for e in w["rocm_path"]} == {"paths/lumi/clang.sh:2 module load rocm"}
    assert statuses(data, "HIP9009") == {"ported"}


def test_cuda_modules_with_no_rocm_module_stay_a_minor_adaptation(rulebase) -> None:
    """Near miss: the same project without its AMD site script; the CUDA module loads are a local edit to make."""
    data = scanned(CASES / "rocm_modules_offload_near", rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert all(w["rocm_path"] == [] for w in data["workloads"])
    assert statuses(data, "HIP9009") == {""}


def test_a_rocm_module_does_not_port_the_projects_own_cuda_source(rulebase) -> None:
    """Near miss: the AMD site script beside a CUDA kernel of the project's own with no HIP branch: loading ROCm ports
    nothing of it, so there is no ROCm path (as for a ROCm installer or a HIP build branch alone)."""
    data = scanned(CASES / "rocm_modules_cuda_kernel", rulebase)
    assert all(w["rocm_path"] == [] for w in data["workloads"])
    assert data["summary"]["class"] == "migration-required"


def evidence(text: str) -> list[tuple[str, int, str]]:
    facts = {"job.sh": extract("shell", text.encode()).facts}
    return [(e.strength, e.line, e.text) for e in ported.collect(facts, {"job.sh": "shell"})]


def test_which_module_commands_are_rocm_evidence() -> None:
    """Frontier's and LUMI's ROCm modules (a version after the name, several in one command, `module swap`) are
    evidence, once per file; CUDA modules, `module unload rocm` and a comment are not."""
    assert evidence("module load PrgEnv-amd craype-accel-amd-gfx90a\nmodule load rocm/5.6.0\n") == \
        [("environment", 1, "module load PrgEnv-amd")]
    assert evidence("module swap PrgEnv-cray PrgEnv-amd\n") == [("environment", 1, "module load PrgEnv-amd")]
    assert evidence("module load cuda/11.5 nvhpc\n# module load rocm\nmodule unload rocm\n") == []


def test_environment_evidence_needs_hip_sources_or_no_cuda_source() -> None:
    module = ported.Evidence("paths/lumi/clang.sh", 2, "environment", "module load rocm")
    source = ported.Evidence("src/k.cu", 3, "source", "defined(__HIP_PLATFORM_AMD__)")
    assert ported.rocm_path([module], has_cuda_sources=False) == (module,)
    assert ported.rocm_path([module], has_cuda_sources=True) == ()
    assert ported.rocm_path([module, source], has_cuda_sources=True) == (module, source)
