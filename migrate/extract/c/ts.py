"""The one module that drives the tree-sitter API: the CUDA parser and its queries.

A parse runs in C, where the wall-clock safety net's signal cannot stop it, and tree-sitter's error
recovery loops without end on some inputs (a 309-byte one in tests/test_budget.py). So a parse
reads its input through a callback and gets a progress callback, which tree-sitter calls every 100
operations: it ends the parse after a budget of work linear in the input, CALLS_FREE +
CALLS_PER_BYTE * size calls, or once the file's budget of work (budget.charge: every parse of the
file and every node walked draw on it) or its safety net (budget.native_call) runs out. Real code
needs at most 0.022 calls a byte (19,090 C/C++/CUDA files of 30 projects), fuzzed token soups 0.05. The text is parsed
once: a tree parsed from a callback would read Node.text through it, a copy of the rest of the text
each time, so the extractors read a node's text from the bytes by its range (tree.reading)."""
from __future__ import annotations

import re
import time
from _thread import _local  # threading.local itself (threading.py imports it from here): threading is not imported
from functools import cache, lru_cache
from pathlib import Path

import tree_sitter_cuda

from migrate.extract import budget
from migrate.extract.budget import CpuExceeded, WorkExceeded, native_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_sitter import Language, Parser
    from tree_sitter import Node as Node  # noqa: PLC0414 - re-exported: the extractors name it ts.Node
else:
    try:  # the compiled classes themselves: the package's __init__ re-exports them, and imports typing (~10 M
        # instructions) for a Protocol nothing here uses; a lint process defers that __init__ (migrate/cli/entry.py)
        from tree_sitter._binding import Language, Node, Parser
    except ImportError:  # a tree-sitter release that keeps them elsewhere
        from tree_sitter import Language, Node, Parser

CALLS_FREE = 1_000
CALLS_PER_BYTE = 0.25
MAX_DEPTH = 10_000  # levels of named nodes; cuda-samples' deepest tree has 34, clang's default -fbracket-depth is 256


@lru_cache(maxsize=1)
def _language() -> Language:
    return Language(tree_sitter_cuda.language())


@cache
def _types(name: str) -> dict[str, tuple[str, ...]]:
    """Node type -> capture names, from queries/<name>.scm. Those queries hold node-type patterns
    only, `(type) @name` or `[(type) ...] @name`, and are run as a walk of the tree: compiling a
    tree-sitter query for this grammar costs ~10 ms in every process (lint starts one a run),
    whatever it holds, and running it is no faster than the walk."""
    text = (Path(__file__).parent / "queries" / f"{name}.scm").read_text(encoding="utf-8")
    body = "\n".join(line.split(";", 1)[0] for line in text.split("\n"))
    types: dict[str, tuple[str, ...]] = {}
    end = 0
    for m in _PATTERN.finditer(body):
        if body[end:m.start()].strip():
            raise ValueError(f"queries/{name}.scm: only node-type patterns are supported: {body[end:m.start()]!r}")
        end = m.end()
        for node_type in _NODE_TYPE.findall(m.group(1)):
            if m.group(2) not in types.get(node_type, ()):
                types[node_type] = (*types.get(node_type, ()), m.group(2))
    if body[end:].strip():
        raise ValueError(f"queries/{name}.scm: only node-type patterns are supported: {body[end:]!r}")
    return types


_PATTERN = re.compile(r"(\[(?:\s*\(\w+\))+\s*\]|\(\w+\))\s*@([\w.]+)")
_NODE_TYPE = re.compile(r"\((\w+)\)")


def prepare() -> None:
    """Read the CUDA query now (before worker processes are forked)."""
    _kinds("cuda")


def parse(source: bytes) -> Node:
    """Parse C/C++/CUDA source (error-tolerant) and return the root node. Raises WorkExceeded past
    the parse's budget of work or the file's (budget.charge: each progress call is a unit) and
    budget.BudgetExceeded past the file's wall-clock safety net."""
    allowed = CALLS_FREE + int(len(source) * CALLS_PER_BYTE)
    left = budget.work_left()
    stop = allowed if left is None else min(allowed, left)
    calls = 0
    parser = _parser()
    tree = None
    cpu_allowed = budget.PARSE_CPU_FREE + len(source) * budget.PARSE_CPU_PER_BYTE
    cpu_end = time.process_time() + cpu_allowed
    try:
        while tree is None:  # a signal whose handler did not raise: the parse goes on where it stopped
            with native_call() as expired:
                def progress(_offset: int, _has_error: bool) -> bool:
                    nonlocal calls
                    calls += 1
                    # the work bound at every call; the clocks and signals (`expired`, process_time: a system call)
                    # every 16th, 1,600 parser operations apart (cuda-samples' parses make ~67,000 calls)
                    if calls & 15:
                        return calls > stop
                    return calls > stop or expired() or time.process_time() > cpu_end

                try:  # bytes, not a memoryview: Node.text of this tree calls the reader again and needs bytes
                    tree = parser.parse(lambda offset, _point: source[offset:], progress_callback=progress)
                except ValueError:  # "Parsing failed": the callback stopped it
                    if calls > allowed:
                        raise WorkExceeded(f"the C/C++ parser did not finish in {allowed * 100:,} steps") from None
                    if calls > stop:
                        budget.charge(calls, "parsing C/C++")
                    if time.process_time() > cpu_end:
                        raise CpuExceeded(f"the C/C++ parser used over {cpu_allowed:.3g} s of CPU time") from None
                    if not expired():
                        raise
        budget.charge(calls, "parsing C/C++")
        return tree.root_node
    except BaseException:
        parser.reset()  # a parse left unfinished would go on at the next call
        raise


_PARSERS = _local()


def _parser() -> Parser:
    """This thread's parser, made once: a new parser per parse took a 100-byte body's parse from 38 to 57 µs."""
    parser: Parser | None = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = Parser(_language())
    return parser


@cache
def _kinds(name: str) -> dict[int, tuple[str, ...]]:
    """Node kind id -> capture names, for the named kinds whose type queries/<name>.scm lists. A node's
    kind_id is the public symbol its type and is_named are read from, so a lookup by kind_id is a lookup
    by type of a named node, without making the type's string for every node."""
    language, types = _language(), _types(name)
    kinds: dict[int, tuple[str, ...]] = {}
    for kind in range(language.node_kind_count):
        node_type = language.node_kind_for_id(kind)
        if node_type in types and language.node_kind_is_named(kind):
            kinds[kind] = types[node_type]
    return kinds


def captures(query: str, node: Node) -> dict[str, list[Node]]:
    """The named nodes of the types queries/<query>.scm lists, by capture name, in document order
    (a node before the nodes inside it). Raises WorkExceeded for a tree nested more than MAX_DEPTH
    levels: `Node.parent` costs tree-sitter a walk down from the root, so every reading that looks up a
    node's parents is quadratic in the depth (a 100,000-deep brace nest took minutes; 10,000 takes ~1 s)."""
    of_kind = _kinds(query).get
    budget.charge(node.descendant_count, "walking the C/C++ tree")
    found: dict[str, list[Node]] = {}
    # pre-order: a node, then its named children first to last (pushed in reverse). Only named nodes are
    # captured, and an anonymous node (a token: punctuation, a keyword) has no children in this grammar
    # (tests/test_c_captures.py), so Node objects are made for the named ones only: cuda-samples' trees
    # walked in 1.1-1.6 s CPU instead of 1.5-3.0 s (3 alternated rounds, loaded machine). A None below a
    # node's children marks the end of its level (the depth, at ~12 % of the walk's time).
    # A subtree that cannot reach below MAX_DEPTH (its level plus its descendants, itself counted, at most
    # MAX_DEPTH + 1: no path down it is longer) is walked in the inner loop, in the same order, without the
    # depth's marks: every tree of cuda-samples' smaller files, each top-level declaration of the larger ones.
    stack: list[Node | None] = [node]
    pop, push, append = stack.pop, stack.extend, stack.append
    depth = 0
    while stack:  # one Node.named_children call a node with children, where a TreeCursor took two or three moves a node
        current = pop()
        if current is None:
            depth -= 1
            continue
        if depth + current.descendant_count <= MAX_DEPTH + 1:
            below = [current]
            pop_below, push_below = below.pop, below.extend
            while below:
                current = pop_below()
                if (names := of_kind(current.kind_id)) is not None:
                    for name in names:
                        if (sink := found.get(name)) is None:
                            found[name] = sink = []
                        sink.append(current)
                # one call a node (a leaf's list is empty), where named_child_count first made it two; the list is new
                # each call and reversed in place: the walk of cuda-samples' trees ~10 % faster (0.34 -> 0.30 s)
                if children := current.named_children:
                    children.reverse()
                    push_below(children)
            continue
        if (names := of_kind(current.kind_id)) is not None:
            for name in names:
                found.setdefault(name, []).append(current)
        if current.named_child_count:
            depth += 1
            if depth > MAX_DEPTH:
                raise WorkExceeded(f"the C/C++ tree is nested more than {MAX_DEPTH:,} levels deep")
            append(None)
            push(reversed(current.named_children))
    return found


def error_lines(root: Node, limit: int = 5) -> list[int]:
    """1-based lines of the first syntax errors, if the parse had any; the shapes valid code takes in the
    grammar's gaps (`unexpanded`) are not errors. An error node with errors inside it is where the parser's
    recovery began (line 1 when one bad construct turns the whole file into an ERROR), so the errors inside
    it are reported instead."""
    if not root.has_error:
        return []
    lines: list[int] = []
    stack = [root]
    while stack and len(lines) < limit:
        node = stack.pop()
        nested = node.is_error and any(child.has_error for child in node.children)
        if (node.is_error or node.is_missing) and not nested and not unexpanded(node):
            lines.append(node.start_point[0] + 1)
        elif node.has_error:
            stack.extend(reversed(node.children))
    return sorted(set(lines))


_DECLARATIONS = frozenset({"declaration", "field_declaration", "function_definition", "parameter_declaration"})


def unexpanded(node: Node) -> bool:
    """An error node that valid source leaves in the grammar: the declarator tree-sitter-cuda wants after an
    explicit instantiation (`template class Dense<float>;`), and names between a declaration's type and its
    declarator, which are macros the parse does not expand (`CUBLASAPI cublasStatus_t CUBLASWINAPI f(...)`: an
    ERROR of identifiers, or `T MACRO f(...)` read as `MACRO::f` with the `::` missing)."""
    parent = node.parent
    if parent is None:
        return False
    if node.is_missing:
        if parent.type == "template_instantiation" and node.type == "identifier":
            return True
        return (node.type == "::" and parent.type == "qualified_identifier" and parent.parent is not None
                and parent.parent.type == "function_declarator")
    declarator = parent.child_by_field_name("declarator") if parent.type in _DECLARATIONS else None
    return (declarator is not None and node.end_byte <= declarator.start_byte
            and all(c.type == "identifier" for c in node.children))
