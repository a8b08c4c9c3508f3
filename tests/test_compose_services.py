"""A Compose service that builds its image from a Dockerfile in an optional folder (ci/) runs that image: its NVIDIA
device request is the CI's, an optional part (workloads/compose_services.py; docs/decisions/
2026-12-07-s34-compose-services-of-ci-images.md). Fixture cut from apache/arrow 515410b2 compose.yaml, with near misses."""
from __future__ import annotations

from pathlib import Path

from migrate.extract.text.containers import compose_services
from tests.conftest import ROOT, copied_tree, scan_tree

TREE = ROOT / "fixtures" / "workloads" / "compose_ci_service"
DOCKERFILE = "dockerfile: ci/docker/ubuntu-${UBUNTU}-cpp.dockerfile\n      args:"


def _compose(data: dict) -> list[dict]:
    return [f for f in data["findings"] if f["path"] == "compose.yaml"]


def test_each_service_that_builds_an_image_is_a_span() -> None:
    facts = compose_services((TREE / "compose.yaml").read_text())
    assert [(f.name, f.line, f.end_line, f.text) for f in facts] == [
        ("ubuntu-cpp", 7, 14, "ci/docker/ubuntu-${UBUNTU}-cpp.dockerfile"),
        ("ubuntu-cuda-cpp", 16, 35, "ci/docker/ubuntu-${UBUNTU}-cpp.dockerfile")]
    inline = compose_services("services:\n  app:\n    build: ./docker\n    image: x\n")
    assert [(f.name, f.text) for f in inline] == [("app", "docker/Dockerfile")]


def test_the_gpu_request_of_a_ci_images_service_is_optional(tmp_path: Path, rulebase) -> None:
    data = scan_tree(copied_tree(TREE, tmp_path), rulebase)
    found = _compose(data)
    assert found and {f["symbol"] for f in found} == {"driver: nvidia"}
    assert {f["status"] for f in found} == {"optional"}
    parts = {p["root"]: p for w in data["workloads"] for p in w["optional_parts"]}
    part = parts["compose.yaml:16-35 (a service of an optional folder's image)"]
    assert part["evidence"][0].startswith("compose.yaml:16 service ubuntu-cuda-cpp builds its image from "
                                          "ci/docker/ubuntu-${UBUNTU}-cpp.dockerfile, in ci/")
    assert data["summary"]["class"] == "minor-adaptation"  # tools/gpu_info.sh's nvidia-smi, required


def test_a_service_building_a_deployment_dockerfile_stays_required(tmp_path: Path, rulebase) -> None:
    """Near miss: the same service builds docker/Dockerfile, an image the project ships."""
    tree = copied_tree(TREE, tmp_path, [("compose.yaml", DOCKERFILE, "dockerfile: docker/Dockerfile\n      args:")])
    (tree / "docker").mkdir()
    (tree / "docker" / "Dockerfile").write_text("FROM ubuntu:22.04\n")
    found = _compose(scan_tree(tree, rulebase))
    assert {f["status"] for f in found} == {""}


def test_a_device_request_outside_every_building_service_stays_required(tmp_path: Path, rulebase) -> None:
    """Near miss: the service runs a published image (no build:), so nothing says it is the CI's."""
    tree = copied_tree(TREE, tmp_path, [("compose.yaml", "    build:\n      context: .\n      " + DOCKERFILE + "\n"
                                         "        base: nvidia/cuda:${CUDA}-devel-ubuntu${UBUNTU}\n", "")])
    found = _compose(scan_tree(tree, rulebase))
    assert {f["status"] for f in found} == {""}
