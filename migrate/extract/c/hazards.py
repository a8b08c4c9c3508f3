"""More device-code constructs that real ports had to change (issue 14's ported-sites benchmark).

Lane-mask types and bit operations on masks, grid-wide syncs, kernels that need a grid of one
thread per element, wave-size constants written as functions or as 64, and the OCP FP8 maximum.
Each recogniser emits a `construct` fact; rules/device.yaml says what it means."""
from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from migrate.extract.c import ts
from migrate.extract.c.needles import Needled
from migrate.extract.c.tree import SPACES, Emit, qualifiers, reading_now, text, walk
from migrate.extract.names import alternatives, name_list
from migrate.extract.text.lines import ARCH_OPTION

MASK_NAME = re.compile(r"(?i)(^|_)(lane_?|warp_?|active_?|thread_?|ballot_?|sub_?warp_?|group_?)?mask(_t|_type)?$|"
                       r"^(lane|warp|active|ballot|thread|group)[A-Z_]?\w*Mask\w*$|^[A-Z]?\w*LaneMask\w*$")
UNSIGNED_32 = re.compile(r"^(unsigned|unsigned int|uint32_t|std::uint32_t|uint|u32|uint32|\w+_uint|\w+_uint32(_t)?)$")
MASK_BIT_OPS = name_list("device", "mask_bit_operations")
MASK_WORD = re.compile(r"(?i)mask|ballot|vote|active")
FLAT_INDEX = re.compile(r"blockIdx\.x\s*\*\s*blockDim\.x\s*\+\s*threadIdx\.x|threadIdx\.x\s*\+\s*blockIdx\.x\s*\*\s*blockDim\.x|"
                        r"blockDim\.x\s*\*\s*blockIdx\.x\s*\+\s*threadIdx\.x|threadIdx\.x\s*\+\s*blockDim\.x\s*\*\s*blockIdx\.x")
WARP_FUNCTION = re.compile(r"(?i)^(\w+_)?(k_?)?(get_?)?(warp_?size|threads_?per_?warp|wave_?front_?size|wave_?size)"
                           r"(_?host|_?device|_\w+)?$")
WAVE_NAME = re.compile(r"(?i)^(\w+_)?(k_?)?(warp_?size|warp_?sz|threads_?per_?warp|wave_?front_?size|wave_?size)(_\w+)?$")
FP8_MAX = re.compile(r"^448(\.0*[fF]?|[fF])$")
FP8_CONTEXT = Needled(re.compile(rb"(?i)fp8|float8|e4m3"), b"fp8", b"float8", b"e4m3")
ATOMICS = name_list("device", "atomics")
FLOATING = re.compile(r"\b(float|double)\s*\*")
RAW_HALF = name_list("device", "raw_half_types")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
# the id is computed in 64 bits: `blockIdx.x * blockDim.x` alone is a 32-bit product that wraps at
# 2^32 on CUDA too, so only a widened product reaches past HIP's launch cap
WIDE_CAST = re.compile(r"\(\s*(u?int64_t|size_t|long long|unsigned long long|long|ptrdiff_t|Long|int64|uint64)\s*\)|"
                       r"static_cast<\s*(u?int64_t|size_t|long long|unsigned long long|long|ptrdiff_t|Long)\s*>|"
                       r"\b(u?int64_t|size_t)\s*\(\s*blockIdx")
# `((int64_t)blockDim.x*blockIdx.x + threadIdx.x)*qk`: each thread takes a run of elements
SCALED_ID = re.compile(r"\)\s*\*\s*(\w+)\s*$")
WIDE_INDEX = re.compile(r"\b(size_t|ptrdiff_t|u?int64_t|long|Long|index_t|int64|uint64|LongIndex)\b")
CEIL_DIV = re.compile(r"\+\s*[\w:.()]+\s*(-\s*1\s*)?\)\s*/|"
                      r"\b\w*([Cc]eil_?[Dd]iv|[Dd]iv_?[Uu]p|DIV_?UP|CEIL_?DIV|cdiv|div_?round_?up|calc_x?block_count)\w*\s*\(")
# launches written as calls whose first argument is the kernel and second the grid: FBGEMM's launch
# macros, hipLaunchKernelGGL, cudaLaunchKernel (kernel possibly parenthesised, templated, cast to void*)
LAUNCH_CALL = r"\b(?:FBGEMM_LAUNCH_KERNEL|FBGEMM_LAUNCH_DSA_KERNEL|hipLaunchKernelGGL|cudaLaunchKernel)\s*\(\s*(?:\(\s*)?" \
              r"(?:\(\s*(?:const\s+)?void\s*\*\s*\)\s*)?(?:&\s*)?(?:[\w:]*::)?{name}\s*(?:<[^;()]*?>\s*)?(?:\)\s*)?,"
# libcu++ names that start a qualified name with cuda:: (cuda::std::..., cuda::atomic_ref, ...)
LIBCUDACXX = name_list("device", "libcudacxx_members")
# CUDA back ends of portability layers that user code names directly (HIP spelling in rules/device.yaml)
KOKKOS_CUDA = name_list("device", "kokkos_cuda_backend")
# macros that portability layers and libraries define only when built for CUDA
LAYER_CUDA_MACRO = re.compile(r"(!\s*)?(?:defined\s*(?:\(\s*)?)?\b(" + alternatives("device", "layer_cuda_macros") + r")\b")
LAYER_NAMESPACE = Needled(re.compile(rb"\bnamespace\s+(Kokkos|RAJA)\b"), b"Kokkos", b"RAJA")
ARCH_WORDS = Needled(re.compile(rb"--gpu-architecture|-arch|-gencode|--generate-code"), b"-arch", b"-gencode", b"--generate-code")
RAJA_CUDA = name_list("device", "raja_cuda_backend")
RAJA_CUDA_POLICY = re.compile(r"^(?:" + alternatives("device", "raja_cuda_prefixes") + r")\w+$")
# What every construct of this module holds (inert.py): lower-case pieces of the names above, the values
# it looks for (1000, 448 under an FP8 name) and the words of its gates; a kernel, a #if, a declaration are
# inert.STRUCTURE's
NEEDLES = (b"mask", b"ballot", b"vote", b"active", b"popc", b"ffs", b"clz", b"brev", b"fns", b"grid", b"sync", b"warp",
           b"wave", b"atomic", b"half", b"bfloat16", b"raw", b"blockidx", b"threadidx", b"kokkos", b"raja", b"cuda",
           b"1000", b"arch", b"gencode", b"generate-code", b"fp8", b"float8", b"e4m3", b"448")


def integer(value: str) -> int | None:
    m = re.fullmatch(r"\(?\s*(\d+)[uUlL]*\s*\)?", COMMENT.sub("", value).strip())
    return int(m.group(1)) if m else None


def constructs(caps: dict[str, list[ts.Node]], source: bytes, emit: Emit) -> None:
    # a declaration whose text names neither is none of them: a file without either has no grid name
    grids = _grid_names(caps) if b"grid_group" in source or b"this_grid" in source else set()
    for node in caps.get("typedef", []):
        _mask_type(node, emit)
    for node in caps.get("reference.call", []):
        _mask_bit_op(node, emit)
    for node in caps.get("reference.member", []):
        _grid_sync(node, grids, emit)
    for node in caps.get("definition.function", []):
        _warp_size_function(node, emit)
        _flat_index_kernel(node, source, emit)
        _atomic_overload(node, caps.get("reference.call", []), emit)
    if b"_raw" in source:  # every RAW_HALF type's name holds it
        for node in caps.get("declaration", []):
            _raw_half_init(node, emit)
    if THOUSANDS_BYTES.search(source):
        for node in caps.get("binary", []):
            _cuda_version_decode(node, emit)
    for node in caps.get("macro", []):
        _wave_64_macro(node, emit)
    # code inside `namespace Kokkos {` / `namespace RAJA {` is the layer itself, not a user of it
    layers = {m.decode() for m in LAYER_NAMESPACE.findall(source)}
    for node in caps.get("reference.namespace", []):
        _cuda_scoped_name(node, layers, emit)
    for node in caps.get("conditional", []):
        _layer_cuda_gate(node, emit)
    for name_node, value in _initialised(caps):
        _wave_64_binding(name_node, value, emit)
    if ARCH_WORDS.search(source):
        for node in caps.get("string", []):
            _arch_option(node, emit)
    if FP8_CONTEXT.may_match(source) and FP8_CONTEXT.pattern.search(re.sub(rb"//[^\n]*|/\*.*?\*/", b"", source, flags=re.DOTALL)):
        for node in caps.get("number", []):
            if FP8_MAX.match(text(node)):
                emit("fp8-e4m3-max", node, text(node))


def _arch_option(node: ts.Node, emit: Emit) -> None:
    """`"--gpu-architecture=compute_80"` in NVRTC options, `"-arch=sm_"` in an nvcc command line."""
    contents = [c for c in node.children if c.type == "string_content"]
    if len(contents) == 1 and len(node.children) == 3 and ARCH_OPTION.match(value := text(contents[0])):
        emit("cuda-arch-option", node, value)


def _mask_type(node: ts.Node, emit: Emit) -> None:
    """`typedef unsigned int warp_mask_t;` and `using lane_mask = uint32_t;`."""
    if node.type == "alias_declaration":
        name, kind = node.child_by_field_name("name"), node.child_by_field_name("type")
        pairs = [(name, text(kind))]
    else:
        kind = node.child_by_field_name("type")
        pairs = [(d, text(kind)) for d in node.children_by_field_name("declarator")]
    for name_node, type_text in pairs:
        spelled = SPACES.sub(" ", re.sub(r"\b(const|volatile)\b", "", type_text)).strip()
        if name_node is not None and MASK_NAME.search(text(name_node)) and UNSIGNED_32.match(spelled):
            emit("mask-type-32", name_node, text(name_node))


def _mask_bit_op(fn_node: ts.Node, emit: Emit) -> None:
    if text(fn_node) not in MASK_BIT_OPS:
        return
    call = fn_node.parent
    while call is not None and call.type != "call_expression":
        call = call.parent
    args = call.child_by_field_name("arguments") if call is not None else None
    if args is None or not args.named_children:
        return
    names = [text(n) for n in walk(args.named_children[0]) if n.type in ("identifier", "field_identifier")]
    if not any(MASK_WORD.search(n) for n in names) or (text(fn_node) == "__popc" and _ballot_bound(call, names)):
        return  # __popc of a ballot is popc-ballot's (device.py)
    emit("bitop-mask-32", fn_node, text(fn_node))


def _ballot_bound(node: ts.Node | None, names: list[str]) -> bool:
    function = node.parent if node is not None else None
    while function is not None and function.type != "function_definition":
        function = function.parent
    if any("ballot" in n for n in names):
        return True
    if function is None:
        return False
    assigned = _ballot_assigned(reading_now(), function.start_byte, function.end_byte)
    return any(n in assigned if BALLOT_NAME.fullmatch(n) else
               re.search(rf"\b{re.escape(n)}\s*=\s*(\(\w+\)\s*)?__(ballot|activemask)", text(function)) for n in names)


# the names a function assigns a ballot to, read once per function: its text copied and searched once per mask
# operation and name made 4,000 `__popc(mask)` in one function (84 KB) take 6.4 s. Two such assignments cannot
# overlap, so one pass finds each name its own search would.
BALLOT_ASSIGNED = re.compile(r"\b(\w+)\s*=\s*(?:\(\w+\)\s*)?__(?:ballot|activemask)")
BALLOT_NAME = re.compile(r"\w+")


@lru_cache(maxsize=1)
def _ballot_assigned(source: bytes, start: int, end: int) -> frozenset[str]:
    return frozenset(m.group(1) for m in BALLOT_ASSIGNED.finditer(source[start:end].decode("utf-8", "replace")))


def _grid_names(caps: dict[str, list[ts.Node]]) -> set[str]:
    names = set()
    for node in caps.get("declaration", []):
        body = text(node)
        if "grid_group" in body or "this_grid" in body:
            for child in node.named_children:
                decl = child.child_by_field_name("declarator") if child.type == "init_declarator" else child
                if decl is not None and decl.type == "identifier":
                    names.add(text(decl))
    return names


def _grid_sync(field: ts.Node, grids: set[str], emit: Emit) -> None:
    """`grid.sync()` on a grid group, or `this_grid().sync()`."""
    if text(field) != "sync":  # before `parent`: a walk down from the root
        return
    expression = field.parent
    if expression is None or expression.type != "field_expression":
        return
    target = expression.child_by_field_name("argument")
    target_text = text(target).strip()
    if target_text in grids or re.search(r"\bthis_grid\s*\(\s*\)$", target_text):
        emit("grid-sync", field, f"{target_text}.sync")


def _warp_size_function(node: ts.Node, emit: Emit) -> None:
    """`constexpr int kWarpSize() { return 32; }`: a function standing for the warp size."""
    declarator = node.child_by_field_name("declarator")
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    body = node.child_by_field_name("body")
    if name is None or body is None or not WARP_FUNCTION.match(text(name).split("::")[-1]):
        return
    statements = [c for c in body.named_children if c.type != "comment"]
    if len(statements) == 1 and statements[0].type == "return_statement":
        value = statements[0].named_children[0] if statements[0].named_children else None
        if value is not None and integer(text(value)) == 32:
            emit("warp-size-constant-32", name, text(name))
            emit("warp-size-constant-shared", name, text(name))  # its uses are calls: not followed here


def _flat_index_kernel(node: ts.Node, source: bytes, emit: Emit) -> None:
    """A __global__ function with a flat global id computed in 64 bits, an early return past n, no
    grid-stride loop, and a launch in the same file whose grid is n rounded up to whole blocks."""
    if "__global__" not in qualifiers(node):
        return
    body = node.child_by_field_name("body")
    if body is None or re.search(r"\bgridDim\b", text(body)):
        return
    ids: dict[str, ts.Node] = {}  # id name -> its declaration, where a grid-stride loop would start
    for sub in walk(body):
        if sub.type == "init_declarator":
            value, decl = sub.child_by_field_name("value"), sub.child_by_field_name("declarator")
            flat = re.sub(r"static_cast<[^<>]*>\(\s*([\w.]+)\s*\)", r"\1", text(value)) if value is not None else ""
            if value is not None and decl is not None and FLAT_INDEX.search(flat) and WIDE_CAST.search(text(value)) \
                    and WIDE_INDEX.search(text(sub.parent) if sub.parent is not None else "") and not _runs(text(value)):
                ids.setdefault(text(decl), sub)
    if not ids:
        return
    for sub in walk(body):
        if sub.type != "if_statement":
            continue
        condition = text(sub.child_by_field_name("condition"))
        consequence = sub.child_by_field_name("consequence")
        if consequence is None or not re.fullmatch(r"\{?\s*return\s*;\s*\}?", text(consequence).strip()):
            continue
        if any(re.search(rf"\b{re.escape(i)}\b\s*(>=|>)|(<=|<)\s*\b{re.escape(i)}\b", condition) for i in ids):
            if _grid_sized_to_n(node, source):
                name = next(i for i in sorted(ids) if re.search(rf"\b{re.escape(i)}\b", condition))
                emit("flat-index-early-return", ids[name], name)
            return


def _runs(value: str) -> bool:
    """`((int64_t)blockDim.x*blockIdx.x + threadIdx.x)*qk` (ggml's quantized copies, qk = 32): one
    thread per run of elements, so the grid is n / qk and HIP's 2^32-thread cap needs 2^32 * qk
    elements, more than any GPU holds once the run is 8 or longer (or a name, like a block size)."""
    m = SCALED_ID.search(value.strip())
    return m is not None and not (m.group(1).isdigit() and int(m.group(1)) < 8)


def _may_be_64(value: str) -> bool:
    """Whether `integer(value)` can be 64, read before the name's pattern (most values are no 64): its digits are
    64 (leading zeros aside) in the text, unless a comment between them goes (`integer` drops comments, and a
    comment holds a `/`) or they are other digits than ASCII's (`\\d` and int() read every script's)."""
    return "64" in value or "/" in value or not value.isascii()


def _wave_64_macro(node: ts.Node, emit: Emit) -> None:
    name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
    if name is not None and value is not None and _may_be_64(text(value)) and WAVE_NAME.match(text(name)) \
            and integer(text(value)) == 64:
        emit("warp-size-constant-64", name, text(name))


def _initialised(caps: dict[str, list[ts.Node]]) -> Iterator[tuple[ts.Node, ts.Node]]:
    for node in caps.get("declaration", []) + caps.get("binding", []):
        for child in [node, *node.named_children]:
            if child.type in ("init_declarator", "field_declaration", "optional_parameter_declaration", "enumerator"):
                name = child.child_by_field_name("declarator") or child.child_by_field_name("name")
                value = child.child_by_field_name("value") or child.child_by_field_name("default_value")
                if name is not None and value is not None and name.type in ("identifier", "field_identifier"):
                    yield name, value


def _wave_64_binding(name_node: ts.Node, value: ts.Node, emit: Emit) -> None:
    if _may_be_64(value_text := text(value)) and WAVE_NAME.match(text(name_node)) and integer(value_text) == 64:
        emit("warp-size-constant-64", name_node, text(name_node))


def _atomic_overload(node: ts.Node, calls: list[ts.Node], emit: Emit) -> None:
    """`__device__ float atomicMax(float* address, float val) { ... atomicCAS ... }`, unless its namespace hides
    HIP's global one from every call (`_hidden_in_its_namespace`)."""
    if "__device__" not in qualifiers(node):
        return
    declarator = node.child_by_field_name("declarator")
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    params = declarator.child_by_field_name("parameters") if declarator is not None else None
    if name is not None and text(name) in ATOMICS and params is not None and _same_floating_value(params) \
            and not _hidden_in_its_namespace(node, text(name), calls):
        emit("device-atomic-overload", name, text(name))


def _hidden_in_its_namespace(node: ts.Node, name: str, calls: list[ts.Node]) -> bool:
    """The overload lies in a namespace body, and every unqualified call of its name in the file lies in that body
    too: unqualified lookup stops at the innermost scope that declares the name (C++ [basic.lookup.unqual],
    https://eel.is/c++draft/basic.lookup.unqual), so those calls take the project's overload and HIP's global one
    is hidden, never redefined (yfeng95/PIXIE's rasterizer: two atomicMin overloads and the kernels calling them in
    one `namespace {`). A call outside the body (the global scope sees an unnamed namespace's names beside HIP's:
    ambiguous), or none in the file (a header's overload, called elsewhere), keeps the hazard."""
    space = node.parent
    while space is not None and space.type != "namespace_definition":
        space = space.parent
    if space is None:
        return False
    mine = [c for c in calls if text(c) == name and not _within(c, node)
            and (c.parent is None or c.parent.type != "qualified_identifier")]  # `::atomicMin(...)`: HIP's own
    return bool(mine) and all(_within(c, space) for c in mine)


def _within(inner: ts.Node, outer: ts.Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _same_floating_value(params: ts.Node) -> bool:
    """`(float* address, float val)`: the signature HIP declares itself; `(float* address, c10::BFloat16 val)`
    (flash-cosine-sim-attention) is a new overload that clashes with nothing."""
    declared = [p for p in params.named_children if p.type == "parameter_declaration"]
    if len(declared) < 2:
        return False
    pointer = FLOATING.search(text(declared[0]))
    value = declared[1].child_by_field_name("type")
    return pointer is not None and value is not None and text(value).strip() == pointer.group(1)


def _raw_half_init(node: ts.Node, emit: Emit) -> None:
    """`__half2_raw inf = {0x7C00, 0x7C00};`"""
    type_node = node.child_by_field_name("type")
    if type_node is None or text(type_node).split("::")[-1] not in RAW_HALF:
        return
    for child in node.named_children:
        value = child.child_by_field_name("value") if child.type == "init_declarator" else None
        if value is not None and value.type == "initializer_list" and re.search(r"0[xX][0-9a-fA-F]+", text(value)):
            emit("raw-half-init", child, text(type_node))


def _grid_sized_to_n(kernel: ts.Node, source: bytes) -> bool:
    """A `kernel<<<grid, ...>>>` launch in the file, or one through a launch call (LAUNCH_CALL), whose
    grid is a ceiling division (or a name initialised with one): the grid has one thread per element,
    which a launch cap truncates."""
    declarator = kernel.child_by_field_name("declarator")
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    if name is None:
        return False
    grids = _grids(source)
    return any(grids.covers_n(grid.strip(), 2) for grid in grids.launched(text(name)))


# one file's launches and name initialisations, each read once: re-reading the file per launch and per name
# made a 15 KB file of 300 launches of `g` and 300 `int g = g;` take 38 s (cubic)
LAUNCHED = re.compile(r"\b(\w+)\s*(?:<[^;<>]*>\s*)?<<<([^,;]+),")
OPENED = re.compile(r"\b(\w+)\s*(?=[=({])")  # a name, then `=`, `(` or `{`
INITIAL = re.compile(r"(=|\(|\{)([^;]{0,2000})")  # and what follows up to `;` (a grid's is short: _argument's bound)


class _Grids:
    def __init__(self, source: bytes) -> None:
        self.code = COMMENT.sub(" ", source.decode("utf-8", "replace"))
        self._launches: dict[str, list[str]] | None = None
        self._initials: dict[str, list[tuple[str, str]]] | None = None
        self._covers: dict[tuple[str, int], bool] = {}

    def launched(self, kernel: str) -> list[str]:
        """The grid of each launch of `kernel` (a qualified name, `ns::k`, is searched for as written)."""
        if not kernel.isidentifier():
            named = re.escape(kernel)
            return [*(m.group(1) for m in re.finditer(rf"\b{named}\s*(?:<[^;<>]*>\s*)?<<<([^,;]+),", self.code)),
                    *(_argument(self.code, m.end()) for m in re.finditer(LAUNCH_CALL.format(name=named), self.code))]
        if self._launches is None:
            self._launches = {}
            for m in LAUNCHED.finditer(self.code):
                self._launches.setdefault(m.group(1), []).append(m.group(2))
            for m in re.finditer(LAUNCH_CALL.format(name=r"(\w+)"), self.code):
                self._launches.setdefault(m.group(1), []).append(_argument(self.code, m.end()))
        return self._launches.get(kernel, [])

    def initials(self, name: str) -> list[tuple[str, str]]:
        """(`=`, `(` or `{`; the text after it up to `;`) for each place `name` is followed by one, as a search
        for that name would find them (none inside the text of an earlier one)."""
        if self._initials is None:
            self._initials, ends = {}, dict[str, int]()
            for m in OPENED.finditer(self.code):
                word = m.group(1)
                if m.start() < ends.get(word, 0):
                    continue
                value = INITIAL.match(self.code, m.end())
                assert value is not None  # OPENED's lookahead saw its first character
                ends[word] = value.end()
                self._initials.setdefault(word, []).append((value.group(1), value.group(2)))
        return self._initials.get(name, [])

    def covers_n(self, grid: str, depth: int) -> bool:
        """Whether a grid expression is a ceiling division: directly, in the x extent of a `dim3`
        (`dim3 grid(blocks_x, ny)`), or through names initialised with one, up to `depth` names deep."""
        key = (grid, depth)
        if key not in self._covers:
            self._covers[key] = self._reads_covering(grid, depth)
        return self._covers[key]

    def _reads_covering(self, grid: str, depth: int) -> bool:
        dim3 = re.fullmatch(r"dim3\s*[({]\s*(\w+)\s*[,)}].*", grid, re.DOTALL)
        if dim3:
            return self.covers_n(dim3.group(1), depth)
        if CEIL_DIV.search(grid):
            return True
        if depth == 0 or not re.fullmatch(r"\w+", grid):
            return False
        return any(self.covers_n(value.strip() if opener == "=" else f"dim3({value}", depth - 1)
                   for opener, value in self.initials(grid))


@lru_cache(maxsize=1)
def _grids(source: bytes) -> _Grids:
    return _Grids(source)


def _argument(code: str, start: int) -> str:
    """The call argument that starts at `start`: the text up to the next comma or closing
    parenthesis outside brackets."""
    depth = 0
    for i in range(start, min(len(code), start + 2000)):
        ch = code[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return code[start:i]
            depth -= 1
        elif (ch == "," and depth == 0) or ch == ";":
            return code[start:i]
    return ""


SCOPED_HEADS = frozenset({"cuda", "Kokkos", "RAJA"})  # the scopes _cuda_scoped_name reports under


def _cuda_scoped_name(scope: ts.Node, layers: set[str], emit: Emit) -> None:
    """`cuda::std::plus`, `Kokkos::CudaSpace`, `RAJA::cuda_exec<256>`: a qualified name that
    starts with a CUDA-only scope."""
    head = text(scope)
    if head not in SCOPED_HEADS or head in layers:  # before `parent`: a walk down from the root
        return
    qualified = scope.parent
    if qualified is None or qualified.type != "qualified_identifier" or qualified.child_by_field_name("scope") != scope:
        return
    outer = qualified.parent
    if outer is not None and outer.type == "qualified_identifier" and outer.child_by_field_name("name") == qualified \
            and outer.child_by_field_name("scope") is not None:
        return  # a::cuda::x: the scope is nested in another namespace (gko::kernels::cuda); ::cuda::x is global
    inner = qualified.child_by_field_name("name")
    first = text(inner).split("::")[0].split("<")[0].strip() if inner is not None else ""
    if head == "cuda" and first in LIBCUDACXX:
        emit("libcudacxx-name", scope, f"cuda::{first}")
    elif head == "Kokkos":
        parts = [p.split("<")[0].strip() for p in text(inner).split("::")] if inner is not None else []
        parts = parts[1:] if parts and parts[0] in ("Impl", "Experimental") else parts
        if parts and parts[0] in KOKKOS_CUDA:
            emit("portability-cuda-backend", scope, f"Kokkos::{parts[0]}")
    elif head == "RAJA":
        parts = [p.split("<")[0].strip() for p in text(inner).split("::")] if inner is not None else []
        parts = parts[1:] if parts and parts[0] in ("resources", "expt", "policy") else parts
        if parts and (parts[0] in RAJA_CUDA or RAJA_CUDA_POLICY.match(parts[0])):
            emit("portability-cuda-backend", scope, f"RAJA::{parts[0]}")


def _layer_cuda_gate(node: ts.Node | None, emit: Emit) -> None:
    """`#ifdef KOKKOS_ENABLE_CUDA`, `#elif defined(RAJA_ENABLE_CUDA)`: a branch only a CUDA build of
    the layer takes (negated tests, `#ifndef` and `!defined(...)`, are builds without it)."""
    while node is not None and node.type != "preproc_else":
        if node.type in ("preproc_ifdef", "preproc_elifdef"):
            name = node.child_by_field_name("name")
            m = LAYER_CUDA_MACRO.fullmatch(text(name)) if name is not None else None
            if m and not node.children[0].type.endswith("ndef"):
                emit("portability-cuda-gate", name, m.group(2))
        else:
            condition = node.child_by_field_name("condition")
            cond = text(condition) if condition is not None else ""
            for m in LAYER_CUDA_MACRO.finditer(cond):
                if not m.group(1) and not _under_negation(cond, m.start()) and condition is not None:
                    emit("portability-cuda-gate", condition, m.group(2))
                    break
        node = node.child_by_field_name("alternative")


def _under_negation(condition: str, at: int) -> bool:
    """Whether position `at` lies inside a `!( ... )` group of a preprocessor condition."""
    opened: list[bool] = []  # per open parenthesis: was it negated?
    for i, ch in enumerate(condition[:at]):
        if ch == "(":
            opened.append(condition[:i].rstrip().endswith("!"))
        elif ch == ")" and opened:
            opened.pop()
    return any(opened)


# CUDA's version numbers are major * 1000 + minor * 10 (12040 is 12.4)
VERSION_SOURCE = re.compile(r"\b(cudaRuntimeGetVersion|cudaDriverGetVersion|cuDriverGetVersion|CUDART_VERSION|"
                            r"CUDA_VERSION|\w*[Cc]uda(?:rt)?_?[Vv]ersion\w*)\b")
THOUSANDS = re.compile(r"^\(?\s*([A-Za-z_]\w*)\s*(?:\)\s*)?/\s*1000$")
THOUSANDS_BYTES = Needled(re.compile(rb"/\s*1000\b"), b"1000")  # a file without one has nothing for _cuda_version_decode


def _cuda_version_decode(node: ts.Node, emit: Emit) -> None:
    """`v / 1000` with `v % 100` (or `v / 10 % 100`, `v % 1000 / 10`) in a function that reads a CUDA
    version (cudaRuntimeGetVersion, CUDART_VERSION, a get_cuda_version helper): CUDA's encoding decoded."""
    if text(node.child_by_field_name("operator")) != "/":
        return
    m = THOUSANDS.match(SPACES.sub(" ", text(node)))
    if m is None or m.group(1) in ("CUDART_VERSION", "CUDA_VERSION"):
        return  # the macros themselves are cuda-toolkit-version-gate's, on the same token
    scope = node.parent
    while scope is not None and scope.type != "function_definition":
        scope = scope.parent
    start, end = (scope.start_byte, scope.end_byte) if scope is not None else (0, 0)
    if m.group(1) in _version_minors(reading_now(), start, end):
        emit("cuda-version-decode", node, text(node))


# `v % 100`, `v / 10 % 100`, `v % 1000 / 10`: the minor version of the name before it
MINOR = re.compile(r"\b(\w+)\s*(?:\)\s*)?(%\s*100\b(?!0)|/\s*10\s*(?:\)\s*)?%\s*100\b(?!0)|%\s*1000\s*(?:\)\s*)?/\s*10\b(?!0))")


@lru_cache(maxsize=1)
def _version_minors(source: bytes, start: int, end: int) -> frozenset[str]:
    """The names whose minor version a function that reads a CUDA version takes, read once per function: its
    text copied and searched once per `/ 1000` made 5,000 of them in one function (80 KB) take 11.5 s. No name
    starts inside such a decoding, so one pass finds each name a search for it would."""
    body = source[start:end].decode("utf-8", "replace")
    return frozenset(m.group(1) for m in MINOR.finditer(body)) if VERSION_SOURCE.search(body) else frozenset()
