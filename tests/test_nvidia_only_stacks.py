"""Session 17, nvsdk8 (issue 28): NVIDIA-only stacks seen, code with no CUDA left alone."""
from __future__ import annotations

from migrate.extract.text import cmakelists
from migrate.extract.text.rocm_path import evidence


def test_a_ci_setting_that_turns_rocm_off_is_no_rocm_job() -> None:
    """pytorch/TensorRT's workflows pass `with-rocm: false` to pytorch/test-infra's build matrix: no ROCm job."""
    found = evidence("manifest", "      with-rocm: false\n      with-cpu: false\n  - use_hip: '0'  # off\n")
    assert found == []
    # near misses: a ROCm image, a ROCm switch turned on
    found = evidence("manifest", "  image: rocm/pytorch:latest\n      with-rocm: true\n")
    assert [f.line for f in found] == [1, 2]


def _find_packages(source: bytes) -> dict[str, str]:
    return {f.name: f.role for f in cmakelists.extract(source).facts if f.name.startswith("find_package:")}


def test_a_package_the_configuration_stops_without_is_required() -> None:
    """Tencent/Forward: `find_package(TensorRT)` then `if(NOT TensorRT_FOUND) message(FATAL_ERROR ...)`."""
    source = (b"find_package(TensorRT)\nif(NOT TensorRT_FOUND) # use sources\n  message(\n    FATAL_ERROR\n"
              b"      \"Can NOT find TensorRT\")\nendif()\nfind_package(OptiX 7 REQUIRED)\n")
    assert _find_packages(source) == {"find_package:TensorRT": "required", "find_package:OptiX": "required"}


def test_a_package_the_configuration_goes_on_without_is_only_found() -> None:
    source = (b"find_package(TensorRT)\nif(NOT TensorRT_FOUND)\n  message(STATUS \"no TensorRT\")\nendif()\n"
              b"find_package(OptiX)\nif(NOT OptiX_FOUND)\n  if(WIN32)\n    message(FATAL_ERROR x)\n  endif()\nendif()\n"
              b"find_package(CUTLASS)\nif(NOT CUTLASS_FOUND AND WITH_CUTLASS)\n  message(FATAL_ERROR y)\nendif()\n")
    assert set(_find_packages(source).values()) == {"found"}


def test_a_header_with_a_glsl_extension_directive_is_shader_code() -> None:
    """NVIDIA/Q2RTX's vendored FidelityFX ffx_a.h: GLSL `#extension` lines in one branch, HLSL's `saturate` in another."""
    from migrate.extract.c import cuda_cpp
    from migrate.scan.layout import other_model_source

    shader = (b"#if defined(A_GLSL) && defined(A_GPU)\n   #extension GL_EXT_shader_16bit_storage:require\n#endif\n"
              b"#if defined(A_HLSL) && defined(A_GPU)\n AF1 ASatF1(AF1 x){return saturate(x);}\n#endif\n")
    facts = cuda_cpp.extract(shader).facts
    assert [f.line for f in facts if f.name == "shading-language-directive"] == [2]
    assert other_model_source(facts)
    # near miss: CUDA device code calling saturate, and a comment that names the directive
    cuda = (b"// a GLSL #extension GL_EXT_x : require would go in the shader\n#include <cuda_runtime.h>\n"
            b"__global__ void k(float* x) { x[0] = saturate(x[0]); }\n")
    assert not other_model_source(cuda_cpp.extract(cuda).facts)


def test_a_cuda_image_a_project_ships_is_required_deployment_text(rulebase) -> None:
    """pytorch-faster-rcnn's shape: torchvision.ops code, an nvidia/cuda image in docker/ and a Compose file reserving an
    NVIDIA GPU. Session 31's labelling convention (design.md's class table): NVIDIA deployment text the workload ships
    makes it minor-adaptation when nothing else decides (docs/decisions/2026-12-08-s35-a-shipped-nvidia-image-is-
    required-deployment-text.md); the image is no optional part."""
    from tests.test_optional_parts import optional_parts, report

    data = report("deployment_image", rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert {f["status"] for f in data["findings"] if f["path"] == "docker/Dockerfile"} == {""}  # required
    assert not any(root.startswith(("docker/", "compose/")) for root in optional_parts(data))
    near = report("deployment_image_near", rulebase)  # a kernel the package builds: the image goes with it
    assert near["summary"]["class"] != "native"
    assert not any(root.startswith(("docker/Dockerfile", "compose/")) for root in optional_parts(near))


def test_nvidia_images_a_default_deployment_does_not_use_are_opt_in_parts(rulebase, tmp_path) -> None:
    """A GPU image beside a CPU one, a GPU Compose override beside the default compose.yaml, a .devcontainer image, a
    Dockerfile whose NVIDIA stage sits beside a rocm/ stage: parts of their own, the package native."""
    from tests.test_optional_parts import _copy, optional_parts, report, scanned

    data = report("deployment_image_opt_in", rulebase)
    assert data["summary"]["class"] == "native"
    parts = optional_parts(data)
    for root in (".devcontainer/Dockerfile (an opt-in container image)", "compose.gpu.yaml (an opt-in container image)",
                 "deploy/Dockerfile (an opt-in container image)"):
        assert parts[root]["class"] == "minor-adaptation", root
    assert "rocm/dev-ubuntu-22.04" in " ".join(parts["deploy/Dockerfile (an opt-in container image)"]["evidence"])
    assert any(root.startswith("Dockerfile.cuda12 ") for root in parts)
    # near misses: without the CPU image, Dockerfile.cuda12 is the image the project ships; without the default
    # compose.yaml, the GPU Compose file is the one the project runs
    tree = _copy("deployment_image_opt_in", tmp_path)
    (tree / "compose.yaml").unlink()
    near = scanned(tree, rulebase)
    assert near["summary"]["class"] == "minor-adaptation"
    assert {f["status"] for f in near["findings"] if f["path"] == "compose.gpu.yaml"} == {""}
    (tree / "Dockerfile.cpu").rename(tree / "Dockerfile.app")
    (tree / "Dockerfile.cuda12").rename(tree / "Dockerfile.release")
    near = scanned(tree, rulebase)
    assert {f["status"] for f in near["findings"] if f["path"] == "Dockerfile.release"} == {""}


def test_many_container_files_in_one_folder_are_read_in_linear_time() -> None:
    """Each NVIDIA image's siblings come from one index by folder and family, not a scan of every image: 10,000
    Dockerfile.N beside a plain Dockerfile took minutes when each looked at all the others (5,000 took 20 s)."""
    import time

    from migrate.workloads.opt_in_images import opt_in_images
    from migrate.workloads.optional_words import words

    gpu = [f"d/Dockerfile.{i}" for i in range(10_000)]
    images = ["d/Dockerfile", *gpu, "e/Dockerfile"]
    start = time.monotonic()
    chosen = opt_in_images(images, {*gpu, "e/Dockerfile"}, dict.fromkeys(images, "dockerfile"), {}, words())
    assert time.monotonic() - start < 5
    assert sorted(chosen) == sorted(gpu)  # e/Dockerfile has no plain sibling: the image its folder ships
    assert chosen["d/Dockerfile.7"].endswith("beside d/Dockerfile, the default, which has no NVIDIA text")


def test_a_low_confidence_pin_beside_a_shipped_image_changes_nothing(rulebase, tmp_path) -> None:
    """mmpose (and mmaction2): a PyTorch toolbox with a CUDA base image in docker/ and an mmcv pin (HIP7011, low
    confidence: it never moves a class). The shipped image makes it minor-adaptation; a CUDA build of a package pinned
    beside it (cupy-cuda12x, high confidence) keeps the image with that tie."""
    from tests.test_optional_parts import _copy, optional_parts, report, scanned

    data = report("deployment_image_low_tie", rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert not any(root.startswith("docker/Dockerfile") for root in optional_parts(data))
    tree = _copy("deployment_image_low_tie", tmp_path)
    with (tree / "requirements" / "mminstall.txt").open("a") as out:
        out.write("cupy-cuda12x==13.0.0\n")
    near = scanned(tree, rulebase)
    assert near["summary"]["class"] != "native"
    assert not any(root.startswith("docker/Dockerfile") for root in optional_parts(near))


def test_an_nvidia_smi_script_beside_a_hip_machine_build_is_a_deployment_note(rulebase) -> None:
    """E3SM's shape (session 22, nvstack): a per-machine script counts GPUs with nvidia-smi, another machine's file
    builds with hipcc, the script lies outside every build: a deployment part, not the project's class."""
    from tests.test_optional_parts import optional_parts, report

    data = report("deployment_script", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["cime_config/machines/scripts/pm-gpu_set_affinity_npergpu.sh (a deployment script)"]
    assert part["class"] == "minor-adaptation"
    assert "hipcc" in " ".join(part["evidence"])
    near = report("deployment_script_near", rulebase)  # no ROCm build anywhere: the script is the project's to edit
    assert near["summary"]["class"] == "minor-adaptation"
    assert not any("deployment script" in root for root in optional_parts(near))
