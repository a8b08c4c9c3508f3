"""Which kernels ran: the scaled-dot-product-attention backend and the matrix-multiply library's kernels,
read from one profiled training step (PyTorch picks them per dtype, shape and device, so the switches alone
do not say)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

# aten ops through which F.scaled_dot_product_attention reaches each backend (PyTorch's own op names).
SDPA_BACKENDS = {
    "aten::_scaled_dot_product_flash_attention": "flash",
    "aten::_scaled_dot_product_flash_attention_for_cpu": "flash (cpu)",
    "aten::_scaled_dot_product_efficient_attention": "memory-efficient",
    "aten::_scaled_dot_product_cudnn_attention": "cudnn",
    "aten::_scaled_dot_product_attention_math": "math",
    "aten::_scaled_dot_product_fused_attention_overrideable": "overrideable",
}
# Substrings of device kernel names that say which library ran a matrix product.
GEMM_FAMILIES = (("nvjet", "cublasLt (nvjet)"), ("xmma", "cublas (xmma)"), ("cutlass", "cutlass"),
                 ("Cijk_", "hipblaslt/tensile"), ("gemm", "gemm"))
MAX_KERNELS = 6


def summarise(names: Iterable[str]) -> dict[str, Any]:
    """SDPA backends and GEMM kernel families among the profiled event names (a pure function, for tests)."""
    seen = list(dict.fromkeys(names))
    sdpa = sorted({SDPA_BACKENDS[n] for n in seen if n in SDPA_BACKENDS})
    gemm = [n for n in seen if any(key in n for key, _ in GEMM_FAMILIES) and not n.startswith("aten::")]
    families = sorted({next(label for key, label in GEMM_FAMILIES if key in n) for n in gemm})
    return {"sdpa": sdpa, "gemm_libraries": families, "gemm_kernels": [n[:160] for n in gemm[:MAX_KERNELS]]}


def observe(torch: Any, dev: Any, step: Callable[[], None]) -> dict[str, Any]:
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == "cuda" else [])
    with profile(activities=activities) as prof:
        step()
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
    return summarise(e.name for e in prof.events())


def switches(torch: Any) -> dict[str, Any]:
    """The settings that choose kernels: TF32 (XF32 on ROCm's hipBLASLt), the BLAS library, SDPA backends."""
    cuda = torch.backends.cuda
    blas = getattr(cuda, "preferred_blas_library", None)
    out: dict[str, Any] = {
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "tf32_matmul": bool(cuda.matmul.allow_tf32), "tf32_cudnn": bool(torch.backends.cudnn.allow_tf32),
        "bf16_reduced_precision_reduction": bool(getattr(cuda.matmul, "allow_bf16_reduced_precision_reduction", False)),
        "fp16_reduced_precision_reduction": bool(getattr(cuda.matmul, "allow_fp16_reduced_precision_reduction", False)),
        "preferred_blas_library": str(blas()).split(".")[-1] if callable(blas) else None,
        "sdpa_enabled": {name: bool(getattr(cuda, f"{name}_sdp_enabled")()) for name in
                         ("flash", "mem_efficient", "math", "cudnn") if hasattr(cuda, f"{name}_sdp_enabled")},
    }
    return out
