"""Session 25, nogpu (issue 28): projects with no GPU code of their own, read from what only names a GPU
(docs/decisions/2026-12-06-s25-no-gpu-code-of-its-own.md; fixtures cut from the real cases, each with a near miss)."""
from __future__ import annotations

from pathlib import Path

from tests.test_optional_parts import scanned

WORKLOADS = Path(__file__).resolve().parent.parent / "fixtures" / "workloads"


def _rules_at(data: dict) -> set[tuple[str, int, str]]:
    return {(f["path"], f["line"], f["rule"]) for f in data["findings"]}


def test_an_include_that_resolves_to_the_projects_own_header_is_not_cudas(rulebase) -> None:
    """steam-audio: core/src/core/math_functions.h is the library's maths header, included beside it ("...") and
    on the include path (<...>); it holds no CUDA, so neither include is CUDA's math_functions.h."""
    data = scanned(WORKLOADS / "own_header", rulebase)
    assert data["findings"] == []
    assert data["summary"]["class"] == "native"


def test_a_cuda_header_no_project_file_is_named_like_or_a_copy_with_cuda_code_stays(rulebase) -> None:
    data = scanned(WORKLOADS / "own_header_near", rulebase)
    assert {("src/main.cpp", 3, "HIP0002"), ("src/main.cpp", 4, "HIP0002"), ("include/vector_types.h", 3, "HIP0001"),
            ("src/step.cu", 2, "HIP0011"),  # GeoFlood's CUB copy: cub.cuh only includes CUDA code
            ("src/cuArrays.h", 3, "HIP0001")} <= _rules_at(data)  # isce3: CUDA's cuda.h beside bindings' own cuda.h
    assert data["summary"]["class"] == "migration-required"


def _status(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path and f["class"] != "native"}


CHOSEN = ("yolo_inference/yolo_inference_node.py", "separator/separator.py", "pyproject.toml")
SHIPPED = ("scripts/deploy_run.sh", "scripts/docker/Dockerfile.simulation")


def test_providers_chosen_among_portable_ones_an_extra_and_a_container_start_are_optional(rulebase) -> None:
    """aerial-autonomy-stack: the CUDA provider in simulation, TensorRT on Jetson, the CPU provider otherwise, and a
    script that starts the image with NVIDIA's runtime (required since session 35); python-audio-separator: the CUDA
    provider beside CoreML's, and
    onnxruntime-gpu a Poetry `optional = true` dependency of the `gpu` extra beside `cpu` and `dml`."""
    data = scanned(WORKLOADS / "optional" / "chosen_providers", rulebase)
    for path in CHOSEN:
        assert _status(data, path) == {"optional"}, path
    roots = {p["root"] for w in data["workloads"] for p in w["optional_parts"]}
    assert "yolo_inference/yolo_inference_node.py:8 (chosen at run time)" in roots
    # the image the project ships and the script that starts it are NVIDIA deployment text the workload ships
    # (docs/decisions/2026-12-08-s35-a-shipped-nvidia-image-is-required-deployment-text.md): required, minor-adaptation
    for path in SHIPPED:
        assert _status(data, path) == {""}, path
    assert data["summary"]["class"] == "minor-adaptation"


def test_a_provider_with_no_portable_peer_a_plain_dependency_and_a_script_that_builds_stay_required(rulebase) -> None:
    data = scanned(WORKLOADS / "optional" / "chosen_providers_near", rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    for path in CHOSEN:
        assert _status(data, path) == {""}, path


GATES = ("ouster_core/include/ouster/core/array_view.h", "ouster_core/include/ouster/core/impl/cuda_macros.h")


def test_cuda_compiler_gates_in_a_project_with_no_cuda_source_are_not_taken_by_its_builds(rulebase) -> None:
    """ouster-sdk: `OSDK_FN` is `__device__ __host__` under `#ifdef __CUDACC__`, a bounds check sits in
    `#ifndef __CUDA_ARCH__`; the SDK has no CUDA source, so its builds take the host side only."""
    data = scanned(WORKLOADS / "optional" / "host_only_gates", rulebase)
    assert data["summary"]["class"] == "native"
    for path in GATES:
        assert _status(data, path) == {"optional"}, path
    roots = {p["root"] for w in data["workloads"] for p in w["optional_parts"]}
    assert "ouster_core/include/ouster/core/array_view.h (a CUDA compiler gate no build of the project takes)" in roots


def test_the_same_gates_beside_a_cuda_source_of_the_project_stay_required(rulebase) -> None:
    data = scanned(WORKLOADS / "optional" / "host_only_gates_near", rulebase)
    assert data["summary"]["class"] == "migration-required"
    for path in GATES:
        assert _status(data, path) == {""}, path
