"""Collectives and a DDP step inside one process group (gloo on the CPU, NCCL or RCCL on GPUs).

Every collective is checked against its exact expected value (small integers in float32 are exact under
any reduction order), then timed on a larger message for bandwidth (nccl-tests' algorithm and bus
bandwidth). The DDP check compares the gradients and parameters after one DDP step on a shard per rank
with one single-process step on the whole batch: with a mean loss and equal shards they must agree.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from migrate.validate.numerics import Loaded, batches, build
from migrate.validate.tensors import call, max_abs_diff, rel_err

EXACT_ELEMENTS = 4096
MESSAGE_BYTES = {"cuda": 64 << 20, "cpu": 4 << 20}
BUS_FACTOR: dict[str, Callable[[int], float]] = {
    "all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n, "broadcast": lambda n: 1.0,
}


def _ops(torch: Any, dist: Any, rank: int, world: int, dev: Any, k: int) -> dict[str, Callable[[], tuple[Any, Any]]]:
    """Each collective as a function returning (result, exact expected value) for k elements per rank."""
    base = torch.arange(k, dtype=torch.float32, device=dev)

    def all_reduce() -> tuple[Any, Any]:
        x = base + rank * k
        dist.all_reduce(x)
        return x, world * base + k * world * (world - 1) / 2

    def all_gather() -> tuple[Any, Any]:
        parts = [torch.empty_like(base) for _ in range(world)]
        dist.all_gather(parts, base + rank * k)
        return torch.cat(parts), torch.arange(world * k, dtype=torch.float32, device=dev)

    def reduce_scatter() -> tuple[Any, Any]:
        full = torch.arange(world * k, dtype=torch.float32, device=dev) + rank * 1000
        out = torch.empty_like(base)
        dist.reduce_scatter(out, list(full.chunk(world)))
        expected = world * torch.arange(world * k, dtype=torch.float32, device=dev).chunk(world)[rank]
        return out, expected + 1000 * world * (world - 1) / 2

    def broadcast() -> tuple[Any, Any]:
        x = base + rank * k
        dist.broadcast(x, src=0)
        return x, base

    return {"all_reduce": all_reduce, "all_gather": all_gather, "reduce_scatter": reduce_scatter, "broadcast": broadcast}


def check_collectives(torch: Any, dist: Any, rank: int, world: int, dev: Any, iterations: int = 5) -> list[dict[str, Any]]:
    results = []
    message = MESSAGE_BYTES["cuda" if dev.type == "cuda" else "cpu"] // 4  # float32 elements moved per op
    for name, op in _ops(torch, dist, rank, world, dev, EXACT_ELEMENTS).items():
        try:
            got, expected = op()
            exact = bool(torch.equal(got, expected))
            per_rank = message // world if name in ("all_gather", "reduce_scatter") else message
            timed = _ops(torch, dist, rank, world, dev, per_rank)[name]
            seconds = _time(torch, dist, dev, timed, iterations)
        except RuntimeError as exc:  # a backend without this collective
            results.append({"op": name, "status": "failed", "exact": False, "reason": str(exc).splitlines()[0][:200]})
            continue
        size = message * 4
        algbw = size / seconds / 1e9
        results.append({"op": name, "status": "ran", "exact": exact, "bytes": size, "time_ms": seconds * 1000,
                        "algbw_GBps": algbw, "busbw_GBps": algbw * BUS_FACTOR[name](world)})
    return results


def _time(torch: Any, dist: Any, dev: Any, op: Callable[[], Any], iterations: int) -> float:
    op()  # warm-up: connection set-up and buffers
    times = []
    for _ in range(iterations):
        dist.barrier()
        _sync(torch, dev)
        start = time.perf_counter()
        op()
        _sync(torch, dev)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _sync(torch: Any, dev: Any) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def ddp_step(torch: Any, dist: Any, loaded: Loaded, seed: int, batch_size: int, rank: int, world: int, dev: Any,
             timed: int = 5) -> dict[str, Any]:
    """One DDP step on this rank's shard against one single-process step on the whole batch, and 1→N timing."""
    if batch_size % world:
        return {"status": "failed", "reason": f"batch size {batch_size} does not split into {world} equal shards"}
    from torch.nn.parallel import DistributedDataParallel

    inputs, target = batches(torch, loaded, seed, batch_size, 1, dev, torch.float32)[0]
    shard = slice(rank * batch_size // world, (rank + 1) * batch_size // world)
    single, single_opt = build(torch, loaded, seed, dev, torch.float32)
    model, opt = build(torch, loaded, seed, dev, torch.float32)
    ddp = DistributedDataParallel(model, device_ids=[dev.index] if dev.type == "cuda" else None)
    local = (_rows(inputs, shard), _rows(target, shard))

    def single_step() -> None:
        single_opt.zero_grad(set_to_none=True)
        loaded.loss(call(single, inputs), target).backward()

    def ddp_step_() -> None:
        opt.zero_grad(set_to_none=True)
        loaded.loss(call(ddp, local[0]), local[1]).backward()

    single_step()
    ddp_step_()
    grad_err = max(rel_err(p.grad, q.grad) for p, q in zip(model.parameters(), single.parameters(), strict=True))
    single_opt.step()
    opt.step()
    param_diff = max(max_abs_diff(p, q) for p, q in zip(model.parameters(), single.parameters(), strict=True))
    t1 = _step_time(torch, dist, dev, single_step, timed, rank == 0)
    tn = _step_time(torch, dist, dev, ddp_step_, timed, True)
    return {"status": "ran", "grad_rel_err": grad_err, "param_max_abs_diff": param_diff,
            "scaling": {"world_size": world, "global_batch": batch_size, "step_time_ms_1": t1 * 1000,
                        "step_time_ms_n": tn * 1000, "speedup": t1 / tn, "efficiency": t1 / tn / world}}


def _step_time(torch: Any, dist: Any, dev: Any, step: Callable[[], None], timed: int, active: bool) -> float:
    """Median step time; inactive ranks wait at the barrier so the single-process timing runs alone."""
    times = []
    dist.barrier()
    if active:
        step()
        for _ in range(timed):
            _sync(torch, dev)
            start = time.perf_counter()
            step()
            _sync(torch, dev)
            times.append(time.perf_counter() - start)
    dist.barrier()
    times_t = torch.tensor([statistics.median(times) if times else 0.0], dtype=torch.float64, device=dev)
    dist.broadcast(times_t, src=0)
    return float(times_t.item()) if not active or not times else statistics.median(times)


def _rows(inputs: Any, rows: slice) -> Any:
    """This rank's rows of a batch: of each tensor in a tuple or list (a model that takes its targets too);
    None (a model that computes its own loss) stays None."""
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(_rows(x, rows) for x in inputs)
    return None if inputs is None else inputs[rows]
