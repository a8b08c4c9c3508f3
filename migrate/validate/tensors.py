"""Small tensor helpers shared by the runner's checks (inputs are torch tensors; results plain Python)."""
from __future__ import annotations

from typing import Any


def stats(t: Any) -> dict[str, Any]:
    """Summary of a tensor, computed in float64 on the CPU so devices are compared on equal terms."""
    x = t.detach().to("cpu").double()
    finite = bool(x.isfinite().all())
    return {"mean": float(x.mean()), "std": float(x.std()) if x.numel() > 1 else 0.0,
            "abs_max": float(x.abs().max()), "l2": float(x.norm()), "finite": finite}


def l2(t: Any) -> float:
    return float(t.detach().to("cpu").double().norm())


def rel_err(value: Any, reference: Any) -> float:
    """‖value − reference‖ / ‖reference‖ in float64 (0 when both are zero)."""
    a, b = value.detach().to("cpu").double(), reference.detach().to("cpu").double()
    denom = float(b.norm())
    diff = float((a - b).norm())
    return diff / denom if denom else diff


def max_abs_diff(a: Any, b: Any) -> float:
    return float((a.detach().to("cpu").double() - b.detach().to("cpu").double()).abs().max())


def to_device(torch: Any, value: Any, dev: Any, dtype: Any) -> Any:
    """Move a tensor, or each tensor of a tuple or list, to the device as a contiguous copy, so that every device
    sees the same layout (a CPU `.to` would keep a slice's strides where a device copy is contiguous);
    floating tensors take the dtype."""
    if isinstance(value, (tuple, list)):
        return type(value)(to_device(torch, v, dev, dtype) for v in value)
    if isinstance(value, torch.Tensor):
        moved = value.to(device=dev, dtype=dtype if value.is_floating_point() else value.dtype)
        return moved.clone(memory_format=torch.contiguous_format) if moved.data_ptr() == value.data_ptr() \
            or not moved.is_contiguous() else moved
    return value


def layouts(value: Any) -> list[dict[str, Any]]:
    """Shape, dtype, strides and contiguity of each tensor in a batch (as drawn, before the move)."""
    if isinstance(value, (tuple, list)):
        return [entry for v in value for entry in layouts(v)]
    if hasattr(value, "stride"):
        return [{"shape": list(value.shape), "dtype": str(value.dtype).replace("torch.", ""),
                 "stride": list(value.stride()), "contiguous": bool(value.is_contiguous())}]
    return []


def first_tensor(value: Any) -> Any:
    """A model returning (logits, loss) or a dict is summarised by its first tensor."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return next((first_tensor(v) for v in value if first_tensor(v) is not None), None)
    return value if hasattr(value, "detach") else None


def call(model: Any, inputs: Any) -> Any:
    return model(*inputs) if isinstance(inputs, (tuple, list)) else model(inputs)
