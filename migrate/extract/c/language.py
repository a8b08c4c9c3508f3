"""C++ that nvcc accepts and clang rejects: a member template of a dependent class template called
without `::template` (member-template-without-keyword). The recogniser emits a `construct` fact of
that name; the rule that matches it (rules/device.yaml) says what it means."""
from __future__ import annotations

import re

from migrate.extract.c import ts
from migrate.extract.c.tree import Emit, raw, text, walk

# `Outer<A, B>::member<C>(`: a member template of a class template named without `template`
MEMBER_TEMPLATE_CALL = re.compile(rb"\b[A-Za-z_]\w*\s*<(?P<args>[A-Za-z_][\w\s,]*)>\s*::\s*(?!template\b)"
                                  rb"(?P<member>[A-Za-z_]\w*)\s*<[^<>;(){}]*>\s*\(")

TEMPLATE_PARAMETER_KINDS = ("type_parameter_declaration", "parameter_declaration", "optional_type_parameter_declaration",
                            "optional_parameter_declaration", "variadic_parameter_declaration",
                            "variadic_type_parameter_declaration", "template_template_parameter_declaration")

def _template_parameters(node: ts.Node) -> set[str]:
    """Names of the template parameters of every template enclosing `node`."""
    names: set[str] = set()
    parent = node.parent
    while parent is not None:
        if parent.type == "template_declaration":
            params = parent.child_by_field_name("parameters")
            for param in params.named_children if params is not None else []:
                if param.type in TEMPLATE_PARAMETER_KINDS:
                    names.update(text(n) for n in walk(param) if n.type in ("identifier", "type_identifier")
                                 and n.parent is not None and n.parent.type != "template_argument_list")
        parent = parent.parent
    return names

def _member_template_without_keyword(function: ts.Node, emit: Emit) -> None:
    """`ParallelSums<THREADS, N>::dispatch<CTA>(...)` inside a template over THREADS: the member is a
    dependent template name, which hip-clang accepts only as `::template dispatch<...>`."""
    body = function.child_by_field_name("body")
    if body is None or b"::" not in (source := raw(body)):
        return
    params = _template_parameters(function)
    if not params:
        return
    for m in MEMBER_TEMPLATE_CALL.finditer(source):
        args = {a.strip() for a in m.group("args").decode().split(",")}
        if not args & params:
            continue  # a qualifier that does not depend on the template: no keyword needed
        start = body.start_byte + m.start("member")
        node = body.descendant_for_byte_range(start, start + len(m.group("member")))
        if node is not None:
            emit("member-template-without-keyword", node, m.group("member").decode())


def constructs(caps: dict[str, list[ts.Node]], emit: Emit) -> None:
    for node in caps.get("definition.function", []):
        _member_template_without_keyword(node, emit)
