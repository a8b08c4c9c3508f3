"""32-bit lane masks where HIP's are 64 bits on wave64: a type alias of a 32-bit integer used as a
mask (mask-type-32) or only declared (unsigned-32-alias), a ballot returned as 32 bits
(ballot-returned-32bit), a variable named like a lane mask declared 32-bit (lane-mask-variable-32),
a compare with the full 32-lane mask (full-mask-compare-32). Aliases named for a mask are hazards.py's.
Each recogniser emits a `construct` fact of that name; the rules that match it (rules/device.yaml) say
what it means."""
from __future__ import annotations

import re

from migrate.extract.c import ts
from migrate.extract.c.guards import GuardMap
from migrate.extract.c.hazards import MASK_NAME, UNSIGNED_32
from migrate.extract.c.needles import Needled
from migrate.extract.c.tree import SPACES, Emit, raw, spelled_type, text, walk

LANE_MASK_NAME = re.compile(r"(?i)(warp|lane|sub_?warp|ballot|wave)_?mask")

# a full 32-lane mask written out (digit separators allowed), or ~0u
FULL_MASK_32 = re.compile(r"^\(?\s*(0[xX](?:[fF]'?){8}[uUlL]*|~\s*0[uU]?[lL]*)\s*\)?$")

# the 32-lane mask spelled in hex: `~0` of a signed int converts to 64 one-bits, so it is left out
FULL_MASK_HEX_32 = re.compile(r"^\(?\s*0[xX](?:[fF]'?){8}[uUlL]*\s*\)?$")
# a file with neither has no lane-mask variable (LANE_MASK_NAME) / no full mask (FULL_MASK_HEX_32) to compare:
# their loops over every declaration and binary expression are not run
MASK_WORD = Needled(re.compile(rb"(?i)mask"), b"mask")
HEX_F = Needled(re.compile(rb"0[xX][fF]"), b"0x", b"0X")

SYNC_MASK_ARGUMENT = Needled(re.compile(rb"\b__\w+_sync\s*\(\s*(\w+)\s*,"), b"_sync")

# `return __ballot_sync(mask, p);` (possibly cast): the function's value is the ballot
BALLOT_RETURN = re.compile(r"^return\s*(?:\(\s*\w+\s*\)\s*|static_cast<[^<>]*>\s*\(\s*)?\(?\s*"
                           r"(__ballot_sync|__ballot|__activemask)\s*\(")

# a ballot or an active mask (64 bits on wave64 in HIP): the intrinsics, and a project's wrappers of
# them named for the ballot (`ballot`, `ballot_sync`, `WARP_BALLOT`, a cooperative group's `.ballot`)
BALLOT_FUNCTION = re.compile(r"(?i)^(__activemask|__match_any_sync|__match_all_sync|(\w*_)?ballot(_sync)?)$")

BALLOT_WORDS = Needled(re.compile(rb"(?i)ballot|__activemask|__match_a(ny|ll)_sync|__\w+_sync\s*\("),
                       b"ballot", b"__activemask", b"_sync")
# What every construct of this module holds (inert.py): an alias is declared by typedef or using, a mask
# is named as one or is a ballot, a full mask is written 0xffffffff
NEEDLES = (b"typedef", b"using", b"mask", b"ballot", b"sync", b"activemask", b"wave", b"lane", b"ffffffff")


def _lane_mask_variable(node: ts.Node, synced: set[str], emit: Emit) -> None:
    """`constexpr uint32_t kFullWarpMask = 0xffffffffu;`, or `const uint32_t subwarp_mask = 0xF << s;`
    passed to a *_sync intrinsic in the same file (`(1u << 8) - 1` named WARP_MASK is a bit field)."""
    kind = node.child_by_field_name("type")
    spelled = spelled_type(kind)
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
            emit("full-mask-compare-32", node, SPACES.sub(" ", text(node)))
            return

def _is_lane_mask(node: ts.Node) -> bool:
    """A name like kFullWarpMask / lane_mask (possibly qualified), or a ballot or active-mask call."""
    while node.type in ("cast_expression", "parenthesized_expression") and node.named_children:
        node = node.child_by_field_name("value") or node.named_children[-1]
    if node.type in ("identifier", "qualified_identifier", "field_expression"):
        return bool(LANE_MASK_NAME.search(re.split(r"::|\.|->", text(node))[-1]))
    return node.type == "call_expression" and \
        text(node.child_by_field_name("function")).split("::")[-1] in ("__ballot_sync", "__ballot", "__activemask")

def _unsigned_32_aliases(caps: dict[str, list[ts.Node]]) -> dict[str, ts.Node]:
    """`using bitmask_t = unsigned int;` / `typedef uint32_t bits_t;`: alias name -> its name node."""
    found: dict[str, ts.Node] = {}
    for node in caps.get("typedef", []):
        kind = node.child_by_field_name("type")
        spelled = SPACES.sub(" ", re.sub(r"\b(const|volatile)\b", "", text(kind))).strip()
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
    if name is None or body is None:
        return set()
    # the return type is the last words before the name (a macro like DEVICE_INLINE may come first
    # and take the tree's `type` field)
    prefix = raw(function)[:name.start_byte - function.start_byte]
    last = re.search(rb"(unsigned\s+int|[\w:]+)\s*$", prefix)
    if last is None:
        return set()
    spelled = SPACES.sub(" ", last.group(1).decode()).split("::")[-1]
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
    (lane-mask-type-32bit, on the alias). Variables are matched by name in the whole file, as the alias is; uses in
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


def constructs(caps: dict[str, list[ts.Node]], source: bytes, emit: Emit, guards: GuardMap) -> None:
    aliases = _unsigned_32_aliases(caps)
    ballots = BALLOT_WORDS.search(source) is not None  # no ballot named in the file: no function returns one
    returned: set[str] = set()
    for node in caps.get("definition.function", []) if ballots else []:
        returned |= _ballot_returned_32(node, aliases, emit)
    synced = {m.decode() for m in SYNC_MASK_ARGUMENT.findall(source)}
    # aliases named for no mask (those are hazards.py's), nor as an integer (`u32`, `hypre_uint` is the
    # project's integer type, not a mask type: a ballot stored in one is ballot-stored-32bit's), nor returned by a ballot
    plain = {a: n for a, n in aliases.items() if a not in returned and not UNSIGNED_32.match(a) and not MASK_NAME.search(a)}
    used = _aliases_used_as_masks(caps, plain, source, guards) if plain and ballots else set()
    for alias in sorted(plain):
        emit("mask-type-32" if alias in used else "unsigned-32-alias", plain[alias], alias)
    if MASK_WORD.search(source):
        for node in caps.get("declaration", []) + caps.get("binding", []):
            _lane_mask_variable(node, synced, emit)
    if HEX_F.search(source):
        for node in caps.get("binary", []):
            _full_mask_compare(node, emit)
