"""Workload structure seen in Python: distributions, extension modules and their sources."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from migrate.extract.python.extractor import _Visitor

SETUP_CALLS = frozenset({"setuptools.setup", "distutils.core.setup", "skbuild.setup"})
EXTENSION_CALLS = {
    "torch.utils.cpp_extension.CUDAExtension": "setup", "torch.utils.cpp_extension.CppExtension": "setup",
    "setuptools.Extension": "setup", "setuptools.extension.Extension": "setup",
    "distutils.core.Extension": "setup", "distutils.extension.Extension": "setup",
    "torch.utils.cpp_extension.load": "jit", "torch.utils.cpp_extension.load_inline": "jit",
}
PATH_JOINS = frozenset({"os.path.join", "pathlib.Path", "posixpath.join"})
RUNNERS = frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
                     "subprocess.Popen"})


def on_call(visitor: _Visitor, node: ast.Call, name: str | None) -> None:
    _link_arguments(visitor, node, name)
    _runs_nvcc(visitor, node, name)
    _structure(visitor, node, name)


def _link_arguments(visitor: _Visitor, node: ast.Call, name: str | None) -> None:
    """Extension(libraries=["cudart"], extra_link_args=["-lcublasLt"]): CUDA libraries linked by name."""
    if EXTENSION_CALLS.get(name or "") != "setup":
        return
    for keyword in node.keywords:
        values = keyword.value.elts if isinstance(keyword.value, (ast.List, ast.Tuple)) else []
        for value in values:
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                continue
            if keyword.arg == "libraries":
                visitor.add("flag", f"-l{value.value}", value, text=value.value)
            elif keyword.arg == "extra_link_args" and value.value.startswith("-l"):
                visitor.add("flag", value.value, value, text=value.value)


def _runs_nvcc(visitor: _Visitor, node: ast.Call, name: str | None) -> None:
    """subprocess.run(["nvcc", ...]) builds with nvcc."""
    if name not in RUNNERS or not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)):
        return
    first = node.args[0].elts[0] if node.args[0].elts else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.rsplit("/", 1)[-1] == "nvcc":
        visitor.add("flag", "nvcc", first, text=first.value)


def _structure(visitor: _Visitor, node: ast.Call, name: str | None) -> None:
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
    sources = _argument(node, 1, "sources") if role == "setup" or (name or "").endswith(".load") else None
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
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):  # [join(root, f) for root, _, files in os.walk(src) ...]
        walked = node.generators[0].iter
        if isinstance(walked, ast.Call) and visitor.call_name(walked) == "os.walk" and walked.args:
            folder = _path(visitor, walked.args[0], depth + 1)
            suffixes = [a.value for g in node.generators for test in g.ifs for call in ast.walk(test)
                        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                        and call.func.attr == "endswith" for a in call.args
                        if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            # one pattern per suffix the comprehension keeps (fnmatch's * crosses folders, as os.walk does)
            return "\n".join(f"glob:{folder.rstrip('/')}/*{s}" for s in suffixes or [""]) if folder else None
    return None
