"""The one module that drives the tree-sitter API: the CUDA parser and its queries.

A parse runs in C, where the per-file time limit's signal cannot stop it; it gets a progress
callback instead, which ends it at the file's deadline (budget.native_call). It also has a budget of work linear in the input: tree-sitter calls back every 100 operations, real code
needs at most 0.02 calls a byte (19,090 C/C++/CUDA files of 30 projects) and fuzzed token soups
0.05, but its error recovery can loop without end on some inputs (tests/fixtures_hostile/).
A parse that needs more than CALLS_FREE + CALLS_PER_BYTE * size calls is given up (ParseStalled)."""
from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources

import tree_sitter
import tree_sitter_cuda

from migrate.extract.budget import native_call

Node = tree_sitter.Node
CALLS_FREE = 1_000
CALLS_PER_BYTE = 0.25
CHUNK = 4096  # bytes handed to tree-sitter per read (Node.text reads through the same callback)


class ParseStalled(Exception):
    """tree-sitter used up its budget of operations on this input without finishing."""


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
    """Parse C/C++/CUDA source (error-tolerant) and return the root node. Raises ParseStalled
    past the work budget and budget.BudgetExceeded past the file's time limit."""
    allowed = CALLS_FREE + int(len(source) * CALLS_PER_BYTE)
    calls = 0

    def read(offset: int, _point: object) -> bytes:
        return source[offset:offset + CHUNK]

    with native_call() as expired:
        def progress(_offset: int, _has_error: bool) -> bool:
            nonlocal calls
            calls += 1
            return calls > allowed or expired()

        parser = tree_sitter.Parser(_language())
        try:
            tree = parser.parse(read, progress_callback=progress)
        except ValueError:  # "Parsing failed": the callback stopped it
            if calls <= allowed:
                raise
        else:  # once more from the bytes, reusing the whole tree, so that Node.text slices them
            return parser.parse(source, old_tree=tree).root_node
    raise ParseStalled(f"the C/C++ parser gave up after {allowed * 100:,} operations")


def captures(query: str, node: Node) -> dict[str, list[Node]]:
    """Run a query from queries/<query>.scm; captures by name, in document order."""
    found = tree_sitter.QueryCursor(_query(query)).captures(node)  # (its progress_callback crashes in 0.26.1)
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
