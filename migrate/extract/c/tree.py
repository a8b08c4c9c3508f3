"""Small helpers over tree-sitter nodes, shared by the C/C++/CUDA extractors."""
from __future__ import annotations

from collections.abc import Iterator

from migrate.extract.c import ts

DEVICE_QUALIFIERS = frozenset({"__global__", "__device__"})


def text(node: ts.Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def walk(node: ts.Node) -> Iterator[ts.Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def first_call(node: ts.Node, names: frozenset[str]) -> ts.Node | None:
    for current in walk(node):
        if current.type == "call_expression" and text(current.child_by_field_name("function")) in names:
            return current
    return None


def qualifiers(function: ts.Node) -> set[str]:
    return {c.type for c in function.children if c.type.startswith("__")}


def in_device_code(node: ts.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "function_definition":
            return bool(qualifiers(parent) & DEVICE_QUALIFIERS)
        parent = parent.parent
    return False
