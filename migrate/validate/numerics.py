"""Training-step numerics: forward output, losses, gradient norms, parameter deltas, checkpoint round trip, AMP."""
from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from migrate.validate.tensors import call, first_tensor, l2, layouts, max_abs_diff, stats, to_device


@dataclass(frozen=True, slots=True, kw_only=True)
class Loaded:
    """The spec's functions, imported."""

    factory: Callable[[], Any]
    batch: Callable[[int, Any], Any]
    loss: Callable[[Any, Any], Any]
    optimizer: Callable[[Any], Any]
    implementations: Callable[[], dict[str, str]] | None


@dataclass(slots=True, kw_only=True)
class Trained:
    """What one dtype's numerics run leaves for the later checks."""

    model: Any
    optimizer: Any
    batches: list[tuple[Any, Any]]


def check(name: str, dtype: str | None, metrics: dict[str, Any], **info: Any) -> dict[str, Any]:
    return {"check": name, "dtype": dtype, "status": "ran", "metrics": metrics, "info": info}


def batches(torch: Any, loaded: Loaded, seed: int, batch_size: int, count: int, dev: Any, dt: Any, *,
            drawn: list[dict[str, Any]] | None = None) -> list[Any]:
    """The same batches on every device: drawn on the CPU from a seeded generator, then copied contiguous to the
    device (the CPU included); `drawn` receives the first batch's layouts as the batch function made them."""
    generator = torch.Generator().manual_seed(seed)
    out = []
    for i in range(count):
        inputs, target = loaded.batch(batch_size, generator)
        if i == 0 and drawn is not None:
            drawn += layouts((inputs, target))
        out.append((to_device(torch, inputs, dev, dt), to_device(torch, target, dev, None)))
    return out


def build(torch: Any, loaded: Loaded, seed: int, dev: Any, dt: Any) -> tuple[Any, Any]:
    torch.manual_seed(seed)
    model = loaded.factory().to(device=dev, dtype=dt)
    model.train()
    return model, loaded.optimizer(model.parameters())


def train_step(loaded: Loaded, model: Any, optimizer: Any, batch: tuple[Any, Any]) -> Any:
    inputs, target = batch
    optimizer.zero_grad(set_to_none=True)
    loss = loaded.loss(call(model, inputs), target)
    loss.backward()
    optimizer.step()
    return loss


def run(torch: Any, loaded: Loaded, seed: int, steps: int, batch_size: int, dev: Any,
        dtype_name: str, record: Callable[[], Any]) -> tuple[list[dict[str, Any]], Trained]:
    """forward, loss, grad_norms and param_deltas for one dtype; `record` wraps the first forward."""
    dt = getattr(torch, dtype_name)
    model, optimizer = build(torch, loaded, seed, dev, dt)
    drawn: list[dict[str, Any]] = []
    data = batches(torch, loaded, seed, batch_size, steps, dev, dt, drawn=drawn)
    inputs, target = data[0]
    with record():
        output = call(model, inputs)
    first = first_tensor(output)
    loss = loaded.loss(output, target)
    loss.backward()
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    grads = {n: l2(p.grad) for n, p in named if p.grad is not None}
    before = {n: p.detach().clone() for n, p in named}
    optimizer.step()
    deltas = {n: l2(p.detach() - before[n]) for n, p in named}
    losses = [float(loss.detach())]
    for batch in data[1:]:
        losses.append(float(train_step(loaded, model, optimizer, batch).detach()))
    total = sum(v * v for v in grads.values()) ** 0.5
    checks = [
        check("forward", dtype_name, {**stats(first), "shape": list(first.shape)},
              batch_as_drawn=drawn, batch_on_device=layouts(data[0])),
        check("loss", dtype_name, {"values": losses, "finite": all(math.isfinite(v) for v in losses)}),
        check("grad_norms", dtype_name, {"total": total, "per_parameter": grads}),
        check("param_deltas", dtype_name, {"total": sum(v * v for v in deltas.values()) ** 0.5, "per_parameter": deltas,
                                           "final_param_l2": sum(l2(p) ** 2 for _, p in named) ** 0.5}),
    ]
    return checks, Trained(model=model, optimizer=optimizer, batches=data)


def checkpoint(torch: Any, loaded: Loaded, seed: int, dev: Any, dtype_name: str, trained: Trained) -> dict[str, Any]:
    """torch.save / torch.load of model and optimizer state into fresh objects, then one step from each."""
    buffer = io.BytesIO()
    torch.save({"model": trained.model.state_dict(), "optimizer": trained.optimizer.state_dict()}, buffer)
    size = buffer.tell()
    buffer.seek(0)
    state = torch.load(buffer, map_location=dev, weights_only=True)
    model, optimizer = build(torch, loaded, seed + 1, dev, getattr(torch, dtype_name))  # other init on purpose
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    original, restored = trained.model.state_dict(), model.state_dict()
    equal = original.keys() == restored.keys() and all(torch.equal(original[k], restored[k]) for k in original)
    inputs, _ = trained.batches[0]
    with torch.no_grad():
        output_diff = max_abs_diff(first_tensor(call(trained.model, inputs)), first_tensor(call(model, inputs)))
    train_step(loaded, trained.model, trained.optimizer, trained.batches[0])
    train_step(loaded, model, optimizer, trained.batches[0])
    resume_diff = max(max_abs_diff(a, b) for a, b in zip(trained.model.parameters(), model.parameters(), strict=True))
    return check("checkpoint", dtype_name, {"state_equal": bool(equal), "output_max_abs_diff": output_diff,
                                            "resume_max_abs_diff": resume_diff}, bytes=size)


def amp(torch: Any, loaded: Loaded, seed: int, batch_size: int, dev: Any, amp_dtype: str) -> dict[str, Any]:
    """A float32 model under autocast: output, loss and gradient norm, and the first step's parameter delta."""
    model, optimizer = build(torch, loaded, seed, dev, torch.float32)
    inputs, target = batches(torch, loaded, seed, batch_size, 1, dev, torch.float32)[0]
    dt = getattr(torch, amp_dtype)
    scaler = torch.amp.GradScaler(dev.type, enabled=amp_dtype == "float16")
    with torch.autocast(device_type=dev.type, dtype=dt):
        output = call(model, inputs)
        loss = loaded.loss(output, target)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    grad_total = sum(l2(p.grad) ** 2 for p in model.parameters() if p.grad is not None) ** 0.5
    before = [p.detach().clone() for p in model.parameters()]
    scaler.step(optimizer)
    scaler.update()
    delta = sum(l2(p.detach() - b) ** 2 for p, b in zip(model.parameters(), before, strict=True)) ** 0.5
    first = first_tensor(output)
    return check("amp", amp_dtype, {**{f"output_{k}": v for k, v in stats(first).items()},
                                    "loss": float(loss.detach()), "grad_total": grad_total, "delta_total": delta},
                 output_dtype=str(first.dtype).replace("torch.", ""))
