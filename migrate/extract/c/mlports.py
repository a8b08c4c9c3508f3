"""Device-code constructs that ML kernel libraries' ports changed (issue 14's ported-sites benchmark:
FBGEMM, ROCm/apex, mmcv). Each recogniser emits a `construct` fact; rules/ml-ports.yaml says what it
means."""
from __future__ import annotations

import re
from collections.abc import Callable

from migrate.extract.c import ts
from migrate.extract.c.guards import GuardMap
from migrate.extract.c.hazards import MASK_NAME, UNSIGNED_32
from migrate.extract.c.tree import qualifiers, text, walk

Emit = Callable[..., None]

# `Outer<A, B>::member<C>(`: a member template of a class template named without `template`
MEMBER_TEMPLATE_CALL = re.compile(rb"\b[A-Za-z_]\w*\s*<(?P<args>[A-Za-z_][\w\s,]*)>\s*::\s*(?!template\b)"
                                  rb"(?P<member>[A-Za-z_]\w*)\s*<[^<>;(){}]*>\s*\(")
# one warp (threadIdx.y) per row: the row id of block b is b * blockDim.y + threadIdx.y
WARP_ROW_INDEX = re.compile(r"(?:blockIdx\.x|static_cast<[^<>]*>\(\s*blockIdx\.x\s*\)|\(\s*\w+\s*\)\s*blockIdx\.x)\s*\*\s*"
                            r"blockDim\.y\s*\+\s*threadIdx\.y|blockDim\.y\s*\*\s*blockIdx\.x\s*\+\s*threadIdx\.y")
LANE_MASK_NAME = re.compile(r"(?i)(warp|lane|sub_?warp|ballot|wave)_?mask")
TEMPLATE_PARAMETER_KINDS = ("type_parameter_declaration", "parameter_declaration", "optional_type_parameter_declaration",
                            "optional_parameter_declaration", "variadic_parameter_declaration",
                            "variadic_type_parameter_declaration", "template_template_parameter_declaration")


# a full 32-lane mask written out (digit separators allowed), or ~0u
FULL_MASK_32 = re.compile(r"^\(?\s*(0[xX](?:[fF]'?){8}[uUlL]*|~\s*0[uU]?[lL]*)\s*\)?$")
# the 32-lane mask spelled in hex: `~0` of a signed int converts to 64 one-bits, so it is left out
FULL_MASK_HEX_32 = re.compile(r"^\(?\s*0[xX](?:[fF]'?){8}[uUlL]*\s*\)?$")
SYNC_MASK_ARGUMENT = re.compile(rb"\b__\w+_sync\s*\(\s*(\w+)\s*,")
# `return __ballot_sync(mask, p);` (possibly cast): the function's value is the ballot
BALLOT_RETURN = re.compile(r"^return\s*(?:\(\s*\w+\s*\)\s*|static_cast<[^<>]*>\s*\(\s*)?\(?\s*"
                           r"(__ballot_sync|__ballot|__activemask)\s*\(")
# a ballot or an active mask (64 bits on wave64 in HIP): the intrinsics, and a project's wrappers of
# them named for the ballot (`ballot`, `ballot_sync`, `WARP_BALLOT`, a cooperative group's `.ballot`)
BALLOT_FUNCTION = re.compile(r"(?i)^(__activemask|__match_any_sync|__match_all_sync|(\w*_)?ballot(_sync)?)$")
BALLOT_WORDS = re.compile(rb"(?i)ballot|__activemask|__match_a(ny|ll)_sync|__\w+_sync\s*\(")
# cudaDeviceProp's opt-in shared-memory limit read as a member (`prop.x`, `props->x`)
OPTIN_FIELD = re.compile(rb"(?:\.|->)\s*(sharedMemPerBlockOptin)\b")


def constructs(caps: dict[str, list[ts.Node]], source: bytes, emit: Emit, guards: GuardMap) -> None:
    aliases = _unsigned_32_aliases(caps)
    returned: set[str] = set()
    for node in caps.get("definition.function", []):
        _member_template_without_keyword(node, emit)
        _warp_row_kernel(node, emit)
        returned |= _ballot_returned_32(node, aliases, emit)
    _optin_field(caps, source, emit)
    synced = {m.decode() for m in SYNC_MASK_ARGUMENT.findall(source)}
    # aliases named for no mask (those are hazards.py's), nor as an integer (`u32`, `hypre_uint` is the
    # project's integer type, not a mask type: a ballot stored in one is HIP4011's), nor returned by a ballot
    plain = {a: n for a, n in aliases.items() if a not in returned and not UNSIGNED_32.match(a) and not MASK_NAME.search(a)}
    used = _aliases_used_as_masks(caps, plain, source, guards) if plain and BALLOT_WORDS.search(source) else set()
    for alias in sorted(plain):
        emit("mask-type-32" if alias in used else "unsigned-32-alias", plain[alias], alias)
    for node in caps.get("declaration", []) + caps.get("binding", []):
        _lane_mask_variable(node, synced, emit)
    for node in caps.get("binary", []):
        _full_mask_compare(node, emit)


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
    if body is None or body.text is None or b"::" not in body.text:
        return
    params = _template_parameters(function)
    if not params:
        return
    for m in MEMBER_TEMPLATE_CALL.finditer(body.text):
        args = {a.strip() for a in m.group("args").decode().split(",")}
        if not args & params:
            continue  # a qualifier that does not depend on the template: no keyword needed
        start = body.start_byte + m.start("member")
        node = body.descendant_for_byte_range(start, start + len(m.group("member")))
        if node is not None:
            emit("member-template-without-keyword", node, m.group("member").decode())


def _warp_row_kernel(function: ts.Node, emit: Emit) -> None:
    """A __global__ function whose row id is `blockIdx.x * blockDim.y + threadIdx.y` (one warp per row),
    bounded by an `if` and with no grid-stride loop (no gridDim)."""
    if "__global__" not in qualifiers(function):
        return
    body = function.child_by_field_name("body")
    if body is None or re.search(r"\bgridDim\b", text(body)):
        return
    rows: dict[str, ts.Node] = {}
    for sub in walk(body):
        if sub.type == "init_declarator":
            value, decl = sub.child_by_field_name("value"), sub.child_by_field_name("declarator")
            if value is not None and decl is not None and decl.type == "identifier" and WARP_ROW_INDEX.search(text(value)) \
                    and not _scaled_in_int(sub, text(value)):
                rows.setdefault(text(decl), sub)  # the first of a template's alternative declarations
    rows = {name: decl for name, decl in rows.items() if not _wraps_before_cap(function, body, name, decl)}
    if not rows:
        return
    derived = dict(rows)  # variables computed from a row id (`batch = row / T`) bound it as well
    for sub in walk(body):
        for name in _computed_from(sub, rows):
            derived.setdefault(name, rows[next(r for r in rows if re.search(rf"\b{re.escape(r)}\b", text(sub)))])
    for sub in walk(body):
        if sub.type != "if_statement":
            continue
        condition = text(sub.child_by_field_name("condition"))
        for name, decl in derived.items():
            if re.search(rf"\b{re.escape(name)}\b\s*(>=|>|<|<=)|(<=|<|>=|>)\s*\b{re.escape(name)}\b", condition):
                emit("warp-row-index-no-grid-stride", decl, text(decl.child_by_field_name("declarator")))
                _row_exits(body, rows=set(derived), after=decl.end_byte, bound=sub if name in rows else None, emit=emit)
                return


def _computed_from(node: ts.Node, rows: dict[str, ts.Node] | set[str], *, assigned: bool = False) -> list[str]:
    """Variables `node` computes from a row id: `batch = row / T` (also assigned, with `assigned`),
    and FBGEMM's `fd.DivMod(row, &t, &b)`, whose address arguments are its results."""
    def uses_row(sub: ts.Node) -> bool:
        return any(re.search(rf"\b{re.escape(r)}\b", text(sub)) for r in rows)

    if node.type == "init_declarator" or (assigned and node.type == "assignment_expression"):
        value = node.child_by_field_name("value" if node.type == "init_declarator" else "right")
        decl = node.child_by_field_name("declarator" if node.type == "init_declarator" else "left")
        return [text(decl)] if value is not None and decl is not None and decl.type == "identifier" and uses_row(value) else []
    arguments = node.child_by_field_name("arguments") if node.type == "call_expression" else None
    if arguments is None or not uses_row(arguments):
        return []
    return [text(a.named_children[0]) for a in arguments.named_children if a.type == "pointer_expression"
            and text(a).startswith("&") and a.named_children and a.named_children[0].type == "identifier"]


def _row_exits(body: ts.Node, *, rows: set[str], after: int, bound: ts.Node | None, emit: Emit) -> None:
    """The `return;`s that end one row's work, and `#define GO_NEXT return`, in the body: in the
    grid-stride loop over rows each becomes `continue`. Left out: that of the `if` that bounds the
    row id itself (`bound`: it becomes the loop's condition; a bound on a value computed from the row,
    `if (t >= T)` after `DivMod(row, &t, &b)`, stays in the loop and is kept), a lambda's, one
    inside an inner loop (it needs a `break` there), a `return` with a value, which no kernel has
    (the parse ran past the kernel's end), and one whose `if` tests nothing computed from the row
    (`if (4 * threadIdx.x >= D) return;` ends a lane for every row, and may stay before the loop)."""
    for _ in range(8):  # what is computed from what is computed from the row, to a fixed point
        more = {name for sub in walk(body) for name in _computed_from(sub, rows, assigned=True)} - rows
        if not more:
            break
        rows |= more
    pattern = re.compile(r"\b(" + "|".join(re.escape(r) for r in sorted(rows)) + r")\b")
    for sub in walk(body):
        if sub.start_byte < after or (bound is not None and bound.start_byte <= sub.start_byte < bound.end_byte):
            continue
        if sub.type == "return_statement" and sub.named_child_count == 0 and not _inside(sub, body, LOOP_OR_LAMBDA) \
                and _tested_on_row(sub, body, pattern):
            emit("warp-row-early-return", sub, "return")
        elif sub.type == "preproc_def" and text(sub.child_by_field_name("value")).strip() == "return":
            emit("warp-row-early-return", sub, text(sub.child_by_field_name("name")))


def _tested_on_row(node: ts.Node, body: ts.Node, rows: re.Pattern[str]) -> bool:
    parent = node.parent
    while parent is not None and parent != body:
        if parent.type == "if_statement" and rows.search(text(parent.child_by_field_name("condition"))):
            return True
        parent = parent.parent
    return False


LOOP_OR_LAMBDA = ("lambda_expression", "for_statement", "for_range_loop", "while_statement", "do_statement")


def _inside(node: ts.Node, body: ts.Node, kinds: tuple[str, ...]) -> bool:
    parent = node.parent
    while parent is not None and parent != body:
        if parent.type in kinds:
            return True
        parent = parent.parent
    return False


def _scaled_in_int(declarator: ts.Node, value: str) -> bool:
    """`int first_batch = (blockDim.y * blockIdx.x + threadIdx.y) * WARP_BATCH;` (ROCm apex's softmax):
    a row id scaled into an element or batch index held in a signed 32-bit int overflows 2^31 before
    HIP's 2^32-thread cap is reached, so the cap is not what limits the kernel."""
    declaration = declarator.parent
    kind = declaration.child_by_field_name("type") if declaration is not None else None
    return kind is not None and text(kind) in ("int", "int32_t", "std::int32_t") and \
        re.search(r"\)\s*\*\s*\w", value) is not None


SIGNED_32 = ("int", "signed", "signed int", "int32_t", "std::int32_t")
WIDE = re.compile(r"\b(int64_t|uint64_t|long|size_t|ptrdiff_t|index_t)\b")


def _wraps_before_cap(function: ts.Node, body: ts.Node, row: str, declarator: ts.Node) -> bool:
    """A row id whose uses break on CUDA before HIP's 2^32-thread cap is reached, so that the cap is
    not what limits the kernel: held in 32 bits and turned into the flat thread id (`j + i *
    blockDim.x`, tiny-cuda-nn's one-blob encoding), which wraps at the cap itself; or held in a
    signed int and multiplied by a signed int (`residual += C * idx`, llm.c's layernorm), an element
    offset that overflows 2^31 while the rows times their lanes are still under 2^32."""
    declaration = declarator.parent
    kind = declaration.child_by_field_name("type") if declaration is not None else None
    spelled = _spelled(kind)
    value = declarator.child_by_field_name("value")
    narrow = spelled in SIGNED_32 or UNSIGNED_32.match(spelled) is not None or \
        (spelled == "auto" and value is not None and not WIDE.search(text(value)))
    if not narrow:
        return False
    code = text(body)
    if any(factor == "blockDim.x" for factor in _factors(code, row)):
        return True
    if spelled not in SIGNED_32:
        return False
    ints = _signed_32_names(function) - {row}
    return any(factor in ints for factor in _factors(code, row))


def _factors(code: str, name: str) -> list[str]:
    """What `name` is multiplied by in `code`, in products that no cast widens: `C * idx`, `idx *
    blockDim.x` (not `(int64_t)idx * C`, `C * (int64_t)idx` or `idx * C.size`)."""
    operand = r"(blockDim\.[xyz]|[A-Za-z_]\w*)"
    found = []
    for m in re.finditer(rf"(?<![\w.>])\b{re.escape(name)}\s*\*\s*{operand}(?![\w.(\[])", code):
        if not code[:m.start()].rstrip().endswith(")"):
            found.append(m.group(1))
    for m in re.finditer(rf"(?<![\w.>])\b{operand}\s*\*\s*{re.escape(name)}\b(?![.(\[])", code):
        if not code[:m.start()].rstrip().endswith(")"):
            found.append(m.group(1))
    return found


def _spelled(kind: ts.Node | None) -> str:
    """A declaration's type without its qualifiers: `const uint32_t` -> `uint32_t`."""
    spelled = re.sub(r"\b(const|volatile|constexpr|static)\b", "", text(kind) if kind is not None else "")
    return re.sub(r"\s+", " ", spelled).strip()


def _signed_32_names(function: ts.Node) -> set[str]:
    """Names declared with a signed 32-bit int type in the function: its parameters, its locals and the
    non-type parameters of the templates around it (`template <int n_experts>`)."""
    scopes = [function]
    parent = function.parent
    while parent is not None:
        params = parent.child_by_field_name("parameters") if parent.type == "template_declaration" else None
        if params is not None:
            scopes.append(params)
        parent = parent.parent
    names: set[str] = set()
    for scope in scopes:
        for node in walk(scope):
            if node.type not in ("parameter_declaration", "optional_parameter_declaration", "declaration") or \
                    _spelled(node.child_by_field_name("type")) not in SIGNED_32:
                continue
            for child in node.children_by_field_name("declarator"):
                declarator = child.child_by_field_name("declarator") if child.type == "init_declarator" else child
                if declarator is not None and declarator.type == "identifier":
                    names.add(text(declarator))
    return names


def _lane_mask_variable(node: ts.Node, synced: set[str], emit: Emit) -> None:
    """`constexpr uint32_t kFullWarpMask = 0xffffffffu;`, or `const uint32_t subwarp_mask = 0xF << s;`
    passed to a *_sync intrinsic in the same file (`(1u << 8) - 1` named WARP_MASK is a bit field)."""
    kind = node.child_by_field_name("type")
    spelled = re.sub(r"\s+", " ", re.sub(r"\b(const|volatile|constexpr|static)\b", "", text(kind))).strip()
    if not UNSIGNED_32.match(spelled):
        return
    declarators = [node] if node.type == "field_declaration" else \
        [c for c in node.named_children if c.type == "init_declarator"]
    for child in declarators:
        if child.child_by_field_name("value") is None and child.child_by_field_name("default_value") is None:
            continue  # a declaration without a value (a parameter, an extern) is not a mask constant
        name = child.child_by_field_name("declarator")
        value = child.child_by_field_name("value") or child.child_by_field_name("default_value")
        if name is None or name.type not in ("identifier", "field_identifier") or not LANE_MASK_NAME.search(text(name)):
            continue
        if FULL_MASK_32.match(text(value).strip()) or text(name) in synced:
            emit("lane-mask-variable-32", name, text(name))


def _full_mask_compare(node: ts.Node, emit: Emit) -> None:
    """`__ballot_sync(m, p) == 0xffffffff`, `kFullWarpMask == 0xffffffffu`: a lane mask tested against
    the mask of 32 lanes, which on a 64-lane wavefront is half of it."""
    operator = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if operator is None or text(operator) not in ("==", "!=") or left is None or right is None:
        return
    for mask, full in ((left, right), (right, left)):
        if FULL_MASK_HEX_32.match(text(full).strip()) and _is_lane_mask(mask):
            emit("full-mask-compare-32", node, re.sub(r"\s+", " ", text(node)))
            return


def _is_lane_mask(node: ts.Node) -> bool:
    """A name like kFullWarpMask / lane_mask (possibly qualified), or a ballot or active-mask call."""
    while node.type in ("cast_expression", "parenthesized_expression") and node.named_children:
        node = node.child_by_field_name("value") or node.named_children[-1]
    if node.type in ("identifier", "qualified_identifier", "field_expression"):
        return bool(LANE_MASK_NAME.search(re.split(r"::|\.|->", text(node))[-1]))
    return node.type == "call_expression" and \
        text(node.child_by_field_name("function")).split("::")[-1] in ("__ballot_sync", "__ballot", "__activemask")


def _optin_field(caps: dict[str, list[ts.Node]], source: bytes, emit: Emit) -> None:
    """`properties.sharedMemPerBlockOptin`: the opt-in shared-memory limit of cudaDeviceProp, read in
    code (a field identifier of the tree, so comments and strings that name it do not count)."""
    if not OPTIN_FIELD.search(source):
        return
    root = next((n for nodes in caps.values() for n in nodes), None)
    while root is not None and root.parent is not None:
        root = root.parent
    if root is None:
        return
    for m in OPTIN_FIELD.finditer(source):
        node = root.descendant_for_byte_range(m.start(1), m.end(1))
        if node is not None and node.type == "field_identifier":
            emit("shared-memory-optin-field", node, m.group(1).decode())


def _unsigned_32_aliases(caps: dict[str, list[ts.Node]]) -> dict[str, ts.Node]:
    """`using bitmask_t = unsigned int;` / `typedef uint32_t bits_t;`: alias name -> its name node."""
    found: dict[str, ts.Node] = {}
    for node in caps.get("typedef", []):
        kind = node.child_by_field_name("type")
        spelled = re.sub(r"\s+", " ", re.sub(r"\b(const|volatile)\b", "", text(kind))).strip()
        if not UNSIGNED_32.match(spelled):
            continue
        names = [node.child_by_field_name("name")] if node.type == "alias_declaration" else \
            node.children_by_field_name("declarator")
        for name in names:
            if name is not None and name.type == "type_identifier":
                found.setdefault(text(name), name)
    return found


def _ballot_returned_32(function: ts.Node, aliases: dict[str, ts.Node], emit: Emit) -> set[str]:
    """A function declared to return a 32-bit unsigned type (or an alias of one) that returns a
    ballot: on wave64 the ballot has 64 bits and the return type drops lanes 32-63. The alias, when
    there is one, is reported too: it is the declaration the port widens."""
    declarator = function.child_by_field_name("declarator")
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    body = function.child_by_field_name("body")
    if name is None or body is None or function.text is None:
        return set()
    # the return type is the last words before the name (a macro like DEVICE_INLINE may come first
    # and take the tree's `type` field)
    prefix = function.text[:name.start_byte - function.start_byte]
    last = re.search(rb"(unsigned\s+int|[\w:]+)\s*$", prefix)
    if last is None:
        return set()
    spelled = re.sub(r"\s+", " ", last.group(1).decode()).split("::")[-1]
    if not (UNSIGNED_32.match(spelled) or spelled in aliases):
        return set()
    if not any(sub.type == "return_statement" and BALLOT_RETURN.match(text(sub)) for sub in walk(body)):
        return set()
    kind = function.descendant_for_byte_range(function.start_byte + last.start(1), function.start_byte + last.end(1))
    emit("ballot-returned-32bit", kind if kind is not None else name, text(name))
    if spelled not in aliases:
        return set()
    emit("ballot-returned-32bit", aliases[spelled], spelled)
    return {spelled}


def _aliases_used_as_masks(caps: dict[str, list[ts.Node]], aliases: dict[str, ts.Node], source: bytes,
                           guards: GuardMap) -> set[str]:
    """The 32-bit aliases named for no mask (`using look_up_bits_t = uint32_t;`) that the file uses as
    one: a variable of the type is initialised or assigned from a ballot, or is the mask argument of a
    *_sync intrinsic. On wave64 the ballot has 64 bits, so the alias is the declaration a port widens
    (HIP4040, on the alias). Variables are matched by name in the whole file, as the alias is; uses in
    a HIP-guarded branch (or its CUDA side) are the port's own and do not count."""
    typed: dict[str, str] = {}  # variable -> the alias it is declared with
    known: set[str] = set()
    for node in caps.get("declaration", []) + caps.get("binding", []):
        kind = node.child_by_field_name("type")
        if guards.at(node.start_byte) is not None:
            continue
        alias = re.sub(r"\b(const|volatile|constexpr|static)\b|\s+", "", text(kind)) if kind is not None else ""
        if alias not in aliases:
            continue
        for child in node.children_by_field_name("declarator"):
            value = child.child_by_field_name("value") if child.type == "init_declarator" else None
            if value is not None and _is_ballot(value):
                known.add(alias)
            variable = _variable(child)
            if variable:
                typed.setdefault(variable, alias)
    for node in caps.get("assign", []):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None and typed.get(_variable(left)) and _is_ballot(right) \
                and guards.at(node.start_byte) is None:
            known.add(typed[_variable(left)])
    synced = {m.group(1).decode() for m in SYNC_MASK_ARGUMENT.finditer(source) if guards.at(m.start()) is None}
    return known | {typed[v] for v in synced if v in typed}


def _variable(node: ts.Node) -> str:
    """The name a declarator declares or an assignment's left side stores to (`m`, `*m`, `m[i]`, `m = 0`)."""
    while node.type in ("init_declarator", "pointer_declarator", "array_declarator", "reference_declarator",
                        "subscript_expression", "pointer_expression", "parenthesized_expression",
                        "parenthesized_declarator"):
        inner = node.child_by_field_name("declarator") or node.child_by_field_name("argument")
        if inner is None:
            inner = next((c for c in node.named_children if c.type in ("identifier", "field_identifier")), None)
        if inner is None:
            return ""
        node = inner
    return text(node) if node.type in ("identifier", "field_identifier") else ""


def _is_ballot(node: ts.Node) -> bool:
    """A ballot call, possibly cast (`(unsigned)__ballot_sync(m, p)`, `static_cast<bits_t>(ballot(p))`)."""
    while node.type in ("cast_expression", "parenthesized_expression") and node.named_children:
        node = node.child_by_field_name("value") or node.named_children[-1]
    if node.type != "call_expression":
        return False
    function = re.sub(r"<.*>$", "", text(node.child_by_field_name("function"))).strip()
    arguments = node.child_by_field_name("arguments")
    if function in ("static_cast", "reinterpret_cast") and arguments is not None and arguments.named_children:
        return _is_ballot(arguments.named_children[0])
    return bool(BALLOT_FUNCTION.match(re.split(r"::|\.|->", function)[-1]))
