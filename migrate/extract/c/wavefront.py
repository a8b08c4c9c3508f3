"""Code shaped for a 32-lane warp, where the CUDA text shows it: a block whose x-dimension is one warp
(`dim3(32, nwarps)`: warp-width-block), a template argument of 32 for a parameter named like the warp
size (warp-size-template-argument), a block that is no whole number of wavefronts given to hipCUB's
warp-transpose loads and stores (warp-transpose-partial-wave), and kernels that give each row one warp
(`blockIdx.x * blockDim.y + threadIdx.y`) without a grid-stride loop or that return early per row
(warp-row-index-no-grid-stride, warp-row-early-return). Each recogniser emits a `construct` fact of
that name; the rules that match it (rules/device.yaml) say what it means."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from migrate.extract.c import ts
from migrate.extract.c.hazards import UNSIGNED_32
from migrate.extract.c.needles import Needled
from migrate.extract.c.tree import Emit, qualifiers, root, spelled_type, text, walk
from migrate.extract.names import name_list

# the other dimensions of a block counted in warps: WARPS_PER_BLOCK, nwarps, kNWarps, num_warps
WARPS_NAME = re.compile(r"(?i)^(k_?)?(n_?|num_?)?warps(_?per_?(block|cta|group|tb))?$|^(k_?)?warp_?count$")

WARP_SIZE_PARAMETER = re.compile(r"(?i)^(\w+_)?(k_?)?(warp_?size|warp_?sz|threads_?per_?warp|warp_?width)(_\w+)?$")

WARP_TEMPLATE_HINT = Needled(re.compile(rb"(?i)template\s*<[^;{]*?\b\w*(warp_?size|warp_?sz|threads_?per_?warp|warp_?width)\w*"),
                              b"warp")

# hipCUB/rocPRIM's warp-transpose block load and store static_assert that the block is a whole number
# of hardware warps: `cub::BlockLoad<T, kNThreads, N, cub::BLOCK_LOAD_WARP_TRANSPOSE>`
WARP_TRANSPOSE = Needled(re.compile(rb"\bBLOCK_(LOAD|STORE)_WARP_TRANSPOSE\b"), b"_WARP_TRANSPOSE")

BLOCK_COLLECTIVE = name_list("device", "cub_block_collectives")

# what ties a kernel to the hardware warp rather than to 32 threads of its own choosing: warp matrix
# fragments, warp votes and barriers, warpSize, inline PTX (a shuffle without a width is checked apart)
HARDWARE_WARP = re.compile(r"\b(wmma|nvcuda|mma)\s*::|\b(__syncwarp|__ballot\w*|__activemask|__any_sync|__all_sync|"
                           r"__uni_sync|__match_\w+|__reduce_\w+_sync|warpSize)\b|\basm\b")
# What every construct of this module holds (inert.py); a kernel is inert.STRUCTURE's
NEEDLES = (b"warp", b"dim3", b"blockload", b"blockstore", b"transpose", b"wmma", b"nvcuda", b"mma", b"blockidx")

def _kernels(caps: dict[str, list[ts.Node]]) -> dict[str, list[ts.Node]]:
    """The bodies of the file's __global__ functions by name (a template has one per definition)."""
    found: dict[str, list[ts.Node]] = {}
    for node in caps.get("definition.function", []):
        declarator, body = node.child_by_field_name("declarator"), node.child_by_field_name("body")
        name = declarator.child_by_field_name("declarator") if declarator is not None else None
        if name is not None and body is not None and "__global__" in qualifiers(node):
            found.setdefault(text(name).split("::")[-1], []).append(body)
    return found

def _own_width_only(at: ts.Node, kernels: dict[str, list[ts.Node]]) -> bool:
    """Whether the kernels named in the statement block around the block shape are defined in this
    file and none of them uses the hardware warp: no warp matrix, vote, barrier, warpSize, inline
    asm, nor a shuffle without a width (ggml's vector lightning indexer, written for 32 lanes of
    its own). Such a kernel runs as it is when two of its rows share a 64-lane wavefront."""
    scope = at.parent
    while scope is not None and scope.type != "compound_statement":
        scope = scope.parent
    if scope is None:
        return False
    named = {text(n) for n in walk(scope) if n.type == "identifier"} & kernels.keys()
    return bool(named) and not any(_uses_hardware_warp(body) for name in named for body in kernels[name])

def _uses_hardware_warp(body: ts.Node) -> bool:
    if HARDWARE_WARP.search(text(body)):
        return True
    for node in walk(body):
        if node.type == "call_expression":
            function, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            if function is not None and text(function).startswith("__shfl") and \
                    (args is None or len(args.named_children) < (4 if text(function).endswith("_sync") else 3)):
                return True
    return False

def _warp_block_declaration(node: ts.Node, kernels: dict[str, list[ts.Node]], emit: Emit) -> None:
    """`dim3 block(32, WARPS_PER_BLOCK);`"""
    kind = node.child_by_field_name("type")
    if kind is None or text(kind) != "dim3":
        return
    for child in node.named_children:
        if child.type == "init_declarator":
            value = child.child_by_field_name("value")
            if value is not None and value.type in ("argument_list", "initializer_list"):
                _warp_block(value, child, kernels, emit)

def _warp_block(args: ts.Node | None, at: ts.Node, kernels: dict[str, list[ts.Node]], emit: Emit) -> None:
    """A block shape whose x is 32 and whose y counts warps: x is one 32-lane warp (unless the
    kernels it launches are shown to use no hardware warp)."""
    values = [c for c in args.named_children if c.type != "comment"] if args is not None else []
    if len(values) < 2 or not re.fullmatch(r"32[uU]?", text(values[0]).strip()):
        return
    second = text(values[1]).strip().split("::")[-1]
    if WARPS_NAME.match(second) and not _own_width_only(at, kernels):
        emit("warp-width-block", values[0], f"dim3(32, {text(values[1]).strip()})")

def _warp_size_template_arguments(caps: dict[str, list[ts.Node]], emit: Emit) -> None:
    """`reduce<float, 32>(x)` where the file declares `template <typename T, int WarpSize> ... reduce`."""
    for node, name, value in _template_arguments(caps, lambda param: bool(WARP_SIZE_PARAMETER.match(param))):
        if re.fullmatch(r"\(?\s*32[uU]?\s*\)?", text(value).strip()) and not _row_width_case(node):
            emit("warp-size-template-argument", value, f"{name}<...32...>")

def _row_width_case(node: ts.Node) -> bool:
    """`case 5: kernel = &softmax_warp_forward<T, T, float, 2, 1, 32, 1>;` under `switch (log2_elements)`
    (apex's softmax dispatch): the width is the row's own 2^5 elements, and the host launches
    min(row, warp size) lanes, which is 32 on a 64-lane GPU too; wider rows keep 32 only as a cap."""
    parent = node.parent
    while parent is not None and parent.type != "case_statement":
        parent = parent.parent
    label = parent.child_by_field_name("value") if parent is not None else None
    switch = parent.parent if parent is not None else None
    while switch is not None and switch.type != "switch_statement":
        switch = switch.parent
    condition = switch.child_by_field_name("condition") if switch is not None else None
    return label is not None and condition is not None and text(label).strip() == "5" and \
        re.search(r"(?i)log2", text(condition)) is not None

def _warp_transpose_blocks(caps: dict[str, list[ts.Node]], emit: Emit) -> None:
    """`cub::BlockLoad<T, 32, N, cub::BLOCK_LOAD_WARP_TRANSPOSE>`, or `launch<32, 4>(...)` where the file
    declares `template <int kNThreads, int kNItems> void launch` and loads with
    `cub::BlockLoad<T, kNThreads, ..., BLOCK_LOAD_WARP_TRANSPOSE>`: a block that is no whole number of
    64-lane wavefronts given to a warp-transpose load or store."""
    threads: set[str] = set()
    for node in caps.get("template", []):
        name, args = node.child_by_field_name("name"), node.child_by_field_name("arguments")
        if name is None or args is None or text(name).split("::")[-1] not in BLOCK_COLLECTIVE:
            continue
        values = [c for c in args.named_children if c.type != "comment"]
        # the algorithm itself, not one side of a choice (`THREADS >= WARP ? WARP_TRANSPOSE : DIRECT`)
        if len(values) < 4 or not re.fullmatch(r"(\w+::)*BLOCK_(LOAD|STORE)_WARP_TRANSPOSE", text(values[3]).strip()):
            continue
        size = _partial_wave(values[1])
        if size is not None:
            emit("warp-transpose-partial-wave", values[1], f"{text(name)}<..., {size}, ...>")
        else:  # `kNThreads`, `Ktraits::kNThreads`; traits copy a parameter kNThreads_ into kNThreads
            spelled = text(values[1]).strip().split("::")[-1]
            threads.update({spelled, spelled + "_"} if re.fullmatch(r"\w+", spelled) else set())
    if not threads:
        return
    for _, template, value in _template_arguments(caps, lambda param: param in threads):
        if (size := _partial_wave(value)) is not None:
            emit("warp-transpose-partial-wave", value, f"{template}<...{size}...>")

def _partial_wave(value: ts.Node) -> int | None:
    """The literal thread count when it is no multiple of 64 (32, 96), else None."""
    m = re.fullmatch(r"\(?\s*(\d+)[uU]?\s*\)?", text(value).strip())
    return int(m.group(1)) if m and int(m.group(1)) % 64 else None

def _template_arguments(caps: dict[str, list[ts.Node]],
                        wanted: Callable[[str], bool]) -> Iterator[tuple[ts.Node, str, ts.Node]]:
    """(use, its name, argument) for each argument a template use gives to a parameter whose name is
    wanted, of the templates the file declares."""
    uses = caps.get("template", [])
    positions = _template_positions(caps, wanted) if uses else {}
    for node in uses:
        name, args = node.child_by_field_name("name"), node.child_by_field_name("arguments")
        where = positions.get(text(name).split("::")[-1]) if name is not None else None
        if not where or args is None:
            continue
        values = [c for c in args.named_children if c.type != "comment"]
        for i in sorted(where):
            if i < len(values):
                yield node, text(name), values[i]

def _template_positions(caps: dict[str, list[ts.Node]], wanted: Callable[[str], bool]) -> dict[str, set[int]]:
    """Per template declared in the file, the positions of its parameters whose name is wanted."""
    nodes = caps.get("definition.function", []) or caps.get("declaration", [])
    positions: dict[str, set[int]] = {}
    for node in walk(root(nodes[0])) if nodes else ():
        if node.type == "template_declaration":
            template = _template_name(node)
            params = node.child_by_field_name("parameters")
            if template and params is not None:
                for i, param in enumerate(c for c in params.named_children if c.type != "comment"):
                    declarator = param.child_by_field_name("declarator") or param.child_by_field_name("name")
                    if declarator is not None and wanted(text(declarator).lstrip("&*. ")):
                        positions.setdefault(template, set()).add(i)
    return positions

def _template_name(node: ts.Node) -> str:
    for child in node.named_children:
        if child.type in ("class_specifier", "struct_specifier", "union_specifier"):
            return text(child.child_by_field_name("name")).split("::")[-1]
        if child.type in ("function_definition", "declaration"):
            declarator = child.child_by_field_name("declarator")
            while declarator is not None and declarator.type not in ("function_declarator",):
                declarator = declarator.child_by_field_name("declarator")
            inner = declarator.child_by_field_name("declarator") if declarator is not None else None
            return text(inner).split("::")[-1] if inner is not None else ""
    return ""

# one warp (threadIdx.y) per row: the row id of block b is b * blockDim.y + threadIdx.y
WARP_ROW_INDEX = re.compile(r"(?:blockIdx\.x|static_cast<[^<>]*>\(\s*blockIdx\.x\s*\)|\(\s*\w+\s*\)\s*blockIdx\.x)\s*\*\s*"
                            r"blockDim\.y\s*\+\s*threadIdx\.y|blockDim\.y\s*\*\s*blockIdx\.x\s*\+\s*threadIdx\.y")

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
    if not rows:
        return
    uses = _Uses(text(body))
    rows = {name: decl for name, decl in rows.items() if not _wraps_before_cap(function, uses, name, decl)}
    if not rows:
        return
    derived = dict(rows)  # variables computed from a row id (`batch = row / T`) bound it as well
    names = _Names(rows)
    for sub in walk(body):
        if computed := _computed_from(sub, names):
            first = rows[names.first_in(text(sub)) or ""]
            for name in computed:
                derived.setdefault(name, first)
    bounded = _Names(derived)
    for sub in walk(body):
        if sub.type != "if_statement":
            continue
        compared = bounded.first_compared(text(sub.child_by_field_name("condition")))
        if compared is not None:
            decl = derived[compared]
            emit("warp-row-index-no-grid-stride", decl, text(decl.child_by_field_name("declarator")))
            _row_exits(body, rows=set(derived), after=decl.end_byte, bound=sub if compared in rows else None, emit=emit)
            return

# a name compared, `name <` or `name >=` (the first character of `<`, `<=`, `>`, `>=`), or compared with, `< name`
COMPARED_LEFT = re.compile(r"(\w+)\s*[<>]")
COMPARED_RIGHT = re.compile(r"[<>]=?\s*(\w+)")
WORD = re.compile(r"\w+")


class _Names:
    r"""Names in their order, looked up among a text's words, which are read once per text: a search of the
    text per name made a 60 KB kernel of 800 row ids and 800 values computed from them take 34 s (names x
    declarations x text). A name that is one word (`\w+`, as every name in real code is) is in a text,
    `\bname\b`, when it is one of the text's words; another (`a$b`, which tree-sitter reads as an
    identifier) is searched for as before."""

    def __init__(self, names: Iterable[str]) -> None:
        self.order = {name: i for i, name in enumerate(names)}
        self.other = [name for name in self.order if not WORD.fullmatch(name)]

    def first_in(self, code: str) -> str | None:
        r"""The first name that is in `code` (`\bname\b`)."""
        return self._first(set(WORD.findall(code)),
                           (n for n in self.other if re.search(rf"\b{re.escape(n)}\b", code)))

    def first_compared(self, condition: str) -> str | None:
        r"""The first name compared in `condition` (`\bname\b\s*(>=|>|<|<=)|(<=|<|>=|>)\s*\bname\b`)."""
        words = {m.group(1) for m in COMPARED_LEFT.finditer(condition)} | \
            {m.group(1) for m in COMPARED_RIGHT.finditer(condition)}
        return self._first(words, (n for n in self.other if re.search(
            rf"\b{re.escape(n)}\b\s*(>=|>|<|<=)|(<=|<|>=|>)\s*\b{re.escape(n)}\b", condition)))

    def _first(self, words: set[str], others: Iterable[str]) -> str | None:
        found = [w for w in words if w in self.order] + list(others)
        return min(found, key=self.order.__getitem__) if found else None


def _computed_from(node: ts.Node, rows: _Names, *, assigned: bool = False) -> list[str]:
    """Variables `node` computes from a row id: `batch = row / T` (also assigned, with `assigned`),
    and FBGEMM's `fd.DivMod(row, &t, &b)`, whose address arguments are its results."""
    def uses_row(sub: ts.Node) -> bool:
        return rows.first_in(text(sub)) is not None

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
        names = _Names(rows)
        more = {name for sub in walk(body) for name in _computed_from(sub, names, assigned=True)} - rows
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

def _wraps_before_cap(function: ts.Node, uses: _Uses, row: str, declarator: ts.Node) -> bool:
    """A row id whose uses break on CUDA before HIP's 2^32-thread cap is reached, so that the cap is
    not what limits the kernel: held in 32 bits and turned into the flat thread id (`j + i *
    blockDim.x`, tiny-cuda-nn's one-blob encoding), which wraps at the cap itself; or held in a
    signed int and multiplied by a signed int (`residual += C * idx`, llm.c's layernorm), an element
    offset that overflows 2^31 while the rows times their lanes are still under 2^32."""
    declaration = declarator.parent
    kind = declaration.child_by_field_name("type") if declaration is not None else None
    spelled = spelled_type(kind)
    value = declarator.child_by_field_name("value")
    narrow = spelled in SIGNED_32 or UNSIGNED_32.match(spelled) is not None or \
        (spelled == "auto" and value is not None and not WIDE.search(text(value)))
    if not narrow:
        return False
    if any(factor == "blockDim.x" for factor in uses.factors(row)):
        return True
    if spelled not in SIGNED_32:
        return False
    ints = uses.signed_32_names(function) - {row}
    return any(factor in ints for factor in uses.factors(row))

OPERAND = r"(blockDim\.[xyz]|[A-Za-z_]\w*)"
# at each place a product of a name and an operand begins (zero-width, so that each place is tried): the name,
# then the operand `idx * C`, or the operand, then the name `C * idx`; _factors' patterns, with any name
NAME_TIMES = re.compile(rf"(?<![\w.>])(?=(\w+)\s*\*\s*{OPERAND}(?![\w.(\[]))")
TIMES_NAME = re.compile(rf"(?<![\w.>])(?=\b{OPERAND}\s*\*\s*(\w+)\b(?![.(\[]))")


class _Uses:
    """A kernel body's products, and the function's signed 32-bit names, each read once per kernel: read
    again per row id (a search of the body, a walk of the function), a kernel of 400 row ids took 5 s."""

    def __init__(self, code: str) -> None:
        self.code = code
        self._products: tuple[dict[str, list[tuple[int, int, str]]], dict[str, list[tuple[int, int, str]]]] | None = None
        self._signed: set[str] | None = None

    def factors(self, name: str) -> list[str]:
        """_factors(code, name), from one pass over the code for every name: the places where `name`'s own
        search would have found a product, in order, less those inside the product found before (a search
        goes on after its match)."""
        if not WORD.fullmatch(name):
            return _factors(self.code, name)
        if self._products is None:
            self._products = ({}, {})
            for m in NAME_TIMES.finditer(self.code):
                self._products[0].setdefault(m.group(1), []).append((m.start(), m.end(2), m.group(2)))
            for m in TIMES_NAME.finditer(self.code):
                self._products[1].setdefault(m.group(2), []).append((m.start(), m.end(2), m.group(1)))
        found = []
        for products in self._products:
            end = 0
            for start, stop, operand in products.get(name, []):
                if start >= end:
                    end = stop
                    if not _after_parenthesis(self.code, start):
                        found.append(operand)
        return found

    def signed_32_names(self, function: ts.Node) -> set[str]:
        if self._signed is None:
            self._signed = _signed_32_names(function)
        return self._signed


def _after_parenthesis(code: str, at: int) -> bool:
    """Whether the last character before `at` that is not blank is `)` (`code[:at].rstrip().endswith(")")`,
    without the copy: one per product made a body of many products quadratic)."""
    at -= 1
    while at >= 0 and code[at].isspace():
        at -= 1
    return at >= 0 and code[at] == ")"


def _factors(code: str, name: str) -> list[str]:
    """What `name` is multiplied by in `code`, in products that no cast widens: `C * idx`, `idx *
    blockDim.x` (not `(int64_t)idx * C`, `C * (int64_t)idx` or `idx * C.size`)."""
    found = []
    for m in re.finditer(rf"(?<![\w.>])\b{re.escape(name)}\s*\*\s*{OPERAND}(?![\w.(\[])", code):
        if not _after_parenthesis(code, m.start()):
            found.append(m.group(1))
    for m in re.finditer(rf"(?<![\w.>])\b{OPERAND}\s*\*\s*{re.escape(name)}\b(?![.(\[])", code):
        if not _after_parenthesis(code, m.start()):
            found.append(m.group(1))
    return found

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
                    spelled_type(node.child_by_field_name("type")) not in SIGNED_32:
                continue
            for child in node.children_by_field_name("declarator"):
                declarator = child.child_by_field_name("declarator") if child.type == "init_declarator" else child
                if declarator is not None and declarator.type == "identifier":
                    names.add(text(declarator))
    return names


def constructs(caps: dict[str, list[ts.Node]], source: bytes, emit: Emit) -> None:
    kernels = _kernels(caps)
    for node in caps.get("declaration", []):
        _warp_block_declaration(node, kernels, emit)
    for node in caps.get("reference.call", []):
        if text(node) == "dim3" and node.parent is not None and node.parent.type == "call_expression":
            _warp_block(node.parent.child_by_field_name("arguments"), node.parent, kernels, emit)
    if WARP_TEMPLATE_HINT.search(source):
        _warp_size_template_arguments(caps, emit)
    if WARP_TRANSPOSE.search(source):
        _warp_transpose_blocks(caps, emit)
    for node in caps.get("definition.function", []):
        _warp_row_kernel(node, emit)
