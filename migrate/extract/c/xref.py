"""Facts for the cross-file join of functions defined only in CUTLASS/CuTe code (migrate/scan/crossref.py):
each function definition with what its own body shows, and the names other code uses to reach a
function (calls and function values, op registrations and schemas, declarations). Per file, like
every extractor; which names are CUTLASS-only is decided once all files are read."""
from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator

from migrate.extract.c import ts
from migrate.extract.c.needles import Needled
from migrate.extract.c.tree import root, text, walk
from migrate.extract.names import name_list

Add = Callable[..., None]

CUTLASS_NAMESPACES = name_list("device", "cutlass_namespaces")
CUTLASS_USE = Needled(re.compile(rb"\b(?:cutlass|cute)\s*::|namespace\s+(?:cutlass|cute)\b"),
                      b"cutlass", b"cute")  # a file worth reading for them
# Namespaces whose names are never the project's own functions: not worth a reference fact.
FOREIGN = frozenset({"std", "at", "c10", "torch", "cub", "thrust", "cuda", "pybind11", "py", "cutlass", "cute"})
# `m.impl("op", f)` / `m.def("op", f)` / `m.def("op(Tensor x) -> Tensor")` (torch), `m.def("f", &f)` (pybind)
REGISTERING = frozenset({"impl", "def"})
# a body that only declines: `throw ...;`, `TORCH_CHECK(false, ...)`, `abort()`
FAILING_CALLS = frozenset({"TORCH_CHECK", "TORCH_INTERNAL_ASSERT", "TORCH_CHECK_NOT_IMPLEMENTED", "assert",
                           "abort", "AT_ERROR", "CUDA_KERNEL_ASSERT"})
MACRO_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")  # TORCH_LIBRARY_IMPL(...) { }, DEFINE_FLASH_FORWARD_KERNEL(...) { }
# Blocks that register a module's functions: their statements are uses, never part of what they name.
REGISTRATION_BLOCK = re.compile(r"^(?:STABLE_)?TORCH_LIBRARY\w*$|^PYBIND11_MODULE$|^NB_MODULE$|^TORCH_EXTENSION\w*$")
# What every fact of this module holds (inert.py): a registration is a call of a member in REGISTERING;
# a definition, a use (inside one) and a declaration are inert.STRUCTURE's
NEEDLES = (b"impl", b"def", b"torch", b"pybind11", b"nb_module")
# A block a macro turns into a function (`DEFINE_FLASH_FORWARD_KERNEL(name, ...) { ... }`): its code can
# be CUTLASS code (it holds uses), but the macro's name is no function's.
MACRO = "macro"
TYPE_DEFINITIONS = ("alias_declaration", "type_definition", "struct_specifier", "class_specifier")
DECLARING = ("declaration", "parameter_declaration", "optional_parameter_declaration", "for_range_loop")


def facts(caps: dict[str, list[ts.Node]], source: bytes, add: Add, named: list[str]) -> None:
    """`function_defined` (role `cutlass` when the definition names cutlass::/cute:: or a type of this
    file that does, `stub` when its body only throws or fails a check) and `function_reference` facts
    (role `call` once per name and enclosing function, `registration` with the op in its text,
    `schema`, `declaration`). Identifiers and declarations are the query's captures, put into their
    functions by position: no subtree is walked again, except a definition's in a file naming CUTLASS.
    `named`: the texts of the reference.identifier captures (tree.texts), read once for every consumer."""
    functions = [(n, body) for n in caps.get("definition.function", [])
                 if (body := n.child_by_field_name("body")) is not None]
    cutlass = CUTLASS_USE.search(source) is not None
    cutlass_types = _cutlass_types(caps.get("typedef", []) + _type_specifiers(functions)) if cutlass else frozenset()
    bodies: list[tuple[int, int, int]] = []  # (start, end, position in `functions`) of the bodies read
    for position, (node, body) in enumerate(functions):
        if _definition(node, body, cutlass, cutlass_types, add):
            bodies.append((body.start_byte, body.end_byte, position))
    if bodies:
        _uses(caps, bodies, [n for n, _ in functions], add, named)
    for node in caps.get("declaration", []):
        _declaration(node, add)
    for member in caps.get("reference.member", []):
        if member.parent is not None and member.parent.parent is not None:
            _registration(member.parent.parent, add)


def _type_specifiers(functions: list[tuple[ts.Node, ts.Node]]) -> list[ts.Node]:
    """Namespace-scope structs and classes (read from the root of any function's tree: the query has
    no capture of their own) in a file that names CUTLASS."""
    if not functions:
        return []
    return [n for n in walk(root(functions[0][0])) if n.type in ("struct_specifier", "class_specifier")
            and n.child_by_field_name("body") is not None]


def _cutlass_types(nodes: list[ts.Node]) -> frozenset[str]:
    """Names of the file's type aliases, typedefs, structs and classes whose definition names CUTLASS."""
    names = set()
    for node in nodes:
        if node.type not in TYPE_DEFINITIONS or not _names_cutlass(node, frozenset()):
            continue
        name = node.child_by_field_name("name") or node.child_by_field_name("declarator")
        if name is not None and name.type == "type_identifier":
            names.add(text(name))
    return frozenset(names)


def _names_cutlass(node: ts.Node, cutlass_types: frozenset[str]) -> bool:
    return any((n.type == "namespace_identifier" and text(n) in CUTLASS_NAMESPACES)
               or (n.type == "type_identifier" and text(n) in cutlass_types) for n in walk(node))


def _definition(node: ts.Node, body: ts.Node, cutlass: bool, cutlass_types: frozenset[str], add: Add) -> bool:
    """The definition's fact; whether its body's uses count (not a class member's)."""
    name = _function_name(node.child_by_field_name("declarator"))
    if name is None:
        return False
    label = text(name)
    in_class = node.parent is not None and node.parent.type in ("field_declaration_list", "template_declaration") \
        and _in_class(node)
    if not in_class and not REGISTRATION_BLOCK.match(label):
        whole = node.parent if node.parent is not None and node.parent.type == "template_declaration" else node
        role = "cutlass" if cutlass and _names_cutlass(whole, cutlass_types) else "stub" if _declines(body) else ""
        add("function_defined", label, node, role=role, text=MACRO if MACRO_NAME.match(label) else "")
    return not in_class


def _in_class(node: ts.Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type == "template_declaration":
        parent = parent.parent
    return parent is not None and parent.type == "field_declaration_list"


def _function_name(declarator: ts.Node | None) -> ts.Node | None:
    """The name a function definition or declaration gives: `f`, `ns::f` (the last part), `*f`, `&f`."""
    node = declarator
    while node is not None and node.type in ("pointer_declarator", "reference_declarator", "function_declarator",
                                             "qualified_identifier", "template_function"):
        node = node.child_by_field_name("declarator") or node.child_by_field_name("name")
    return node if node is not None and node.type == "identifier" else None


def _declines(body: ts.Node) -> bool:
    statements = [c for c in body.named_children if c.type != "comment"]
    return bool(statements) and all(fails(s) for s in statements)


def fails(statement: ts.Node) -> bool:
    """A statement that only fails: a throw, abort(), AT_ERROR(...), a check of `false` or `0`."""
    if statement.type == "throw_statement":
        return True
    call = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children \
        else None
    if call is None or call.type != "call_expression":
        return False
    name = text(call.child_by_field_name("function")).split("::")[-1]
    arguments = call.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    return name in ("abort", "AT_ERROR") or (name in FAILING_CALLS and first is not None
                                            and text(first) in ("false", "0"))


def _uses(caps: dict[str, list[ts.Node]], bodies: list[tuple[int, int, int]], functions: list[ts.Node],
          add: Add, named: list[str]) -> None:
    """The names each body reaches a function by (a call, a function value), once each: the names the
    function declares itself (parameters, locals) are left out, as are other libraries' qualified names."""
    inner = _Spans(bodies)
    whole = _Spans([(functions[p].start_byte, end, p) for _, end, p in bodies])  # with the parameters
    local: dict[int, set[str]] = {}
    for node in caps.get("declaration", []) + caps.get("binding", []):
        owner = whole.owner(node.start_byte) if node.type in DECLARING else None
        if owner is not None:
            local.setdefault(owner, set()).update(declared(d) for d in node.children_by_field_name("declarator"))
    seen: set[tuple[int, str]] = set()
    worth: dict[str, bool] = {}  # a name that can be a function's: 3 characters or more, not a macro's spelling
    candidates = [(node, label) for node, label in zip(caps.get("reference.identifier", []), named, strict=True)
                  if worth.get(label) or (label not in worth and worth.setdefault(
                      label, len(label) >= 3 and MACRO_NAME.match(label) is None))]
    for (node, label), owner in zip(candidates, inner.owners([n.start_byte for n, _ in candidates]), strict=True):
        if owner is None:
            continue
        if (owner, label) in seen or label in local.get(owner, ()) or _foreign(node):
            continue
        seen.add((owner, label))
        add("function_reference", label, node, role="call")


class _Spans:
    """Byte spans of functions, for the innermost one around a position (a few nest: a local class)."""

    DEPTH = 4

    def __init__(self, spans: list[tuple[int, int, int]]) -> None:
        self.spans = sorted(spans)
        self.starts = [start for start, _, _ in self.spans]
        self.first = self.starts[0] if self.starts else 0
        self.last = max((end for _, end, _ in self.spans), default=0)  # every span ends by here

    def owner(self, at: int) -> int | None:
        if at < self.first or at >= self.last:
            return None
        return self._around(bisect.bisect_right(self.starts, at) - 1, at)

    def owners(self, positions: list[int]) -> Iterator[int | None]:
        """`owner` of each position, swept forward: positions in document order (the identifiers of a tree
        are) move the last span starting at or before them only forward, with no bisect each (223k
        identifiers of cuda-samples); one out of order is looked up."""
        starts, count, n = self.starts, len(self.starts), -1
        for at in positions:
            if at < self.first or at >= self.last:
                yield None
                continue
            if n >= 0 and starts[n] > at:
                n = bisect.bisect_right(starts, at) - 1
            while n + 1 < count and starts[n + 1] <= at:
                n += 1
            yield self._around(n, at)

    def _around(self, n: int, at: int) -> int | None:
        """The innermost span around `at` among the DEPTH that start last at or before it (`n` the last)."""
        for k in range(n, max(-1, n - self.DEPTH), -1):
            start, end, position = self.spans[k]
            if start <= at < end:
                return position
        return None


def declared(declarator: ts.Node) -> str:
    """The name a declarator declares: `x`, `*x`, `&x`, `x[4]`, `x = 1`."""
    node: ts.Node | None = declarator
    while node is not None and node.type != "identifier":
        if node.type not in ("init_declarator", "pointer_declarator", "reference_declarator", "array_declarator"):
            return ""
        node = node.child_by_field_name("declarator") or (node.named_children[-1] if node.named_children else None)
    return text(node)


def _foreign(node: ts.Node) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "template_function":
        parent = parent.parent
    if parent is None or parent.type != "qualified_identifier":
        return False
    scope = parent.child_by_field_name("scope")
    return scope is not None and text(scope).split("<")[0] in FOREIGN


def _declaration(node: ts.Node, add: Add) -> None:
    """`at::Tensor f(at::Tensor x);` at namespace scope: a function declared, to be defined elsewhere."""
    if node.parent is None or node.parent.type not in ("translation_unit", "declaration_list", "linkage_specification",
                                                       "template_declaration", "preproc_if", "preproc_ifdef",
                                                       "preproc_else", "preproc_elif"):
        return
    for declarator in node.children_by_field_name("declarator"):
        if declarator.type != "function_declarator":
            continue
        name = _function_name(declarator)
        if name is not None:
            add("function_reference", text(name), name, role="declaration")


def _registration(call: ts.Node, add: Add) -> None:
    function, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if function is None or arguments is None or function.type != "field_expression":
        return
    field = function.child_by_field_name("field")
    args = arguments.named_children
    if field is None or text(field) not in REGISTERING or not args or args[0].type != "string_literal":
        return
    op = "".join(text(c) for c in args[0].named_children if c.type == "string_content")
    if not op:
        return
    target = _registered_function(args[1]) if len(args) > 1 else None
    if target is not None:
        key = _dispatch_key(call)
        add("function_reference", text(target), target, role="registration",
            text=op.split("(")[0] + (f"@{key}" if key else ""))
    elif text(field) == "def" and "(" in op:
        add("function_reference", op.split("(")[0].strip(), args[0], role="schema")


def _registered_function(node: ts.Node) -> ts.Node | None:
    """`f`, `&f`, `ns::f`, `TORCH_FN(f)`, `TORCH_FN(ns::f)`, `torch::dispatch(key, TORCH_FN(f))`."""
    if node.type == "call_expression" and text(node.child_by_field_name("function")).endswith("dispatch"):
        arguments = node.child_by_field_name("arguments")
        if arguments is None or not arguments.named_children:
            return None
        node = arguments.named_children[-1]
    if node.type == "pointer_expression":
        node = node.child_by_field_name("argument") or node
    if node.type == "call_expression" and text(node.child_by_field_name("function")) == "TORCH_FN":
        arguments = node.child_by_field_name("arguments")
        if arguments is None or not arguments.named_children:
            return None
        node = arguments.named_children[0]
    if node.type == "qualified_identifier":
        node = node.child_by_field_name("name") or node
    return node if node.type == "identifier" else None


def _dispatch_key(call: ts.Node) -> str:
    """The dispatch key of the `TORCH_LIBRARY_IMPL(ns, KEY, m) { ... }` block around a registration."""
    parent = call.parent
    while parent is not None and parent.type != "function_definition":
        parent = parent.parent
    declarator = parent.child_by_field_name("declarator") if parent is not None else None
    if declarator is None or text(declarator.child_by_field_name("declarator")) != "TORCH_LIBRARY_IMPL":
        return ""
    parameters = declarator.child_by_field_name("parameters")
    named = parameters.named_children if parameters is not None else []
    return text(named[1]).strip() if len(named) > 1 else ""
