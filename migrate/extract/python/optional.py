"""Optional scopes in Python: code that runs only when the user opts in or a package is present.

`try: import X` with an `except ImportError:` handler that falls back (does not re-raise) makes X
optional: the module works without it. `if os.environ.get("USE_X"):` runs only when the user sets
the variable: a test that is false with the variable unset (its default, or None) is an opt-in,
also through a module flag (`USE_X = os.getenv("USE_X", "0") == "1"`). Facts in such scopes carry
the guard "optional"; their findings are optional parts and do not decide the workload's class.
An import inside a function that a dispatch table selects (`{"TensorRT-LLM": TensorRT_LLM_loader, ...}`)
runs only when the user picks that entry: the import is optional too, even where its `except` re-raises.
So are the imports of an if/elif chain that picks another module for the name its `else` imports.
`if is_module_available("tensorrt"): import tensorrt` and `if is_cupy(xp): import cupyx...` test for the
package they import (by a string naming it or the test's own name): the body runs only where it is there."""
from __future__ import annotations

import ast
from collections.abc import Callable

IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException", "OSError"})
# what a failed run-time build raises: torch.utils.cpp_extension raises RuntimeError when the compiler fails
# (https://pytorch.org/docs/stable/cpp_extension.html), subprocess.CalledProcessError from the ninja run
BUILD_ERRORS = IMPORT_ERRORS | {"RuntimeError", "CalledProcessError"}
ENV_GETTERS = frozenset({"os.environ.get", "os.getenv", "os.environ.setdefault"})
CONVERSIONS = {"int": int, "float": float, "bool": bool, "str": str}
UNSET = object()  # a value the evaluator could not work out


def is_import_fallback(node: ast.Try) -> bool:
    """`try:` whose body imports and whose ImportError handler carries on without the import."""
    if not any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in node.body):
        return False
    handlers = [h for h in node.handlers if _catches_import_error(h)]
    return bool(handlers) and all(not _reraises(h.body) for h in handlers) \
        and not any(_same_module(node.body, h.body) for h in handlers)


def _same_module(body: list[ast.stmt], handler: list[ast.stmt]) -> bool:
    """Whether a handler imports, by an absolute path, a module the `try:` imported relative to its package:
    `try: from .sepconv import sepconv` / `except: sys.path.insert(0, './sepconv'); import sepconv`, `try: from .
    import utils` / `except ImportError: import utils`. A relative import fails when the file runs as a script
    ("attempted relative import with no known parent package"), so the handler finds the same module from the
    script's folder: it is required either way, and the `try:` is no fallback. Only that shape counts (the handler's
    path ending with the relative one): `import numpy as xp` after `import cupy as xp`, or a project module after
    an absolute import of a package (`from mmcv.ops import nms` / `from .ops import nms`), is a fallback."""
    relative = {path for level, path in _imported_modules(body) if level}
    return any(path[-len(r):] == r for level, path in _imported_modules(handler) if not level for r in relative)


def _imported_modules(body: list[ast.stmt]) -> set[tuple[int, tuple[str, ...]]]:
    """(level, dotted path) of each module a block imports at its own level: `from .sepconv import sepconv` ->
    (1, (sepconv,)), `import a.b as c` -> (0, (a, b)), `from . import utils` -> (1, (utils,))."""
    out: set[tuple[int, tuple[str, ...]]] = set()
    for s in body:
        if isinstance(s, ast.Import):
            out |= {(0, tuple(a.name.split("."))) for a in s.names}
        elif isinstance(s, ast.ImportFrom):
            out |= {(s.level, tuple(s.module.split(".")))} if s.module else {(s.level, (a.name,)) for a in s.names}
    return out


def is_build_fallback(node: ast.Try) -> bool:
    """`try:` whose handlers catch a failed build (torch.utils.cpp_extension.load raises RuntimeError or an OSError
    when the compiler fails or is missing) and carry on with a name bound in its place (`_CUDA_OPS = None`, an error
    kept for later): the caller takes another path, as after an ImportError fallback. Whether the body builds an
    extension at run time is the extractor's to see (its `extension` facts, role `jit`)."""
    handlers = [h for h in node.handlers if _catches(h, BUILD_ERRORS)]
    return bool(handlers) and all(not _reraises(h.body) for h in handlers) and any(binds_names(h.body) for h in handlers)


def binds_names(body: list[ast.stmt]) -> bool:
    """Whether a handler binds a name: an assignment (`fastattn_cuda = None`, `_HAS_EXT = False`), a definition or an
    import of its own, anywhere in its body. A handler that binds nothing (`except ImportError: pass`, a warning)
    leaves the module without the names the import would have bound: "if the module is not found, ImportError is
    raised" and nothing is bound (https://docs.python.org/3/reference/simple_stmts.html#the-import-statement), so
    the code that uses them fails where it runs. Such a guard postpones the failure; it is no fallback."""
    binders = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
               ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)
    return any(isinstance(node, binders) for stmt in body for node in ast.walk(stmt))


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    return _catches(handler, IMPORT_ERRORS)


def _catches(handler: ast.ExceptHandler, errors: frozenset[str]) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", "")) in errors for t in types)


def _reraises(body: list[ast.stmt]) -> bool:
    return any(isinstance(s, ast.Raise) for s in body) or (
        len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Call)
        and getattr(body[0].value.func, "attr", getattr(body[0].value.func, "id", "")) in ("exit", "_exit"))


class EnvOptIns:
    """Decides whether an `if` test holds only when an environment variable is set."""

    def __init__(self, resolve: Callable[[ast.expr], str | None]) -> None:
        self.resolve = resolve
        self.flags: dict[str, object] = {}  # module flag -> its value with every variable unset
        self.helpers: dict[str, object] = {}  # function of the file returning an env test -> its value unset
        self.read: dict[str, object] = {}  # variable the file reads through a getter -> the getter's value unset

    def note_assignment(self, node: ast.Assign) -> None:
        value = self.unset_value(node.value) if self._reads_env(node.value) else UNSET
        for target in node.targets:
            if isinstance(target, ast.Name):
                if value is UNSET:
                    self.flags.pop(target.id, None)
                else:
                    self.flags[target.id] = value

    def note_function(self, name: str, returns: list[ast.Return]) -> None:
        """`def enabled(): return os.environ.get("X", "0") == "1"` (`returns`: every return statement under
        the function, one here): calling it is an environment test, whatever the arguments (`flag("USE_X")`
        reads the variable it is given)."""
        if len(returns) == 1 and returns[0].value is not None and self._reads_env(returns[0].value):
            value = self.unset_value(returns[0].value)
            if value is not UNSET:
                self.helpers[name] = value

    def opt_in(self, test: ast.expr) -> bool:
        """True when the test reads the environment (or a flag that does) and is false unset."""
        if not (self._reads_env(test) or any(isinstance(n, ast.Name) and n.id in self.flags for n in ast.walk(test))):
            return False
        value = self.unset_value(test)
        return value is not UNSET and not value

    def _reads_env(self, node: ast.expr) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and self.resolve(sub.func) in ENV_GETTERS:
                return True
            if isinstance(sub, ast.Compare) and any(self.resolve(c) == "os.environ" for c in sub.comparators):
                return True
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in self.helpers:
                return True
            if self._environ_item(sub) is not None:
                return True
        return False

    def _environ_item(self, node: ast.AST) -> str | None:
        """`os.environ["X"]` where the file reads X through a getter too (`os.environ.get("X")`, before): the name."""
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.expr) and self.resolve(node.value) == "os.environ" \
                and isinstance(node.slice, ast.Constant) and node.slice.value in self.read:
            return str(node.slice.value)
        return None

    def unset_value(self, node: ast.expr) -> object:
        """The expression's value when no environment variable is set, or UNSET."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.flags.get(node.id, UNSET)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.unset_value(node.operand)
            return UNSET if inner is UNSET else not inner
        if isinstance(node, ast.BoolOp):
            values = [self.unset_value(v) for v in node.values]
            if isinstance(node.op, ast.And):
                return False if any(v is not UNSET and not v for v in values) else UNSET
            return True if any(v is not UNSET and v for v in values) else UNSET
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            return self._compare(node.left, node.ops[0], node.comparators[0])
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = [self.unset_value(e) for e in node.elts]
            return UNSET if any(i is UNSET for i in items) else tuple(items)
        if (name := self._environ_item(node)) is not None:
            # the file reads the variable with a getter first (and sets its own default where it is unset:
            # ChatRWKV's `else: os.environ["RWKV_CUDA_ON"] = '0'`): an item read later sees no more than that
            return self.read[name]
        return UNSET

    def _call(self, node: ast.Call) -> object:
        name = self.resolve(node.func)
        if name in ENV_GETTERS and node.args:
            value = self.unset_value(node.args[1]) if len(node.args) > 1 else None
            if isinstance(key := node.args[0], ast.Constant) and isinstance(key.value, str) and value is not UNSET:
                self.read.setdefault(key.value, value)
            return value
        func = node.func
        if isinstance(func, ast.Name) and func.id in self.helpers:
            return self.helpers[func.id]
        if isinstance(func, ast.Name) and func.id in CONVERSIONS and len(node.args) == 1:
            inner = self.unset_value(node.args[0])
            try:
                return UNSET if inner is UNSET or inner is None else CONVERSIONS[func.id](inner)
            except (TypeError, ValueError):
                return UNSET
        if isinstance(func, ast.Attribute) and func.attr in ("lower", "upper", "strip") and not node.args:
            inner = self.unset_value(func.value)
            return getattr(inner, func.attr)() if isinstance(inner, str) else UNSET
        return UNSET

    def _compare(self, left: ast.expr, op: ast.cmpop, right: ast.expr) -> object:
        if isinstance(op, (ast.In, ast.NotIn)) and self.resolve(right) == "os.environ":
            return isinstance(op, ast.NotIn)  # nothing is in an empty environment
        a, b = self.unset_value(left), self.unset_value(right)
        if a is UNSET or b is UNSET:
            return UNSET
        try:
            if isinstance(op, ast.Eq):
                return a == b
            if isinstance(op, ast.NotEq):
                return a != b
            if isinstance(op, ast.Is):
                return a is b
            if isinstance(op, ast.IsNot):
                return a is not b
            if isinstance(op, ast.In):
                return a in b  # type: ignore[operator]
            if isinstance(op, ast.NotIn):
                return a not in b  # type: ignore[operator]
        except TypeError:
            return UNSET
        return UNSET


def selected_functions(tree: ast.Module) -> frozenset[str]:
    """Functions of the module that a dict literal maps a choice to, beside at least one other
    function of the module (a loader or back end picked by configuration)."""
    defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            named = {v.id for v in node.values if isinstance(v, ast.Name) and v.id in defined}
            if len(named) >= 2:
                out |= named
    return frozenset(out)


def alternative_imports(tree: ast.Module) -> frozenset[int]:
    """id() of the imports in the branches of an if/elif chain that picks one of several modules for
    the same name, all but the final `else` (the default): `if opt.ff: from nerf.network_ff import
    NeRFNetwork ... else: from nerf.network import NeRFNetwork` (torch-ngp)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        branches, rest = [node.body], node.orelse
        while len(rest) == 1 and isinstance(rest[0], ast.If):
            branches.append(rest[0].body)
            rest = rest[0].orelse
        if not rest:
            continue
        bound = [{a.asname or a.name.split(".")[0] for s in body if isinstance(s, (ast.Import, ast.ImportFrom))
                  for a in s.names} for body in (*branches, rest)]
        if not bound[-1] or not any(b & bound[-1] for b in bound[:-1]):
            continue
        out |= {id(s) for body in branches for s in body if isinstance(s, (ast.Import, ast.ImportFrom))}
    return frozenset(out)


def presence_tests(tree: ast.Module) -> frozenset[int]:
    """id() of the `if` statements whose test asks whether a package that their body imports is there: a call
    naming the package in a string (`is_module_available("tensorrt")`, `importlib.util.find_spec("cupy")`) or in
    its own name (`is_flash_attn_2_available()`, `is_cupy(xp)` before `import cupyx.scipy...`). Like
    `try: import X` / `except ImportError`, the body runs only where the package is installed (or the caller
    handed in its arrays), so it is optional. Only absolute imports count: a project's own module is no package
    to test for (`if use_cuda(): from .cuda import ...` is a switch, not a presence test)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        roots = {name.split(".")[0].lower() for s in node.body for sub in ast.walk(s)
                 for name in _absolute_imports(sub)}
        if roots and any(_names_package(call, roots) for call in _test_calls(node.test)):
            out.add(id(node))
    return frozenset(out)


def _absolute_imports(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and not node.level and node.module:
        return [node.module]
    return []


def _test_calls(test: ast.expr) -> list[ast.Call]:
    """The calls a test holds true: `f(...)`, `f(...) is not None`, and each operand of an `and`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for value in test.values for c in _test_calls(value)]
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        test = test.left
    return [test] if isinstance(test, ast.Call) else []


def _names_package(call: ast.Call, roots: set[str]) -> bool:
    for arg in call.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) \
                and arg.value.split(".")[0].lower() in roots:
            return True
    func = call.func
    name = (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")).lower()
    words = [w for w in name.split("_") if len(w) > 2]
    return any(root in name or any(root.startswith(w) for w in words) for root in roots)


def import_scopes(tree: ast.Module) -> dict[int, tuple[int, int]]:
    """id() of each import below the module's top level -> the lines of its innermost scope: the body of the
    function it is in, or of the if/elif/else branch (whichever is nearer). Which runtime a scope picks is the
    project's to say (rules/workloads/optional.yaml `alternative_runtimes`, workloads/parts.py)."""
    out: dict[int, tuple[int, int]] = {}

    def span(body: list[ast.stmt]) -> tuple[int, int]:
        return body[0].lineno, max(getattr(s, "end_lineno", None) or s.lineno for s in body)

    def walk(statements: list[ast.stmt], scope: tuple[int, int] | None) -> None:
        for node in statements:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if scope is not None:
                    out[id(node)] = scope
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(node.body, span(node.body))
            elif isinstance(node, ast.If):
                walk(node.body, span(node.body))
                if node.orelse:
                    walk(node.orelse, span(node.orelse) if not (len(node.orelse) == 1
                                                                and isinstance(node.orelse[0], ast.If)) else scope)
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(node, field, None)
                    if isinstance(inner, list):
                        walk([s for s in inner if isinstance(s, ast.stmt)]
                             + [s for h in inner if isinstance(h, ast.ExceptHandler) for s in h.body], scope)

    walk(tree.body, None)
    return out
