"""Extractors of dependency, build and container files: fact names and exact locations."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract import extract
from migrate.extract.text.packages import conda_names, pip_names
from migrate.scan.discover import file_kind

STRUCTURE = frozenset({"cmake_target", "cmake_link", "cmake_include", "cmake_project", "distribution", "extension",
                       "switch_branch"})


def facts(kind: str, text: str, fact_kind: str | None = None, *, flags: bool = True) -> list[tuple[int, int, str]]:
    """Rule-facing facts (workload-structure facts are tested on their own); `flags=False` leaves
    out the flag facts, which every command line has."""
    extraction = extract(kind, text.encode())
    assert extraction.error is None
    return sorted((f.line, f.column, f.name) for f in extraction.facts
                  if (f.kind == fact_kind or (fact_kind is None and f.kind not in STRUCTURE))
                  and (flags or fact_kind == "flag" or f.kind != "flag"))


def test_cmake_structure_facts() -> None:
    text = ("project(demo LANGUAGES CXX CUDA)\nadd_library(ops STATIC src/a.cu ${EXTRA} src/b.cpp)\n"
            "target_include_directories(ops PUBLIC include)\ntarget_link_libraries(app PRIVATE ops CUDA::cudart)\n")
    got = {(f.kind, f.name, f.text) for f in extract("cmake", text.encode()).facts if f.kind in STRUCTURE}
    assert got == {("cmake_project", "demo", "LANGUAGES\nCXX\nCUDA"), ("cmake_target", "ops", "src/a.cu\nsrc/b.cpp"),
                   ("cmake_include", "ops", "include"), ("cmake_link", "app", "ops\nCUDA::cudart")}


@pytest.mark.parametrize(("spec", "names"), [
    ("jax[cuda12]==0.4.30", ["jax", "jax[cuda12]", "jax==0.4.30"]),
    ("torch==2.3.1+cu121", ["torch", "torch==2.3.1+cu121"]),
    ("Tensorflow[And_CUDA]>=2.16", ["tensorflow", "tensorflow[and-cuda]"]),
    ("bitsandbytes>=0.41,<0.45", ["bitsandbytes", "bitsandbytes<0.45"]),
    ('cupy-cuda11x==12.3.0 ; platform_system == "Linux"', ["cupy-cuda11x", "cupy-cuda11x==12.3.0"]),
    ("torchaudio @ https://download.pytorch.org/whl/cu121/torchaudio-2.3.1%2Bcu121-cp311-cp311-linux_x86_64.whl",
     ["torchaudio", "index:https://download.pytorch.org/whl/cu121/torchaudio-2.3.1%2Bcu121-cp311-cp311-linux_x86_64.whl",
      "torchaudio==2.3.1+cu121"]),
    ("git+https://github.com/NVIDIA/apex.git#egg=apex", ["apex"]),
    ("git+https://github.com/NVIDIA/apex.git", ["index:git+https://github.com/NVIDIA/apex.git"]),
    ("torch==${TORCH_VERSION}", ["torch"]),
])
def test_pip_names(spec: str, names: list[str]) -> None:
    assert pip_names(spec) == names


@pytest.mark.parametrize(("spec", "names"), [
    ("pytorch-gpu=2.3.1=*cuda*", ["pytorch-gpu", "pytorch-gpu=2.3.1=*cuda*"]),
    ("pytorch 2.3.1 py3.11_cuda12.1_cudnn8.9.2_0", ["pytorch", "pytorch=2.3.1=py3.11_cuda12.1_cudnn8.9.2_0"]),
    ("nvidia::cuda-toolkit=12.1.1", ["cuda-toolkit"]),
    ("pytorch[build=*cuda*]", ["pytorch", "pytorch=*=*cuda*"]),
    ("__cuda>=12", ["__cuda"]),
])
def test_conda_names(spec: str, names: list[str]) -> None:
    assert conda_names(spec) == names


def test_dockerfile_arg_default_is_reported_where_it_is_written() -> None:
    text = ("ARG BASE=nvidia/cuda:12.1.0-devel-ubuntu22.04\n"
            "ARG TAG=12.4.1\n"
            "FROM ${BASE} AS build\n"
            "FROM nvidia/cuda:${TAG}-runtime-ubuntu22.04\n"
            "COPY --from=build /a /a\n"
            "COPY --from=nvcr.io/nvidia/pytorch:24.05-py3 /opt /opt\n")
    assert facts("dockerfile", text, "base_image") == [
        (1, 10, "nvidia/cuda:12.1.0-devel-ubuntu22.04"),
        (4, 6, "nvidia/cuda:12.4.1-runtime-ubuntu22.04"),
        (6, 13, "nvcr.io/nvidia/pytorch:24.05-py3"),
    ]


def test_dockerfile_run_continuations_comments_and_heredocs() -> None:
    text = ("FROM ubuntu:22.04\n"
            "RUN --mount=type=cache,target=/root/.cache pip install \\\n"
            "    # a comment line does not end the instruction\n"
            "    torch --index-url https://download.pytorch.org/whl/cu121\n"
            "RUN <<EOF\n"
            "nvcc -arch=sm_90 -c k.cu\n"
            "EOF\n"
            "CMD [\"nvidia-smi\"]\n")
    assert (4, 5, "torch") in facts("dockerfile", text)
    assert (4, 23, "index:https://download.pytorch.org/whl/cu121") in facts("dockerfile", text)
    # every flag is a fact (the rules decide which are nvcc's), continuation and heredoc lines included
    assert sorted((line, name) for line, _, name in facts("dockerfile", text, "flag")) == [
        (4, "--index-url"), (6, "-arch"), (6, "-c"), (6, "nvcc")]
    assert (8, 7, "subprocess-nvidia-smi") in facts("dockerfile", text)


def test_shell_commands() -> None:
    text = ("#!/bin/bash\n"
            "#SBATCH --gres=gpu:a100:4\n"
            "#SBATCH --gres=gpu:4\n"
            "module load cuda/12.1\n"
            "docker run --rm --gpus all -e NVIDIA_VISIBLE_DEVICES=0 img python train.py --gpus 4\n"
            "cmake -B build -D CMAKE_CUDA_ARCHITECTURES=90\n"
            "conda install -y -c nvidia cuda-toolkit\n"
            "echo pip install tensorrt\n")
    assert facts("shell", text, flags=False) == [
        (2, 9, "slurm:gres:a100"),
        (4, 13, "module:cuda"),
        (5, 17, "--gpus"),
        (5, 31, "NVIDIA_VISIBLE_DEVICES"),
        (6, 19, "CMAKE_CUDA_ARCHITECTURES"),
        (7, 21, "channel:nvidia"),
        (7, 28, "cuda-toolkit"),
    ]


def test_cmake_lexer() -> None:
    text = ("project(demo\n"
            "  VERSION 1.0  # LANGUAGES CUDA in a comment\n"
            "  DESCRIPTION \"CUDA kernels\"\n"
            "  CXX CUDA)\n"
            "#[[ find_package(CUDA) ]]\n"
            "target_link_libraries(demo PRIVATE cudart CUDA::cublas \"${CUDAToolkit_LIBRARY_DIR}/x\")\n"
            "message(STATUS \"CUDA ${CUDA_VERSION} -arch=sm_80\")\n")
    assert [f for f in facts("cmake", text) if f[2] not in ("project", "target_link_libraries", "message")] == [
        (4, 7, "language:CUDA"),
        (6, 36, "-lcudart"),
        (6, 43, "CUDA::cublas"),
        (6, 59, "CUDAToolkit_LIBRARY_DIR"),
    ]


def test_pyproject_locations() -> None:
    text = ("[project]\n"
            "name = \"x\"\n"
            "dependencies = [\n"
            "  \"torch>=2.3\",\n"
            "  \"jax[cuda12]\",\n"
            "]\n"
            "[tool.poetry.dependencies]\n"
            "python = \"^3.10\"\n"
            "pynvml = \"^11.5\"\n"
            "[[tool.uv.index]]\n"
            "url = \"https://pypi.org/simple\"\n"
            "[[tool.uv.index]]\n"
            "url = \"https://download.pytorch.org/whl/cu124\"\n")
    assert facts("pyproject", text) == [
        (4, 4, "torch"), (5, 4, "jax"), (5, 4, "jax[cuda12]"), (9, 1, "pynvml"),
        (11, 8, "index:https://pypi.org/simple"), (13, 8, "index:https://download.pytorch.org/whl/cu124"),
    ]
    assert extract("pyproject", b"[project\n").error.startswith("TOML error")


def test_compose_device_requests_and_ci_steps() -> None:
    compose = ("services:\n"
               "  a:\n"
               "    gpus: all\n"
               "    deploy:\n"
               "      resources:\n"
               "        reservations:\n"
               "          devices:\n"
               "            - driver: nvidia\n"
               "              capabilities: [gpu]\n"
               "            - capabilities:\n"
               "                - gpu\n")
    assert facts("manifest", compose) == [(3, 5, "gpus"), (8, 15, "driver: nvidia"), (11, 19, "capabilities: gpu")]
    ci = ("test:\n"
          "  image: nvidia/cuda:12.4.1-devel-ubuntu22.04\n"
          "  script:\n"
          "  - pip install cupy-cuda12x\n"
          "  - |\n"
          "    nvcc --version\n")
    assert facts("manifest", ci) == [(2, 10, "nvidia/cuda:12.4.1-devel-ubuntu22.04"), (4, 17, "cupy-cuda12x"),
                                     (6, 5, "nvcc"), (6, 10, "--version")]


@pytest.mark.parametrize(("name", "kind"), [
    ("requirements/cuda.txt", "requirements"), ("requirements-gpu.in", "requirements"), ("Pipfile", "pyproject"),
    ("dev-environment.yml", "conda"), ("Containerfile.cuda", "dockerfile"), ("Makefile.cuda", "makefile"),
    ("train.sbatch", "shell"), ("job.slurm", "shell"), (".gitlab-ci.yml", "manifest"), ("docs/notes.txt", None),
])
def test_manifest_file_kinds(tmp_path: Path, name: str, kind: str | None) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x\n")
    assert file_kind(path) == kind


PORTABLE = {
    "requirements.txt": "--extra-index-url https://download.pytorch.org/whl/rocm6.2\ntorch==2.5.1+rocm6.2\n"
                        "cupy-rocm-7-0>=14\njax[rocm7-local]==0.6.0\njax-rocm7-plugin==0.6.0\n"
                        "onnxruntime-migraphx>=1.18\nbitsandbytes>=0.50\ntriton\nliger-kernel\nflash-attn\n"
                        "amdsmi\nhip-python\n",
    "environment.yml": "channels:\n  - conda-forge\ndependencies:\n  - python=3.11\n  - pip:\n"
                       "    - torch --index-url https://download.pytorch.org/whl/rocm6.2\n",
    "Dockerfile": "ARG BASE=rocm/dev-ubuntu-22.04:6.2-complete\nFROM ${BASE}\nFROM rocm/pytorch:latest\n"
                  "ENV PYTORCH_ROCM_ARCH=gfx942 HIP_VISIBLE_DEVICES=0\n"
                  "RUN apt-get install -y rocm-dev hipblas-dev && pip install cupy-rocm-7-0\n",
    "docker-compose.yml": "services:\n  a:\n    image: rocm/vllm:latest\n    devices:\n      - /dev/kfd\n"
                          "      - /dev/dri\n      - amd.com/gpu=all\n",
    "pod.yaml": "apiVersion: v1\nkind: Pod\nspec:\n  nodeSelector:\n    amd.com/gpu.product-name: MI300X\n"
                "  containers:\n    - name: a\n      image: rocm/pytorch:latest\n"
                "      resources:\n        limits:\n          amd.com/gpu: 1\n",
    "train.sbatch": "#!/bin/bash\n#SBATCH --gres=gpu:8\n#SBATCH --gpus-per-node=8\nmodule load rocm/6.2.0\n"
                    "docker run --device=/dev/kfd --device=/dev/dri rocm/pytorch python train.py --gpus 8\n",
    "CMakeLists.txt": "project(x LANGUAGES CXX HIP)\nfind_package(hip REQUIRED)\nfind_package(rccl REQUIRED)\n"
                      "set(CMAKE_HIP_ARCHITECTURES gfx90a gfx942)\n"
                      "target_link_libraries(x PRIVATE hip::device roc::hipblas rccl::rccl)\n",
    "Makefile": "HIPCC ?= hipcc\nHIPFLAGS := -O3 --offload-arch=gfx942 -fgpu-rdc\nLDLIBS += -lhipblas -lrccl\n",
}


def test_rocm_builds_are_not_reported(tmp_path: Path, rulebase) -> None:
    from migrate.scan import pipeline as scan
    from migrate.settings import Settings

    for name, text in PORTABLE.items():
        (tmp_path / name).write_text(text)
    report = scan.run([tmp_path], Settings(jobs=1, cache_dir=None), rulebase)
    assert report.files_scanned == len(PORTABLE) and not report.skipped
    # The stack check (HIP71xx) judges versions against the target release, not the build's flavour:
    # torch 2.5.1+rocm6.2 is a ROCm build, but not one for the default ROCm 7.2 (tests/test_stack.py).
    assert [(f.path, f.line, f.rule, f.symbol) for f in report.findings if not f.rule.startswith("HIP71")] == []


def test_source_repositories_fetched_by_cmake_submodules_and_git_clone() -> None:
    cmake = ("FetchContent_Declare(cutlass\n  GIT_REPOSITORY https://github.com/NVIDIA/cutlass.git GIT_TAG v3.5)\n"
             "CPMAddPackage(\"gh:NVIDIA/cccl@2.5.0\")\nCPMAddPackage(NAME nvtx GITHUB_REPOSITORY NVIDIA/NVTX)\n"
             "message(STATUS \"GIT_REPOSITORY https://github.com/NVIDIA/cutlass\")\n"
             "set(URL https://github.com/NVIDIA/cutlass)\n")
    assert facts("cmake", cmake, "requirement") == [
        (2, 18, "index:https://github.com/NVIDIA/cutlass.git"), (3, 16, "index:https://github.com/NVIDIA/cccl"),
        (4, 43, "index:https://github.com/NVIDIA/NVTX")]
    modules = "[submodule \"c\"]\n\tpath = c\n\turl = git@github.com:NVIDIA/cutlass.git\n# url = https://x/y\n"
    assert facts("gitmodules", modules) == [(3, 8, "index:git@github.com:NVIDIA/cutlass.git")]
    shell = ("git clone --depth 1 -b v1 https://github.com/NVIDIA/apex.git /opt/apex\n"
             "git clone -C x\ngit submodule add https://github.com/NVIDIA/cudnn-frontend.git fe\ngit log https://a/b\n")
    assert facts("shell", shell, "requirement") == [
        (1, 27, "index:https://github.com/NVIDIA/apex.git"), (3, 19, "index:https://github.com/NVIDIA/cudnn-frontend.git")]


def test_nvidia_tools_run_by_commands() -> None:
    shell = ("nsys profile -o t python x.py\nmpirun -np 2 /opt/nvidia/bin/ncu --set full ./a\n"
             "if ! command -v nsys >/dev/null; then exit 1; fi\nwhich cuda-gdb\necho trtexec\n"
             "timeout 60 trtexec --onnx=m.onnx\nARGS=(nsys profile\n")
    assert facts("shell", shell, "manifest") == [
        (1, 1, "tool:nsys"), (2, 14, "tool:ncu"), (6, 12, "tool:trtexec"), (7, 7, "tool:nsys")]
    docker = "FROM ubuntu\nRUN trtexec --onnx=m.onnx && echo nsys\nCMD [\"nsys\", \"profile\"]\n"
    assert facts("dockerfile", docker, "manifest") == [(2, 5, "tool:trtexec")]


def test_nvidia_names_in_prose_values_are_not_facts() -> None:
    """An alert's description names nvidia-smi and runs nothing (cut from canonical/hardware-observer-operator 3d87061
    src/prometheus_alert_rules/dcgm.yaml:50-62); a container command and a resource request beside it stay facts."""
    text = ("groups:\n- name: dcgm\n  rules:\n    - alert: GPUSyncBoostThrottle\n"
            "      expr: DCGM_FI_DEV_CLOCK_THROTTLE_REASONS % 32 >= 16\n"
            "      annotations:\n"
            "        summary: GPU Sync Boost throttling detected, see nvidia-smi\n"
            "        description: |\n"
            "          This NVIDIA GPU has been added to a Sync boost group with nvidia-smi or DCGM in order to\n"
            "          maximize performance per watt; request nvidia.com/gpu elsewhere.\n"
            "    - alert: Next\n"
            "      command: [\"nvidia-smi\", \"-L\"]\n"
            "      resources: {limits: {nvidia.com/gpu: 1}}\n")
    got = [(line, name) for line, _, name in facts("manifest", text) if "nvidia" in name]
    assert got == [(12, "subprocess-nvidia-smi"), (13, "nvidia.com/gpu")]
