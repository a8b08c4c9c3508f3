"""The PyTorch adapter: which device is present, deterministic settings, and the environment record."""
from __future__ import annotations

import os
import platform
import subprocess
from typing import Any

from migrate.vocabulary import install_hint

# Environment variables that change which kernels run or how they round (PyTorch, cuBLAS, ROCm's hipBLASLt).
NUMERICS_ENV = ("TORCH_BLAS_PREFER_HIPBLASLT", "TORCH_BLAS_PREFER_CUBLASLT", "HIPBLASLT_ALLOW_TF32",
                "NVIDIA_TF32_OVERRIDE", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "ROCBLAS_DEFAULT_ATOMICS_MODE",
                "PYTORCH_TUNABLEOP_ENABLED", "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL", "CUBLAS_WORKSPACE_CONFIG")


def torch_module() -> Any:
    """PyTorch, or a one-line error naming the extra that installs it."""
    try:
        import torch
    except ImportError:
        raise RuntimeError(f"PyTorch is not installed: {install_hint('validate')}") from None
    return torch


def platform_name(torch: Any) -> str:
    """'rocm' for ROCm's build (it answers torch.version.hip and reuses the cuda device type), 'cuda', or 'cpu'."""
    if not torch.cuda.is_available():
        return "cpu"
    return "rocm" if getattr(torch.version, "hip", None) else "cuda"


def device(torch: Any, force_cpu: bool = False) -> Any:
    return torch.device("cpu" if force_cpu or not torch.cuda.is_available() else "cuda:0")


def make_deterministic(torch: Any, seed: int) -> None:
    """Same numbers on every run of one machine: seeded, deterministic kernels, no TF32 shortcuts."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")


def dtype(torch: Any, name: str) -> Any:
    return getattr(torch, name)


def synchronize(torch: Any, dev: Any) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def environment(torch: Any, dev: Any) -> dict[str, Any]:
    """Framework, CUDA/ROCm, driver, GPU name and architecture, Python and OS."""
    env: dict[str, Any] = {
        "platform": "cpu" if dev.type == "cpu" else platform_name(torch),
        "device": str(dev), "framework": "torch", "framework_version": torch.__version__,
        "cuda_version": torch.version.cuda, "hip_version": getattr(torch.version, "hip", None),
        "cudnn_version": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        "python": platform.python_version(), "os": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(), "cpu_threads": torch.get_num_threads(),
        "gpu_name": None, "gpu_arch": None, "gpu_count": torch.cuda.device_count() if torch.cuda.is_available() else 0,
        "gpu_memory_bytes": None, "driver": None,
    }
    if dev.type == "cuda":
        props = torch.cuda.get_device_properties(dev)
        env["gpu_name"] = props.name
        rocm = env["platform"] == "rocm"  # CUDA builds answer gcnArchName with the product name
        env["gpu_arch"] = getattr(props, "gcnArchName", None) if rocm else f"sm_{props.major}{props.minor}"
        env["gpu_memory_bytes"] = int(props.total_memory)
        env["driver"] = _driver(env["platform"])
    from migrate.validate.kernels import switches

    env["determinism"] = {"deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
                          "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32),
                          "cublas_workspace_config": os.environ.get("CUBLAS_WORKSPACE_CONFIG")}
    env["kernel_switches"] = switches(torch)
    env["numerics_environment"] = {k: os.environ[k] for k in NUMERICS_ENV if k in os.environ}
    for name in ("triton", "transformers"):
        env[f"{name}_version"] = _version(name)
    return env


def _version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _driver(platform_: str) -> str | None:
    """The kernel driver's version from nvidia-smi (CUDA) or /sys/module/amdgpu/version (ROCm)."""
    if platform_ == "rocm":
        try:
            with open("/sys/module/amdgpu/version", encoding="utf-8") as handle:
                return handle.read().strip() or None
        except OSError:
            return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.strip().splitlines()[0] if out.strip() else None
