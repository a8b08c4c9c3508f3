"""Python constructs that tie code to NVIDIA GPUs, recognised from calls and comparisons
(compute-capability gates, nvidia-smi, numba and Triton kernels, provider and platform names).

Each detector reads one node and reports facts through the visitor's `add`. Strings only
count where an API takes them as names: an argv run by subprocess, an ONNX Runtime
provider, a JAX platform, an environment variable read through os.environ."""
from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from migrate.extract import libraries
from migrate.extract.names import name_list

if TYPE_CHECKING:
    from migrate.extract.python.extractor import _Visitor

CAPABILITY_CALLS = name_list("python", "capability_calls")
CONVERSIONS = frozenset({"int", "float", "str", "tuple", "list", "max", "min", "sum", "round", "divmod"})
SUBPROCESS_CALLS = frozenset({
    "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
    "subprocess.Popen", "subprocess.getoutput", "subprocess.getstatusoutput", "os.system", "os.popen",
    "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell",
})
NUMBA_KERNELS = name_list("python", "numba_kernels")
NUMBA_UFUNCS = name_list("python", "numba_ufuncs")
TRITON_ASM = name_list("python", "triton_inline_asm")
TRITON_CONFIG = name_list("python", "triton_configs")
PTX_OPCODE = re.compile(r"\b[a-z][a-z0-9_]*(\.[a-z0-9_:]+)+")
AMDGCN_OPCODE = re.compile(r"\b[vs]_[a-z0-9_]+")
WARP_CONSTANT = re.compile(r"^_?(warp_?size|threads_per_warp|lanes_per_warp|warp_threads)$", re.IGNORECASE)
NVIDIA_PROVIDERS = name_list("python", "nvidia_execution_providers")
PROVIDER_SUFFIX = "ExecutionProvider"  # ONNX Runtime's provider names: https://onnxruntime.ai/docs/execution-providers/
PROVIDER_QUERIES = name_list("python", "provider_queries")
JAX_BACKEND_ARG = name_list("python", "jax_backend_calls")
JAX_BACKEND_KEYWORD = JAX_BACKEND_ARG | {"jax.jit", "jax.pmap"}
JAX_PLATFORM_OPTIONS = name_list("python", "jax_platform_options")
MITSUBA_VARIANT_CALLS = name_list("python", "mitsuba_variant_calls")
MITSUBA_CUDA_VARIANTS = tuple(name_list("python", "mitsuba_cuda_variant_prefixes"))
JAX_FFI_REGISTER = name_list("python", "jax_ffi_registrations")
ENV_CALLS = frozenset({"os.environ.get", "os.getenv", "os.environ.setdefault", "os.environ.pop", "os.putenv"})
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DEVICE_NAME_CALLS = name_list("python", "device_name_calls")
def _alternatives(key: str) -> str:
    """A regular-expression alternation of the names of rules/names/python.yaml's list `key`."""
    return "|".join(re.escape(name) for name in sorted(name_list("python", key), key=lambda n: (-len(n), n)))


NVIDIA_GPU_NAME = re.compile(r"\b(sm_?\d{2,3}[a-z]?|[ABHLPTV]\d{1,3}[A-Z]?|"
                             + _alternatives("nvidia_product_names") + r")\b", re.IGNORECASE)
STRING_TESTS = frozenset({"startswith", "endswith", "find", "index", "count"})
TF32_SWITCHES = frozenset({"torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32",
                           "torch.backends.fp32_precision", "torch.backends.cuda.matmul.fp32_precision",
                           "torch.backends.cudnn.fp32_precision", "torch.backends.cudnn.conv.fp32_precision",
                           "torch.backends.cudnn.rnn.fp32_precision"})
TF32_OFF = (False, "ieee", "highest", "none")
# Loading a native library by name (ctypes); the name tells whether it is NVIDIA's (extract/libraries.py).
LIBRARY_LOADS = name_list("python", "library_loads")


def on_call(v: _Visitor, call: ast.Call, name: str | None) -> None:
    if name in SUBPROCESS_CALLS and any("nvidia-smi" in str(c.value) for c in literals(v, call)):
        v.add("construct", "subprocess-nvidia-smi", call, text="nvidia-smi")
    _numba(v, call, name)
    if name in TRITON_ASM:
        _triton_asm(v, call)
    if name in TRITON_CONFIG or isinstance(call.func, ast.Subscript):
        _num_warps(v, call)
    _providers(v, call)
    _jax(v, call, name)
    if name in MITSUBA_VARIANT_CALLS:
        _mitsuba_variant(v, call)
    if name in ENV_CALLS and call.args:
        env_variable(v, call.args[0])
    _name_test(v, call)
    if name == "torch.set_float32_matmul_precision" and call.args:
        _tf32(v, call, name, call.args[0])
    if name in LIBRARY_LOADS and call.args:
        _cuda_library(v, call, call.args[0])


def _cuda_library(v: _Visitor, call: ast.Call, argument: ast.expr) -> None:
    """`ctypes.CDLL("libcublas.so.12")`, `find_library("cublasLt")`: a binding to a CUDA library, or a device setting
    where every call through the loaded handle is one (`cuda-library-settings`);
    `cdll.LoadLibrary(os.path.join(here, "bin", "librndSharpOptiX7.so"))`: to a closed NVIDIA SDK's binary."""
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str) and libraries.is_cuda_library(argument.value):
        called = _handle_calls(v, call)
        settings = bool(called) and all(c in libraries.SETTINGS_CALLS for c in called or ())
        v.add("construct", libraries.SETTINGS_LOAD if settings else libraries.CUDA_LOAD, argument, text=argument.value)
        return
    named = argument
    if isinstance(argument, ast.Name) and isinstance(assigned := v.exprs.get(argument.id), ast.expr):
        named = assigned  # `dll_name = os.path.join(here, "bin", "RnD.SharpOptiX.dll")` before the load
    name = _library_file_name(named)
    if name is not None and libraries.is_nvidia_sdk_library(name):
        v.add("construct", libraries.SDK_LOAD, argument, text=name)


class Handles:
    """What `_handle_calls` reads the module through, made once a module (not once a load: a file of many loads read
    the whole tree twice for each, 187 s for 2000 loads): each node's parent, the names and attribute chains by
    their last name, and the answer found for each handle's spelling."""

    __slots__ = ("answers", "by_last", "parents")

    def __init__(self, tree: ast.Module) -> None:
        self.parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        self.by_last: dict[str, list[ast.expr]] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name, ast.Attribute)):
                self.by_last.setdefault(node.id if isinstance(node, ast.Name) else node.attr, []).append(node)
        # a spelling's answer: the same for every load assigned to it, since each of two loads sees the other's
        # assignment target, a use that is no call (None)
        self.answers: dict[str, list[str] | None] = {}


def _handle_calls(v: _Visitor, load: ast.Call) -> list[str] | None:
    """The functions called through the handle a library load returns, in the module: `h = ctypes.CDLL(...)` (a name or
    an attribute, `self.lib`) then `h.f(...)`, or `ctypes.CDLL(...).f(...)`. None where the handle goes anywhere else (an
    argument, a return value, another name, an attribute read without a call): what the rest of the program calls
    through it is not seen."""
    if v.tree is None:
        return None
    if v.handles is None:
        v.handles = Handles(v.tree)
    handles = v.handles
    parent = handles.parents.get(id(load))
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], (ast.Name, ast.Attribute)):
        stored = parent.targets[0]
        target = _spelling(stored)
        if target in handles.answers:
            return handles.answers[target]
        last = stored.id if isinstance(stored, ast.Name) else stored.attr
        uses: list[ast.expr] = [n for n in handles.by_last.get(last, ()) if n is not stored and _spelling(n) == target]
        handles.answers[target] = _calls_through(handles, uses)
        return handles.answers[target]
    if isinstance(parent, ast.Attribute):
        return _calls_through(handles, [load])
    return None


def _calls_through(handles: Handles, uses: list[ast.expr]) -> list[str] | None:
    """The function each use calls (`h.f(...)`: `f`), or None where a use is anything else."""
    called: list[str] = []
    for use in uses:
        attribute, call = handles.parents.get(id(use)), None
        if isinstance(attribute, ast.Attribute) and attribute.value is use:
            call = handles.parents.get(id(attribute))
        if not (isinstance(attribute, ast.Attribute) and isinstance(call, ast.Call) and call.func is attribute):
            return None
        called.append(attribute.attr)
    return called


def _spelling(node: ast.expr) -> str:
    """A name or an attribute chain as written (`lib`, `self._lib`), the same for a store and a load."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_spelling(node.value)}.{node.attr}"
    return ast.dump(node, annotate_fields=False)


def _library_file_name(argument: ast.expr) -> str | None:
    """The file name a library load names: a string, the last part of a path joined from strings
    (`os.path.join(dir, "bin", "x.dll")`), or the last literal part of an f-string ending in it."""
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value.replace("\\", "/").rsplit("/", 1)[-1]
    if isinstance(argument, ast.Call) and argument.args:
        return _library_file_name(argument.args[-1])
    if isinstance(argument, ast.JoinedStr) and argument.values:
        return _library_file_name(argument.values[-1])
    return None


def on_compare(v: _Visitor, node: ast.Compare) -> None:
    operands = [node.left, *node.comparators]
    capability = [op for op in operands if is_capability(v, op)]
    if capability and any(_has_literal(op, v.exprs) for op in operands if op not in capability):
        floor = _floor(node, capability, v.exprs)
        v.add("construct", "capability-floor" if floor else "capability-compare", node, text="compute capability")
    if any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) and v.dotted(node.comparators[-1]) == "os.environ":
        env_variable(v, node.left)
    strings = _direct_strings(operands)
    providers = [lit for lit in strings if _provider(lit.value)]
    if providers and any(_queries_providers(v, o) for o in operands):
        for lit in providers:
            _add_provider(v, lit)
    names = [lit for lit in strings if NVIDIA_GPU_NAME.search(str(lit.value))]
    if names and any(_is_device_name(v, o) for o in operands):
        v.add("construct", "gpu-name-compare", node, text=str(names[0].value))


def on_subscript(v: _Visitor, node: ast.Subscript) -> None:
    if v.dotted(node.value) == "os.environ":
        env_variable(v, node.slice)


def on_binop(v: _Visitor, node: ast.BinOp) -> None:
    """`32 * num_warps`, `num_threads // 32`: Python code that counts 32 lanes per warp."""
    pairs = ((node.left, node.right), (node.right, node.left))
    if isinstance(node.op, ast.Mult):
        hit = any(_is_32(c) and "warp" in _identifier(o).lower() for c, o in pairs)
    elif isinstance(node.op, (ast.FloorDiv, ast.Div, ast.Mod)):
        hit = _is_32(node.right) and any(w in _identifier(node.left).lower() for w in ("thread", "lane", "tid"))
    else:
        hit = False
    if hit:
        v.add("construct", "warp-size-32-python", node, text=ast.unparse(node))


def on_assign(v: _Visitor, node: ast.Assign) -> None:
    """WARP_SIZE = 32 and friends; TF32 switched on."""
    for target in node.targets:
        if _is_32(node.value) and isinstance(target, ast.Name) and WARP_CONSTANT.match(target.id):
            v.add("construct", "warp-size-32-python", node, text=f"{target.id} = 32")
        if (name := v.dotted(target)) in TF32_SWITCHES:
            _tf32(v, node, name, node.value)


def on_decorator(v: _Visitor, deco: ast.expr, function: str) -> None:
    """A bare decorator (@cuda.jit, @cuda.reduce); decorator calls are seen by on_call."""
    if v.dotted(deco) in NUMBA_KERNELS:
        v.add("construct", "numba-cuda-kernel", deco, text=function)


def is_capability(v: _Visitor, node: ast.expr) -> bool:
    """A compute capability, or a value computed from one (not passed through other calls)."""
    for sub in _walk_values(node):
        if isinstance(sub, ast.Name) and sub.id in v.capability_vars:
            return True
        if isinstance(sub, ast.Call) and v.call_name(sub) in CAPABILITY_CALLS:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in ("major", "minor") and v.is_properties(sub.value):
            return True
        if isinstance(sub, ast.Attribute) and sub.attr == "compute_capability" and isinstance(sub.value, ast.Call) \
                and (v.call_name(sub.value) or "").startswith(("cupy.", "numba.")):
            return True
    return False


def env_variable(v: _Visitor, key: ast.expr) -> None:
    """An environment variable read or set through os.environ, as the attribute os.environ.NAME."""
    if isinstance(key, ast.Constant) and isinstance(key.value, str) and ENV_NAME.match(key.value):
        v.add("python_attr", f"os.environ.{key.value}", key)


def literals(v: _Visitor, node: ast.AST | None, depth: int = 0) -> list[ast.Constant]:
    """String constants in an expression, following names assigned in this file."""
    out: list[ast.Constant] = []
    if node is None or depth > 3:
        return out
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            out.append(sub)
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id in v.exprs:
            out += literals(v, v.exprs[sub.id], depth + 1)
    return out


def argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[position] if position < len(call.args) else None


# -- numba ----------------------------------------------------------------------

def _numba(v: _Visitor, call: ast.Call, name: str | None) -> None:
    decorates = v.decorates.get(id(call))
    if name in NUMBA_UFUNCS:
        target = argument(call, 99, "target")
        if isinstance(target, ast.Constant) and target.value == "cuda":
            v.add("construct", "numba-cuda-kernel", call, text=decorates or name.rsplit(".", 1)[1])
    elif name in NUMBA_KERNELS:
        if decorates:
            v.add("construct", "numba-cuda-kernel", call, text=decorates)
        elif call.args and _is_function(v, call.args[0]):
            v.add("construct", "numba-cuda-kernel", call, text=_identifier(call.args[0]) or "lambda")
    elif isinstance(call.func, ast.Call) and v.call_name(call.func) in NUMBA_KERNELS and call.args:
        v.add("construct", "numba-cuda-kernel", call, text=_identifier(call.args[0]) or "lambda")


def _is_function(v: _Visitor, node: ast.expr) -> bool:
    """cuda.jit(saxpy) compiles a function; cuda.jit(SIGNATURE) only configures the decorator."""
    if isinstance(node, ast.Lambda):
        return True
    if isinstance(node, ast.Name):
        value = v.exprs.get(node.id)
        return not node.id.isupper() and not isinstance(value, (ast.Constant, ast.List, ast.Tuple))
    return isinstance(node, ast.Attribute)


# -- triton ---------------------------------------------------------------------

def _triton_asm(v: _Visitor, call: ast.Call) -> None:
    """tl.inline_asm_elementwise hands its string to the backend's assembler unchanged."""
    found = literals(v, argument(call, 0, "asm"))
    text = "\n".join(str(lit.value) for lit in found)
    opcode = PTX_OPCODE.search(text)
    if found and not opcode and AMDGCN_OPCODE.search(text):
        return  # already AMDGPU assembly
    for lit in found:
        v.add("asm", str(lit.value), lit)
    v.add("construct", "triton-inline-asm", call,
          text=f"inline_asm_elementwise ({opcode.group(0)})" if opcode else "inline_asm_elementwise")


def _num_warps(v: _Visitor, call: ast.Call) -> None:
    for kw in call.keywords:
        if kw.arg == "num_warps" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, int):
            v.add("construct", "triton-num-warps", kw.value, text=f"num_warps={kw.value.value}")


# -- onnxruntime, jax ------------------------------------------------------------

def _providers(v: _Visitor, call: ast.Call) -> None:
    values = [kw.value for kw in call.keywords if kw.arg in ("providers", "provider")]
    if isinstance(call.func, ast.Attribute) and call.func.attr == "set_providers" and call.args:
        values.append(call.args[0])
    for value in values:
        for lit in literals(v, value):
            if _provider(lit.value):
                _add_provider(v, lit)


def _provider(value: object) -> bool:
    """Whether a string names an ONNX Runtime execution provider (each is spelled `<Name>ExecutionProvider`)."""
    return isinstance(value, str) and (value in NVIDIA_PROVIDERS or value.endswith(PROVIDER_SUFFIX))


def _add_provider(v: _Visitor, lit: ast.Constant) -> None:
    """An NVIDIA provider is a finding's construct; another vendor's or the CPU's is kept as the choice beside it
    (workloads/alternatives.py: a file that chooses among providers)."""
    if lit.value in NVIDIA_PROVIDERS:
        v.add("construct", "onnxruntime-nvidia-provider", lit, text=str(lit.value))
    else:
        v.add("execution_provider", str(lit.value), lit)


def _queries_providers(v: _Visitor, node: ast.expr, depth: int = 0) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            attr = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if attr in PROVIDER_QUERIES and (v.call_name(sub) or "onnxruntime.").startswith("onnxruntime."):
                return True
        if isinstance(sub, ast.Name) and sub.id in v.exprs and depth < 2 \
                and _queries_providers(v, v.exprs[sub.id], depth + 1):
            return True
    return False


def _jax(v: _Visitor, call: ast.Call, name: str | None) -> None:
    if name in JAX_BACKEND_ARG:
        value = argument(call, 0, "backend")
    elif name in JAX_BACKEND_KEYWORD:
        value = argument(call, 99, "backend")
    elif name == "jax.config.update" and len(call.args) >= 2 and isinstance(call.args[0], ast.Constant) \
            and call.args[0].value in JAX_PLATFORM_OPTIONS:
        value = call.args[1]
    elif name in JAX_FFI_REGISTER:
        target = argument(call, 2, "platform")
        if isinstance(target, ast.Constant) and str(target.value).lower() == "cuda":
            v.add("construct", "jax-ffi-cuda-target", target, text=str(target.value))
        return
    else:
        return
    if isinstance(value, ast.Constant) and isinstance(value.value, str) \
            and "cuda" in (p.strip().lower() for p in value.value.split(",")):
        v.add("construct", "jax-cuda-platform", value, text=value.value)


def _mitsuba_variant(v: _Visitor, call: ast.Call) -> None:
    """`mi.set_variant("cuda_ad_rgb", "llvm_ad_rgb")`: a CUDA variant (Dr.Jit's CUDA/OptiX back end) chosen by the
    code itself; a variant the user passes in (`mi.set_variant(args.variant)`) is no fact."""
    for arg in call.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith(MITSUBA_CUDA_VARIANTS):
            v.add("construct", "mitsuba-cuda-variant", arg, text=arg.value)
            return


def _tf32(v: _Visitor, node: ast.AST, name: str, value: ast.expr) -> None:
    """allow_tf32 = True, fp32_precision = "tf32", set_float32_matmul_precision("high")."""
    if isinstance(value, ast.Constant) and (value.value in TF32_OFF or str(value.value).lower() in TF32_OFF):
        return
    v.add("construct", "tf32-enabled", node, text=name.rsplit(".", 2)[-2] + "." + name.rsplit(".", 1)[-1])


# -- device names -----------------------------------------------------------------

def _name_test(v: _Visitor, call: ast.Call) -> None:
    """torch.cuda.get_device_name().startswith("NVIDIA H100")."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in STRING_TESTS:
        names = [lit for lit in _direct_strings(call.args) if NVIDIA_GPU_NAME.search(str(lit.value))]
        if names and _is_device_name(v, func.value):
            v.add("construct", "gpu-name-compare", call, text=str(names[0].value))


def _is_device_name(v: _Visitor, node: ast.expr, depth: int = 0) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and v.call_name(sub) in DEVICE_NAME_CALLS:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr == "name" and v.is_properties(sub.value):
            return True
        if isinstance(sub, ast.Name) and sub.id in v.exprs and depth < 2 \
                and _is_device_name(v, v.exprs[sub.id], depth + 1):
            return True
    return False


# -- helpers ------------------------------------------------------------------------

def _walk_values(node: ast.AST) -> Iterator[ast.AST]:
    """ast.walk that does not enter the arguments of calls other than conversions."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        if isinstance(current, ast.Call) and getattr(current.func, "id", None) not in CONVERSIONS:
            todo.append(current.func)
        else:
            todo.extend(ast.iter_child_nodes(current))


# A comparison that is decided the same way for every major at or above this one: ROCm reports
# 9.x (gfx90a, gfx942, gfx950) or higher (RDNA 11.x, 12.x), so `cap >= (8, 0)` and `major < 8` hold
# or fail on ROCm exactly as on the newest NVIDIA GPUs.
ROCM_LOWEST_MAJOR = 9
FLOOR_OPS: dict[type[ast.cmpop], int] = {ast.GtE: 0, ast.Lt: 0, ast.Gt: 1, ast.LtE: 1}  # op -> slack
FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {ast.GtE: ast.LtE, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.Lt: ast.Gt}


def _floor(node: ast.Compare, capability: list[ast.expr], exprs: dict[str, ast.expr]) -> bool:
    """`cap >= 8`, `cap >= (8, 0)`, `major < 8`, `7 < cap[0]`: a bound below every ROCm GPU's major."""
    if len(node.ops) != 1:
        return False
    left, right, op = node.left, node.comparators[0], type(node.ops[0])
    if right in capability and left not in capability:
        left, right, op = right, left, FLIPPED.get(op, op)
    if op not in FLOOR_OPS:
        return False
    value = exprs.get(right.id, right) if isinstance(right, ast.Name) else right
    if isinstance(value, (ast.Tuple, ast.List)) and value.elts:
        value = value.elts[0]
    number = value.value if isinstance(value, ast.Constant) else None
    if not isinstance(number, (int, float)) or isinstance(number, bool):
        return False
    major = number / (10 if number >= 10 else 1)  # 80 as in `major * 10 + minor >= 80`
    return major + FLOOR_OPS[op] <= ROCM_LOWEST_MAJOR - 1


def _has_literal(node: ast.expr, exprs: dict[str, ast.expr]) -> bool:
    """A number or string written in the code (SM_MIN = (8, 0) counts through its name)."""
    for sub in _walk_values(node):
        if isinstance(sub, ast.Constant) and type(sub.value) in (int, float, str):
            return True
        if isinstance(sub, ast.Name) and isinstance(exprs.get(sub.id), (ast.Constant, ast.Tuple, ast.List)):
            return _has_literal(exprs[sub.id], {})
    return False


def _direct_strings(nodes: list[ast.expr]) -> list[ast.Constant]:
    return [s for n in nodes for s in ast.walk(n) if isinstance(s, ast.Constant) and isinstance(s.value, str)]


def _is_32(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 32


def _identifier(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""
