"""What code asks the CUDA runtime and expects CUDA's answer to: the compute capability compared as
an NVIDIA generation (device-capability-compare, device-capability-gate-above-instinct), the opt-in
shared-memory limit read as the limit (shared-memory-optin-field), pointer attributes checked for
CUDA's answer on unregistered memory (pointer-attributes-unregistered), Ginkgo's CUDA executor named
directly (ginkgo-cuda-executor). Each recogniser emits a `construct` fact of that name; the rules that
match it (rules/device.yaml, rules/libraries.yaml) say what it means."""
from __future__ import annotations

import re

from migrate.extract.c import ts
from migrate.extract.c.needles import Needled
from migrate.extract.c.tree import SPACES, Emit, root, text
from migrate.extract.names import name_list

POINTER_ATTRIBUTES = Needled(re.compile(rb"\bcudaPointerAttributes\s*(\*\s*)?(\w+)"), b"cudaPointerAttributes")

# what CUDA 11+ reports for memory it did not allocate: type cudaMemoryTypeUnregistered (0), device -2
UNREGISTERED = {"type": {"0", "cudaMemoryTypeUnregistered"}, "memoryType": {"0", "cudaMemoryTypeUnregistered"},
                "device": {"-2"}}

GINKGO_CUDA = name_list("device", "ginkgo_cuda_executors")

DEVICE_PROP = Needled(re.compile(rb"\bcudaDeviceProp\s*(?:const\s*)?[&*]?\s*(?:const\s*)?(\w+)|"
                                  rb"\bcudaGetDeviceProperties\s*\(\s*&\s*(\w+)"), b"cudaDeviceProp", b"cudaGetDeviceProperties")

CAPABILITY_ATTRIBUTE = Needled(
    re.compile(rb"\bcudaDeviceGetAttribute\s*\(\s*&\s*(\w+)\s*,\s*cudaDevAttrComputeCapabilityMajor\b"),
    b"cudaDevAttrComputeCapabilityMajor")

# what a declining branch does before it returns: print or log why
DECLINE_OUTPUT = re.compile(r"^\s*(std::)?(cout|cerr|printf|fprintf|puts|fputs|LOG|TORCH_WARN)\b")

FLIP = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": "==", "!=": "!="}

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
                SPACES.sub("", text(other)).split("::")[-1] in expected:
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
        scale = _capability_scale(SPACES.sub("", text(capability)), props, majors)
        value = re.fullmatch(r"\(?(\d+)[uU]?\)?", text(bound).strip())
        if scale is None or value is None:
            continue
        relation = FLIP[op] if flipped else op
        if relation == "!=":  # `major != 10` rejects an AMD GPU as it rejects every non-Blackwell one
            return
        if relation == "==":  # true on Instinct only when the major is 9 (gfx90a 9.0, gfx942 9.4, gfx950 9.5)
            if int(value.group(1)) // scale == 9:
                emit("device-capability-compare", node, SPACES.sub(" ", text(node)))
            return
        threshold = int(value.group(1)) / scale + (1 / scale if relation in (">", "<=") else 0)
        if threshold >= 10 and _instinct_declines(node, relation):
            emit("device-capability-gate-above-instinct", node, SPACES.sub(" ", text(node)))
        elif threshold >= 9:
            emit("device-capability-compare", node, SPACES.sub(" ", text(node)))
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

# cudaDeviceProp's opt-in shared-memory limit read as a member (`prop.x`, `props->x`)
OPTIN_FIELD = Needled(re.compile(rb"(?:\.|->)\s*(sharedMemPerBlockOptin)\b"), b"sharedMemPerBlockOptin")
# What every construct of this module holds (inert.py): each of its gates needs one of these in the text
NEEDLES = (b"cuda", b"gko", b"executor", b"optin")

def _optin_field(caps: dict[str, list[ts.Node]], source: bytes, emit: Emit) -> None:
    """`properties.sharedMemPerBlockOptin`: the opt-in shared-memory limit of cudaDeviceProp, read in
    code (a field identifier of the tree, so comments and strings that name it do not count)."""
    if not OPTIN_FIELD.search(source):
        return
    first = next((n for nodes in caps.values() for n in nodes), None)
    if first is None:
        return
    top = root(first)
    for m in OPTIN_FIELD.finditer(source):
        node = top.descendant_for_byte_range(m.start(1), m.end(1))
        if node is not None and node.type == "field_identifier":
            emit("shared-memory-optin-field", node, m.group(1).decode())


def constructs(caps: dict[str, list[ts.Node]], source: bytes, emit: Emit) -> None:
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
    _optin_field(caps, source, emit)
