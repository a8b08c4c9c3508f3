"""The one module that drives the tree-sitter API: the CUDA parser and its queries."""
from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources

import tree_sitter
import tree_sitter_cuda

Node = tree_sitter.Node


@lru_cache(maxsize=1)
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_cuda.language())


@cache
def _query(name: str) -> tree_sitter.Query:
    text = resources.files("migrate.extract.c").joinpath("queries", f"{name}.scm").read_text()
    return tree_sitter.Query(_language(), text)


def prepare() -> None:
    """Compile the CUDA query now (before worker processes are forked)."""
    _query("cuda")


def parse(source: bytes) -> Node:
    """Parse C/C++/CUDA source (error-tolerant) and return the root node."""
    return tree_sitter.Parser(_language()).parse(source).root_node


def captures(query: str, node: Node) -> dict[str, list[Node]]:
    """Run a query from queries/<query>.scm; captures by name, in document order."""
    found = tree_sitter.QueryCursor(_query(query)).captures(node)
    return {name: sorted(nodes, key=lambda n: n.start_byte) for name, nodes in found.items()}


def error_lines(root: Node, limit: int = 5) -> list[int]:
    """1-based lines of the first syntax errors, if the parse had any."""
    if not root.has_error:
        return []
    lines: list[int] = []
    stack = [root]
    while stack and len(lines) < limit:
        node = stack.pop()
        if node.is_error or node.is_missing:
            lines.append(node.start_point[0] + 1)
        elif node.has_error:
            stack.extend(reversed(node.children))
    return sorted(set(lines))
