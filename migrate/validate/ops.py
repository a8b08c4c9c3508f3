"""Ops named in the spec: record their inputs inside the model, then call them alone against a reference.

A target is reached one of two ways, both with positional and keyword arguments:
- `module:function` or `module:Class.method`: the attribute is replaced while the first forward runs, so the
  model must look it up at call time (`F.scaled_dot_product_attention(...)`, `x.softmax(...)`, `ops.gelu(x)`);
- `torch.ops.NAMESPACE.NAME`: an op registered with `torch.library` (or an aten op), seen by a dispatch mode
  whichever Python name the model calls it by.
Every call is counted; the spec's `call` (0-based, default 0) says which one is checked.
"""
from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from migrate.validate.numerics import check
from migrate.validate.spec import OpSpec, RunSpec, resolve, split
from migrate.validate.tensors import rel_err, stats

TORCH_OPS = "torch.ops."


@dataclass(slots=True)
class Recorded:
    """One op's calls during the recorded forward: how many, and the arguments of the one to check."""

    calls: int = 0
    args: tuple[Any, ...] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)


def _snapshot(value: Any) -> Any:
    if hasattr(value, "detach"):
        return value.detach().clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_snapshot(v) for v in value)
    return value


class Recorder:
    """Wraps each op while the first forward runs and keeps the arguments of its `call`-th call."""

    def __init__(self, spec: RunSpec) -> None:
        self.spec = spec
        self.calls: dict[str, Recorded] = {op.name: Recorded() for op in spec.ops}

    def note(self, op: OpSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        seen = self.calls[op.name]
        if seen.calls == op.call:
            seen.args, seen.kwargs = _snapshot(args), {k: _snapshot(v) for k, v in kwargs.items()}
        seen.calls += 1

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            dispatched = [op for op in self.spec.ops if op.target.startswith(TORCH_OPS)]
            for op in self.spec.ops:
                if op not in dispatched:
                    stack.enter_context(self._patched(op))
            if dispatched:
                stack.enter_context(_dispatch_mode(self, dispatched))
            yield

    @contextlib.contextmanager
    def _patched(self, op: OpSpec) -> Iterator[None]:
        resolve(self.spec, op.target)  # imports the module, with the spec's folder on the path
        module_name, attr = split(op.target)
        owner: Any = importlib.import_module(module_name)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        own = name in vars(owner)  # a method inherited from a base class is restored by deleting the wrapper
        original, function = vars(owner).get(name), getattr(owner, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self.note(op, args, kwargs)
            return function(*args, **kwargs)

        setattr(owner, name, wrapper)
        try:
            yield
        finally:
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)


def _dispatch_mode(recorder: Recorder, ops: list[OpSpec]) -> Any:
    from torch.utils._python_dispatch import TorchDispatchMode

    wanted = {_schema_name(op.target): op for op in ops}

    class Record(TorchDispatchMode):  # type: ignore[misc]
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            op = wanted.get(str(func._schema.name))
            if op is not None:
                recorder.note(op, tuple(args), dict(kwargs))
            return func(*args, **kwargs)

    return Record()


def _schema_name(target: str) -> str:
    """torch.ops.mylib.fused_gelu -> mylib::fused_gelu (an overload name, if given, is dropped)."""
    parts = target[len(TORCH_OPS):].split(".")
    return f"{parts[0]}::{parts[1]}" if len(parts) >= 2 else target


def op_callable(spec: RunSpec, target: str) -> Callable[..., Any]:
    if target.startswith(TORCH_OPS):
        import torch

        namespace, name = target[len(TORCH_OPS):].split(".")[:2]
        return getattr(getattr(torch.ops, namespace), name)  # type: ignore[no-any-return]
    return resolve(spec, target)


def check_ops(torch: Any, spec: RunSpec, recorder: Recorder, dtype_name: str,
              implementations: Callable[[], dict[str, str]] | None) -> list[dict[str, Any]]:
    return [_check_op(torch, spec, op, recorder.calls[op.name], dtype_name, implementations) for op in spec.ops]


def _check_op(torch: Any, spec: RunSpec, op: OpSpec, seen: Recorded, dtype_name: str,
              implementations: Callable[[], dict[str, str]] | None) -> dict[str, Any]:
    name = f"op:{op.name}"
    if seen.args is None:
        why = "the model never called it, so no inputs were recorded" if not seen.calls else \
            f"the model called it {seen.calls} times, fewer than call = {op.call} needs"
        return {"check": name, "dtype": dtype_name, "status": "failed", "metrics": {},
                "info": {"reason": why, "calls": seen.calls}}
    target, reference = op_callable(spec, op.target), resolve(spec, op.reference)
    impl_args, impl_kwargs = _leaves(seen.args), {k: _leaves(v) for k, v in seen.kwargs.items()}
    ref_args, ref_kwargs = _leaves(seen.args), {k: _leaves(v) for k, v in seen.kwargs.items()}
    out, ref = _first(target(*impl_args, **impl_kwargs)), _first(reference(*ref_args, **ref_kwargs))
    metrics: dict[str, Any] = {"forward_rel_err": rel_err(out, ref), **{f"output_{k}": v for k, v in stats(out).items()}}
    inputs = _tensors(impl_args) + _tensors(list(impl_kwargs.values()))
    ref_inputs = _tensors(ref_args) + _tensors(list(ref_kwargs.values()))
    differentiable = [i for i, a in enumerate(inputs) if a.requires_grad]
    if differentiable and out.requires_grad:
        generator = torch.Generator().manual_seed(spec.seed)
        upstream = torch.randn(out.shape, generator=generator).to(device=out.device, dtype=out.dtype)
        grads = torch.autograd.grad(out, [inputs[i] for i in differentiable], upstream, allow_unused=True)
        ref_grads = torch.autograd.grad(ref, [ref_inputs[i] for i in differentiable], upstream, allow_unused=True)
        pairs = [(g, r) for g, r in zip(grads, ref_grads, strict=True) if g is not None and r is not None]
        if pairs:
            metrics["backward_rel_err"] = max(rel_err(g, r) for g, r in pairs)
    impl = (implementations() if implementations else {}).get(op.name, "unknown")
    layouts = [_layout(a) for a in _tensors(list(seen.args)) + _tensors(list(seen.kwargs.values()))]
    return check(name, dtype_name, metrics, implementation=impl, calls=seen.calls, checked_call=op.call,
                 keyword_arguments=sorted(seen.kwargs), inputs=layouts)


def _first(value: Any) -> Any:
    """An op returning several tensors is checked on its first (attention's output, not its statistics)."""
    return value[0] if isinstance(value, (tuple, list)) else value


def _layout(t: Any) -> dict[str, Any]:
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "stride": list(t.stride()),
            "contiguous": bool(t.is_contiguous())}


def _tensors(values: Any) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out += _tensors(v)
        elif hasattr(v, "detach"):
            out.append(v)
    return out


def _leaves(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return type(value)(_leaves(v) for v in value)
    if hasattr(value, "detach"):
        return value.detach().clone().requires_grad_(value.is_floating_point())
    return value
