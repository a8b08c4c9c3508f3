"""CUDA source embedded in Python strings (CuPy, PyTorch load_inline, PyCUDA)."""
from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from migrate.extract.names import name_list
from migrate.model import Fact

# Call -> (positional index or None, keyword) of every argument that holds CUDA source.
SOURCE_ARGS: dict[str, tuple[tuple[int | None, str], ...]] = {
    "cupy.RawKernel": ((0, "code"),),
    "cupy.RawModule": ((0, "code"),),
    "cupy.ElementwiseKernel": ((2, "operation"), (None, "preamble")),
    "cupy.ReductionKernel": ((2, "map_expr"), (3, "reduce_expr"), (4, "post_map_expr"), (None, "preamble")),
    "torch.utils.cpp_extension.load_inline": ((1, "cpp_sources"), (2, "cuda_sources")),
    "cupy.cuda.compile_with_cache": ((0, "source"),),
    "cupy.cuda.compiler.compile_with_cache": ((0, "source"),),
    "pycuda.compiler.SourceModule": ((0, "source"),),
}
PREFIX = re.compile(r"^[rRbBuUfF]*")
# Loaders that compile the CUDA source they get at run time on a ROCm path of their own (CuPy's ROCm build hands it
# to hipRTC, PyTorch's load_inline hipifies it), as they do a literal (rules/names/python.yaml runtime_compilers).
RUNTIME_COMPILERS = name_list("python", "runtime_compilers")
CUPY_COMPILERS = name_list("python", "cupy_compilers")
SOURCE_FILE = re.compile(r"(?:^|/)([\w.-]+\.cuh?)$")
READS = frozenset({"read_text", "read", "read_bytes", "open"})  # Path.read_text, open(...).read(), resources


def compiles_source(name: str, call: ast.Call) -> bool:
    """Whether a CuPy call compiles CUDA source it is given (`RawKernel(code, name)`, `RawModule(code=...)`,
    `compile_with_cache(source)`), not a module built elsewhere (`RawModule(path=...)`, cusignal's fatbins)."""
    return name in CUPY_COMPILERS and any(_argument(call, position, keyword) is not None
                                          for position, keyword in SOURCE_ARGS[name])


def source_files(name: str, call: ast.Call, exprs: dict[str, ast.expr]) -> list[tuple[str, ast.expr]]:
    """The CUDA files a run-time compiler's source argument reads (`code=files(pkg).joinpath("x.cu").read_text()`,
    `open(path + "/x.cu").read()`, directly or through a name assigned in the file): (file name, its string)."""
    if name not in RUNTIME_COMPILERS:
        return []
    out: list[tuple[str, ast.expr]] = []
    for position, keyword in SOURCE_ARGS[name]:
        arg = _argument(call, position, keyword)
        if isinstance(arg, ast.Name) and arg.id in exprs:
            arg = exprs[arg.id]
        if arg is None or not any(_reads(n) for n in ast.walk(arg)):
            continue
        for node in ast.walk(arg):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and (found := SOURCE_FILE.search(node.value)):
                out.append((found.group(1), node))
    return out


def read_file(call: ast.Call, exprs: dict[str, ast.expr]) -> tuple[str, ast.expr] | None:
    """The CUDA file a read names (`open(os.path.join(here, "kernel.cu")).read()`, `Path(...).read_text()`, the path
    directly or through a name assigned before): (file name, its string). gpu-auralization's module reads kernel.cu
    into a name that a function passes on to load_inline: in a module that compiles at run time (the caller's test),
    such a read is the compiler's source wherever the text then goes."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open" and call.args:
        path: ast.expr | None = call.args[0]
        if len(call.args) > 1 and isinstance(mode := call.args[1], ast.Constant) and set(str(mode.value)) & set("wax+"):
            return None  # written, not read
    elif isinstance(func, ast.Attribute) and func.attr in READS - {"read"}:
        path = func.value
    else:
        return None
    for node in _through_names(path, exprs, depth=0):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (found := SOURCE_FILE.search(node.value)):
            return found.group(1), node
    return None


def _through_names(node: ast.expr | None, exprs: dict[str, ast.expr], depth: int) -> list[ast.AST]:
    if node is None or depth > 2:
        return []
    out: list[ast.AST] = []
    for sub in ast.walk(node):
        out.append(sub)
        if isinstance(sub, ast.Name) and sub.id in exprs and exprs[sub.id] is not node:
            out += _through_names(exprs[sub.id], exprs, depth + 1)
    return out


def _reads(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr in READS) or (isinstance(func, ast.Name) and func.id == "open")


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    row0: int  # 0-based line of the text's first character in the file
    col0: int  # 0-based character column of that first character
    exact: bool  # False: escapes or concatenation; locations are pinned to the literal


def sources_of(name: str, call: ast.Call, strings: dict[str, ast.expr],
               lines: list[str]) -> list[tuple[Snippet, ast.expr]]:
    out: list[tuple[Snippet, ast.expr]] = []
    for position, keyword in SOURCE_ARGS.get(name, ()):
        arg = _argument(call, position, keyword)
        for literal in _literals(arg, strings, depth=0):
            out.append((_snippet(literal, lines), literal))
    return out


def _argument(call: ast.Call, position: int | None, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if position is not None and position < len(call.args):
        return call.args[position]
    return None


def _literals(node: ast.expr | None, strings: dict[str, ast.expr], depth: int) -> list[ast.Constant]:
    if node is None or depth > 4:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, ast.Name) and node.id in strings:
        return _literals(strings[node.id], strings, depth + 1)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [lit for elt in node.elts for lit in _literals(elt, strings, depth + 1)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literals(node.left, strings, depth + 1) + _literals(node.right, strings, depth + 1)
    return []


def _snippet(node: ast.Constant, lines: list[str]) -> Snippet:
    first = lines[node.lineno - 1].encode()
    segment = _segment(node, lines)
    matched = PREFIX.match(segment)
    prefix = matched.group(0) if matched else ""
    rest = segment[len(prefix):]
    quote = rest[:3] if rest[:3] in ('"""', "'''") else rest[:1]
    content = rest[len(quote):len(rest) - len(quote)]
    col0 = len(first[:node.col_offset].decode("utf-8", "replace")) + len(prefix) + len(quote)
    exact = content == node.value and rest.endswith(quote)
    return Snippet(text=content if exact else str(node.value), row0=node.lineno - 1, col0=col0, exact=exact)


def _segment(node: ast.Constant, lines: list[str]) -> str:
    start, end = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    chunk = [line.encode() for line in lines[start:end + 1]]
    if len(chunk) == 1:
        return chunk[0][node.col_offset:node.end_col_offset].decode("utf-8", "replace")
    chunk[0] = chunk[0][node.col_offset:]
    chunk[-1] = chunk[-1][:node.end_col_offset]
    return b"\n".join(chunk).decode("utf-8", "replace")


def pin(fact: Fact, node: ast.expr, col: Callable[[int, int], int]) -> Fact:
    """Move a fact from an inexactly mapped string to the start of its literal."""
    column = col(node.lineno, node.col_offset)
    return replace(fact, line=node.lineno, column=column, end_line=node.lineno, end_column=column + 1)
