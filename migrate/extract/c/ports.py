"""Constructs that real ports changed where the CUDA text alone shows why (issue 14, session 3).

A block whose x-dimension is one 32-lane warp, a template argument of 32 for a parameter named
like the warp size, a block that is no whole number of wavefronts given to hipCUB's warp-transpose
loads and stores, pointer-attribute checks that expect CUDA's answer for unregistered memory,
and Ginkgo's CUDA executor named directly. Each recogniser emits a `construct` fact;
rules/device-ports.yaml and rules/libraries-ports.yaml say what it means."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from migrate.extract.c import ts
from migrate.extract.c.tree import qualifiers, text, walk

Emit = Callable[..., None]

# the other dimensions of a block counted in warps: WARPS_PER_BLOCK, nwarps, kNWarps, num_warps
WARPS_NAME = re.compile(r"(?i)^(k_?)?(n_?|num_?)?warps(_?per_?(block|cta|group|tb))?$|^(k_?)?warp_?count$")
WARP_SIZE_PARAMETER = re.compile(r"(?i)^(\w+_)?(k_?)?(warp_?size|warp_?sz|threads_?per_?warp|warp_?width)(_\w+)?$")
WARP_TEMPLATE_HINT = re.compile(rb"(?i)template\s*<[^;{]*?\b\w*(warp_?size|warp_?sz|threads_?per_?warp|warp_?width)\w*")
POINTER_ATTRIBUTES = re.compile(rb"\bcudaPointerAttributes\s*(\*\s*)?(\w+)")
# what CUDA 11+ reports for memory it did not allocate: type cudaMemoryTypeUnregistered (0), device -2
UNREGISTERED = {"type": {"0", "cudaMemoryTypeUnregistered"}, "memoryType": {"0", "cudaMemoryTypeUnregistered"},
                "device": {"-2"}}
GINKGO_CUDA = frozenset({"CudaExecutor"})
DEVICE_PROP = re.compile(rb"\bcudaDeviceProp\s*(?:const\s*)?[&*]?\s*(?:const\s*)?(\w+)|"
                         rb"\bcudaGetDeviceProperties\s*\(\s*&\s*(\w+)")
# hipCUB/rocPRIM's warp-transpose block load and store static_assert that the block is a whole number
# of hardware warps: `cub::BlockLoad<T, kNThreads, N, cub::BLOCK_LOAD_WARP_TRANSPOSE>`
WARP_TRANSPOSE = re.compile(rb"\bBLOCK_(LOAD|STORE)_WARP_TRANSPOSE\b")
BLOCK_COLLECTIVE = frozenset({"BlockLoad", "BlockStore"})
CAPABILITY_ATTRIBUTE = re.compile(rb"\bcudaDeviceGetAttribute\s*\(\s*&\s*(\w+)\s*,\s*cudaDevAttrComputeCapabilityMajor\b")
# what ties a kernel to the hardware warp rather than to 32 threads of its own choosing: warp matrix
# fragments, warp votes and barriers, warpSize, inline PTX (a shuffle without a width is checked apart)
HARDWARE_WARP = re.compile(r"\b(wmma|nvcuda|mma)\s*::|\b(__syncwarp|__ballot\w*|__activemask|__any_sync|__all_sync|"
                           r"__uni_sync|__match_\w+|__reduce_\w+_sync|warpSize)\b|\basm\b")
# what a declining branch does before it returns: print or log why
DECLINE_OUTPUT = re.compile(r"^\s*(std::)?(cout|cerr|printf|fprintf|puts|fputs|LOG|TORCH_WARN)\b")
FLIP = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": "==", "!=": "!="}


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
    names = {m.group(2).decode() for m in POINTER_ATTRIBUTES.finditer(source)}
    if names:
        for node in caps.get("binary", []):
            _unregistered_check(node, [node.child_by_field_name("left"), node.child_by_field_name("right")], names,
                                emit, comparison=True)
        for node in caps.get("reference.call", []):
            call = node.parent
            while call is not None and call.type != "call_expression":
                call = call.parent
            args = call.child_by_field_name("arguments") if call is not None else None
            if call is not None and args is not None and len(args.named_children) == 2:
                _unregistered_check(call, list(args.named_children), names, emit, comparison=False)
    props = {n.decode() for m in DEVICE_PROP.finditer(source) for n in m.groups() if n}
    majors = {m.group(1).decode() for m in CAPABILITY_ATTRIBUTE.finditer(source)}
    if props or majors:
        for node in caps.get("binary", []):
            _capability_compare(node, props, majors, emit)
    # Ginkgo itself (namespace gko) has its own back ends; a file that also names HipExecutor
    # already chooses the executor per back end (an executor map with "cuda" and "hip" entries)
    if b"gko::" in source and not re.search(rb"\bnamespace\s+gko\b|\bHipExecutor\b", source):
        for node in caps.get("reference.namespace", []):
            _ginkgo_cuda(node, emit)


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
    root = nodes[0] if nodes else None
    while root is not None and root.parent is not None:
        root = root.parent
    positions: dict[str, set[int]] = {}
    for node in walk(root) if root is not None else ():
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


def _unregistered_check(at: ts.Node, operands: list[ts.Node | None], names: set[str], emit: Emit,
                        comparison: bool) -> None:
    """`attr.type == cudaMemoryTypeUnregistered`, `EXPECT_EQ(-2, attr.device)` on a cudaPointerAttributes."""
    if comparison:
        operator = at.child_by_field_name("operator")
        if operator is None or text(operator) not in ("==", "!="):
            return
    if len(operands) != 2 or any(o is None for o in operands):
        return
    for field, other in ((operands[0], operands[1]), (operands[1], operands[0])):
        if field is None or other is None or field.type != "field_expression":
            continue
        target, member = field.child_by_field_name("argument"), field.child_by_field_name("field")
        expected = UNREGISTERED.get(text(member))
        if target is not None and text(target).strip() in names and expected and \
                re.sub(r"\s+", "", text(other)).split("::")[-1] in expected:
            emit("pointer-attributes-unregistered", field, f"{text(target)}.{text(member)}")
            return


def _ginkgo_cuda(scope: ts.Node, emit: Emit) -> None:
    """`gko::CudaExecutor`: Ginkgo's CUDA executor named by a user of Ginkgo."""
    qualified = scope.parent
    if text(scope) != "gko" or qualified is None or qualified.type != "qualified_identifier" or \
            qualified.child_by_field_name("scope") != scope:
        return
    inner = qualified.child_by_field_name("name")
    first = text(inner).split("::")[0].split("<")[0].strip() if inner is not None else ""
    if first in GINKGO_CUDA:
        emit("ginkgo-cuda-executor", scope, f"gko::{first}")


def _capability_compare(node: ts.Node, props: set[str], majors: set[str], emit: Emit) -> None:
    """`prop.major >= 9`, `prop.major * 10 + prop.minor == 90`, `cc_major >= 10` (from
    cudaDevAttrComputeCapabilityMajor): a gate on the NVIDIA compute capability. HIP reports a
    capability derived from the gfx name (gfx90a 9.0, gfx942 9.4, gfx1100 11.0), so bounds and
    equalities below 9 are decided as on the newest NVIDIA GPUs; those are left alone, and so are
    inequalities (`major != 10` sends an AMD GPU where it sends every other non-Blackwell one) and
    equalities with another major than Instinct's 9 (`major == 12 && minor == 1` is false on gfx942)."""
    operator = node.child_by_field_name("operator")
    op = text(operator) if operator is not None else ""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op not in FLIP or left is None or right is None:
        return
    for capability, bound, flipped in ((left, right, False), (right, left, True)):
        scale = _capability_scale(re.sub(r"\s+", "", text(capability)), props, majors)
        value = re.fullmatch(r"\(?(\d+)[uU]?\)?", text(bound).strip())
        if scale is None or value is None:
            continue
        relation = FLIP[op] if flipped else op
        if relation == "!=":  # `major != 10` rejects an AMD GPU as it rejects every non-Blackwell one
            return
        if relation == "==":  # true on Instinct only when the major is 9 (gfx90a 9.0, gfx942 9.4, gfx950 9.5)
            if int(value.group(1)) // scale == 9:
                emit("device-capability-compare", node, re.sub(r"\s+", " ", text(node)))
            return
        threshold = int(value.group(1)) / scale + (1 / scale if relation in (">", "<=") else 0)
        if threshold >= 10 and _instinct_declines(node, relation):
            emit("device-capability-gate-above-instinct", node, re.sub(r"\s+", " ", text(node)))
        elif threshold >= 9:
            emit("device-capability-compare", node, re.sub(r"\s+", " ", text(node)))
        return


def _instinct_declines(node: ts.Node, relation: str) -> bool:
    """`if (props.major < 10) { std::cout << "requires Blackwell"; return 0; }`: a bound above every
    Instinct major (9.x) whose branch an Instinct GPU takes only prints and returns, as on any
    NVIDIA GPU before the bound: the gate turns the GPU away, which is right there (CUTLASS's
    Blackwell examples). The comparison must decide the `if` alone, or through `||` when it holds
    on Instinct (`<`, `<=`) or `&&` when it fails (`>=`, `>`)."""
    holds = relation in ("<", "<=")
    condition = node.parent
    while condition is not None and condition.type in ("parenthesized_expression", "binary_expression", "condition_clause"):
        if condition.type == "binary_expression" and text(condition.child_by_field_name("operator")) != \
                ("||" if holds else "&&"):
            return False
        condition = condition.parent
    if condition is None or condition.type != "if_statement":
        return False
    branch = condition.child_by_field_name("consequence" if holds else "alternative")
    if branch is not None and branch.type == "else_clause":
        branch = next((c for c in branch.named_children if c.type != "comment"), None)
    statements = [c for c in branch.named_children if c.type != "comment"] if branch is not None and \
        branch.type == "compound_statement" else [branch] if branch is not None else []
    return bool(statements) and statements[-1].type == "return_statement" and all(
        s.type == "expression_statement" and DECLINE_OUTPUT.search(text(s)) for s in statements[:-1])


def _capability_scale(expression: str, props: set[str], majors: set[str]) -> int | None:
    """1 for `p.major` (or a major read through cudaDevAttrComputeCapabilityMajor), 10 for
    `p.major*10+p.minor`, 100 for `p.major*100+p.minor*10`; None for anything else."""
    expression = expression.strip("()")
    if expression in majors:
        return 1
    m = re.fullmatch(r"(\w+)(?:\.|->)major(?:\*(10|100)\+\1(?:\.|->)minor(\*10)?)?", expression)
    if m is None or m.group(1) not in props or (m.group(2) == "100") != bool(m.group(3)):
        return None
    return int(m.group(2) or 1)
