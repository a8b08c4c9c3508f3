"""extract/jinja.py: Jinja template syntax masked in place, never rendered."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract import jinja
from migrate.extract.c import cuda_cpp


def masked(text: str) -> str:
    out, _ = jinja.mask(text.encode())
    assert len(out) == len(text.encode()) and out.count(b"\n") == text.count("\n")
    return out.decode()


@pytest.mark.parametrize(("source", "template"), [
    ("{% if weighted %}\nint w;\n{% endif %}\n", True),
    ("{%- for t in types %}\n{%- endfor %}\n", True),
    ('asm("st.v2.u32 [%0], {%1, %2};" : : "l"(p));\n', False),  # PTX operands
    ("int a[2][2] = {{1, 2}, {3, 4}};\n", False),  # C aggregates
    ("printf(\"{%d}\", x);\n", False),
])
def test_is_template(source: str, template: bool) -> None:
    assert jinja.is_template(source.encode()) is template


@pytest.mark.parametrize(("source", "expected"), [
    ("__global__ void {{ t.name }}_kernel() {}", "__global__ void ___t_name____kernel() {}"),
    ("x = SparseType::{{ ty }};", "x = SparseType::___ty___;"),
    ("{% set d = 4 %}\nint x;", "               \nint x;"),
    ("{#- a\ncomment #}int x;", "     \n          int x;"),
    ("  {{ body(32) }}\nint x;", "                \nint x;"),  # a line of its own: statements
    ("  {{-\n  f()\n  -}}  \nint x;", "     \n     \n     " + "  \nint x;"),
])
def test_mask(source: str, expected: str) -> None:
    assert masked(source) == expected


def test_alternatives_that_open_brackets_keep_the_first() -> None:
    text = "{% if a %}\nnamespace x {\n{% else %}\nnamespace y {\n{% endif %}\n}\n"
    assert [line.strip() for line in masked(text).split("\n")] == ["", "namespace x {", "", "", "", "}", ""]


def test_balanced_branches_are_all_kept() -> None:
    text = "{% if a %}\nint x;\n{% else %}\nlong x;\n{% endif %}\n"
    assert [line.strip() for line in masked(text).split("\n")] == ["", "int x;", "", "long x;", "", ""]


@pytest.mark.parametrize("text", [
    "{% if is_rocm %}\nhip();\n{% else %}\ncuda();\n{% endif %}\n",
    "{% if has_hip_support and x %}\nhip();\n{% else %}\ncuda();\n{% endif %}\n",
    "{% if not is_rocm %}\ncuda();\n{% else %}\nhip();\n{% endif %}\n",
])
def test_rocm_only_branches_are_left_out(text: str) -> None:
    assert "cuda();" in masked(text) and "hip" not in masked(text)


def test_a_rocm_alternative_is_kept() -> None:
    assert "both();" in masked("{% if is_rocm or dense %}\nboth();\n{% endif %}\n")


def test_broken_template_is_not_masked() -> None:
    with pytest.raises(jinja.NotATemplate):
        jinja.mask(b"{% if a %}\nint x = {{ 1 }\n{% endif %}\n")
    source = b"{% if a %}\nint x = {{ 1 }\n{% endif %}\ncudaFree(p);\n"
    extraction = cuda_cpp.extract(source)
    assert any("lexer stopped" in note for note in extraction.notes)
    assert any(f.name == "cudaFree" for f in extraction.facts)


def test_facts_keep_the_template_positions() -> None:
    source = "{% if a %}\n  int* p; {# “x” #} cudaMalloc(&p, 4);\n{% endif %}\n".encode()
    extraction = cuda_cpp.extract(source)
    call = next(f for f in extraction.facts if f.name == "cudaMalloc")
    assert (call.line, call.column) == (2, 21)
    assert extraction.line_text[(0, 2)].startswith("int* p; {# “x” #}")
    assert any("Jinja template" in note for note in extraction.notes)


def test_templates_are_lexed_not_rendered(tmp_path: Path) -> None:
    marker = tmp_path / "rendered"
    source = (b"{% if a %}\nint x = {{ cycler.__init__.__globals__.os.system('touch " + str(marker).encode()
              + b"') }};\n{% endif %}\n")
    assert b"system" in jinja.mask(source)[0]  # the expression is text to mask: nothing is evaluated
    cuda_cpp.extract(source)
    assert not marker.exists()  # a rendering would have run the payload (jinja2's default environment runs it)


def test_labels_are_spelled_as_in_the_template() -> None:
    source = b"{% if a %}\n__global__ void {{ t.name }}_kernel(int n) {}\n{% endif %}\n"
    kernel = next(f for f in cuda_cpp.extract(source).facts if f.name == "kernel-definition")
    assert kernel.text == "{{ t.name }}_kernel"
