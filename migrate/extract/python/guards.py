"""HIP guards in Python: tests that tell a ROCm build from a CUDA one.

Code on either side of `if torch.version.hip:`, `if is_hip():`, `if IS_ROCM:` or Triton's
`get_current_target().backend == "hip"` was written with ROCm in mind; its facts carry the
branch they sit in ("hip" or "cuda") and never become findings."""
from __future__ import annotations

import ast
from collections.abc import Callable

from migrate.extract.names import name_list

HIP_MARKERS = name_list("python", "hip_markers")
CUDA_BUILD_MARKERS = name_list("python", "cuda_build_markers")
# Helpers by these names (vLLM's current_platform.is_rocm(), Triton tutorials' is_hip()).
HIP_PREDICATES = name_list("python", "hip_predicates")
HIP_WORDS = frozenset({"hip", "rocm"})
# Names compared with "hip": Triton's target.backend, a device's platform, a `backend` variable.
BACKEND_NAMES = ("backend", "platform")
EXITS = (ast.Return, ast.Continue, ast.Break)


class HipGuards:
    """What counts as a HIP test in one file: markers, plus the file's own flags and helpers."""

    def __init__(self, resolve: Callable[[ast.expr], str | None], aliases: dict[str, str], lines: list[str]) -> None:
        self.resolve = resolve
        self.aliases = aliases
        self.lines = lines
        self.flags: dict[str, str] = {}  # IS_ROCM = torch.version.hip is not None -> {"IS_ROCM": "hip"}
        self.predicates: dict[str, str] = {}  # def is_hip(): return ... -> {"is_hip": "hip"}
        self.words = ["hip", "rocm", "is_amd"]  # a HIP test's source text contains one of these

    def prescan(self, tree: ast.Module, returns: list[tuple[str, ast.expr]]) -> None:
        """Helpers and module constants may be defined below their first use: collect them first.

        `returns` holds (function name, returned value) for every return in the file."""
        self.words += [name.lower() for name, target in self.aliases.items() if target in HIP_MARKERS]
        for function, value in returns:
            if function not in self.predicates and self.mentions_hip(value):
                self.predicates[function] = self.polarity(value)
                self.words.append(function.lower())
        for node in tree.body:
            if isinstance(node, ast.Assign):
                self.note_assignment(node)

    def note_assignment(self, node: ast.Assign) -> None:
        hip = self.mentions_hip(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if hip:
                    self.flags[target.id] = self.polarity(node.value)
                    self.words.append(target.id.lower())
                else:
                    self.flags.pop(target.id, None)

    def mentions_hip(self, test: ast.expr) -> bool:
        text = "\n".join(self.lines[test.lineno - 1:test.end_lineno]).lower()
        if not any(word in text for word in self.words):
            return False  # cheap: most tests say nothing about HIP
        for sub in ast.walk(test):
            if isinstance(sub, ast.Attribute) and self.resolve(sub) in HIP_MARKERS:
                return True
            if isinstance(sub, ast.Name) and (self.aliases.get(sub.id) in HIP_MARKERS or sub.id in self.flags):
                return True
            if isinstance(sub, ast.Call) and self._is_hip_call(sub):
                return True
            if isinstance(sub, ast.Compare) and _compares_backend_with_hip(sub):
                return True
        return False

    def _is_hip_call(self, call: ast.Call) -> bool:
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in HIP_PREDICATES or name in self.predicates:
            return True
        if name == "getattr" and len(call.args) >= 2 and isinstance(call.args[0], ast.Attribute):
            attr = call.args[1]
            return isinstance(attr, ast.Constant) and isinstance(attr.value, str) \
                and f"{self.resolve(call.args[0])}.{attr.value}" in HIP_MARKERS
        return False

    def polarity(self, test: ast.expr) -> str:
        """"hip" when the test holds on ROCm, "cuda" when it holds on CUDA."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return _flip(self.polarity(test.operand))
        if isinstance(test, ast.BoolOp):
            return next((self.polarity(v) for v in test.values if self.mentions_hip(v)), "hip")
        if isinstance(test, ast.Name) and test.id in self.flags:
            return self.flags[test.id]
        if isinstance(test, ast.Call):
            func = test.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            return self.predicates.get(name, "hip")
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op, right = test.ops[0], test.comparators[0]
            value = right.value if isinstance(right, ast.Constant) else ...
            inner = self.polarity(test.left)
            if value in (None, False):
                return _flip(inner) if isinstance(op, (ast.Is, ast.Eq)) else inner
            if isinstance(value, str) and value.lower() in HIP_WORDS and isinstance(op, (ast.IsNot, ast.NotEq)):
                return "cuda"
            return inner
        return "hip"

    def dispatch_to_hip(self, node: ast.If) -> bool:
        """`if torch.version.cuda: ... elif torch.version.hip: ...`: a test of a CUDA build whose chain has a later
        `elif` arm that holds on ROCm. Its arm is the CUDA side of a dispatch; the ROCm side is written."""
        if not any(isinstance(sub, ast.Attribute) and self.resolve(sub) in CUDA_BUILD_MARKERS
                   for sub in ast.walk(node.test)):
            return False
        arm = node
        while len(arm.orelse) == 1 and isinstance(arm.orelse[0], ast.If):
            arm = arm.orelse[0]
            if self.mentions_hip(arm.test) and self.polarity(arm.test) == "hip":
                return True
        return False

    def early_exit(self, stmt: ast.stmt) -> str | None:
        """After `if <HIP test>: return ...` (no else) the rest of the block is the other branch."""
        if not isinstance(stmt, ast.If) or stmt.orelse or not isinstance(stmt.body[-1], EXITS):
            return None
        if not self.mentions_hip(stmt.test):
            return None
        return _flip(self.polarity(stmt.test))


def _flip(label: str) -> str:
    return "cuda" if label == "hip" else "hip"


def _compares_backend_with_hip(node: ast.Compare) -> bool:
    operands = [node.left, *node.comparators]
    words = any(isinstance(o, ast.Constant) and isinstance(o.value, str) and o.value.lower() in HIP_WORDS
                for o in operands)
    names = (o.attr if isinstance(o, ast.Attribute) else getattr(o, "id", "") for o in operands)
    return words and any(n.lower().endswith(BACKEND_NAMES) for n in names)
