"""Session 18, lazy8 (issue 28): NVIDIA parts a user chooses at run time, beside peers of the same role
(rules/workloads/alternatives.yaml; fixtures cut from real code, each with a near miss)."""
from __future__ import annotations

import shutil
from pathlib import Path

from migrate.workloads.alternatives import (
    _vendor_peers,
    covering,
    language_twins,
    load,
    run_time_alternatives,
    words_of,
)
from migrate.workloads.alternatives import backend_packages as run_time_backend_packages
from tests.test_optional_parts import CASES, optional_parts, report, scanned


def _statuses(data: dict, prefix: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"].startswith(prefix) and f["class"] != "native"}


def test_name_words_split_at_every_non_letter() -> None:
    assert words_of("obs-qsv11") == {"obs", "qsv"}
    assert words_of("demo_darknet2onnx") == {"demo", "darknet", "onnx"}
    assert words_of("Dockerfile.cuda12_ubuntu22") == {"dockerfile", "cuda", "ubuntu"}


def test_nvidia_implementations_beside_peers_of_their_role_are_optional(rulebase) -> None:
    """HandBrake's NVENC beside QSV and VCE, ethminer's NVML monitor beside ADL and amdgpu sysfs, pytorch-YOLOv4's
    TensorRT demo and DeepStream plugin beside its TensorFlow and ONNX demos: the project runs without them."""
    data = report("vendor_peers", rulebase)
    assert data["summary"]["class"] == "native"
    found = optional_parts(data)
    assert found["libhb/nvenc_common.c (chosen at run time)"]["class"] == "incompatible"
    assert "qsv_common.c" in found["libhb/nvenc_common.c (chosen at run time)"]["evidence"][0]
    assert "libhwmon/wrapnvml.cpp (chosen at run time)" in found
    assert "yolo/demo_trt.py (chosen at run time)" in found
    assert "yolo/DeepStream (chosen at run time)" in found
    for prefix in ("libhb/nvenc", "libhwmon/wrapnvml", "yolo/demo_trt", "yolo/DeepStream"):
        assert _statuses(data, prefix) == {"optional"}, prefix


def test_an_nvidia_implementation_without_peers_or_imported_by_required_code_stays_required(rulebase) -> None:
    data = report("vendor_peers_near", rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert not any("chosen at run time" in root for root in optional_parts(data))
    assert "optional" not in _statuses(data, "libhb/nvenc_common.c")
    assert "optional" not in _statuses(data, "yolo/demo_trt.py")


def test_an_nvidia_build_script_or_image_beside_a_plain_one_is_one_way_to_build(rulebase, tmp_path: Path) -> None:
    """InspireFace: build_linux_tensorrt.sh beside build_linux_ubuntu18.sh, Dockerfile.cuda.ubuntu20 beside
    Dockerfile.ubuntu18; the SDK (MNN by default) has no CUDA."""
    data = report("build_variants", rulebase)
    assert data["summary"]["class"] == "native"
    found = optional_parts(data)
    assert "command/build_linux_tensorrt.sh (chosen at run time)" in found
    assert "docker/Dockerfile.cuda.ubuntu20 (chosen at run time)" in found
    near = report("build_variants_near", rulebase)  # the TensorRT script alone: no other way to build
    assert not any("chosen at run time" in root for root in optional_parts(near))
    assert "optional" not in _statuses(near, "command/")


def test_a_cuda_provider_with_a_portable_fallback_is_optional(rulebase) -> None:
    """yolov5 models/common.py: ["CUDAExecutionProvider", "CPUExecutionProvider"]; ONNX Runtime falls back."""
    data = report("fallback_providers", rulebase)
    assert data["summary"]["class"] == "native"
    assert _statuses(data, "models/common.py") == {"optional"}
    near = report("fallback_providers_near", rulebase)  # the CUDA provider alone
    assert near["summary"]["class"] != "native"
    assert "optional" not in _statuses(near, "models/common.py")


def test_development_requirements_are_optional(rulebase, tmp_path: Path) -> None:
    """tfjs-converter: jax/tensorflow pins in requirements-dev_lock.txt; the same pins written by hand in requirements.txt
    count (pip-compile's output itself is a resolver's record wherever it lies: extract/text/deps.py)."""
    data = report("dev_requirements", rulebase)
    assert data["summary"]["class"] == "native"
    assert _statuses(data, "python/requirements-dev_lock.txt") <= {"optional"}
    tree = tmp_path / "near"
    shutil.copytree(CASES / "dev_requirements", tree)
    locked = (tree / "python" / "requirements-dev_lock.txt").read_text().splitlines()
    pins = [line.rstrip(" \\") for line in locked if "==" in line]  # hand-written: no resolver header, no hashes
    (tree / "python" / "requirements.txt").write_text("\n".join(pins) + "\n")
    (tree / "python" / "requirements-dev_lock.txt").unlink()
    near = scanned(tree, rulebase)
    assert near["summary"]["class"] != "native"


def test_parts_are_keyed_by_line_file_or_folder() -> None:
    parts = {"a/b.c": "x", "d/": "y", "e.py:3": "z"}
    assert covering(parts, "a/b.c", 1) == "a/b.c"
    assert covering(parts, "d/e/f.cpp", 9) == "d/"
    assert covering(parts, "e.py", 3) == "e.py:3"
    assert covering(parts, "e.py", 4) is None
    assert covering(parts, "dd/x.c", 1) is None


def test_a_module_imported_from_inside_its_own_folder_stays_an_alternative() -> None:
    """DeepStream/ importing its own helper is no import from required code."""
    from migrate.model import Fact

    helper = Fact(kind="python_import", name="helper", line=1, column=1, end_line=1, end_column=10)
    facts = {"DeepStream/run.py": [helper], "DeepStream/helper.py": [], "demo_onnxruntime.py": []}
    found = run_time_alternatives(facts, dict.fromkeys(facts, "python"), [], load())
    assert "DeepStream/" in found


def test_an_onnx_parser_beside_a_tensorrt_engine_is_no_other_runtime() -> None:
    """A TensorRT project's ONNX parser feeds TensorRT (TensorRT reads ONNX): the engine stays required."""
    files = ("src/trt_engine.cpp", "src/onnx_parser.cpp", "src/main.cpp")
    assert run_time_alternatives(dict.fromkeys(files, ()), dict.fromkeys(files, "cpp"), [], load()) == {}


def test_a_gpu_image_for_amd_is_no_nvidia_build_variant() -> None:
    """MIVisionX's docker/zenDNN/zenDNN-gpu-hip.dockerfile beside the CPU ones: a GPU image, for AMD's GPUs."""
    files = ("docker/zenDNN-gpu-hip.dockerfile", "docker/zenDNN.dockerfile", "docker/Dockerfile.cuda")
    found = run_time_alternatives(dict.fromkeys(files, ()), dict.fromkeys(files, "dockerfile"), [], load())
    assert set(found) == {"docker/Dockerfile.cuda"}


def test_a_cuda_back_end_package_beside_portable_back_end_packages_is_optional(rulebase) -> None:
    """DotCompute (batch s): src/Backends/DotCompute.Backends.CUDA beside DotCompute.Backends.CPU and .Metal, each a
    .NET project of its own; the README installs the CPU package and adds the CUDA one to run on CUDA."""
    data = report("backend_packages", rulebase)
    assert data["summary"]["class"] == "native"
    found = optional_parts(data)
    part = found["src/Backends/DotCompute.Backends.CUDA (chosen at run time)"]
    assert part["class"] == "migration-required"
    assert "DotCompute.Backends.CPU, DotCompute.Backends.Metal" in part["evidence"][0]
    assert _statuses(data, "src/Backends/DotCompute.Backends.CUDA/") == {"optional"}


def test_a_cuda_back_end_package_beside_plain_folders_stays_required(rulebase) -> None:
    """The same tree without the CPU and Metal project files: the CPU folder is code, not a package the user picks."""
    data = report("backend_packages_near", rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert not any("chosen at run time" in root for root in optional_parts(data))
    assert "optional" not in _statuses(data, "src/Backends/DotCompute.Backends.CUDA/")


def test_cmake_back_end_folders_are_no_packages(rulebase) -> None:
    """dolphin (precision sample 20): backends/cuda beside backends/cpu, CMake subdirectories of one configure that
    adds the CUDA one under `option(BUILD_CUDA ... ON)`: the default build compiles the kernels (judged required)."""
    data = report("backend_packages_cmake_near", rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert not any("chosen at run time" in root for root in optional_parts(data))
    assert "optional" not in _statuses(data, "backends/cuda/")


def test_backend_packages_read_the_manifest_in_each_folder() -> None:
    data = load()
    paths = ["x/X.Backends.CUDA/X.Backends.CUDA.csproj", "x/X.Backends.CUDA/k.cu",
             "x/X.Backends.CPU/X.Backends.CPU.csproj", "y/cuda/Cargo.toml", "y/metal/Cargo.toml",
             "z/cuda/k.cu", "z/cpu/Cargo.toml", "w/ops_cuda/setup.py", "w/core_cpu/setup.py"]
    found = run_time_backend_packages(paths, data)
    assert sorted(found) == ["x/X.Backends.CUDA/", "y/cuda/"]  # z/cuda has no manifest; w's names differ in more


def test_dotnet_project_files_are_discovered_and_give_no_facts() -> None:
    from migrate.extract import extract
    from migrate.scan.discover import file_kind

    assert {file_kind(Path(n), sniff=False) for n in ("A.csproj", "B.fsproj", "C.VBPROJ")} == {"dotnet"}
    source = (CASES / "backend_packages/src/Backends/DotCompute.Backends.CUDA/DotCompute.Backends.CUDA.csproj").read_bytes()
    assert extract("dotnet", source).facts == ()


def test_an_nvidia_requirements_file_beside_its_amd_twin_is_optional(rulebase) -> None:
    """openkbs-ai-server (batch t): models/requirements_NVIDIA.txt beside requirements_AMD.txt, which its README installs
    after ROCm's torch: the project ships the AMD variant, the NVIDIA file is no part of the port."""
    data = report("vendor_twins", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["models/requirements_NVIDIA.txt (chosen at run time)"]
    assert part["class"] == "minor-adaptation"
    assert "requirements_AMD.txt" in part["evidence"][0]
    assert _statuses(data, "models/requirements_NVIDIA.txt") == {"optional"}


def test_a_cpu_architecture_or_an_empty_amd_file_is_no_twin(rulebase) -> None:
    """requirements_amd64.txt names the x86-64 CPU architecture; an empty requirements_AMD.txt is a stub."""
    data = report("vendor_twins_near", rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert not optional_parts(data)
    for folder in ("cpu", "stub"):
        assert _statuses(data, f"{folder}/requirements_NVIDIA.txt") == {""}, folder  # required: no status


def test_vendor_twins_compare_whole_names_but_the_vendor_word() -> None:
    from migrate.workloads.alternatives import vendor_twins

    kinds = {"a/requirements-cuda.txt": "requirements", "a/requirements-rocm.txt": "requirements",
             "b/Dockerfile.konflux.cuda": "dockerfile", "b/Dockerfile.konflux.rocm": "dockerfile",
             "c/requirements-cuda.txt": "requirements", "c/requirements-rocm-dev.txt": "requirements",
             "d/build_cuda.sh": "shell", "d/requirements_rocm.txt": "requirements"}
    facts = {p: [object()] for p in kinds}
    assert sorted(vendor_twins(facts, kinds, load())) == ["a/requirements-cuda.txt", "b/Dockerfile.konflux.cuda"]


def test_a_cuda_program_built_on_its_own_beside_an_opencl_one_is_optional(rulebase) -> None:
    """QuickMatch (batch t): cuda/Makefile (nvcc) beside OpenCL/Makefile, the same matcher, no build above them."""
    data = report("standalone_backends", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["cuda (chosen at run time)"]
    assert part["class"] == "migration-required"
    assert "OpenCL" in part["evidence"][0]
    assert _statuses(data, "cuda/") == {"optional"}


def test_a_build_above_the_back_ends_or_a_sibling_without_a_build_keeps_cuda_required(rulebase) -> None:
    """A top-level Makefile that makes both folders (the default build compiles the kernels); an OpenCL folder with
    sources and no build of its own."""
    for case in ("standalone_backends_near", "standalone_backends_unbuilt_near"):
        data = report(case, rulebase)
        assert data["summary"]["class"] == "migration-required", case
        assert not any("chosen at run time" in root for root in optional_parts(data)), case
        assert _statuses(data, "cuda/match.cu") == {""}, case  # required (the Makefile's Darwin branch is a switch)


def test_a_gpu_deployment_folder_beside_server_runtime_folders_is_optional(rulebase) -> None:
    """wenet: runtime/gpu (a TensorRT plugin with its own Makefile, a TensorRT export script and its requirements)
    beside runtime/libtorch, runtime/onnxruntime, runtime/openvino: one deployment per platform."""
    data = report("gpu_deployment_folder", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["runtime/gpu (chosen at run time)"]
    assert part["class"] == "incompatible"
    assert "beside libtorch" in part["evidence"][0]
    assert _statuses(data, "runtime/gpu/") == {"optional"}


def test_a_gpu_folder_without_runtime_folders_beside_it_stays_required(rulebase, tmp_path: Path) -> None:
    """Near miss: the same tree with runtime/libtorch renamed runtime/core (no peer runtime beside gpu/)."""
    tree = Path(shutil.copytree(CASES / "gpu_deployment_folder", tmp_path / "gpu_deployment_folder"))
    (tree / "runtime/libtorch").rename(tree / "runtime/core")
    for name in ("onnxruntime", "openvino"):
        shutil.rmtree(tree / "runtime" / name)
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert not any("chosen at run time" in root for root in optional_parts(data))


def test_gpu_names_no_vendor_beside_amd_folders_files_or_in_a_runtimes_own_name() -> None:
    """`gpu` is NVIDIA's deployment only as a folder beside peer runtime folders: not Eigen's arch/GPU beside arch/HIP
    (code both share), not a file, not `migraphx_gpu/` (MIGraphX's own GPU target) or `hip_gpu/`."""
    data = load()

    def deployment(paths: list[str]) -> list[str]:
        return [k for k, v in _vendor_peers(paths, data).items() if "GPU inference deployment" in v]

    assert deployment(["runtime/gpu/a.py", "runtime/libtorch/CMakeLists.txt"]) == ["runtime/gpu/"]
    assert deployment(["Eigen/src/Core/arch/GPU/Tuple.h", "Eigen/src/Core/arch/HIP/hcc/math.h"]) == []
    assert deployment(["docs/gpu.md", "docs/libtorch/index.md"]) == []  # a file named gpu
    assert deployment(["runtime/gpu/a.py", "runtime/libtorch.md"]) == []  # a peer that is a file
    assert deployment(["win/migraphx_gpu/x.dll", "win/onnxruntime/y.dll"]) == []
    assert deployment(["rt/hip_gpu/x.cpp", "rt/openvino/y.cpp"]) == []


def test_cuda_flavors_of_a_program_written_once_per_language_are_optional(rulebase) -> None:
    """leetgpu-challenges: starter.cu and starter.cute.py beside starter.triton.py and starter.pytorch.py."""
    data = report("language_twins", rulebase)
    assert data["summary"]["class"] == "native"
    found = optional_parts(data)
    for name in ("starter.cu", "starter.cute.py"):
        part = found[f"challenges/easy/1_vector_add/starter/{name} (chosen at run time)"]
        assert "starter.pytorch.py, starter.triton.py" in part["evidence"][0]
    assert _statuses(data, "challenges/easy/1_vector_add/starter/") == {"optional"}


def test_a_cuda_file_without_a_portable_twin_of_its_stem_stays_required(rulebase, tmp_path: Path) -> None:
    """Near miss: the portable starters removed, or named for another stem (kernel.triton.py): the CUDA file is the
    program, as before."""
    tree = Path(shutil.copytree(CASES / "language_twins", tmp_path / "language_twins"))
    starter = tree / "challenges/easy/1_vector_add/starter"
    (starter / "starter.pytorch.py").unlink()
    (starter / "starter.triton.py").rename(starter / "kernel.triton.py")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] != "native"
    assert not any("chosen at run time" in root for root in optional_parts(data))


def test_language_twins_need_one_stem_one_folder_and_a_portable_flavor() -> None:
    data = load()
    assert sorted(language_twins(["s/starter.cu", "s/starter.mojo", "s/starter.jax.py"], data)) == ["s/starter.cu"]
    assert language_twins(["ops/nms_cuda.cu", "ops/nms_cpu.cpp"], data) == {}  # the GPU path of one op
    assert language_twins(["ops/nms.cu", "ops/nms.cpp", "ops/nms.h"], data) == {}  # no portable flavor
    assert language_twins(["a/starter.cu", "b/starter.triton.py"], data) == {}  # other folders
