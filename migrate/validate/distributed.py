"""The distributed checks of one rank, in-process (world size 1) or in a launched worker (world size N)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from migrate.validate.collectives import check_collectives, ddp_step
from migrate.validate.numerics import Loaded

# NVLink multicast stays off: a program that uses it can put a shared host's GPUs out of service.
SAFE_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def rank_device(torch: Any, local_rank: int, world: int, force_cpu: bool) -> tuple[Any, str]:
    """One GPU per rank with NCCL (RCCL on ROCm) where there are enough of them, else the CPU with gloo."""
    if not force_cpu and torch.cuda.is_available() and torch.cuda.device_count() >= world:
        torch.cuda.set_device(local_rank)
        return torch.device(f"cuda:{local_rank}"), "nccl"
    return torch.device("cpu"), "gloo"


def run_rank(torch: Any, loaded: Loaded, seed: int, batch_size: int, rank: int, world: int, local_rank: int,
             force_cpu: bool, init_method: str) -> dict[str, Any]:
    import torch.distributed as dist

    os.environ.update(SAFE_ENV)
    dev, backend = rank_device(torch, local_rank, world, force_cpu)
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world)
    try:
        collectives = check_collectives(torch, dist, rank, world, dev)
        try:
            ddp = ddp_step(torch, dist, loaded, seed, batch_size, rank, world, dev)
        except Exception as exc:  # the model under test may fail in any way; the collectives still count
            ddp = {"status": "failed", "reason": f"{type(exc).__name__}: {str(exc).strip()[:300]}"}
    finally:
        dist.destroy_process_group()
    return {"rank": rank, "world_size": world, "backend": backend, "device": str(dev),
            "collectives": collectives, "ddp": ddp}


def in_process(torch: Any, loaded: Loaded, seed: int, batch_size: int, force_cpu: bool) -> dict[str, Any]:
    """World size 1 in this process: the code path of the N-process run, with a file store."""
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "store"
        result = run_rank(torch, loaded, seed, batch_size, 0, 1, 0, force_cpu, store.as_uri())
    return merge([result], launcher="in-process")


def merge(results: list[dict[str, Any]], launcher: str) -> dict[str, Any]:
    """One distributed block from every rank's result: a collective is exact only where it is on all ranks."""
    first = min(results, key=lambda r: int(r["rank"]))
    collectives = []
    for entry in first["collectives"]:
        same = [c for r in results for c in r["collectives"] if c["op"] == entry["op"]]
        collectives.append({**entry, "exact": all(c.get("exact") for c in same),
                            "status": "ran" if all(c["status"] == "ran" for c in same) else "failed"})
    return {"world_size": first["world_size"], "backend": first["backend"], "launcher": launcher,
            "devices": sorted({r["device"] for r in results}), "collectives": collectives, "ddp": first["ddp"]}


def as_checks(block: dict[str, Any]) -> list[dict[str, Any]]:
    """The distributed block as the fingerprint's 'collectives' and 'ddp' checks."""
    info = {"world_size": block["world_size"], "backend": block["backend"], "launcher": block["launcher"]}
    failed = [c for c in block["collectives"] if c["status"] != "ran"]
    collectives = {"check": "collectives", "dtype": "float32", "status": "failed" if failed else "ran",
                   "metrics": {f"{c['op']}_exact": bool(c["exact"]) for c in block["collectives"]},
                   "info": {**info, **({"reason": "; ".join(f"{c['op']}: {c.get('reason')}" for c in failed)}
                                       if failed else {})}}
    ddp = block["ddp"]
    ddp_check = {"check": "ddp", "dtype": "float32", "status": ddp["status"],
                 "metrics": {"grad_rel_err": ddp["grad_rel_err"]} if ddp["status"] == "ran" else {},
                 "info": {**info, **{k: v for k, v in ddp.items() if k not in ("status", "grad_rel_err", "scaling")}}}
    return [collectives, ddp_check]
