"""Step time after warm-up (median and spread), samples per second and peak device memory."""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def summary(seconds: list[float]) -> dict[str, float]:
    """Median and spread of step times in milliseconds (p10/p90 by nearest rank, IQR, min, max)."""
    ms = sorted(s * 1000.0 for s in seconds)

    def rank(q: float) -> float:
        return ms[min(len(ms) - 1, max(0, round(q * (len(ms) - 1))))]

    return {"median": statistics.median(ms), "p10": rank(0.1), "p90": rank(0.9),
            "iqr": rank(0.75) - rank(0.25), "min": ms[0], "max": ms[-1]}


def measure(torch: Any, dev: Any, dtype_name: str, batch_size: int, warmup: int, timed: int,
            step: Callable[[int], None]) -> dict[str, Any]:
    """Time `timed` steps after `warmup` untimed ones, synchronising the device around each."""
    for i in range(warmup):
        step(i)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda *_: None)
    sync(dev)
    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats(dev)
    times = []
    for i in range(max(1, timed)):
        start = time.perf_counter()
        step(warmup + i)
        sync(dev)
        times.append(time.perf_counter() - start)
    step_ms = summary(times)
    peak = int(torch.cuda.max_memory_allocated(dev)) if dev.type == "cuda" else None
    return {"dtype": dtype_name, "warmup": warmup, "timed_steps": len(times), "batch_size": batch_size,
            "step_time_ms": step_ms, "samples_per_s": batch_size / (step_ms["median"] / 1000.0),
            "peak_device_memory_bytes": peak}
