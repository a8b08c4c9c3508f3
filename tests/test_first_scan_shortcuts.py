"""Shortcuts that cut the first scan's CPU (docs/decisions/2026-12-06-first-scan-shortcuts.md) give what the long
way gives: the captures walk with and without its depth marks, the hazards' 64 test before the name's pattern,
rocm_path's whole-text search before its lines, the cache row's interning by place, match's finding by its slots."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from migrate.extract.budget import WorkExceeded
from migrate.extract.c import hazards, ts
from migrate.extract.text import rocm_path
from migrate.extract.text.lines import numbered
from migrate.model import Fact, Finding
from migrate.scan import cache

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    b"void f() { if (a) { while (b) { g(c[d], e->f); } } } int x = 1; struct S { int y; };",
    b"#define A(x) ((x) + 1)\n#if B\nint k = A(2);\n#endif\nnamespace n { void h() { { { { k(); } } } } }\n",
    b"void broken( { cudaMalloc(&p, 4; #define X(y \n } a::",
]


def _levels(node: ts.Node, level: int = 0) -> int:
    """The deepest named node's level under `node` (at `level`)."""
    return max([level, *(_levels(child, level + 1) for child in node.named_children)])


def _reference(node: ts.Node) -> dict[str, list[tuple[int, int, int]]]:
    """Every named node of a queried type, pre-order, keyed by capture name in the order the names are first met."""
    found: dict[str, list[tuple[int, int, int]]] = {}

    def visit(current: ts.Node) -> None:
        for name in ts._kinds("cuda").get(current.kind_id, ()):
            found.setdefault(name, []).append((current.start_byte, current.end_byte, current.kind_id))
        for child in current.named_children:
            visit(child)

    visit(node)
    return found


@pytest.mark.parametrize("source", SOURCES, ids=range(len(SOURCES)))
def test_the_walk_refuses_a_tree_past_the_depth_bound_and_walks_one_within_it_whichever_loop_reads_it(
        source: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every bound from 0 to past the tree's depth: the loop without depth marks takes the subtrees that fit
    (level + descendants <= bound + 1), the marked loop the rest; at the tree's own depth it just fits."""
    root = ts.parse(source)
    deepest, expected = _levels(root), _reference(root)
    for bound in range(deepest + 3):
        monkeypatch.setattr(ts, "MAX_DEPTH", bound)
        if bound < deepest:
            with pytest.raises(WorkExceeded, match="nested more than"):
                ts.captures("cuda", root)
        else:
            walked = ts.captures("cuda", root)
            assert {k: [(n.start_byte, n.end_byte, n.kind_id) for n in v] for k, v in walked.items()} == expected
            assert list(walked) == list(expected)


@pytest.mark.parametrize("value", ["64", "064", "(64u)", " 64 ", "6/**/4", "64 // wave", "\u0666\u0664", "0x40",
                                   "32", "128", "WAVE", "", "6 4"])
def test_the_64_gate_lets_every_value_integer_reads_as_64_through(value: str) -> None:
    """The near misses (0x40, 32, `6 4`) are no 64 to `integer` either; the gate may let them through or not."""
    if hazards.integer(value) == 64:
        assert hazards._may_be_64(value)
    assert hazards._may_be_64("6/**/4") and hazards.integer("6/**/4") == 64  # a comment between the digits
    assert not hazards._may_be_64("32")


@pytest.mark.parametrize("kind", sorted(rocm_path.WHOLE_TEXT_FIRST))
def test_whole_text_first_kinds_have_no_line_anchors(kind: str) -> None:
    for pattern in rocm_path.KIND_PATTERNS[kind][1]:
        assert "^" not in pattern.pattern.replace("[^", "") and "$" not in pattern.pattern
        assert not pattern.flags & re.MULTILINE


TEXTS = [
    "project(x LANGUAGES CXX)\nadd_executable(a a.cu)\n",
    "project(x LANGUAGES CXX HIP)\nif(GGML_HIP) # hip\n  set(CMAKE_HIP_FLAGS --offload-arch=gfx90a)\nendif()\n",
    "# enable_language(HIP)\nset(USE_ROCM ON) # x\n",
    "CC=hipcc\nall:\n\t$(CC) -o a a.cpp\n",
    "jobs:\n  test:\n    runs-on: [self-hosted, rocm]\n    with-rocm: false\n",
    "runs-on: ubuntu-latest\n",
]


@pytest.mark.parametrize("kind", sorted(rocm_path.WHOLE_TEXT_FIRST))
@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_evidence_with_the_whole_text_search_first_is_the_line_by_line_evidence(kind: str, text: str) -> None:
    strength, patterns = rocm_path.KIND_PATTERNS[kind]
    by_lines = []
    for number, line, _ in numbered(text):
        if kind == "manifest" and rocm_path.CI_OFF.match(line):
            continue
        for pattern in patterns:
            if m := pattern.search(line):
                by_lines.append(Fact(kind="rocm_path", name=strength, line=number, column=m.start() + 1,
                                     end_line=number, end_column=m.end() + 1, text=m.group(0)))
                break
    assert rocm_path.evidence(kind, text) == by_lines


def test_a_fact_row_decodes_to_the_fact_it_was_with_its_strings_interned() -> None:
    fact = Fact(kind="construct", name="".join(["warp-size", "-constant-32"]), line=3, column=1, end_line=3,
                end_column=9, role="", text="WARP", guard="cuda", cell=None, value=7)
    for checked in (True, False):
        decoded = cache.fact_of(cache.fact_row(fact), checked=checked)
        assert decoded == fact and decoded.name is sys.intern("warp-size-constant-32")  # one object: interned
    assert cache.fact_of(cache.fact_row(Fact(kind="x", name="y", line=1, column=1, end_line=1, end_column=1)),
                         checked=False).guard is None


def test_a_finding_built_by_its_slots_is_the_dataclass_one() -> None:
    """match._finding's tuple: Finding's fields in order, the ones it leaves at their defaults as __init__ sets them."""
    from migrate.model import build_finding

    made = build_finding(("r", "a.cu", 1, 2, 1, 5, "s", "m", None, "yes", "high", "code-change", "line", None,
                          "", (), "rules", None, "optional", "", ""))
    assert made == Finding(rule="r", path="a.cu", line=1, column=2, end_line=1, end_column=5, symbol="s", message="m",
                           hip=None, hipify="yes", confidence="high", migration_class="code-change", source_line="line",
                           cell=None, status="optional")
