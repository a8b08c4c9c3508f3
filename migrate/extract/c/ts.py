"""The one module that drives the tree-sitter API: the CUDA parser and its queries.

A parse runs in C, where the per-file time limit's signal cannot stop it, and tree-sitter's error
recovery loops without end on some inputs (a 309-byte one in tests/test_budget.py). So a parse
reads its input through a callback and gets a progress callback, which tree-sitter calls every 100
operations: it ends the parse at the file's deadline (budget.native_call) and after a budget of
work linear in the input, CALLS_FREE + CALLS_PER_BYTE * size calls. Real code needs at most 0.022
calls a byte (19,090 C/C++/CUDA files of 30 projects), fuzzed token soups 0.05. A tree parsed from
a callback reads Node.text through it, slowly, so the bytes are parsed once more, reusing that tree."""
from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources

import tree_sitter
import tree_sitter_cuda

from migrate.extract.budget import WorkExceeded, native_call

Node = tree_sitter.Node
CALLS_FREE = 1_000
CALLS_PER_BYTE = 0.25


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
    """Parse C/C++/CUDA source (error-tolerant) and return the root node. Raises WorkExceeded past
    the budget of work and budget.BudgetExceeded past the file's time limit."""
    allowed = CALLS_FREE + int(len(source) * CALLS_PER_BYTE)
    calls = 0
    view = memoryview(source)
    parser = tree_sitter.Parser(_language())
    tree = None
    while tree is None:  # a signal whose handler did not raise: the parse goes on where it stopped
        with native_call() as expired:
            def progress(_offset: int, _has_error: bool) -> bool:
                nonlocal calls
                calls += 1
                return calls > allowed or expired()

            try:
                tree = parser.parse(lambda offset, _point: view[offset:], progress_callback=progress)
            except ValueError:  # "Parsing failed": the callback stopped it
                if calls > allowed:
                    raise WorkExceeded(f"the C/C++ parser did not finish in {allowed * 100:,} steps") from None
                if not expired():
                    raise
    return parser.parse(source, old_tree=tree).root_node


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
