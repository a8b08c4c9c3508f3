"""The C extractor's query holds node types only (fast to compile); the captures that need a
field are derived in Python (`cuda_cpp.captures`). They must equal what the field patterns
capture, node for node, on the fixtures and on odd shapes."""
from __future__ import annotations

from pathlib import Path

import pytest
import tree_sitter
from migrate.extract.c import cuda_cpp, ts

ROOT = Path(__file__).resolve().parent.parent
FIELD_PATTERNS = """
(call_expression function: (identifier) @reference.call)
(call_expression function: (qualified_identifier name: (identifier) @reference.call))
(call_expression function: (template_function name: (identifier) @reference.call))
(call_expression function: (qualified_identifier name: (template_function name: (identifier) @reference.call)))
(call_expression function: (qualified_identifier name: (qualified_identifier name: (identifier) @reference.call)))
(call_expression function: (qualified_identifier name: (qualified_identifier
  name: (template_function name: (identifier) @reference.call))))
(call_expression function: (field_expression field: (field_identifier) @reference.member))
(call_expression (kernel_call_syntax)) @launch
(preproc_include path: (_) @include)
(preproc_def name: (identifier) @macro.name value: (preproc_arg)? @macro.value) @macro
(preproc_function_def value: (preproc_arg) @macro.body)
(preproc_function_def name: (identifier) @macro.name)
"""
ODD = [
    b"void f() { a::b::c::d(); a::b::c<int>(); x.y.z(); (*p)(); f<g<1>>(2); ns::t<int>::m(); }",
    b"#define A\n#define B(x) x\n#define C 1 // c\n#include <a.h>\n#include \"b.h\"\n#include MACRO\n",
    b"__global__ void k(); void h() { k<<<1, 2>>>(); ns::k<<<1, 1, 0, s>>>(); obj.m<<<1,1>>>(); }",
    b"void broken( { cudaMalloc(&p, 4; #define X(y \n } a::",
    "int é = f(x); // ü\n".encode(),
]


def _spans(found: dict[str, list[ts.Node]], names: set[str]) -> dict[str, list[tuple[int, int, str]]]:
    return {k: [(n.start_byte, n.end_byte, n.type) for n in v] for k, v in found.items() if k in names and v}


def _field_captures(root: ts.Node) -> dict[str, list[ts.Node]]:
    query = _QUERY.get("q") or _QUERY.setdefault("q", tree_sitter.Query(ts._language(), FIELD_PATTERNS))
    return {name: sorted(nodes, key=lambda n: n.start_byte)
            for name, nodes in tree_sitter.QueryCursor(query).captures(root).items()}


_QUERY: dict[str, tree_sitter.Query] = {}
DERIVED = {"reference.call", "reference.member", "launch", "include", "macro", "macro.name", "macro.value", "macro.body"}


def _differences(source: bytes) -> list[str]:
    root = ts.parse(source)
    derived, expected = _spans(cuda_cpp.captures(root), DERIVED), _spans(_field_captures(root), DERIVED)
    return [name for name in DERIVED if derived.get(name) != expected.get(name)]


@pytest.mark.parametrize("source", ODD, ids=range(len(ODD)))
def test_derived_captures_equal_the_field_patterns_on_odd_shapes(source: bytes) -> None:
    assert _differences(source) == []
    assert _spans(cuda_cpp.captures(ts.parse(source)), DERIVED)  # something was derived at all


def test_derived_captures_equal_the_field_patterns_on_every_c_fixture() -> None:
    files = sorted(p for folder in ("fixtures", "examples") for p in (ROOT / folder).rglob("*")
                   if p.suffix in (".cu", ".cuh", ".cpp", ".h", ".hpp", ".c", ".cc", ".hip") and p.is_file())
    assert len(files) > 100
    bad = {str(p.relative_to(ROOT)): d for p in files if (d := _differences(p.read_bytes()))}
    assert bad == {}


# The queries are run as a walk of the tree (ts.captures); tree-sitter's own query of the same
# .scm text must capture the same nodes. The walk gives them in document order, a node before the
# nodes inside it; tree-sitter orders nested nodes of one start byte either way, so only the
# order by start byte is compared with it.
def _query_spans(name: str, root: ts.Node) -> dict[str, list[tuple[int, int, str]]]:
    text = (ROOT / "migrate" / "extract" / "c" / "queries" / f"{name}.scm").read_text()
    query = _QUERY.get(name) or _QUERY.setdefault(name, tree_sitter.Query(ts._language(), text))
    found = tree_sitter.QueryCursor(query).captures(root)
    return {k: sorted((n.start_byte, -n.end_byte, n.type) for n in v) for k, v in found.items()}


def _walk_differences(source: bytes) -> list[str]:
    root = ts.parse(source)
    wrong = []
    for name in ("cuda", "comments"):
        walked = ts.captures(name, root)
        for capture, nodes in walked.items():
            starts = [(n.start_byte, -n.end_byte) for n in nodes]
            if starts != sorted(starts):
                wrong.append(f"{name}: {capture} out of document order")
        spans = {k: sorted((n.start_byte, -n.end_byte, n.type) for n in v) for k, v in walked.items()}
        if spans != _query_spans(name, root):
            wrong.append(f"{name}: not what tree-sitter's query captures")
    return wrong


@pytest.mark.parametrize("source", ODD, ids=range(len(ODD)))
def test_the_walk_captures_what_the_query_captures_on_odd_shapes(source: bytes) -> None:
    assert _walk_differences(source) == []


def test_the_walk_captures_what_the_query_captures_on_every_c_fixture_and_its_broken_halves() -> None:
    files = sorted(p for folder in ("fixtures", "examples") for p in (ROOT / folder).rglob("*")
                   if p.suffix in (".cu", ".cuh", ".cpp", ".h", ".hpp", ".c", ".cc", ".hip") and p.is_file())
    sources = {str(p.relative_to(ROOT)): p.read_bytes() for p in files}
    sources |= {f"{k} (first half)": v[:len(v) // 2] for k, v in list(sources.items())}
    bad = {name: d for name, source in sources.items() if (d := _walk_differences(source))}
    assert bad == {}


def test_a_query_that_is_more_than_node_types_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for text in ("(call_expression function: (identifier) @f)", "(identifier) @a (#eq? @a \"x\")"):
        (tmp_path / "queries").mkdir(exist_ok=True)
        (tmp_path / "queries" / "x.scm").write_text(text)
        monkeypatch.setattr(ts, "__file__", str(tmp_path / "ts.py"))
        ts._types.cache_clear()
        with pytest.raises(ValueError, match="only node-type patterns"):
            ts._types("x")
    ts._types.cache_clear()


def test_no_anonymous_node_has_children_on_every_c_fixture_and_its_broken_halves() -> None:
    """ts.captures walks named children only: it relies on anonymous nodes (tokens) being leaves."""
    files = sorted(p for folder in ("fixtures", "examples") for p in (ROOT / folder).rglob("*")
                   if p.suffix in (".cu", ".cuh", ".cpp", ".h", ".hpp", ".c", ".cc", ".hip") and p.is_file())
    sources = [p.read_bytes() for p in files] + ODD
    sources += [source[:len(source) // 2] for source in sources]
    parents = set()
    for source in sources:
        stack = [ts.parse(source)]
        while stack:
            node = stack.pop()
            if not node.is_named and node.child_count:
                parents.add(node.type)
            stack.extend(node.children)
    assert parents == set()


def test_named_children_is_a_new_list_each_call() -> None:
    """ts.captures reverses the list `named_children` gives in place (one call a node): that is sound only while
    tree-sitter makes that list anew at each call (it keeps `children`' list, not this one), so the order a
    later reader sees is the tree's."""
    function = ts.parse(b"int f(int a, int b) { return a + b; }").named_children[0]
    first = function.named_children
    assert first is not function.named_children
    first.reverse()
    assert [n.type for n in function.named_children] == ["primitive_type", "function_declarator", "compound_statement"]
    found = ts.captures("cuda", function)
    assert [n.type for n in function.named_children] == ["primitive_type", "function_declarator", "compound_statement"]
    assert [n.start_byte for n in found["reference.identifier"]] == sorted(n.start_byte for n in found["reference.identifier"])
