"""Device-code constructs: warp-size-32 and 32-bit lane-mask assumptions in CUDA code.

Each recogniser emits a `construct` fact; what it means for a port lives in rules/device.yaml.
Names (masks, ballot results, warp-size constants) are tracked per function scope."""
from __future__ import annotations

import bisect
import itertools
import re
import warnings
from collections.abc import Iterator
from functools import lru_cache

from migrate.extract.c import ts
from migrate.extract.c.tree import SPACES, Emit, first_call, in_device_code, raw, text, walk
from migrate.extract.names import name_list

SYNC_MASK_INTRINSICS = re.compile(
    r"^__(shfl(_up|_down|_xor)?|ballot|any|all|match_any|match_all|reduce_\w+)_sync$|^__syncwarp$"
)
BALLOTS = name_list("device", "warp_votes")
SHUFFLES = name_list("device", "warp_shuffles")
CROSS_LANE = name_list("device", "cross_lane_operations")
CROSS_LANE_WORDS = name_list("device", "cross_lane_helper_words")
QUALIFIERS = re.compile(r"\b(const|constexpr|static|volatile|register|inline|__device__|__constant__|__shared__)\b")
THIRTY_TWO_BIT_TYPES = frozenset({"unsigned", "unsigned int", "int", "uint32_t", "uint", "int32_t", "signed int"})
LANE_TOKENS = frozenset({"thread", "threadidx", "tid", "lane", "laneid", "warp", "warpid", "blockdim"})
LANE_ARITH = {"&": {31}, "%": {32}, ">>": {5}, "/": {32}, "<": {32}, ">=": {32}}
WARP_SIZE_NAME = re.compile(r"(?i)^(\w+_)?(k_?)?(num_?)?(warp_?size|warp_?sz|threads_?per_?warp)(_\w+)?$")
LOG_WARP_SIZE_NAME = re.compile(r"(?i)^(\w+_)?log2?_?warp_?size(_\w+)?$")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
INTEGER = re.compile(r"\(?\s*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?")

SIZES = {"char": 1, "signed char": 1, "unsigned char": 1, "int8_t": 1, "uint8_t": 1, "bool": 1, "short": 2,
         "unsigned short": 2, "half": 2, "__half": 2, "__nv_bfloat16": 2, "int16_t": 2, "uint16_t": 2, "int": 4,
         "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4, "half2": 4, "__half2": 4,
         "double": 8, "long": 8, "long long": 8, "unsigned long long": 8, "int64_t": 8, "uint64_t": 8,
         "size_t": 8, "float2": 8, "int2": 8, "float4": 16, "int4": 16, "double2": 16}
DYNAMIC_SHARED_ATTRIBUTE = name_list("device", "dynamic_shared_attributes")
DEVICE_RUNTIME_OK = name_list("device", "device_runtime_calls")
ALLOCA = frozenset({"alloca", "__builtin_alloca"})  # C's stack allocation of a run-time size

# float -> half with a directed rounding: HIP's host versions round to nearest (amd_hip_fp16.h:
# "TODO: rounding behaviour is not correct for host functions")
HOST_ROUNDED_HALF = name_list("device", "host_rounded_half")
# words of the qualifiers or macros before a function's name that make it (also) device code
DEVICE_WORDS = re.compile(r"(?i)device|global|gpu|kernel")
# What every construct of this module holds (inert.py: a macro body with none of them, and no
# other needle, yields no fact): lower-case pieces of the names above, and the keywords they key on
NEEDLES = (b"warp", b"wave", b"shfl", b"ballot", b"sync", b"match", b"reduce", b"activemask", b"thread", b"tid",
           b"lane", b"blockdim", b"popc", b"alloca", b"half", b"cuda", b"cufunc", b"tile", b"partition", b"shared",
           b"managed", b"launch", b"mask")



def integer(value: str) -> int | None:
    m = INTEGER.fullmatch(value.strip())
    if not m:
        return None
    digits = m.group(1)
    if len(digits) > 40:  # no mask or size is this long (and int() refuses 4,300 digits)
        return None
    return int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)


def is_32_lane_mask(value: str) -> bool:
    """A literal mask that covers at most 32 lanes: a small value, or ~0 / -1 of a 32-bit type."""
    value = value.strip().strip("()").strip()
    number = integer(value.lstrip("~-"))
    if number is None:
        return False
    if value[:1] in ("~", "-"):
        return "ll" not in value.lower()
    return number <= 0xFFFFFFFF


class Scopes:
    """Names seen per function (keyed by the function's start byte; -1 = file scope)."""

    def __init__(self, functions: list[ts.Node] | None = None) -> None:
        self.mask32: dict[int, set[str]] = {}
        self.ballots: dict[int, set[str]] = {}
        self.types: dict[int, dict[str, str]] = {}
        self.warp_constants: dict[int, set[str]] = {}
        self.warp_definitions: list[ts.Node] = []  # the name nodes of those constants' definitions
        # `#define SHFL_DOWN __shfl_down_sync`: macro name -> its name node and the intrinsic
        self.sync_aliases: dict[str, tuple[ts.Node, str]] = {}
        self.reported_aliases: set[str] = set()
        # Function bodies by start: a lookup is a binary search, not a walk up the tree (each
        # `parent` step costs tree-sitter a walk down from the root: quadratic in deep nests).
        spans = sorted((f.start_byte, f.end_byte) for f in functions or ())
        self._starts = [start for start, _ in spans]
        self._spans = spans
        self._reach = list(itertools.accumulate((end for _, end in spans), max))

    def of(self, node: ts.Node) -> int:
        """The start of the innermost function holding the node, or -1 (file scope)."""
        offset = node.start_byte
        index = bisect.bisect_right(self._starts, offset) - 1
        while index >= 0 and self._reach[index] > offset:
            start, end = self._spans[index]
            if offset < end:
                return start
            index -= 1
        return -1

    def add(self, table: dict[int, set[str]], node: ts.Node, name: str) -> None:
        table.setdefault(self.of(node), set()).add(name)

    def has(self, table: dict[int, set[str]], node: ts.Node, name: str) -> bool:
        return name in table.get(self.of(node), ()) or name in table.get(-1, ())

    def type_of(self, node: ts.Node, name: str) -> str:
        return self.types.get(self.of(node), {}).get(name) or self.types.get(-1, {}).get(name, "")


def size_of(expression: str) -> int | None:
    """Evaluate a constant size expression such as `48 * 1024` or `2 * sizeof(float) * 128`."""
    import ast

    def sizeof(m: re.Match[str]) -> str:
        size = SIZES.get(SPACES.sub(" ", m.group(1).strip()))
        return str(size) if size else "?"

    text_ = re.sub(r"sizeof\s*\(\s*([\w ]+?)\s*\)", sizeof, expression)
    text_ = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", text_)
    if len(text_) > 200 or not re.fullmatch(r"[\d\s+*/()-]+", text_):  # a size, not a 5,000-digit #define
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text_.replace("/", "//"), mode="eval")
    except (SyntaxError, ValueError):
        return None

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
            left, right = value(node.left), value(node.right)
            ops = {ast.Add: left + right, ast.Sub: left - right, ast.Mult: left * right}
            return ops.get(type(node.op), left // right if right else 0)
        raise ValueError

    try:
        return value(tree.body)
    except ValueError:
        return None


def constructs(caps: dict[str, list[ts.Node]], emit: Emit) -> None:
    scopes = Scopes(caps.get("definition.function", []))
    for node in caps.get("macro", []):
        _macro(node, scopes, emit)
    scopes.sync_aliases = _sync_aliases(caps)
    for name_node, type_text, value in _bindings(caps):
        _binding(name_node, type_text, value, scopes, emit)
    for node in caps.get("assign", []):
        _assignment(node, scopes, emit)
    for node in caps.get("reference.call", []):
        _call(node, scopes, emit)
    functions = Functions(caps.get("definition.function", []), caps.get("macro.name", []))
    for node in caps.get("binary", []):
        _binary(node, functions, emit)
    for node in caps.get("for", []):
        _shuffle_loop(node, emit)
    for node in caps.get("template", []):
        _tile32_template(node, emit)
    for node in caps.get("declaration", []):
        _shared_and_managed(node, emit)
    for node in caps.get("launch", []):
        _launch_shared_memory(node, emit)
    for node in caps.get("definition.function", []):
        _launch_bounds(node, emit)
    _warp_size_uses(caps, scopes, emit)


def _bindings(caps: dict[str, list[ts.Node]]) -> Iterator[tuple[ts.Node, str, ts.Node | None]]:
    """(name node, normalised type, value node) of declarations, parameters, fields, enumerators."""
    for node in caps.get("declaration", []):
        type_text = _type_of(node)
        for child in node.named_children:
            if child.type == "identifier":
                yield child, type_text, None
            elif child.type == "init_declarator":
                decl = child.child_by_field_name("declarator")
                if decl is not None and decl.type == "identifier":
                    yield decl, type_text, child.child_by_field_name("value")
    for node in caps.get("binding", []):
        name = node.child_by_field_name("declarator") or node.child_by_field_name("name")
        value = node.child_by_field_name("default_value") or node.child_by_field_name("value")
        if name is not None and name.type in ("identifier", "field_identifier"):
            yield name, _type_of(node) if node.type != "enumerator" else "enum", value


def _type_of(node: ts.Node) -> str:
    parts = [text(c) for c in node.children
             if c.type in ("type_qualifier", "primitive_type", "sized_type_specifier", "type_identifier")]
    return _unqualified(" ".join(parts))


@lru_cache(maxsize=4096)
def _unqualified(spelled: str) -> str:
    """A type's words without its qualifiers, whitespace collapsed: read once per spelling (cuda-samples: 56k
    declarations, parameters and fields, a few hundred spellings)."""
    return SPACES.sub(" ", QUALIFIERS.sub("", spelled)).strip()


def _binding(name_node: ts.Node, type_text: str, value: ts.Node | None, scopes: Scopes, emit: Emit) -> None:
    name = text(name_node)
    scopes.types.setdefault(scopes.of(name_node), {})[name] = type_text
    value_text = text(value).strip() if value is not None else ""
    value_int = integer(value_text)
    if (value_int == 32 and WARP_SIZE_NAME.match(name)) or (value_int == 5 and LOG_WARP_SIZE_NAME.match(name)):
        emit("warp-size-constant-32", name_node, name)
        scopes.add(scopes.warp_constants, name_node, name)
        scopes.warp_definitions.append(name_node)
    if value is not None and "warpSize" in value_text and re.search(r"\bwarpSize\b", value_text) \
            and "constexpr" in _declaration_text(name_node):  # the declaration's text last: at file scope, the file's
        emit("warpsize-constexpr", value, "warpSize")
    if type_text in THIRTY_TWO_BIT_TYPES or (value is not None and is_32_lane_mask(value_text)):
        scopes.add(scopes.mask32, name_node, name)
    ballot = _direct_ballot(value)
    if ballot is not None:
        scopes.add(scopes.ballots, name_node, name)
        if type_text in THIRTY_TWO_BIT_TYPES:
            emit("ballot-32bit-store", name_node, text(ballot.child_by_field_name("function")))


def _macro(node: ts.Node, scopes: Scopes, emit: Emit) -> None:
    name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
    if name is None or value is None:
        return
    value_text = COMMENT.sub("", text(value)).strip()  # `#define WARP_SIZE 32  // other platforms`
    number = integer(value_text)  # before the name's patterns: most macros' values are no 32 or 5
    if (number == 32 and WARP_SIZE_NAME.match(text(name))) or (number == 5 and LOG_WARP_SIZE_NAME.match(text(name))):
        emit("warp-size-constant-32", name, text(name))
        scopes.add(scopes.warp_constants, node, text(name))
        scopes.warp_definitions.append(name)
    if is_32_lane_mask(value_text):
        scopes.add(scopes.mask32, node, text(name))


def _direct_ballot(value: ts.Node | None) -> ts.Node | None:
    """The ballot call when the value *is* one (possibly cast or parenthesised)."""
    while value is not None and value.type in ("cast_expression", "parenthesized_expression"):
        value = value.child_by_field_name("value") or (value.named_children[-1] if value.named_children else None)
    if value is not None and value.type == "call_expression" and text(value.child_by_field_name("function")) in BALLOTS:
        return value
    return None


def _assignment(node: ts.Node, scopes: Scopes, emit: Emit) -> None:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    ballot = _direct_ballot(right)
    if left is None or ballot is None or left.type != "identifier":
        return
    scopes.add(scopes.ballots, node, text(left))
    if scopes.type_of(node, text(left)) in THIRTY_TWO_BIT_TYPES:
        emit("ballot-32bit-store", left, text(ballot.child_by_field_name("function")))


def _may_emit(name: str, scopes: Scopes) -> bool:
    """Whether `_call` can emit for a call of this name: each of its tests names the function (a `cuda`/
    `cuFuncSetAttribute` or `__` intrinsic, alloca, a sync alias, tiled_partition). Most calls are none of
    these, and their call node is not looked for (each `parent` step is a walk down from the root)."""
    return name.startswith(("cuda", "cuFuncSetAttribute", "__")) or name in ALLOCA or name in scopes.sync_aliases \
        or name.endswith("tiled_partition")


def _call(fn_node: ts.Node, scopes: Scopes, emit: Emit) -> None:
    name = text(fn_node)
    if not _may_emit(name, scopes):
        return
    call = fn_node.parent
    while call is not None and call.type != "call_expression":
        call = call.parent
    args = call.child_by_field_name("arguments") if call is not None else None
    values = args.named_children if args is not None else []
    if name.startswith("cuda") and name not in DEVICE_RUNTIME_OK and call is not None and in_device_code(call):
        emit("device-runtime-call", fn_node, name)
    if name in ALLOCA and call is not None and in_device_code(call):
        emit("device-alloca", fn_node, name)
    if not values:
        return
    first = values[0]
    alias = scopes.sync_aliases.get(name)
    if alias is not None and name not in scopes.reported_aliases and _mask_32(first, scopes):
        scopes.reported_aliases.add(name)  # reported once, at the #define the port rewrites
        emit("sync-alias-mask-32", alias[0], f"{name} ({alias[1]})")
    if SYNC_MASK_INTRINSICS.match(name):
        if _mask_32(first, scopes):
            emit("lane-mask-32", first, name)
        if name in SHUFFLES and len(values) > 2 and integer(text(values[2])) == 16 and call is not None \
                and not _loop_parent(call) and not _has_offset_32(call):
            emit("shuffle-offset-16", values[2], name)
    elif name in HOST_ROUNDED_HALF and call is not None and _host_only(call):
        emit("half-directed-rounding-host", fn_node, name)
    elif name in ("cudaFuncSetAttribute", "cuFuncSetAttribute") and len(values) > 2 \
            and text(values[1]).split("::")[-1] in DYNAMIC_SHARED_ATTRIBUTE:
        size = size_of(text(values[2]))
        if size is not None:
            emit("shared-memory-request", values[2], name, value=size)
    elif name == "__popc" and _mentions_ballot(first, scopes):
        emit("popc-ballot", call or first, name)
    elif name.split("::")[-1] == "tiled_partition" and len(values) > 1 and integer(text(values[1])) == 32:
        emit("tiled-partition-32", call or first, "tiled_partition")


def _host_only(node: ts.Node) -> bool:
    """Inside a function that is host code alone: no __device__ / __global__ (nor a macro such as
    DEVICE_INLINE or C10_HOST_DEVICE) before its name, and no lambda in between (a device lambda)."""
    parent = node.parent
    while parent is not None:
        if parent.type == "lambda_expression":
            return False
        if parent.type == "function_definition":
            declarator = parent.child_by_field_name("declarator")
            if declarator is None:
                return False
            prefix = raw(parent)[:declarator.start_byte - parent.start_byte].decode("utf-8", "replace")
            return not DEVICE_WORDS.search(prefix)
        parent = parent.parent
    return False  # file scope or a macro body: not known to be host code


def _mask_32(node: ts.Node, scopes: Scopes) -> bool:
    mask = text(node).strip()
    return is_32_lane_mask(mask) or (node.type == "identifier" and scopes.has(scopes.mask32, node, mask))


# `#define SHFL_DOWN __shfl_down_sync`, `#define SYNCWARP(mask) __syncwarp(mask)`: the macro's first
# argument is the intrinsic's mask
OBJECT_ALIAS = re.compile(r"^\(?\s*(__\w+_sync|__syncwarp)\s*\)?$")
FUNCTION_ALIAS = re.compile(r"^\(?\s*(__\w+_sync|__syncwarp)\s*\(\s*(\w+)\s*[,)]")


def _sync_aliases(caps: dict[str, list[ts.Node]]) -> dict[str, tuple[ts.Node, str]]:
    aliases: dict[str, tuple[ts.Node, str]] = {}
    for name in caps.get("macro.name", []):
        define = name.parent
        value = define.child_by_field_name("value") if define is not None else None
        if define is None or value is None:
            continue
        body = COMMENT.sub("", text(value)).strip()
        if define.type == "preproc_def":
            m = OBJECT_ALIAS.match(body)
        else:
            params = define.child_by_field_name("parameters")
            first = next((text(p) for p in params.named_children if p.type == "identifier"), None) \
                if params is not None else None
            m = FUNCTION_ALIAS.match(body)
            m = m if m is not None and m.group(2) == first else None
        if m is not None and SYNC_MASK_INTRINSICS.match(m.group(1)):
            aliases[text(name)] = (name, m.group(1))
    return aliases


def _mentions_ballot(node: ts.Node, scopes: Scopes) -> bool:
    return first_call(node, BALLOTS) is not None or any(
        n.type == "identifier" and scopes.has(scopes.ballots, n, text(n)) for n in walk(node))


def _loop_parent(node: ts.Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type != "function_definition":
        if parent.type in ("for_statement", "while_statement", "do_statement"):
            return True
        parent = parent.parent
    return False


def _has_offset_32(call: ts.Node) -> bool:
    function = call.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    if function is None:
        return False
    for node in walk(function):
        if node.type == "call_expression" and text(node.child_by_field_name("function")) in SHUFFLES:
            args = node.child_by_field_name("arguments")
            if args is not None and len(args.named_children) > 2 and integer(text(args.named_children[2])) == 32:
                return True
    return False


def _binary(node: ts.Node, functions: Functions, emit: Emit) -> None:
    op, left, right = (node.child_by_field_name(f) for f in ("operator", "left", "right"))
    if op is None or left is None or right is None:
        return
    op_text = text(op)
    if op_text not in ("==", "!=") and op_text not in LANE_ARITH:
        return  # neither check below can hold: the operands' text is not read (most binaries are `+`, `*`, `&&`...)
    lt, rt = text(left).strip(), text(right).strip()
    if op_text in ("==", "!=") and ((_is_warp_size(lt) and integer(rt) == 32) or (_is_warp_size(rt) and integer(lt) == 32)):
        emit("warpsize-compare-32", node, "warpSize")
    elif integer(rt) in LANE_ARITH.get(op_text, ()) and _lane_operand(left) and in_device_code(node) \
            and (op_text not in ("<", ">=") or left.type in ("identifier", "field_expression")) \
            and not (op_text in ("<", ">=") and _block_synced_step(node)) \
            and not (op_text == "<" and _lockstep_tail(node, left, functions)):
        emit("lane-arith-32", node, f"{op_text} {rt}")


def _block_synced_step(condition: ts.Node) -> bool:
    """`if (tid < 32) {...} __syncthreads();`: a step of a shared-memory tree reduction that the whole
    block waits on, not warp-synchronous code that assumes 32 lanes."""
    node = condition
    while node.parent is not None and node.parent.type in ("parenthesized_expression", "binary_expression",
                                                            "condition_clause"):
        node = node.parent
    statement = node.parent
    if statement is None or statement.type != "if_statement":
        return False
    following = statement.next_named_sibling
    return following is not None and following.type == "expression_statement" and any(
        n.type == "identifier" and text(n) == "__syncthreads" for n in walk(following))


class Functions:
    """The file's function definitions and macro bodies by name, read on the first lookup (few files have a
    `tid < 32`)."""

    def __init__(self, definitions: list[ts.Node], macro_names: list[ts.Node]) -> None:
        self._definitions = definitions
        self._macro_names = macro_names
        self._by_name: dict[str, list[ts.Node]] | None = None
        self._macros: dict[str, str] | None = None

    def macro(self, name: str) -> str | None:
        """The body of the file's `#define name(...) body`, or None."""
        if self._macros is None:
            self._macros = {}
            for node in self._macro_names:
                value = node.parent.child_by_field_name("value") if node.parent is not None else None
                self._macros[text(node)] = text(value) if value is not None else ""
        return self._macros.get(name)

    def named(self, name: str) -> list[ts.Node]:
        if self._by_name is None:
            self._by_name = {}
            for definition in self._definitions:
                declarator = definition.child_by_field_name("declarator")
                while declarator is not None and declarator.type != "function_declarator":
                    declarator = declarator.child_by_field_name("declarator")
                inner = declarator.child_by_field_name("declarator") if declarator is not None else None
                if inner is not None:
                    self._by_name.setdefault(_last_name(text(inner)), []).append(definition)
        return self._by_name.get(name, [])


def _last_name(spelled: str) -> str:
    """`ns::Cls::f` -> `f`, `obj.f` -> `f`, `f<256>` -> `f`."""
    return re.split(r"::|\.|->", re.sub(r"<.*", "", spelled.strip()))[-1].strip()


def _lockstep_tail(condition: ts.Node, operand: ts.Node, functions: Functions) -> bool:
    """`if (tid < 32) { s[tid] += s[tid + 32]; ... }` or `if (tid < 32) warpReduce(s, tid);`: the first 32
    threads of the block finish a shared-memory reduction in lockstep, with no cross-lane intrinsic. They are
    lanes of one wavefront on AMD too (32 or 64 wide, executed in lockstep), so the code is right as it is
    there. A lane index (`lane < 32`: its range is the warp's width) is not this, nor a body that shuffles,
    votes, runs inline PTX or calls a warp helper of another file, nor an `if` with an `else` (the first warp
    does other work than the next one, which a 64-lane wavefront holds too)."""
    if _words(text(operand)) & {"lane", "laneid", "warp", "warpid"}:
        return False
    node = condition
    while node.parent is not None and node.parent.type in ("parenthesized_expression", "binary_expression",
                                                            "condition_clause"):
        node = node.parent
    statement = node.parent
    if statement is None or statement.type != "if_statement" or statement.child_by_field_name("alternative"):
        return False  # `if (tid < 32) producer(); else consumer();`: warps specialised, which a wavefront of 64 joins
    body = statement.child_by_field_name("consequence")
    return body is not None and not _cross_lane(body, functions, depth=3)


def _cross_lane(body: ts.Node, functions: Functions, depth: int) -> bool:
    """Whether the code calls a cross-lane intrinsic, directly, through a function of the file (`depth` calls
    deep) or a macro of the file, or through a helper of another file whose name says warp, lane, shuffle,
    ballot or tile (rules/names/device.yaml cross_lane_helper_words)."""
    for node in walk(body):
        if node.type == "gnu_asm_expression":
            return True  # inline PTX: a named barrier, a lane id, a vote (HIP5xxx say what)
        if node.type != "call_expression":
            continue
        function = node.child_by_field_name("function")
        name = _last_name(text(function)) if function is not None else ""
        if name in CROSS_LANE:
            return True
        definitions = functions.named(name)
        if not definitions:
            macro_body = functions.macro(name)
            spelled = re.findall(r"\w+", macro_body) if macro_body is not None else [name]  # a macro's body, else the name itself
            if any(word in CROSS_LANE or _words(word) & CROSS_LANE_WORDS for word in spelled):
                return True
            continue
        if depth == 0:
            return True  # deeper than read: not known to be lockstep code
        for definition in definitions:
            inner = definition.child_by_field_name("body")
            if inner is not None and _cross_lane(inner, functions, depth - 1):
                return True
    return False


def _words(name: str) -> set[str]:
    """`warpReduceSum` -> warp, reduce, sum; `SHFL_DOWN` -> shfl, down."""
    return {w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+", name)}


def _is_warp_size(expression: str) -> bool:
    return re.fullmatch(r"(\w+(\.|->))?warpSize", expression) is not None


def _lane_operand(node: ts.Node) -> bool:
    for sub in walk(node):
        if sub.type in ("identifier", "field_identifier"):
            words = re.findall(r"[a-z]+|[A-Z][a-z]*", text(sub))
            if text(sub).lower() in LANE_TOKENS or LANE_TOKENS & {w.lower() for w in words}:
                return True
    return False


def _shuffle_loop(node: ts.Node, emit: Emit) -> None:
    init, body = node.child_by_field_name("initializer"), node.child_by_field_name("body")
    if init is None or body is None or not re.search(r"=\s*16[uU]?\b", text(init)):
        return
    shuffle = first_call(body, SHUFFLES)
    if shuffle is not None:
        emit("shuffle-offset-16", init, text(shuffle.child_by_field_name("function")))


def _tile32_template(node: ts.Node, emit: Emit) -> None:
    name, args = node.child_by_field_name("name"), node.child_by_field_name("arguments")
    if name is None or args is None or not args.named_children:
        return
    base = text(name).split("::")[-1]
    if base in ("tiled_partition", "thread_block_tile") and integer(text(args.named_children[0])) == 32:
        emit("tiled-partition-32", node, base)


def _declaration_text(name_node: ts.Node) -> str:
    node = name_node.parent
    # a parameter's default (`int width = warpSize`) is its own declaration: no constant expression (C++ [dcl.fct.default]:
    # evaluated at each call), and never the enclosing file's text
    while node is not None and node.type not in ("declaration", "field_declaration", "optional_parameter_declaration",
                                                 "translation_unit"):
        node = node.parent
    return text(node)[:200] if node is not None else ""


def _shared_and_managed(node: ts.Node, emit: Emit) -> None:
    source = raw(node)
    if b"__shared__" not in source and b"__managed__" not in source:  # no such keyword token below: skip the walk
        return
    qualifiers = {c.type for c in walk(node) if c.type in ("__shared__", "__managed__")}
    if "__managed__" in qualifiers:
        emit("managed-variable", node, "__managed__")
    if "__shared__" not in qualifiers:
        return
    element = SIZES.get(_type_of(node))
    for declarator in (c for c in node.named_children if c.type == "array_declarator"):
        dims: list[int | None] = []
        inner: ts.Node | None = declarator
        while inner is not None and inner.type == "array_declarator":
            size = inner.child_by_field_name("size")
            dims.append(size_of(text(size)) if size is not None else None)
            inner = inner.child_by_field_name("declarator")
        known = [d for d in dims if d is not None]
        if element and dims and len(known) == len(dims):
            total = element
            for dim in known:
                total *= dim
            emit("shared-memory-request", declarator, "__shared__", value=total)


def _launch_shared_memory(node: ts.Node, emit: Emit) -> None:
    config = next((c for c in node.children if c.type == "kernel_call_syntax"), None)
    arguments = list(config.named_children) if config is not None else []
    if len(arguments) > 2:
        size = size_of(text(arguments[2]))
        if size is not None:
            emit("shared-memory-request", arguments[2], "<<<...>>>", value=size)


def _launch_bounds(node: ts.Node, emit: Emit) -> None:
    """`__launch_bounds__(T, MIN)`; a minimum of 1 asks for nothing under either reading of it (one block
    per SM, one warp per execution unit), so it needs no conversion."""
    bounds = next((c for c in node.children if c.type == "launch_bounds"), None)
    if bounds is not None and len(bounds.named_children) >= 2 and text(bounds.named_children[1]).strip() != "1":
        emit("launch-bounds-min-blocks", bounds, "__launch_bounds__")


def _warp_size_uses(caps: dict[str, list[ts.Node]], scopes: Scopes, emit: Emit) -> None:
    """Each use, in device code, of a constant that fixes the warp size at 32; where the file uses none
    of its constants in device code, each definition again as `warp-size-constant-shared` (the constant
    is there for other files, whose code this file cannot show), and as `warp-size-constant-unused` where the
    file spells its name nowhere else, not even in host code or a comment (a header's is for its includers; a
    source's is dead: match.py keeps that finding in a header only)."""
    if not any(scopes.warp_constants.values()):
        return
    used = False
    for node in caps.get("reference.identifier", []):
        parent = node.parent
        if parent is not None and parent.type in ("preproc_def", "init_declarator", "enumerator"):
            continue
        if scopes.has(scopes.warp_constants, node, text(node)) and in_device_code(node) and not _derived_size(node):
            emit("warp-size-constant-use", node, text(node))
            used = True
    if not used:
        spelled = _code_text(scopes.warp_definitions[0]) if scopes.warp_definitions else ""
        for node in scopes.warp_definitions:
            emit("warp-size-constant-shared", node, text(node))
            if len(re.findall(rf"\b{re.escape(text(node))}\b", spelled)) == 1:
                emit("warp-size-constant-unused", node, text(node))


def _code_text(node: ts.Node) -> str:
    """The text of the file `node` is in, its comments blanked (`// WARP_SIZE must match the launch` reads nothing)."""
    root = node
    while root.parent is not None:
        root = root.parent
    source = bytearray(raw(root))
    for comment in (n for n in walk(root) if n.type == "comment"):
        source[comment.start_byte - root.start_byte:comment.end_byte - root.start_byte] = \
            b" " * (comment.end_byte - comment.start_byte)
    return source.decode("utf-8", "replace")


def _derived_size(node: ts.Node) -> bool:
    """`constexpr int kNumThreads = kNumThreadsPerWarp * kNumWarps;`: a constant that is a multiple of
    the warp size follows the definition when the port changes it (the definition is reported)."""
    parent = node.parent
    while parent is not None and (parent.type == "parenthesized_expression" or (
            parent.type == "binary_expression" and text(parent.child_by_field_name("operator")) == "*")):
        parent = parent.parent
    declaration = parent.parent if parent is not None and parent.type == "init_declarator" else None
    return parent is not None and parent.child_by_field_name("value") is not None and declaration is not None and \
        declaration.type == "declaration" and re.search(r"\bconst(expr)?\b", text(declaration).split("=")[0]) is not None \
        and node.parent is not parent
