"""extract, C/C++/CUDA: identifiers, includes, kernels, launches, inline asm, device constructs."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from migrate.extract import ts
from migrate.extract.guards import GuardMap
from migrate.model import Extraction, Fact

SYNC_MASK_INTRINSICS = re.compile(
    r"^__(shfl(_up|_down|_xor)?|ballot|any|all|match_any|match_all|reduce_\w+)_sync$"
)
BALLOTS = frozenset({"__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync"})
SHUFFLES = frozenset({"__shfl_down_sync", "__shfl_xor_sync", "__shfl_down", "__shfl_xor"})
THIRTY_TWO_BIT = re.compile(r"^(const\s+)?(unsigned( int)?|int|uint32_t|uint|unsigned long)$")
LANE_OPERAND = re.compile(r"(?i)thread|tid|lane|warp")
LANE_ARITH = {"&": {"31", "0x1f", "0x1F"}, "%": {"32"}, ">>": {"5"}, "/": {"32"}}
WARP_SIZE_NAME = re.compile(r"(?i)^(k_?)?(warp_?size|warp_?sz|threads_?per_?warp)$")
DEVICE_QUALIFIERS = frozenset({"__global__", "__device__"})


@dataclass
class _Ctx:
    """Per-parse state: positions and guards of one source text."""

    source: bytes
    guards: GuardMap
    row0: int = 0  # line (0-based) of the text in the file it came from
    col0: int = 0  # column (0-based, characters) of its first line
    cell: int | None = None
    facts: list[Fact] = field(default_factory=list)
    mask32_names: set[str] = field(default_factory=set)
    ballot_vars: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._lines = self.source.split(b"\n")

    def _col(self, row: int, byte_col: int) -> int:
        prefix = self._lines[row][:byte_col] if row < len(self._lines) else b""
        col = len(prefix.decode("utf-8", "replace")) if not prefix.isascii() else byte_col
        return col + (self.col0 if row == 0 else 0) + 1

    def add(self, kind: str, name: str, node: ts.Node, *, role: str = "", text: str = "") -> None:
        (r1, c1), (r2, c2) = node.start_point, node.end_point
        self.facts.append(Fact(
            kind=kind, name=name, role=role, text=text, cell=self.cell,
            line=r1 + self.row0 + 1, column=self._col(r1, c1),
            end_line=r2 + self.row0 + 1, end_column=self._col(r2, c2),
            guard=self.guards.at(node.start_byte),
        ))


def extract(source: bytes) -> Extraction:
    """Facts of one C/C++/CUDA file. A pure function of the bytes."""
    facts, notes = extract_snippet(source)
    return Extraction(facts=tuple(facts), lines=source.count(b"\n") + 1,
                      line_text=line_texts(source, facts), notes=tuple(notes))


def line_texts(source: bytes, facts: list[Fact], *, cell: int | None = None) -> dict[tuple[int, int], str]:
    lines = source.decode("utf-8", "replace").split("\n")
    wanted = {f.line for f in facts if f.cell == cell}
    return {(cell or 0, n): lines[n - 1].strip() for n in wanted if 0 < n <= len(lines)}


def extract_snippet(source: bytes, *, row0: int = 0, col0: int = 0,
                    cell: int | None = None) -> tuple[list[Fact], list[str]]:
    """Facts of CUDA text that starts at (row0, col0) of its file: whole files and embedded kernels."""
    root = ts.parse(source)
    caps = ts.captures("cuda", root)
    ctx = _Ctx(source=source, guards=GuardMap.build(caps.get("conditional", [])),
               row0=row0, col0=col0, cell=cell)
    _identifiers(ctx, caps)
    _includes(ctx, caps)
    _macros(ctx, caps)
    _kernels_and_launches(ctx, caps)
    _asm(ctx, caps)
    _device_constructs(ctx, caps)
    notes = []
    if errors := ts.error_lines(root):
        notes.append("syntax errors near line " + ", ".join(str(n + row0) for n in errors)
                     + "; facts were extracted from what parsed")
    return ctx.facts, notes


def _identifiers(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    calls = {n.start_byte for n in caps.get("reference.call", [])}
    for node in caps.get("reference.identifier", []) + caps.get("reference.namespace", []):
        if node.parent is not None and node.parent.type in ("preproc_def", "preproc_function_def", "preproc_params"):
            continue  # the macro's own name and parameters
        ctx.add("identifier", _text(node), node, role=_role(node, calls))
    for node in caps.get("reference.type", []):
        ctx.add("identifier", _text(node), node, role="type")


def _role(node: ts.Node, calls: set[int]) -> str:
    if node.start_byte in calls:
        return "call"
    if node.type == "namespace_identifier":
        return "namespace"
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "unary_expression",
                                                   "binary_expression", "preproc_defined"):
        parent = parent.parent
    if parent is not None and parent.type in ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"):
        return "macro"
    return "value"


def _includes(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    for node in caps.get("include", []):
        header = _text(node).strip()
        if header[:1] in "<\"" and len(header) > 2:
            ctx.add("include", header[1:-1].strip(), node, text=header)


def _macros(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    """Macro bodies are re-parsed as code; a WARP_SIZE-style constant of 32 is a construct."""
    for node in caps.get("macro", []):
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None or value is None:
            continue
        value_text = _text(value).strip()
        if WARP_SIZE_NAME.match(_text(name)) and _is_32(value_text):
            ctx.add("construct", "warp-size-constant-32", name, text=_text(name))
        if _is_mask32_literal(value_text.strip("()")):
            ctx.mask32_names.add(_text(name))
    for node in caps.get("macro.value", []) + caps.get("macro.body", []):
        _reparse(ctx, node)


def _reparse(ctx: _Ctx, node: ts.Node) -> None:
    body = ctx.source[node.start_byte:node.end_byte].replace(b"\\\n", b" \n")
    if not re.search(rb"[A-Za-z_]", body) or body.strip().isdigit():
        return
    row, col = node.start_point
    col_chars = ctx._col(row, col) - 1 - (ctx.col0 if row == 0 else 0)
    inner_col0 = col_chars + (ctx.col0 if row == 0 else 0)
    facts, _ = extract_snippet(body, row0=ctx.row0 + row, col0=inner_col0, cell=ctx.cell)
    guard = ctx.guards.at(node.start_byte)
    for fact in facts:
        ctx.facts.append(fact if fact.guard or not guard else _with_guard(fact, guard))


def _with_guard(fact: Fact, guard: str) -> Fact:
    from dataclasses import replace

    return replace(fact, guard=guard)


def _kernels_and_launches(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    for node in caps.get("definition.function", []):
        if "__global__" in _qualifiers(node):
            declarator = node.child_by_field_name("declarator")
            name_node = _declarator_name(declarator) if declarator else None
            ctx.add("construct", "kernel-definition", name_node or node,
                    text=_text(name_node) if name_node else "kernel")
    for node in caps.get("launch", []):
        fn = node.child_by_field_name("function")
        config = next(c for c in node.children if c.type == "kernel_call_syntax")
        construct = "device-kernel-launch" if _in_device_code(node) else "kernel-launch"
        name = _text(fn) if fn else "kernel"
        ctx.add("construct", construct, config, text=name.split("<")[0].strip())


def _asm(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    for node in caps.get("asm", []):
        code = node.child_by_field_name("assembly_code")
        if code is None:
            continue
        text = "".join(_text(c) for c in _walk(code) if c.type == "string_content")
        ctx.add("asm", text or _text(code), node)


def _device_constructs(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    for node in caps.get("init", []):
        _init_declarator(ctx, node)
    for node in caps.get("reference.call", []):
        _sync_call(ctx, node)
    for node in caps.get("binary", []):
        _binary(ctx, node)
    for node in caps.get("for", []):
        _shuffle_loop(ctx, node)
    for node in caps.get("template", []):
        _tile32(ctx, node)


def _init_declarator(ctx: _Ctx, node: ts.Node) -> None:
    decl, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
    if decl is None or value is None or node.parent is None:
        return
    var, type_text = _text(decl), _decl_type(node.parent)
    value_text = _text(value).strip()
    if WARP_SIZE_NAME.match(var) and _is_32(value_text):
        ctx.add("construct", "warp-size-constant-32", node, text=var)
    if THIRTY_TWO_BIT.match(type_text) and _is_mask32_literal(value_text):
        ctx.mask32_names.add(var)
    ballot = _first_call(value, BALLOTS)
    if ballot is not None:
        ctx.ballot_vars.add(var)
        if THIRTY_TWO_BIT.match(type_text):
            ctx.add("construct", "ballot-32bit-store", node, text=_text(ballot.child_by_field_name("function")))


def _sync_call(ctx: _Ctx, fn_node: ts.Node) -> None:
    name = _text(fn_node)
    call = fn_node.parent
    while call is not None and call.type != "call_expression":
        call = call.parent
    args = call.child_by_field_name("arguments") if call else None
    first = args.named_children[0] if args and args.named_children else None
    if first is None:
        return
    if SYNC_MASK_INTRINSICS.match(name):
        text = _text(first).strip()
        if _is_mask32_literal(text) or text in ctx.mask32_names:
            ctx.add("construct", "lane-mask-32", first, text=name)
    elif name == "__popc" and (_text(first) in ctx.ballot_vars or _first_call(first, BALLOTS) is not None):
        ctx.add("construct", "popc-ballot", call, text=name)


def _binary(ctx: _Ctx, node: ts.Node) -> None:
    op = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op is None or left is None or right is None:
        return
    op_text, lt, rt = _text(op), _text(left).strip(), _text(right).strip()
    if op_text in ("==", "!=") and {lt, rt} == {"warpSize", "32"}:
        ctx.add("construct", "warpsize-compare-32", node, text="warpSize")
    elif rt in LANE_ARITH.get(op_text, ()) and LANE_OPERAND.search(lt) and _in_device_code(node):
        ctx.add("construct", "lane-arith-32", node, text=f"{op_text} {rt}")


def _shuffle_loop(ctx: _Ctx, node: ts.Node) -> None:
    init = node.child_by_field_name("initializer")
    body = node.child_by_field_name("body")
    if init is None or body is None or not re.search(r"=\s*16\b", _text(init)):
        return
    shuffle = _first_call(body, SHUFFLES)
    if shuffle is not None:
        ctx.add("construct", "shuffle-offset-16", init, text=_text(shuffle.child_by_field_name("function")))


def _tile32(ctx: _Ctx, node: ts.Node) -> None:
    name = node.child_by_field_name("name")
    args = node.child_by_field_name("arguments")
    if name is None or args is None or not args.named_children:
        return
    base = _text(name).split("::")[-1]
    if base in ("tiled_partition", "thread_block_tile") and _text(args.named_children[0]).strip() == "32":
        ctx.add("construct", "tiled-partition-32", node, text=base)


# -- small tree helpers -------------------------------------------------------

def _text(node: ts.Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _walk(node: ts.Node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _first_call(node: ts.Node, names: frozenset[str]) -> ts.Node | None:
    for current in _walk(node):
        if current.type == "call_expression":
            fn = current.child_by_field_name("function")
            if fn is not None and _text(fn) in names:
                return current
    return None


def _qualifiers(function: ts.Node) -> set[str]:
    return {c.type for c in function.children if c.type.startswith("__")}


def _in_device_code(node: ts.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "function_definition":
            return bool(_qualifiers(parent) & DEVICE_QUALIFIERS)
        parent = parent.parent
    return False


def _declarator_name(declarator: ts.Node) -> ts.Node | None:
    for current in _walk(declarator):
        if current.type in ("identifier", "field_identifier"):
            return current
    return None


def _decl_type(declaration: ts.Node) -> str:
    parts = [_text(c) for c in declaration.children
             if c.type in ("type_qualifier", "primitive_type", "sized_type_specifier", "type_identifier")]
    return " ".join(parts)


def _is_32(text: str) -> bool:
    return re.fullmatch(r"\(?\s*32[uUlL]*\s*\)?", text.strip()) is not None


def _is_mask32_literal(text: str) -> bool:
    """An integer literal that is 32 bits wide (no ll suffix, fits in 32 bits)."""
    text = text.strip().lstrip("(").rstrip(")")
    m = re.fullmatch(r"[~-]?(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)", text)
    if not m or "ll" in m.group(2).lower():
        return False
    digits = m.group(1)
    return int(digits, 16 if digits[:2] in ("0x", "0X") else 10) <= 0xFFFFFFFF
