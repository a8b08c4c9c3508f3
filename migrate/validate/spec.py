"""The runner's spec file (TOML): which model, batches, loss and optimizer to run, and how."""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from migrate.compat import tomllib

DTYPES = ("float32", "bfloat16", "float16")
OP_KEYS = ("name", "target", "reference", "call")
MODEL_KEYS = ("factory", "batch", "loss", "optimizer", "implementations")
RUN_DEFAULTS: dict[str, Any] = {"seed": 0, "steps": 3, "batch_size": 4, "dtypes": ["float32"],
                                "amp_dtype": "bfloat16", "warmup": 3, "timed_steps": 10}


class SpecError(Exception):
    """A bad spec file; str() is one line naming the file and the key."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OpSpec:
    name: str
    target: str  # module:function or module:Class.method the model looks up at call time, or torch.ops.NS.NAME
    reference: str  # module:function computing the same thing the plain way
    call: int = 0  # which call of the recorded forward is checked (0-based)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunSpec:
    path: Path
    name: str
    factory: str
    batch: str
    loss: str
    optimizer: str
    implementations: str | None = None
    seed: int = 0
    steps: int = 3
    batch_size: int = 4
    dtypes: tuple[str, ...] = ("float32",)
    amp_dtype: str | None = "bfloat16"
    warmup: int = 3
    timed_steps: int = 10
    ops: tuple[OpSpec, ...] = field(default=())

    def with_overrides(self, **values: Any) -> RunSpec:
        return replace(self, **{k: v for k, v in values.items() if v is not None})

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path.as_posix(), "factory": self.factory, "batch": self.batch,
                "loss": self.loss, "optimizer": self.optimizer, "seed": self.seed, "steps": self.steps,
                "batch_size": self.batch_size, "dtypes": list(self.dtypes), "amp_dtype": self.amp_dtype,
                "warmup": self.warmup, "timed_steps": self.timed_steps,
                "ops": [{"name": o.name, "target": o.target, "reference": o.reference, "call": o.call}
                        for o in self.ops]}


def load(path: Path) -> RunSpec:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(f"{path}: {exc}") from None
    return parse(data, path)


def parse(data: dict[str, Any], path: Path) -> RunSpec:
    model, run = _table(data, "model", path), _table(data, "run", path)
    unknown = sorted(set(data) - {"model", "run", "ops"}) + sorted(set(model) - set(MODEL_KEYS)) \
        + sorted(set(run) - set(RUN_DEFAULTS))
    if unknown:
        raise SpecError(f"{path}: unknown key {unknown[0]!r}")
    for key in MODEL_KEYS[:4]:
        if not isinstance(model.get(key), str) or ":" not in model[key]:
            raise SpecError(f"{path}: model.{key}: must be 'module:function'")
    values = {**RUN_DEFAULTS, **run}
    for key in ("seed", "steps", "batch_size", "warmup", "timed_steps"):
        if not isinstance(values[key], int) or isinstance(values[key], bool) or values[key] < 0:
            raise SpecError(f"{path}: run.{key}: must be a non-negative integer")
    if values["steps"] < 1 or values["batch_size"] < 1:
        raise SpecError(f"{path}: run.steps and run.batch_size must be at least 1")
    dtypes = values["dtypes"]
    if not isinstance(dtypes, list) or not dtypes or any(d not in DTYPES for d in dtypes):
        raise SpecError(f"{path}: run.dtypes: must be a list of {', '.join(DTYPES)}")
    if values["amp_dtype"] not in ("bfloat16", "float16", "none"):
        raise SpecError(f"{path}: run.amp_dtype: must be bfloat16, float16 or none")
    return RunSpec(path=path, name=path.parent.name, factory=model["factory"], batch=model["batch"],
                   loss=model["loss"], optimizer=model["optimizer"], implementations=model.get("implementations"),
                   seed=values["seed"], steps=values["steps"], batch_size=values["batch_size"], dtypes=tuple(dtypes),
                   amp_dtype=None if values["amp_dtype"] == "none" else values["amp_dtype"],
                   warmup=values["warmup"], timed_steps=values["timed_steps"], ops=_ops(data.get("ops", []), path))


def _table(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise SpecError(f"{path}: [{key}] must be a table")
    return value


def _ops(entries: object, path: Path) -> tuple[OpSpec, ...]:
    if not isinstance(entries, list):
        raise SpecError(f"{path}: [[ops]] must be an array of tables")
    ops = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not {"name", "target", "reference"} <= set(entry) <= set(OP_KEYS) \
                or not all(isinstance(entry[k], str) for k in OP_KEYS[:3]):
            raise SpecError(f"{path}: ops[{i}]: needs name, target and reference (strings), and optionally call")
        call = entry.get("call", 0)
        if not isinstance(call, int) or isinstance(call, bool) or call < 0:
            raise SpecError(f"{path}: ops[{i}].call: must be a non-negative integer (0 is the first call)")
        torch_op = entry["target"].startswith("torch.ops.") and entry["target"].count(".") >= 3
        if ":" not in entry["target"] and not torch_op:
            raise SpecError(f"{path}: ops[{i}].target: must be 'module:function', 'module:Class.method' "
                            "or 'torch.ops.NAMESPACE.NAME'")
        if ":" not in entry["reference"]:
            raise SpecError(f"{path}: ops[{i}].reference: must be 'module:function'")
        ops.append(OpSpec(name=entry["name"], target=entry["target"], reference=entry["reference"], call=call))
    return tuple(ops)


def resolve(spec: RunSpec, dotted: str) -> Callable[..., Any]:
    """The function a 'module:function' names, with the spec's folder on the import path."""
    folder = str(spec.path.parent.resolve())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name, _, attr = dotted.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
        for part in attr.split("."):  # module:Class.method
            found = getattr(found, part)
        return found  # type: ignore[no-any-return]
    except (ImportError, AttributeError) as exc:
        raise SpecError(f"{spec.path}: cannot load {dotted}: {exc}") from None


def split(dotted: str) -> tuple[str, str]:
    module_name, _, attr = dotted.partition(":")
    return module_name, attr
