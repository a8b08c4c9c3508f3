"""validate init: a spec skeleton for a PyTorch model the plan found, which a person completes.

From the scan (the plan's workloads and facts) and the workload's Python source, read with `ast` (never imported
or run): the model (an nn.Module subclass that no other one builds), its constructor's parameters and
forward's arguments, the optimizer and loss functions the code names, and the ops worth checking alone (attention
through F.scaled_dot_product_attention, ops reached through torch.ops, and functions the model imports from
its own package). Rendered as a spec.toml and an adapter module whose TODOs say what is left to write.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from migrate.model import Fact
from migrate.validate.plan import Plan, WorkloadPlan

MODULE_BASES = ("torch.nn.Module", "nn.Module", "Module", "torch.nn.modules.module.Module")
OPTIMIZER_PREFIX = "torch.optim."
LOSS_NAMES = ("cross_entropy", "mse_loss", "nll_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy",
              "binary_cross_entropy_with_logits", "kl_div", "CrossEntropyLoss", "MSELoss", "NLLLoss", "L1Loss",
              "BCEWithLogitsLoss", "BCELoss")
FUNCTIONAL_OPS = ("torch.nn.functional.scaled_dot_product_attention", "torch.nn.functional.layer_norm",
                  "torch.nn.functional.rms_norm")
MAX_BYTES = 1_000_000


class SkeletonError(Exception):
    """Nothing to write a spec for; str() is one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Seen:
    name: str
    where: str  # path:line


@dataclass(frozen=True, slots=True, kw_only=True)
class OpCandidate:
    name: str
    target: str
    where: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Skeleton:
    workload: str
    model_module: str  # importable from the project root, e.g. fastattn.model
    model_class: str
    model_where: str
    init_params: tuple[str, ...]
    forward_params: tuple[str, ...]
    optimizers: tuple[Seen, ...]
    losses: tuple[Seen, ...]
    ops: tuple[OpCandidate, ...]
    checks: tuple[str, ...]  # the plan's check ids for the workload
    project_root: Path


def build(plan: Plan, facts: Mapping[str, Sequence[Fact]], files: Mapping[str, Path], *, root: Path,
          workload: str | None = None) -> Skeleton:
    """The skeleton for the named workload, or the first with a PyTorch model."""
    candidates = [w for w in plan.workloads if workload in (None, w.name)]
    if workload and not candidates:
        raise SkeletonError(f"no workload named {workload!r} (workloads: {', '.join(w.name for w in plan.workloads)})")
    for wp in candidates:
        found = _skeleton(wp, plan_files(plan, wp, facts), facts, files, root)
        if found is not None:
            return found
    raise SkeletonError("no PyTorch model (a subclass of torch.nn.Module) in "
                        + (f"workload {workload!r}" if workload else "any workload"))


def plan_files(plan: Plan, wp: WorkloadPlan, facts: Mapping[str, Sequence[Fact]]) -> list[str]:
    prefix = "" if wp.root in ("", ".") else wp.root.rstrip("/") + "/"
    return sorted(p for p in facts if p.endswith(".py") and p.startswith(prefix))


def _skeleton(wp: WorkloadPlan, paths: list[str], facts: Mapping[str, Sequence[Fact]], files: Mapping[str, Path],
              root: Path) -> Skeleton | None:
    trees = {p: t for p in paths if p in files and (t := _parse(files[p])) is not None}
    models = {(p, c.name): c for p, t in trees.items() for c in _modules(t)}
    if not models:
        return None
    built = {n.func.id for t in trees.values() for c in _modules(t) for n in ast.walk(c)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    top = [(p, name) for p, name in models if name not in built] or list(models)
    path, name = sorted(top, key=lambda k: (_is_test(k[0]), k[0]))[0]
    cls = models[(path, name)]
    seen = [(p, f) for p in paths for f in facts.get(p, ())]
    optimizers = [Seen(name=f.name, where=f"{p}:{f.line}") for p, f in seen if f.kind == "python_attr"
                  and f.name.startswith(OPTIMIZER_PREFIX) and f.name.count(".") == 2
                  and f.name[len(OPTIMIZER_PREFIX):][:1].isupper()]
    losses = [Seen(name=f.name, where=f"{p}:{f.line}") for p, f in seen if f.kind == "python_attr"
              and f.name.rsplit(".", 1)[-1] in LOSS_NAMES and f.name.startswith("torch.")]
    return Skeleton(workload=wp.name, model_module=_module_name(path), model_class=name,
                    model_where=f"{path}:{cls.lineno}", init_params=_params(cls, "__init__"),
                    forward_params=_params(cls, "forward"), optimizers=_unique(optimizers), losses=_unique(losses),
                    ops=tuple(_ops(seen, trees, path)), checks=tuple(c.id for c in wp.checks), project_root=root)


def _is_test(path: str) -> bool:
    return "test" in Path(path).name or "/tests/" in f"/{path}"


def _parse(path: Path) -> ast.Module | None:
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None


def _modules(tree: ast.Module) -> list[ast.ClassDef]:
    return [n for n in tree.body if isinstance(n, ast.ClassDef)
            and any(ast.unparse(b) in MODULE_BASES for b in n.bases)]


def _params(cls: ast.ClassDef, method: str) -> tuple[str, ...]:
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == method:
            args = node.args
            names = [a.arg for a in args.posonlyargs + args.args][1:]
            defaults = [None] * (len(names) - len(args.defaults)) + [ast.unparse(d) for d in args.defaults]
            return tuple(n if d is None else f"{n}={d}" for n, d in zip(names, defaults, strict=True))
    return ()


def _module_name(path: str) -> str:
    parts = list(Path(path).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _unique(items: Iterable[Seen]) -> tuple[Seen, ...]:
    first: dict[str, Seen] = {}
    for item in items:
        first.setdefault(item.name, item)
    return tuple(first.values())


def _ops(seen: list[tuple[str, Fact]], trees: Mapping[str, ast.Module], model_path: str) -> list[OpCandidate]:
    out: dict[str, OpCandidate] = {}
    for p, f in seen:
        if f.kind != "python_attr":
            continue
        if f.name in FUNCTIONAL_OPS:
            module, _, attr = f.name.rpartition(".")
            out.setdefault(attr, OpCandidate(name=attr, target=f"{module}:{attr}", where=f"{p}:{f.line}"))
        elif f.name.startswith("torch.ops.") and f.name.count(".") >= 3:
            out.setdefault(f.name.split(".")[3], OpCandidate(name=f.name.split(".")[3],
                                                            target=".".join(f.name.split(".")[:4]),
                                                            where=f"{p}:{f.line}"))
    tree = trees.get(model_path)
    if tree is not None:  # functions the model's module imports from its own package: looked up at call time there
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                for alias in node.names:
                    name = alias.asname or alias.name
                    if name[:1].islower():
                        out.setdefault(name, OpCandidate(name=name, target=f"{_module_name(model_path)}:{name}",
                                                         where=f"{model_path}:{node.lineno}"))
    return list(out.values())


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def spec_text(sk: Skeleton, adapter: str) -> str:
    precision = "precision" in sk.checks
    lines = [f"# rocm-migrate validate spec for workload {sk.workload!s}: {sk.model_class} ({sk.model_where}).",
             "# Written by `rocm-migrate validate init`; complete the TODOs in the adapter, then:",
             "#   rocm-migrate validate run THIS -o cuda.json   (and on the ROCm machine -o rocm.json)",
             f"# Checks the plan asks for: {', '.join(sk.checks) or 'none'}.", "[model]",
             f"factory = {_toml(adapter + ':build_model')}", f"batch = {_toml(adapter + ':make_batch')}",
             f"loss = {_toml(adapter + ':loss_fn')}", f"optimizer = {_toml(adapter + ':make_optimizer')}", "",
             "[run]", "seed = 0", "steps = 4", "batch_size = 4",
             "dtypes = " + ('["float32", "bfloat16"]' if precision else '["float32"]'),
             "amp_dtype = " + ('"bfloat16"' if precision else '"none"'), "warmup = 3", "timed_steps = 10"]
    for op in sk.ops:
        lines += ["", f"[[ops]]                 # seen at {op.where}", f"name = {_toml(op.name)}",
                  f"target = {_toml(op.target)}", f"reference = {_toml(f'{adapter}:{op.name}_reference')}",
                  "call = 0                # which call of the first forward is checked"]
    return "\n".join(lines) + "\n"


def adapter_text(sk: Skeleton, output_dir: Path) -> str:
    import os

    root = os.path.relpath(sk.project_root.resolve(), output_dir.resolve())
    optimizer = sk.optimizers[0].name if sk.optimizers else "torch.optim.AdamW"
    seen_opt = f"seen at {sk.optimizers[0].where}" if sk.optimizers else "none seen in the code: TODO"
    losses = "; ".join(f"{s.name} ({s.where})" for s in sk.losses) or "none seen in the code"
    lines = [
        f'"""Adapter between {sk.model_class} and rocm-migrate validate run (written by validate init).', "",
        "Each function is what the spec names; replace every NotImplementedError and check each TODO.", '"""',
        "from __future__ import annotations", "", "import sys", "from pathlib import Path", "", "import torch", "",
        f"PROJECT = (Path(__file__).resolve().parent / {root!r}).resolve()",
        "sys.path.insert(0, str(PROJECT))", "", "",
        "def build_model() -> torch.nn.Module:",
        f"    from {sk.model_module} import {sk.model_class}", "",
        f"    # TODO: a small configuration; the constructor takes ({', '.join(sk.init_params)})",
        f"    return {sk.model_class}()", "", "",
        "def make_batch(batch_size: int, generator: torch.Generator) -> tuple[object, object]:",
        f"    # TODO: (inputs for forward({', '.join(sk.forward_params)}), target for the loss), drawn from `generator`",
        '    raise NotImplementedError("make_batch: draw one batch with the generator")', "", "",
        "def loss_fn(output: object, target: object) -> torch.Tensor:",
        f"    # TODO: the project's loss; seen in the code: {losses}",
        '    raise NotImplementedError("loss_fn: the scalar loss of output against target")', "", "",
        "def make_optimizer(params: object) -> torch.optim.Optimizer:",
        f"    # {seen_opt}; TODO: the project's hyper-parameters",
        f"    return {optimizer}(params)  # type: ignore[arg-type]",
    ]
    for op in sk.ops:
        lines += ["", "", f"def {op.name}_reference(*args: object, **kwargs: object) -> torch.Tensor:",
                  f"    # TODO: what {op.target} computes, written the plain way (seen at {op.where})",
                  f'    raise NotImplementedError("{op.name}_reference")']
    return "\n".join(lines) + "\n"
