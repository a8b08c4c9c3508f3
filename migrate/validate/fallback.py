"""Ops that ran on the CPU during a device run, read from torch.profiler.

An aten op that took CPU time but launched no device work, and is not one of the ops that never launch
any (views, shape and allocation bookkeeping), computed on the CPU: a silent fallback when the model's
tensors live on the GPU. The classifier is a pure function of (name, count, device time) rows.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

# aten ops that do no arithmetic on the device even when their tensors live there.
NO_KERNEL = frozenset((
    "alias", "as_strided", "chunk", "contiguous", "detach", "detach_", "dim", "empty", "empty_like", "empty_strided",
    "expand", "expand_as", "flatten", "is_nonzero", "is_same_size", "item", "lift_fresh", "lift_fresh_copy",
    "narrow", "numel", "permute", "reshape", "resize_", "result_type", "select", "set_", "size", "slice", "split",
    "split_with_sizes", "squeeze", "squeeze_", "stride", "t", "transpose", "unbind", "unflatten", "unsqueeze",
    "unsqueeze_", "view", "view_as", "_reshape_alias", "_unsafe_view", "_has_compatible_shallow_copy_type",
    "record_stream", "_local_scalar_dense", "is_pinned", "to", "_to_copy", "copy_", "requires_grad_",
    "_foreach_copy_", "zero_", "resolve_conj", "resolve_neg", "conj", "_conj", "_neg_view", "matrix_H", "mT", "mH",
    "clone", "fill_", "new_empty", "new_empty_strided", "as_strided_", "split_with_sizes_copy",
))
DEVICE_TO_HOST = ("Memcpy DtoH", "CopyDeviceToHost", "memcpyDtoH")


def classify(rows: Iterable[tuple[str, int, float, float]]) -> list[dict[str, Any]]:
    """rows: (name, count, device time in µs, self CPU time in µs). Returns the CPU-fallback ops, by name."""
    out = []
    for name, count, device_us, cpu_us in rows:
        if not name.startswith("aten::") or name[6:] in NO_KERNEL:
            continue
        if device_us == 0 and cpu_us > 0:
            out.append({"op": name, "count": int(count), "self_cpu_us": round(cpu_us, 1)})
    return sorted(out, key=lambda r: str(r["op"]))


def profile(torch: Any, dev: Any, dtype_name: str, step: Callable[[], None]) -> dict[str, Any]:
    """Run one training step under the profiler and report the ops that fell back to the CPU."""
    if dev.type == "cpu":
        return {"check": "cpu_fallback", "dtype": dtype_name, "status": "skipped", "metrics": {},
                "info": {"reason": "the run is on the CPU: every op runs there by design"}}
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    with torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize(dev)
    averages = prof.key_averages()
    rows = [(e.key, e.count, float(_device_time(e)), float(e.self_cpu_time_total)) for e in averages]
    copies = sum(e.count for e in averages if any(k in e.key for k in DEVICE_TO_HOST))
    ops = classify(rows)
    return {"check": "cpu_fallback", "dtype": dtype_name, "status": "ran",
            "metrics": {"ops": [r["op"] for r in ops]},
            "info": {"device": str(dev), "details": ops, "device_to_host_copies": int(copies),
                     "profiled_ops": len(rows)}}


def _device_time(event: Any) -> float:
    for attr in ("device_time_total", "cuda_time_total"):
        if hasattr(event, attr):
            return float(getattr(event, attr))
    return 0.0
