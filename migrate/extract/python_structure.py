"""Workload structure seen in Python: distributions, extension modules and their sources."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from migrate.extract.python_ast import _Visitor

SETUP_CALLS = frozenset({"setuptools.setup", "distutils.core.setup", "skbuild.setup"})
EXTENSION_CALLS = {
    "torch.utils.cpp_extension.CUDAExtension": "setup", "torch.utils.cpp_extension.CppExtension": "setup",
    "setuptools.Extension": "setup", "setuptools.extension.Extension": "setup",
    "distutils.core.Extension": "setup", "distutils.extension.Extension": "setup",
    "torch.utils.cpp_extension.load": "jit", "torch.utils.cpp_extension.load_inline": "jit",
}
PATH_JOINS = frozenset({"os.path.join", "pathlib.Path", "posixpath.join"})


def on_call(visitor: _Visitor, node: ast.Call, name: str | None) -> None:
    if name in SETUP_CALLS:
        dist = _argument(node, None, "name")
        if isinstance(dist, ast.Constant) and isinstance(dist.value, str):
            visitor.add("distribution", dist.value, node)
    role = EXTENSION_CALLS.get(name or "")
    if role is None:
        return
    module = _argument(node, 0, "name")
    if not (isinstance(module, ast.Constant) and isinstance(module.value, str)):
        return
    sources = _argument(node, 1, "sources") if role == "setup" or name.endswith(".load") else None  # type: ignore[union-attr]
    paths = [p for p in (_path(visitor, e) for e in _elements(visitor, sources)) if p]
    visitor.add("extension", module.value.rsplit(".", 1)[-1], node, text="\n".join(paths), role=role)


def _argument(call: ast.Call, position: int | None, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[position] if position is not None and position < len(call.args) else None


def _elements(visitor: _Visitor, node: ast.expr | None) -> list[ast.expr]:
    if isinstance(node, ast.Name) and node.id in visitor.exprs:
        node = visitor.exprs[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _elements(visitor, node.left) + _elements(visitor, node.right)
    return [node] if node is not None else []


def _path(visitor: _Visitor, node: ast.expr, depth: int = 0) -> str | None:
    """A source path: a string, or the known parts of os.path.join(...), where
    os.path.dirname(__file__) (the file's own folder) contributes nothing."""
    if depth > 4:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in visitor.exprs:
        return _path(visitor, visitor.exprs[node.id], depth + 1)
    if isinstance(node, ast.Call) and visitor.call_name(node) in PATH_JOINS:
        parts = [_path(visitor, a, depth + 1) for a in node.args]
        known = [p for p in parts if p]
        return "/".join(known) if known else None
    if isinstance(node, ast.Call) and visitor.call_name(node) in ("glob.glob", "glob.iglob") and node.args:
        pattern = _path(visitor, node.args[0])
        return f"glob:{pattern}" if pattern else None
    return None
