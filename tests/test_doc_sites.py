"""A repository that is a documentation site (a static site generator's configuration at the top: workloads/
doc_sites.py; docs/decisions/2026-12-07-s34-documentation-site-material.md): what its pages show is optional
material. Fixture cut from Project-HAMi/website 0d64adad, with near misses."""
from __future__ import annotations

from pathlib import Path

from migrate.scan.discover import file_kind
from tests.conftest import ROOT, copied_tree, scan_tree

SITE = ROOT / "fixtures" / "workloads" / "doc_site"
LAB = "labs/quota/memory-limit.cu"


def _statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def test_generator_configurations_are_discovered() -> None:
    for name in ("docusaurus.config.js", "docusaurus.config.ts", "hugo.toml", "book.toml", "antora-playbook.yml"):
        assert file_kind(Path(name), sniff=False) == "doc_site", name
    assert file_kind(Path("mkdocs.yml"), sniff=False) != "doc_site"


def test_a_documentation_sites_labs_and_manifests_are_optional_material(tmp_path: Path, rulebase) -> None:
    """The lab's cudaMalloc quota test and the translated lab's nvidia.com/gpu manifest are what the site shows."""
    data = scan_tree(copied_tree(SITE, tmp_path), rulebase)
    assert data["summary"]["class"] == "native"
    assert _statuses(data, LAB) == {"optional"}
    manifest = "i18n/zh/docusaurus-plugin-content-docs-tutorials/current/labs/hami-vllm/vllm-qwen25-7b.yaml"
    assert _statuses(data, manifest) == {"optional"}
    parts = {p["root"]: p for w in data["workloads"] for p in w["optional_parts"]}
    assert parts["labs (documentation site material)"]["class"] == "migration-required"  # the lab keeps its class
    assert parts["labs (documentation site material)"]["evidence"][0].startswith(
        "docusaurus.config.js: the repository is a documentation site")


def test_a_site_in_a_folder_beside_the_code_leaves_the_code_required(tmp_path: Path, rulebase) -> None:
    """Near miss: the generator's configuration sits in website/, a site beside the project's own code."""
    tree = copied_tree(SITE, tmp_path)
    (tree / "website").mkdir()
    (tree / "docusaurus.config.js").rename(tree / "website" / "docusaurus.config.js")
    data = scan_tree(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert _statuses(data, LAB) == {""}


def test_mkdocs_at_the_top_is_no_documentation_site(tmp_path: Path, rulebase) -> None:
    """Near miss: mkdocs.yml at the top sits beside a package's code (microsoft/AirSim), so it says nothing."""
    tree = copied_tree(SITE, tmp_path)
    (tree / "docusaurus.config.js").rename(tree / "mkdocs.yml")
    (tree / "mkdocs.yml").write_text("site_name: HAMi\nnav:\n  - Home: index.md\n")
    data = scan_tree(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
