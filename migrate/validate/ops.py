"""Custom ops named in the spec: record their inputs inside the model, then call them alone against a reference."""
from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator
from typing import Any

from migrate.validate.numerics import check
from migrate.validate.spec import OpSpec, RunSpec, resolve, split
from migrate.validate.tensors import rel_err, stats


class Recorder:
    """Replaces each op's module attribute while the first forward runs and keeps its first call's inputs."""

    def __init__(self, spec: RunSpec) -> None:
        self.spec = spec
        self.inputs: dict[str, tuple[Any, ...]] = {}

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        restore: list[tuple[Any, str, Any]] = []
        for op in self.spec.ops:
            resolve(self.spec, op.target)  # imports the module, with the spec's folder on the path
            module_name, attr = split(op.target)
            module = importlib.import_module(module_name)
            original = getattr(module, attr)
            restore.append((module, attr, original))
            setattr(module, attr, self._wrap(op.name, original))
        try:
            yield
        finally:
            for module, attr, original in restore:
                setattr(module, attr, original)

    def _wrap(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            if name not in self.inputs:
                self.inputs[name] = tuple(a.detach().clone() if hasattr(a, "detach") else a for a in args)
            return original(*args)
        return wrapper


def check_ops(torch: Any, spec: RunSpec, recorder: Recorder, dtype_name: str,
              implementations: Callable[[], dict[str, str]] | None) -> list[dict[str, Any]]:
    return [_check_op(torch, spec, op, recorder.inputs.get(op.name), dtype_name, implementations) for op in spec.ops]


def _check_op(torch: Any, spec: RunSpec, op: OpSpec, inputs: tuple[Any, ...] | None, dtype_name: str,
              implementations: Callable[[], dict[str, str]] | None) -> dict[str, Any]:
    name = f"op:{op.name}"
    if inputs is None:
        return {"check": name, "dtype": dtype_name, "status": "failed", "metrics": {},
                "info": {"reason": "the model never called it, so no inputs were recorded"}}
    target, reference = resolve(spec, op.target), resolve(spec, op.reference)
    impl_args, ref_args = _leaves(inputs), _leaves(inputs)
    out, ref = target(*impl_args), reference(*ref_args)
    metrics: dict[str, Any] = {"forward_rel_err": rel_err(out, ref), **{f"output_{k}": v for k, v in stats(out).items()}}
    differentiable = [i for i, a in enumerate(impl_args) if hasattr(a, "requires_grad") and a.requires_grad]
    if differentiable and out.requires_grad:
        generator = torch.Generator().manual_seed(spec.seed)
        upstream = torch.randn(out.shape, generator=generator).to(device=out.device, dtype=out.dtype)
        grads = torch.autograd.grad(out, [impl_args[i] for i in differentiable], upstream)
        ref_grads = torch.autograd.grad(ref, [ref_args[i] for i in differentiable], upstream)
        metrics["backward_rel_err"] = max(rel_err(g, r) for g, r in zip(grads, ref_grads, strict=True))
    impl = (implementations() if implementations else {}).get(op.name, "unknown")
    return check(name, dtype_name, metrics, implementation=impl, shapes=[list(a.shape) for a in inputs if hasattr(a, "shape")])


def _leaves(inputs: tuple[Any, ...]) -> list[Any]:
    return [a.detach().clone().requires_grad_(a.is_floating_point()) if hasattr(a, "detach") else a for a in inputs]
