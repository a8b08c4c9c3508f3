"""A Python distribution in a folder of its own below a Go module is not what the project's default build reaches
(workloads/reach.py; docs/decisions/2026-12-06-s26-a-python-package-beside-a-go-module.md; fixtures cut from
llm-d/llm-d-kv-cache, with near misses)."""
from __future__ import annotations

from pathlib import Path

from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.scan.discover import file_kind
from migrate.settings import Settings
from tests.conftest import ROOT

CASES = ROOT / "fixtures" / "workloads"
CONNECTOR = "kv_connectors/llmd_fs_backend"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def parts_of(data: dict) -> dict[str, dict]:
    return {p["root"]: p for w in data["workloads"] for p in w["optional_parts"]}


def test_go_mod_is_read_as_a_go_module() -> None:
    """go.mod is discovered (its requirements: extract/text/gomod.py), so that workloads/reach.py sees the Go module."""
    assert file_kind(Path("go.mod"), sniff=False) == "go_module"


def test_a_cuda_extension_package_beside_a_go_module_is_an_optional_part(rulebase) -> None:
    """The KV-cache indexer is Go; the vLLM connector below it has a setup.py of its own (a CUDAExtension), and only
    a service with a build of its own (pvc_evictor's Makefile) imports it."""
    data = scanned(CASES / "python_beside_go", rulebase)
    assert data["summary"]["class"] == "native"
    part = parts_of(data)[f"{CONNECTOR} (not reached by the default build)"]
    assert part["class"] == "migration-required"  # cudaMemcpyBatchAsync keeps its own class
    assert part["evidence"][0].startswith("go.mod: the top is a Go module")
    assert f"{CONNECTOR}/setup.py makes {CONNECTOR} a Python distribution of its own" in part["evidence"][0]
    kernels = [f for f in data["findings"] if f["path"].endswith(".cu")]
    assert kernels and {f["status"] for f in kernels} == {"optional"}


def test_a_package_the_projects_own_python_imports_stays_required(rulebase) -> None:
    """Near miss: a script of the project's own (hack/, no build of its own) imports the connector."""
    data = scanned(CASES / "python_beside_go_imported", rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert not any(root.startswith(CONNECTOR) for root in parts_of(data))


def test_a_python_distribution_at_the_top_says_nothing(rulebase) -> None:
    """Near miss: the top holds a pyproject.toml too, so the project is Python as well; the reading says nothing."""
    data = scanned(CASES / "python_beside_go_pyroot", rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert not any(root.startswith(CONNECTOR) for root in parts_of(data))
