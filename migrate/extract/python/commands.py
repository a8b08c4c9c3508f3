"""NVIDIA-only command-line tools run from Python: a command line built as a string or an argv list
(`os.system("trtexec --onnx=" + path)`, `["trtexec", f"--loadEngine={e}"]`, `'./trtexec' + " " + options`).

The fact is the one a shell script gives for the same run (`manifest` `tool:NAME`, see
migrate/extract/text/commands.py). A string counts only where it reads as a command: its first word is the
tool and it is a path to the binary, or options follow it; prose that names the tool is no run."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from migrate.extract.text.commands import NVIDIA_TOOLS

if TYPE_CHECKING:
    from migrate.extract.python.extractor import _Visitor


def on_head(v: _Visitor, head: ast.expr, following: str = "", *, argv: bool = False) -> None:
    """`head` starts a command line (the left of a `+` chain, an f-string, an argv list, a shell string);
    `following` is the literal text after it. `argv` marks the argument of a call that runs a command."""
    if not isinstance(head, ast.Constant) or not isinstance(head.value, str) or len(head.value) > 500:
        return
    words = (head.value + following).split()
    program = words[0].rsplit("/", 1)[-1].removesuffix(".exe") if words else ""
    if program not in NVIDIA_TOOLS:
        return
    if argv or "/" in words[0] or (len(words) > 1 and words[1].startswith("-")):
        v.add("manifest", f"tool:{program}", head, text=words[0])


def on_sequence(v: _Visitor, node: ast.List | ast.Tuple) -> None:
    """`["trtexec", "--onnx=m.onnx"]`, `["/usr/src/tensorrt/bin/trtexec"]`, `subprocess.run(["nsys", ...])`: an argv."""
    if node.elts:
        following = " " + _leading_text(node.elts[1]) if len(node.elts) > 1 else ""
        on_head(v, node.elts[0], following, argv=id(node) in v.runs)


def on_binop(v: _Visitor, node: ast.BinOp) -> None:
    """`"trtexec --onnx=" + path`: the innermost left operand of a string concatenation."""
    if isinstance(node.op, ast.Add) and isinstance(node.left, ast.Constant):
        on_head(v, node.left, _leading_text(node.right))


def on_joined(v: _Visitor, node: ast.JoinedStr) -> None:
    """f"trtexec --onnx={path}"."""
    if node.values:
        on_head(v, node.values[0])


def _leading_text(node: ast.expr) -> str:
    """The literal text an operand starts with ("" when it starts with a value)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return _leading_text(node.values[0])
    if isinstance(node, ast.BinOp):
        return _leading_text(node.left)
    return ""
