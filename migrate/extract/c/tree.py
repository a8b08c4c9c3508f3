"""Small helpers over tree-sitter nodes, shared by the C/C++/CUDA extractors."""
from __future__ import annotations

import bisect
import re
from _thread import _local  # threading.local itself (threading.py imports it from here): threading is not imported
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache

from migrate.extract import budget
from migrate.extract.c import ts

Emit = Callable[..., None]  # how a recogniser reports a construct: emit(name, node, label, [value])
DEVICE_QUALIFIERS = frozenset({"__global__", "__device__"})
SPACES = re.compile(r"\s+")  # a run of whitespace, collapsed when declarations are compared as text
DECLARATION_QUALIFIERS = re.compile(r"\b(const|volatile|constexpr|static)\b")


class _Reading(_local):
    """The texts whose nodes are being read in this thread, innermost last (a macro body inside its file)."""

    def __init__(self) -> None:
        self.sources: list[bytes] = []


_READING = _Reading()


@contextmanager
def reading(source: bytes) -> Iterator[None]:
    """Within the block, `text` and `raw` read nodes of the tree parsed from `source`: a node holds only its
    byte range, and ts.parse keeps no copy of the bytes a node could read itself (Node.text of a tree parsed
    through a callback calls it again, a slice of the rest of the text each time)."""
    _READING.sources.append(source)
    try:
        yield
    finally:
        _READING.sources.pop()


def reading_now() -> bytes:
    """The text being read (`reading`)."""
    return _READING.sources[-1]


def raw(node: ts.Node) -> bytes:
    """The node's bytes, in the text being read (`reading`)."""
    return _READING.sources[-1][node.start_byte:node.end_byte]


def text(node: ts.Node | None) -> str:
    """The node's text, in the text being read (`reading`); bytes that are not UTF-8 replaced."""
    if node is None:
        return ""
    return _READING.sources[-1][node.start_byte:node.end_byte].decode("utf-8", "replace")


def texts(nodes: list[ts.Node], source: bytes) -> list[str]:
    """`text` of each node of `source`'s tree, in one pass (the identifiers of a tree: every consumer reads
    the one list instead of decoding each node again)."""
    return [source[node.start_byte:node.end_byte].decode("utf-8", "replace") for node in nodes]


def spelled_type(kind: ts.Node | None) -> str:
    """A declaration's type without its qualifiers, whitespace collapsed: `const  uint32_t` -> `uint32_t`."""
    return _unqualified(text(kind))


@lru_cache(maxsize=4096)
def _unqualified(spelled: str) -> str:
    """`spelled_type` of a type's text, read once per spelling (types repeat: cuda-samples' 28k reads, a few
    hundred spellings)."""
    return SPACES.sub(" ", DECLARATION_QUALIFIERS.sub("", spelled)).strip()


def walk(node: ts.Node) -> Iterator[ts.Node]:
    """Every node of the subtree, pre-order. The nodes it yields are the file's work (budget.spend), counted
    as visited: a caller that stops at the first match pays for what it read, not for the whole subtree."""
    budget.charge(0, "walking the C/C++ tree")
    stack, visited = [node], 0
    try:
        while stack:
            current = stack.pop()
            visited += 1
            yield current
            stack.extend(reversed(current.children))
    finally:
        budget.spend(visited)


def root(node: ts.Node) -> ts.Node:
    """The tree's root, from any node of it (for what the query captures nothing of)."""
    while node.parent is not None:
        node = node.parent
    return node


def first_call(node: ts.Node, names: frozenset[str]) -> ts.Node | None:
    for current in walk(node):
        if current.type == "call_expression" and text(current.child_by_field_name("function")) in names:
            return current
    return None


def qualifiers(function: ts.Node) -> set[str]:
    return {c.type for c in function.children if c.type.startswith("__")}


def in_device_code(node: ts.Node) -> bool:
    """Inside a __device__/__global__ function, and not in the host pass's branch of a device-pass test
    (`#ifdef __CUDA_ARCH__ ... #else <host> #endif`, `#if !defined(__CUDA_ARCH__) <host> #endif`): nvcc
    compiles that branch for the host only (https://docs.nvidia.com/cuda/cuda-c-programming-guide/#cuda-arch)."""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type == "function_definition":
            return bool(qualifiers(parent) & DEVICE_QUALIFIERS)
        if _host_branch(child, parent):
            return False
        child, parent = parent, parent.parent
    return False


DEVICE_PASS_MACROS = frozenset({"__CUDA_ARCH__", "__HIP_DEVICE_COMPILE__"})
# `#if X`, `#if defined(X)`, `#if defined X` of a device-pass macro, spaces removed
DEVICE_PASS_TESTS = frozenset(m for macro in DEVICE_PASS_MACROS for m in (macro, f"defined({macro})", f"defined{macro}"))


def _host_branch(child: ts.Node, conditional: ts.Node) -> bool:
    """Whether `child` is the branch of a preprocessor conditional that only the host pass compiles."""
    if conditional.type not in ("preproc_ifdef", "preproc_if"):
        return False
    in_else = child.type in ("preproc_else", "preproc_elif", "preproc_elifdef")
    if conditional.type == "preproc_ifdef":
        if text(conditional.child_by_field_name("name")) not in DEVICE_PASS_MACROS:
            return False
        negated = text(conditional.children[0]) == "#ifndef"
    else:
        condition = "".join(text(conditional.child_by_field_name("condition")).split())
        if condition in DEVICE_PASS_TESTS:
            negated = False
        elif condition.startswith("!") and condition[1:] in DEVICE_PASS_TESTS:
            negated = True
        else:
            return False
    return in_else != negated


class Parents:
    """`Node.parent` without tree-sitter's walk from the root: that walk reads the root's children one by one, so a file
    of 66,000 top-level nodes (100 KB of `$$(`, or a header of 50,000 `#define`s) paid 66,000 steps a lookup and 32 s for
    its identifiers' roles. The root's children are indexed once (by start byte); below them the walk is tree-sitter's."""

    def __init__(self, root: ts.Node) -> None:
        self.root = root
        self._top: list[ts.Node] | None = None
        self._starts: list[int] = []

    def of(self, node: ts.Node) -> ts.Node | None:
        if node == self.root:
            return None
        if self._top is None:
            self._top = self.root.children
            self._starts = [child.start_byte for child in self._top]
        at = bisect.bisect_right(self._starts, node.start_byte) - 1
        while at >= 0 and self._starts[at] == node.start_byte and self._top[at].end_byte < node.end_byte:
            at -= 1  # a zero-width node (a MISSING token) before the one holding `node`
        if at < 0:
            return node.parent
        parent, child = self.root, self._top[at]
        while child != node:
            below = child.child_with_descendant(node)
            if below is None:  # not under this top-level node after all: tree-sitter's own walk
                return node.parent
            parent, child = child, below
        return parent
