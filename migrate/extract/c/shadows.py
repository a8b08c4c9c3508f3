"""Local variables and parameters named like an API function: inside the function that declares one, the name is
the variable from its declaration to the end of its block (C11 6.2.1 and C++ [basic.scope.block]: a block-scope
declaration hides the outer name there), so its uses there are the project's, not the vendor API's. MLIR's GPU-to-CUDA lowering
(lib/Conversion/GPUToCUDA/ConvertLaunchFuncToCudaCalls.cpp) declares `FuncOp cuModuleLoad =
getModule().lookupSymbol<FuncOp>(cuModuleLoadName);` and passes `cuModuleLoad` on: a symbol it emits, no call of
the CUDA driver. A variable that holds the real function stays a use of it: one of function-pointer type
(`CUresult (*cuInit)(unsigned)`, `PFN_cuInit`, `decltype(&cuInit)`, `std::function<...(...)>`, a type the file
defines itself: its typedef of the pointer) or one given the address a symbol resolver returns (dlsym,
GetProcAddress, cuGetProcAddress, cudaGetDriverEntryPoint, or a cast of one), in its initializer or an assignment
in the same function, or an initializer that looks the name up by its own spelling (`void* cuInit =
get_symbol(lib, "cuInit");`: jaywyawhare/C-ML src/ops/ir/gpu/cuda_backend.c, a wrapper of dlsym)."""
from __future__ import annotations

import re

from migrate.extract.c import ts, xref
from migrate.extract.c.tree import text, walk
from migrate.model import Fact

# The calls that return a function's address by its name at run time: POSIX dlsym
# (https://pubs.opengroup.org/onlinepubs/9799919799/functions/dlsym.html), Win32 GetProcAddress
# (https://learn.microsoft.com/en-us/windows/win32/api/libloaderapi/nf-libloaderapi-getprocaddress), the CUDA
# driver's cuGetProcAddress and the runtime's cudaGetDriverEntryPoint
# (https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DRIVER__ENTRY__POINT.html), HIP's hipGetProcAddress
RESOLVERS = re.compile(r"\b(?:dlv?sym|GetProcAddress|cuGetProcAddress(?:_v2)?|cudaGetDriverEntryPoint\w*|"
                       r"hipGetProcAddress|hipGetDriverEntryPoint\w*)\b")
# A declared type that holds a function: a driver's PFN_ typedef, decltype(&f), std::function<R(A)>
FUNCTION_TYPE = re.compile(r"\bPFN_|\bdecltype\b|\(")
PARAMETERS = frozenset({"parameter_declaration", "optional_parameter_declaration"})
# What a local's name is visible in, from its declaration on (C++ [basic.scope.block]): a block, a statement that
# declares in its head (`for (int i = 0; ...)`, `if (auto x = ...)`), a lambda's body
BLOCKS = frozenset({"compound_statement", "for_statement", "for_range_loop", "if_statement", "while_statement",
                    "switch_statement", "lambda_expression"})


def hidden(facts: list[Fact], caps: dict[str, list[ts.Node]], row0: int) -> list[Fact]:
    """`facts` less the identifier facts of a name a function declares as a variable or parameter, on the lines of
    that function."""
    named = {f.name for f in facts if f.kind == "identifier"}
    if not named:
        return facts
    own_types = {f.name for f in facts if f.kind == "defined"}  # the file's own types (a function pointer's typedef)
    spans: dict[str, list[tuple[int, int]]] = {}  # name -> (first, last) lines where a declaration hides it
    for node in caps.get("declaration", []) + caps.get("binding", []):
        if node.type != "declaration" and node.type not in PARAMETERS:
            continue
        for declarator in node.children_by_field_name("declarator"):
            name = xref.declared(declarator)
            if name not in named or _holds_function(node, declarator, name, own_types):
                continue
            function, scope = _scope(node)
            if function is None or scope is None or _assigned_resolved(function, name, caps):
                continue
            spans.setdefault(name, []).append((node.start_point[0] + row0 + 1, scope.end_point[0] + row0 + 1))
    if not spans:
        return facts
    return [f for f in facts if not (f.kind == "identifier" and any(a <= f.line <= b for a, b in spans.get(f.name, ())))]


def _holds_function(node: ts.Node, declarator: ts.Node, name: str, own_types: set[str]) -> bool:
    kind = node.child_by_field_name("type")
    spelled = text(kind)
    if FUNCTION_TYPE.search(spelled) or spelled in own_types:
        return True
    value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
    return value is not None and (RESOLVERS.search(text(value)) is not None or any(
        (n.type == "identifier" and text(n) == name) or (n.type == "string_content" and text(n) == name)
        for n in walk(value)))


def _scope(node: ts.Node) -> tuple[ts.Node | None, ts.Node | None]:
    """The function definition the declaration is in (a parameter's own function; None at file scope) and the
    innermost block or statement its name is visible in to the end (a parameter's: the function)."""
    scope = None
    parent = node.parent
    while parent is not None and parent.type != "function_definition":
        if scope is None and parent.type in BLOCKS:
            scope = parent
        parent = parent.parent
    return parent, scope if scope is not None else parent


def _assigned_resolved(function: ts.Node, name: str, caps: dict[str, list[ts.Node]]) -> bool:
    """Whether the function assigns the name a resolver's result (`cuInit = (cuInit_t)dlsym(h, "cuInit");`)."""
    start, end = function.start_byte, function.end_byte
    for node in caps.get("assign", []):
        if start <= node.start_byte < end and text(node.child_by_field_name("left")) == name \
                and RESOLVERS.search(text(node.child_by_field_name("right"))):
            return True
    return False
