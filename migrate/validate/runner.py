"""validate run: one spec, every check, one fingerprint (a plain dict; fingerprint.py writes and checks it)."""
from __future__ import annotations

import time
import traceback
import warnings
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from migrate import __version__
from migrate.validate import backend, distributed, fallback, kernels, numerics, performance
from migrate.validate.fingerprint import SCHEMA_VERSION
from migrate.validate.numerics import Loaded
from migrate.validate.ops import Recorder, check_ops
from migrate.validate.spec import RunSpec, resolve


def load_functions(spec: RunSpec) -> Loaded:
    return Loaded(factory=resolve(spec, spec.factory), batch=resolve(spec, spec.batch), loss=resolve(spec, spec.loss),
                  optimizer=resolve(spec, spec.optimizer),
                  implementations=resolve(spec, spec.implementations) if spec.implementations else None)


def guarded(name: str, dtype: str | None, fn: Callable[[], Any]) -> Any:
    """A check that raises is a failed check with its reason, not a crashed run."""
    try:
        return fn()
    except Exception as exc:
        return failure(name, dtype, exc)


def failure(name: str, dtype: str | None, exc: BaseException) -> dict[str, Any]:
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return {"check": name, "dtype": dtype, "status": "failed", "metrics": {},
            "info": {"reason": _one_line(exc), "at": f"{Path(frame.filename).name}:{frame.lineno}"}}


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}"


NONDETERMINISM = ("deterministic", "non-deterministic", "nondeterministic")


def run(spec: RunSpec, *, force_cpu: bool = False, nproc: int = 1, overrides: dict[str, Any] | None = None,
        progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """The fingerprint; determinism is claimed only when no op warned that it has no deterministic kernel."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _run(spec, force_cpu=force_cpu, nproc=nproc, overrides=overrides, progress=progress)
    unheld = sorted({str(w.message).strip().splitlines()[0][:300] for w in caught
                     if any(word in str(w.message) for word in NONDETERMINISM)})
    result["environment"]["determinism"].update({"held": not unheld, "nondeterministic": unheld})
    return result


def _run(spec: RunSpec, *, force_cpu: bool, nproc: int, overrides: dict[str, Any] | None,
         progress: Callable[[str], None]) -> dict[str, Any]:
    torch = backend.torch_module()
    started = time.perf_counter()
    dev = backend.device(torch, force_cpu)
    backend.make_deterministic(torch, spec.seed)
    loaded = load_functions(spec)
    checks: list[dict[str, Any]] = []
    perf: list[dict[str, Any]] = []
    ran: dict[str, Any] = {}
    for dtype_name in spec.dtypes:
        progress(f"{dtype_name}: numerics")
        checks += _dtype_checks(torch, spec, loaded, dev, dtype_name, perf, progress, ran=ran)
    amp_dtype = spec.amp_dtype
    if amp_dtype:
        progress(f"amp ({amp_dtype})")
        checks.append(guarded("amp", amp_dtype,
                              lambda: numerics.amp(torch, loaded, spec.seed, spec.batch_size, dev, amp_dtype)))
    progress(f"distributed (world size {nproc})")
    block = _distributed(torch, spec, loaded, force_cpu, nproc, overrides or {})
    if "error" in block:
        checks.append({"check": "collectives", "dtype": "float32", "status": "failed", "metrics": {},
                       "info": {"reason": block["error"], "world_size": nproc}})
    else:
        checks += distributed.as_checks(block)
    return {
        "schema_version": SCHEMA_VERSION, "kind": "rocm-migrate-fingerprint",
        "tool": {"name": "rocm-migrate", "version": __version__},
        "spec": spec.to_json(), "environment": backend.environment(torch, dev),
        "implementations": loaded.implementations() if loaded.implementations else {},
        "kernels": ran,
        "checks": checks,
        "performance": {"steps": perf, "distributed": _perf_distributed(block)},
        "seconds": round(time.perf_counter() - started, 2),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def _dtype_checks(torch: Any, spec: RunSpec, loaded: Loaded, dev: Any, dtype_name: str,
                  perf: list[dict[str, Any]], progress: Callable[[str], None], *,
                  ran: dict[str, Any]) -> list[dict[str, Any]]:
    recorder = Recorder(spec)
    try:
        checks, trained = numerics.run(torch, loaded, spec.seed, spec.steps, spec.batch_size, dev, dtype_name, recorder)
    except Exception as exc:
        return [failure(name, dtype_name, exc) for name in ("forward", "loss", "grad_norms", "param_deltas")]
    checks += check_ops(torch, spec, recorder, dtype_name, loaded.implementations) if spec.ops else []
    checks.append(guarded("checkpoint", dtype_name,
                          lambda: numerics.checkpoint(torch, loaded, spec.seed, dev, dtype_name, trained)))

    def step(i: int = 0) -> None:
        numerics.train_step(loaded, trained.model, trained.optimizer, trained.batches[i % len(trained.batches)])

    checks.append(guarded("cpu_fallback", dtype_name, lambda: fallback.profile(torch, dev, dtype_name, step)))
    try:
        ran[dtype_name] = kernels.observe(torch, dev, step)
    except Exception as exc:  # the profiler is an observer: its failure is recorded, not a failed check
        ran[dtype_name] = {"error": _one_line(exc)}
    progress(f"{dtype_name}: performance")
    measured = guarded("performance", dtype_name, lambda: performance.measure(
        torch, dev, dtype_name, spec.batch_size, spec.warmup, spec.timed_steps, step))
    if measured.get("status") == "failed":
        checks.append(measured)
    else:
        perf.append(measured)
    return checks


def _distributed(torch: Any, spec: RunSpec, loaded: Loaded, force_cpu: bool, nproc: int,
                 overrides: dict[str, Any]) -> dict[str, Any]:
    from migrate.validate import launch

    try:
        if nproc == 1:
            return distributed.in_process(torch, loaded, spec.seed, spec.batch_size, force_cpu)
        return launch.run(spec.path, nproc, force_cpu, overrides)
    except Exception as exc:
        return {"error": _one_line(exc)}


def _perf_distributed(block: dict[str, Any]) -> dict[str, Any] | None:
    if "error" in block:
        return None
    bandwidth = [{k: c[k] for k in ("op", "bytes", "time_ms", "algbw_GBps", "busbw_GBps")}
                 for c in block["collectives"] if c["status"] == "ran"]
    return {"world_size": block["world_size"], "backend": block["backend"], "collectives": bandwidth,
            "scaling": block["ddp"].get("scaling")}
