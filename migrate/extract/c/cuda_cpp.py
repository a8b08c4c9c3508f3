"""extract, C/C++/CUDA: identifiers, includes, kernels, launches, inline asm, device constructs."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from migrate.extract.c import device, guards, hazards, ts
from migrate.extract.c.guards import GuardMap
from migrate.extract.c.tree import in_device_code, qualifiers, walk
from migrate.extract.c.tree import text as _text
from migrate.extract.columns import Columns
from migrate.extract.text.lines import line_texts
from migrate.model import Extraction, Fact


@dataclass
class _Ctx:
    """Per-parse state: positions and guards of one source text."""

    source: bytes
    guards: GuardMap
    row0: int = 0  # line (0-based) of the text in the file it came from
    col0: int = 0  # column (0-based, characters) of its first line
    cell: int | None = None
    facts: list[Fact] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._columns = Columns(self.source.split(b"\n"))

    def _col(self, row: int, byte_col: int) -> int:
        return self._columns.chars(row, byte_col) + (self.col0 if row == 0 else 0) + 1

    def add(self, kind: str, name: str, node: ts.Node, *, role: str = "", text: str = "",
            value: int | None = None) -> None:
        (r1, c1), (r2, c2) = node.start_point, node.end_point
        self.facts.append(Fact(
            kind=kind, name=name, role=role, text=text, cell=self.cell,
            line=r1 + self.row0 + 1, column=self._col(r1, c1),
            end_line=r2 + self.row0 + 1, end_column=self._col(r2, c2),
            guard=self.guards.at(node.start_byte), value=value,
        ))


def extract(source: bytes) -> Extraction:
    """Facts of one C/C++/CUDA file. A pure function of the bytes."""
    facts, notes = extract_snippet(source)
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as exc:
        notes.append(f"not UTF-8 (byte {exc.start}); bytes that are not UTF-8 were read as one character each")
    return Extraction(facts=tuple(facts), lines=source.count(b"\n") + 1,
                      line_text=line_texts(source.decode("utf-8", "replace").split("\n"), facts), notes=tuple(notes))


def extract_snippet(source: bytes, *, row0: int = 0, col0: int = 0,
                    cell: int | None = None) -> tuple[list[Fact], list[str]]:
    """Facts of CUDA text that starts at (row0, col0) of its file: whole files and embedded kernels."""
    root = ts.parse(source)
    caps = ts.captures("cuda", root)
    ctx = _Ctx(source=source, guards=GuardMap.build(caps.get("conditional", [])),
               row0=row0, col0=col0, cell=cell)
    _identifiers(ctx, caps)
    _hip_branches(ctx, caps)
    _includes(ctx, caps)
    _namespace_aliases(ctx, caps)
    _macros(ctx, caps)
    _kernels_and_launches(ctx, caps)
    _asm(ctx, caps)
    def emit(name: str, node: ts.Node, label: str, value: int | None = None) -> None:
        ctx.add("construct", name, node, text=label, value=value)

    device.constructs(caps, emit)
    hazards.constructs(caps, source, emit)
    notes = []
    if errors := ts.error_lines(root):
        notes.append("syntax errors near line " + ", ".join(str(n + row0) for n in errors)
                     + "; facts were extracted from what parsed")
    return ctx.facts, notes


def _hip_branches(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    """Evidence of a ROCm path: each #if/#ifdef chain that branches on a HIP/ROCm macro."""
    for node in caps.get("conditional", []):
        conditions = [cond for cond, _, _, _ in guards.branches(node) if guards.mentions_hip(cond)]
        if conditions:
            ctx.add("rocm_path", "source", node, text=conditions[0][:120])


def _identifiers(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    calls = {n.start_byte for n in caps.get("reference.call", [])}
    for node in caps.get("reference.identifier", []) + caps.get("reference.namespace", []):
        if node.parent is not None and node.parent.type in ("preproc_def", "preproc_function_def", "preproc_params"):
            continue  # the macro's own name and parameters
        ctx.add("identifier", _text(node), node, role=_role(node, calls))
    for node in caps.get("reference.member", []):
        ctx.add("identifier", _text(node), node, role="member")
    for node in caps.get("reference.type", []):
        parent = node.parent
        is_template = parent is not None and parent.type == "template_type" and parent.child_by_field_name("name") == node
        ctx.add("identifier", _text(node), node, role="template" if is_template else "type")


def _role(node: ts.Node, calls: set[int]) -> str:
    if node.start_byte in calls:
        return "call"
    parent = node.parent
    if parent is not None and parent.type == "namespace_alias_definition" and parent.named_children[0] == node:
        return "alias"
    if node.type == "namespace_identifier" or (parent is not None and parent.type == "using_declaration" \
            and any(c.type == "namespace" for c in parent.children)):
        return "namespace"
    if parent is not None and parent.type == "function_declarator" and parent.child_by_field_name("declarator") == node:
        return "definition"
    while parent is not None and parent.type in ("parenthesized_expression", "unary_expression",
                                                   "binary_expression", "preproc_defined"):
        parent = parent.parent
    if parent is not None and parent.type in ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"):
        return "macro"
    return "value"


def _namespace_aliases(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    """`namespace cub = hipcub;` facts: under a HIP guard they make `cub::` code portable."""
    for node in caps.get("namespace_alias", []):
        names = [c for c in node.named_children if c.type in ("namespace_identifier", "nested_namespace_specifier")]
        if len(names) >= 2:
            ctx.add("namespace_alias", _text(names[0]), node, text=_text(names[-1]))


def _includes(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    for node in caps.get("include", []):
        header = _text(node).strip()
        if header[:1] in "<\"" and len(header) > 2:
            ctx.add("include", header[1:-1].strip(), node, text=header)


def _macros(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    """Macro names are definitions of the project's own; macro bodies are re-parsed as code."""
    vendor_header = False  # a compat header of another vendor: its macro values are that vendor's
    for node in caps.get("macro.name", []):
        if _other_vendor_alias(node):
            vendor_header = True
        else:
            ctx.add("defined", _text(node), node)
    for node in [] if vendor_header else caps.get("macro.value", []) + caps.get("macro.body", []):
        _reparse(ctx, node)


# `#define cudaMalloc musaMalloc`: another vendor's compat layer (ggml's vendors/musa.h) maps CUDA's
# names for its own build; the CUDA build still calls CUDA's, so the name stays CUDA's to port.
OTHER_VENDOR_ALIAS = re.compile(r"^(mu[A-Z]\w*|musa\w*|MUSA\w*|mu(blas|sparse|rand|fft|dnn)\w*|MUBLAS\w*|MUSPARSE\w*)$")
CUDA_NAME = re.compile(r"^(cuda|cu[A-Z]|CU[A-Z_]|CUDA|cublas|cusparse|curand|cufft|cudnn|nccl)")


def _other_vendor_alias(name: ts.Node) -> bool:
    value = name.parent.child_by_field_name("value") if name.parent is not None else None
    return value is not None and bool(CUDA_NAME.match(_text(name))) and bool(OTHER_VENDOR_ALIAS.match(_text(value).strip()))


def _reparse(ctx: _Ctx, node: ts.Node) -> None:
    body = ctx.source[node.start_byte:node.end_byte].replace(b"\\\n", b" \n")
    if not re.search(rb"[A-Za-z_]", body) or body.strip().isdigit():
        return
    row, col = node.start_point
    facts, _ = extract_snippet(body, row0=ctx.row0 + row, col0=ctx._col(row, col) - 1, cell=ctx.cell)
    guard = ctx.guards.at(node.start_byte)
    for fact in facts:
        ctx.facts.append(fact if fact.guard or not guard else replace(fact, guard=guard))


def _kernels_and_launches(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    for node in caps.get("definition.function", []):
        if "__global__" in qualifiers(node):
            declarator = node.child_by_field_name("declarator")
            name_node = _declarator_name(declarator) if declarator else None
            ctx.add("construct", "kernel-definition", name_node or node,
                    text=_text(name_node) if name_node else "kernel")
    for node in caps.get("launch", []):
        fn = node.child_by_field_name("function")
        config = next(c for c in node.children if c.type == "kernel_call_syntax")
        construct = "device-kernel-launch" if in_device_code(node) else "kernel-launch"
        name = _text(fn) if fn else "kernel"
        ctx.add("construct", construct, config, text=name.split("<")[0].strip())


def _asm(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    for node in caps.get("asm", []):
        code = node.child_by_field_name("assembly_code")
        if code is None:
            continue
        text = "".join(_text(c) for c in walk(code) if c.type == "string_content")
        ctx.add("asm", text or _text(code), node)


# -- small tree helpers -------------------------------------------------------

def _declarator_name(declarator: ts.Node) -> ts.Node | None:
    for current in walk(declarator):
        if current.type in ("identifier", "field_identifier"):
            return current
    return None
