"""Command-line options and the branches they pick, in Python.

A script's default run is the one with no option given: argparse gives an option its `default=`, `False` for
`action="store_true"`, `True` for `store_false`, and `None` otherwise
(https://docs.python.org/3/library/argparse.html#default, #action). An `if` whose test reads only such options
(`if not opt.engine and not opt.onnx:` ... `else: from run_engine import run_trt_engine`, pix2pixHD's test.py;
`if opt.fp16: from apex import amp`, vid2vid's train.py) takes the same branch on every default run: the imports of
the other branch run only when the user asks for them. The options are often declared in another file
(options/test_options.py), so this module only records facts; workloads/optional_imports.py evaluates them over the
project.
- `cli_option`: `parser.add_argument("--engine", type=str)`; the name is its destination (`engine`), the text the
  repr() of its default, or "?" where that is no constant.
- `option_branch`: an `if` branch holding an import whose test reads attributes only (`opt.engine`) with
  not/and/or, comparisons with constants and constants: the name is the branch (`then` or `else`), the text the test.
  A lookup of an option by name with a constant fallback (`self.h.get("use_cuda_kernel", False)`: NVIDIA/BigVGAN's
  config dict, which holds the `--use_cuda_kernel` its scripts pass on) reads that option: the text writes it as the
  attribute read it stands for (`self.h.use_cuda_kernel`), which workloads/option_branches.py evaluates.

A function's switch is the same thing one level down: a parameter whose default is True or False
(`def quantize(A, custom_cuda=False)`, https://docs.python.org/3/reference/compound_stmts.html#function-definitions:
a call that does not pass it gets the default). An `if` in the function that reads such a switch (`if custom_cuda:`
... `from . import custom_extensions`, microsoft/microxcaling's mx/elemwise_ops.py) takes one branch on every call
that leaves the switch alone; the other branch's imports run only when a caller asks.
- `parameter_branch`: an `if` branch holding an import, in a function, whose test reads a switch of that function: the
  name is the branch, the text the test, the role the switches (`switches:custom_cuda=False`). A switch the function
  assigns (other than `x = x and ...` on a False default, `x = x or ...` on a True one, which keep it) or that a
  call in the module passes as the other constant is no switch.

A choice is a switch with a name for its value: a keyword-only parameter whose default is a string naming a back end
(`*, backend: Literal["auto", "cpu", "cuda", "triton", ...] = "auto"`, mlc-ai/xgrammar's python/xgrammar/matcher.py)
that the function assigns only string constants (`if backend == "auto": ... backend = "triton"`: the default resolved
to one back end). On a call that leaves it alone it holds its default or one of those constants (or one a call in the
module passes), so `elif backend == "cuda": from .kernels... import ...` runs only when a caller names that back end.
Its role lists the values: `switches:backend='auto'|'cpu'|'triton'`. Keyword-only, since only a call in the module is
read: a positional argument from another file (PIXIE's `set_rasterizer(self.rasterizer_type)` with 'standard', the
JIT-built CUDA rasterizer, against the default 'pytorch3d') is no keyword a reading could see.
"""
from __future__ import annotations

import ast
import copy
import re

from migrate.model import Fact
from migrate.vocabulary import UNKNOWN_DEFAULT as UNKNOWN

ACTION_DEFAULTS = {"store_true": False, "store_false": True}
COMPARISONS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)  # names of their own
CHOICE = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]*")  # a back end's name as a choice's value (`triton`, `torch_compile`)


def facts(tree: ast.Module, cell: int | None = None) -> list[Fact]:
    """The `cli_option` and `option_branch` facts of a module."""
    out: list[Fact] = []
    modules = imported_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            out += _option(node, cell)
        elif isinstance(node, ast.If) and reads_options_only(node.test, modules):
            test = option_test(node.test, modules)
            for name, body in (("then", node.body), ("else", node.orelse)):
                if body and any(isinstance(n, (ast.Import, ast.ImportFrom)) for s in body for n in ast.walk(s)):
                    end = max(getattr(s, "end_lineno", None) or s.lineno for s in body)
                    out.append(Fact(kind="option_branch", name=name, line=body[0].lineno, column=body[0].col_offset + 1,
                                    end_line=end, end_column=1, text=test, cell=cell))
    return out + _parameter_branches(tree, cell)


def asked_constants(tree: ast.Module) -> set[tuple[str, object]]:
    """(keyword, constant) of every call in the module: a switch a call passes as the other constant is no switch."""
    return {(k.arg, k.value.value) for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords
            if k.arg and isinstance(k.value, ast.Constant)}


Switch = bool | tuple[str, ...]  # a switch's default, or the names a choice can hold on a call leaving it alone


def switches_of(fn: ast.FunctionDef | ast.AsyncFunctionDef, asked: set[tuple[str, object]],
                nodes: list[ast.AST]) -> dict[str, Switch]:
    """A function's switches: parameters with a True/False default that no call of the module passes as the other
    constant and that the function's assignments keep (`nodes`: the function's own nodes); and its choices: parameters
    with a back end's name for default that the function assigns only names, with the names they can hold."""
    out: dict[str, Switch] = {}
    keyword_only = {a.arg for a in fn.args.kwonlyargs}
    for name, value in _switch_defaults(fn.args).items():
        if isinstance(value, bool):
            if (name, not value) not in asked and _kept(name, value, nodes):
                out[name] = value
        elif name in keyword_only and (held := _choices(name, value, nodes, asked)) is not None:
            out[name] = held
    return out


def switch_role(test: ast.expr, switches: dict[str, Switch]) -> str:
    """`switches:<name>=<default>,...` of the switches a test reads (a choice's values joined by `|`); "" where it
    reads none."""
    compared = {n.id for c in ast.walk(test) if isinstance(c, ast.Compare)
                for n in (c.left, *c.comparators) if isinstance(n, ast.Name)}
    read = sorted({n.id for n in ast.walk(test) if isinstance(n, ast.Name) and n.id in switches
                   and (isinstance(switches[n.id], bool) or n.id in compared)})  # a choice: compared with a name
    return "switches:" + ",".join(f"{name}={_said(switches[name])}" for name in read) if read else ""


def _said(value: Switch) -> str:
    return repr(value) if isinstance(value, bool) else "|".join(repr(v) for v in value)


def _choices(name: str, default: str, nodes: list[ast.AST], asked: set[tuple[str, object]]) -> tuple[str, ...] | None:
    """The names a choice can hold on a call that leaves it alone: its default, the constants the function assigns it
    and those a call in the module passes for it; None where an assignment is no name (`backend = detect()`)."""
    held = {default} | {v for k, v in asked if k == name and isinstance(v, str)}
    owners = {id(a.targets[0]): a.value for a in nodes if isinstance(a, ast.Assign) and len(a.targets) == 1}
    owners |= {id(a.target): a.value for a in nodes if isinstance(a, ast.AnnAssign) and a.value is not None}
    for node in nodes:
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            value = owners.get(id(node))
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str) and CHOICE.fullmatch(value.value)):
                return None  # `backend = detect()`, a loop variable, `del backend`: no name known here
            held.add(value.value)
    return tuple(sorted(held))


def imported_names(tree: ast.Module) -> set[str]:
    """The first name of everything the module imports (`np` of `import numpy as np`, `amp` of `from apex import
    amp`): an attribute of one is a module's, not an option namespace's."""
    return {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names}


def _parameter_branches(tree: ast.Module, cell: int | None) -> list[Fact]:
    asked = asked_constants(tree)
    out: list[Fact] = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        nodes = list(own_nodes(fn.body))
        switches = switches_of(fn, asked, nodes)
        for node in nodes:
            if not isinstance(node, ast.If):
                continue
            role = switch_role(node.test, switches)
            if not role:
                continue
            for name, body in (("then", node.body), ("else", node.orelse)):
                if body and any(isinstance(n, (ast.Import, ast.ImportFrom)) for s in body for n in ast.walk(s)):
                    end = max(getattr(s, "end_lineno", None) or s.lineno for s in body)
                    out.append(Fact(kind="parameter_branch", name=name, line=body[0].lineno, column=body[0].col_offset + 1,
                                    end_line=end, end_column=1, text=ast.unparse(node.test), role=role, cell=cell))
    return out


def has_switch_defaults(args: ast.arguments) -> bool:
    """Whether a parameter defaults to True or False or to a back end's name (a cheap test before reading the
    function's body)."""
    return any(isinstance(d, ast.Constant) and _switch_value(d.value) for d in (*args.defaults, *args.kw_defaults))


def _switch_value(value: object) -> bool:
    return isinstance(value, bool) or (isinstance(value, str) and CHOICE.fullmatch(value) is not None)


def _switch_defaults(args: ast.arguments) -> dict[str, bool | str]:
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return {a.arg: d.value for a, d in pairs if isinstance(d, ast.Constant) and isinstance(d.value, (bool, str))
            and _switch_value(d.value)}


def own_nodes(statements: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of a function's body, not those of the functions, lambdas and classes it defines."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = [s for s in statements if not isinstance(s, SCOPES)]
    while todo:
        node = todo.pop()
        out.append(node)
        todo += [c for c in ast.iter_child_nodes(node) if not isinstance(c, SCOPES)]
    return sorted(out, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))


def _kept(name: str, default: bool, nodes: list[ast.AST]) -> bool:
    """Whether every assignment of the switch in the function keeps its default (`x = x and y` keeps False)."""
    keeps = ast.And if default is False else ast.Or
    owners = {id(a.targets[0]): a.value for a in nodes if isinstance(a, ast.Assign) and len(a.targets) == 1}
    stores = [n for n in nodes if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
    return all(isinstance(value := owners.get(id(n)), ast.BoolOp) and isinstance(value.op, keeps)
               and isinstance(value.values[0], ast.Name) and value.values[0].id == name for n in stores)


def _option(call: ast.Call, cell: int | None) -> list[Fact]:
    flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not flags or not all(f.startswith("-") for f in flags):
        return []  # a positional argument: always given
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    dest = keywords.get("dest")
    if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
        name = dest.value
    else:
        long = next((f for f in flags if f.startswith("--")), flags[0])
        name = long.lstrip("-").replace("-", "_")
    if not name.isidentifier():
        return []
    default: object = None
    action = keywords.get("action")
    if isinstance(action, ast.Constant) and action.value in ACTION_DEFAULTS:
        default = ACTION_DEFAULTS[str(action.value)]
    if "default" in keywords:
        value = keywords["default"]
        default = value.value if isinstance(value, ast.Constant) else UNKNOWN
    elif action is not None and not (isinstance(action, ast.Constant) and action.value in (*ACTION_DEFAULTS, "store")):
        default = UNKNOWN  # store_const, count, append, a custom Action: left alone
    text = UNKNOWN if default is UNKNOWN else repr(default)
    return [Fact(kind="cli_option", name=name, line=call.lineno, column=call.col_offset + 1,
                 end_line=call.end_lineno or call.lineno, end_column=1, text=text, cell=cell)]


def reads_options_only(test: ast.expr, modules: set[str]) -> bool:
    """A test made of attribute reads of an option namespace (`opt.engine`, `self.opt.fp16`: option_namespace) or
    lookups of an option by name in one (`option_lookup`), not/and/or, comparisons with constants and constants, with
    one read at least."""
    reads = False
    looked_up = {id(n.func) for n in ast.walk(test) if isinstance(n, ast.Call) and option_lookup(n, modules)}
    bases = {id(n.value) for n in ast.walk(test) if isinstance(n, ast.Attribute)}
    for node in ast.walk(test):
        if isinstance(node, ast.Call):
            if id(node.func) not in looked_up:
                return False
            reads = True
        elif id(node) in looked_up:
            continue  # the `cfg.get` of a lookup: its namespace is checked there
        elif isinstance(node, ast.Attribute):
            if not isinstance(node.value, (ast.Name, ast.Attribute)):
                return False
            if id(node) not in bases and not option_namespace(node.value, modules):
                return False  # `self.opt` of `self.opt.fp16` is checked as the namespace of the read
            reads = True
        elif isinstance(node, ast.Compare):
            if len(node.ops) != 1 or not isinstance(node.ops[0], COMPARISONS):
                return False
        elif not isinstance(node, (ast.Name, ast.Constant, ast.BoolOp, ast.UnaryOp, ast.Not, ast.And, ast.Or,
                                   ast.Load, *COMPARISONS)):
            return False
    return reads


def option_namespace(node: ast.expr, modules: set[str]) -> bool:
    """Whether an option read's or lookup's receiver may hold the options: a name that is neither the object itself
    (`self.device`, `self.get(...)`: its own attribute or method, `cls.x`) nor an imported name (`sys.platform`), or
    an attribute chain (`self.opt`, `self.h`, `shared.cmd_opts`: a module of the project that holds what its parser
    parsed)."""
    if isinstance(node, ast.Name):
        return node.id not in ("self", "cls") and node.id not in modules
    return isinstance(node, ast.Attribute)


def option_lookup(node: ast.AST, modules: set[str]) -> str | None:
    """The option a mapping lookup with a constant fallback reads (`self.h.get("use_cuda_kernel", False)`, NVIDIA/
    BigVGAN's bigvgan.py, where `h` holds the `--use_cuda_kernel` a script passes on: the same option as
    `opt.use_cuda_kernel`), None for any other node. Its receiver is an option namespace, as an attribute read's is
    (option_namespace), and not a module's mapping (`os.environ.get(...)`: the environment, where no option is)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and len(node.args) == 2 and not node.keywords):
        return None
    key, fallback = node.args
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(fallback, ast.Constant)):
        return None
    receiver = root = node.func.value
    while isinstance(root, ast.Attribute):
        root = root.value
    if not option_namespace(receiver, modules) or not isinstance(root, ast.Name) or root.id in modules:
        return None
    return key.value


def option_test(test: ast.expr, modules: set[str]) -> str:
    """The text of an option test, each `option_lookup` written as the attribute read it stands for."""
    if not any(option_lookup(n, modules) for n in ast.walk(test)):
        return ast.unparse(test)
    return ast.unparse(_AsAttributes(modules).visit(copy.deepcopy(test)))


class _AsAttributes(ast.NodeTransformer):
    def __init__(self, modules: set[str]) -> None:
        self.modules = modules

    def visit_Call(self, node: ast.Call) -> ast.AST:
        key = option_lookup(node, self.modules)
        if key is None or not key.isidentifier() or not isinstance(node.func, ast.Attribute):
            return self.generic_visit(node)
        return ast.Attribute(value=node.func.value, attr=key, ctx=ast.Load())
