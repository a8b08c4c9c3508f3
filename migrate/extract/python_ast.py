"""extract, Python: imports, resolved attribute chains and calls, nvidia-smi calls,
capability checks, numba kernels, and CUDA source embedded in strings."""
from __future__ import annotations

import ast

from migrate.extract import embedded
from migrate.extract.buildfiles import NVCC_FLAGS
from migrate.extract.deps import REQUIREMENT, normalise
from migrate.extract.lines import FLAG
from migrate.model import Extraction, Fact

SUBPROCESS_CALLS = frozenset({
    "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
    "subprocess.Popen", "subprocess.getoutput", "subprocess.getstatusoutput", "os.system", "os.popen",
})
CAPABILITY_CALLS = frozenset({"torch.cuda.get_device_capability", "cupy.cuda.Device.compute_capability"})
PROPERTY_CALLS = frozenset({"torch.cuda.get_device_properties"})
NUMBA_JIT = frozenset({"numba.cuda.jit"})
HIP_MARKERS = frozenset({"torch.version.hip", "torch.utils.cpp_extension.IS_HIP_EXTENSION",
                         "torch.utils.cpp_extension.ROCM_HOME", "torch.cuda.is_rocm"})
NVCC_KEYWORDS = frozenset({"nvcc", "extra_cuda_cflags", "nvcc_flags"})
SETUP_CALLS = frozenset({"setuptools.setup", "distutils.core.setup", "skbuild.setup"})
REQUIRES_KEYWORDS = frozenset({"install_requires", "setup_requires", "extras_require"})


def extract(source: bytes) -> Extraction:
    """Facts of one Python file. A pure function of the bytes."""
    text = source.decode("utf-8")
    try:
        facts, notes = extract_text(text)
    except SyntaxError as exc:
        return Extraction(facts=(), lines=text.count("\n") + 1,
                          error=f"Python syntax error at line {exc.lineno}: {exc.msg}")
    return Extraction(facts=tuple(facts), lines=text.count("\n") + 1,
                      line_text=line_texts(text, facts), notes=tuple(notes))


def line_texts(text: str, facts: list[Fact]) -> dict[tuple[int, int], str]:
    lines = text.split("\n")
    return {(f.cell or 0, f.line): lines[f.line - 1].strip() for f in facts if 0 < f.line <= len(lines)}


def extract_text(text: str, *, cell: int | None = None) -> tuple[list[Fact], list[str]]:
    tree = ast.parse(text)
    visitor = _Visitor(text.split("\n"), cell)
    visitor.visit(tree)
    return visitor.facts, visitor.notes


class _Visitor(ast.NodeVisitor):
    def __init__(self, lines: list[str], cell: int | None) -> None:
        self.lines = lines
        self.cell = cell
        self.aliases: dict[str, str] = {}
        self.strings: dict[str, ast.expr] = {}
        self.capability_vars: set[str] = set()
        self.property_vars: set[str] = set()
        self.lists: dict[str, ast.expr] = {}
        self.guard: str | None = None
        self.facts: list[Fact] = []
        self.notes: list[str] = []

    # -- locations --------------------------------------------------------
    def _col(self, line: int, byte_col: int) -> int:
        raw = self.lines[line - 1].encode()[:byte_col] if 0 < line <= len(self.lines) else b""
        return len(raw.decode("utf-8", "replace")) + 1

    def add(self, kind: str, name: str, node: ast.AST, *, role: str = "", text: str = "") -> None:
        end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        end_col = getattr(node, "end_col_offset", None)
        self.facts.append(Fact(
            kind=kind, name=name, role=role, text=text, cell=self.cell,
            line=node.lineno, column=self._col(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            end_line=end_line, end_column=self._col(end_line, end_col if end_col is not None else 0),
            guard=self.guard,
        ))

    # -- names ------------------------------------------------------------
    def resolve(self, node: ast.expr) -> str | None:
        """Dotted name of an attribute chain whose root is an imported name."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return ".".join([self.aliases[node.id], *reversed(parts)])

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:  # `import a.b` binds `a`
                root = alias.name.split(".")[0]
                self.aliases[root] = root
            self.add("python_import", alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            return
        self.add("python_import", node.module, node)
        for alias in node.names:
            if alias.name != "*":
                self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def visit_Assign(self, node: ast.Assign) -> None:
        capability, properties = self._is_capability(node.value), self._is_properties(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name) and _is_stringish(node.value):
                self.strings[target.id] = node.value
            if isinstance(target, ast.Name) and isinstance(node.value, (ast.List, ast.Tuple)):
                self.lists[target.id] = node.value
            for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                (self.capability_vars.add if capability else self.capability_vars.discard)(name)
                (self.property_vars.add if properties else self.property_vars.discard)(name)
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        """Code under `if torch.version.hip:` (either branch) is already handled for ROCm."""
        markers = {self.resolve(n) for n in ast.walk(node.test) if isinstance(n, ast.Attribute)}
        markers |= {self.aliases.get(n.id) for n in ast.walk(node.test) if isinstance(n, ast.Name)}
        if not markers & HIP_MARKERS or self.guard:
            self.generic_visit(node)
            return
        self.visit(node.test)
        negated = isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
        for branch, label in ((node.body, "cuda" if negated else "hip"), (node.orelse, "hip" if negated else "cuda")):
            self.guard = label
            for statement in branch:
                self.visit(statement)
        self.guard = None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self.resolve(node)
        if name is not None:
            self.add("python_attr", name, node, role=getattr(node, "_role", "value"))
            return  # the inner links of the chain are part of this fact
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        target = self.aliases.get(node.id)
        if target and "." in target and isinstance(node.ctx, ast.Load):
            self.add("python_attr", target, node, role=getattr(node, "_role", "value"))

    def visit_Call(self, node: ast.Call) -> None:
        node.func._role = "call"  # type: ignore[attr-defined]
        name = self.resolve(node.func) if isinstance(node.func, ast.Attribute) else self.aliases.get(
            getattr(node.func, "id", ""))
        if name in SETUP_CALLS:
            self._requirements(node)
        if getattr(node.func, "id", "") == "getattr" and len(node.args) >= 2:
            base = self.resolve(node.args[0]) if isinstance(node.args[0], ast.Attribute) else None
            attr = node.args[1]
            if base and isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                self.add("python_attr", f"{base}.{attr.value}", node)
        for keyword in node.keywords:
            if keyword.arg in NVCC_KEYWORDS:
                self._nvcc_flags(keyword.value)
        if name in SUBPROCESS_CALLS and _mentions_nvidia_smi(node):
            self.add("construct", "subprocess-nvidia-smi", node, text="nvidia-smi")
        if name:
            for source, snippet_node in embedded.sources_of(name, node, self.strings, self.lines):
                self._embedded(source, snippet_node)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        if any(self._is_capability(op) for op in [node.left, *node.comparators]):
            self.add("construct", "capability-compare", node, text="compute capability")
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for deco in node.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            name = self.resolve(target) if isinstance(target, ast.Attribute) else self.aliases.get(getattr(target, "id", ""))
            if name in NUMBA_JIT:
                self.add("construct", "numba-cuda-kernel", deco, text=node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Dict(self, node: ast.Dict) -> None:
        """nvcc flags in extra_compile_args={"nvcc": [...]} (setup.py, load())."""
        for key, value in zip(node.keys, node.values):
            if isinstance(key, ast.Constant) and key.value in NVCC_KEYWORDS:
                self._nvcc_flags(value)
        self.generic_visit(node)

    def _nvcc_flags(self, value: ast.expr) -> None:
        if isinstance(value, ast.Name) and value.id in self.lists:
            value = self.lists[value.id]
        for const in _strings(value):
            for m in FLAG.finditer(const.value):
                if NVCC_FLAGS.match(m.group(1)):
                    self.add("flag", m.group(1), const, text=m.group(0))

    # -- helpers ----------------------------------------------------------
    def _requirements(self, call: ast.Call) -> None:
        for keyword in call.keywords:
            if keyword.arg in REQUIRES_KEYWORDS:
                value = keyword.value
                values = value.values if isinstance(value, ast.Dict) else [value]
                for const in (c for v in values for c in _strings(v)):
                    if m := REQUIREMENT.match(const.value):
                        self.add("requirement", normalise(m.group(1)), const, text=const.value)

    def _is_capability(self, node: ast.expr) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in self.capability_vars:
                return True
            if isinstance(sub, ast.Call):
                name = self.resolve(sub.func) if isinstance(sub.func, ast.Attribute) else self.aliases.get(
                    getattr(sub.func, "id", ""))
                if name in CAPABILITY_CALLS:
                    return True
            if isinstance(sub, ast.Attribute) and sub.attr in ("major", "minor"):
                if self._is_properties(sub.value) or isinstance(sub.value, ast.Name) and sub.value.id in self.property_vars:
                    return True
            if isinstance(sub, ast.Attribute) and sub.attr == "compute_capability" and isinstance(sub.value, ast.Call):
                origin = self._call_name(sub.value)
                if origin and origin.startswith(("cupy.", "numba.")):
                    return True
        return False

    def _is_properties(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and self._call_name(node) in PROPERTY_CALLS

    def _call_name(self, call: ast.Call) -> str | None:
        if isinstance(call.func, ast.Attribute):
            return self.resolve(call.func)
        return self.aliases.get(getattr(call.func, "id", ""))

    def _embedded(self, source: embedded.Snippet, node: ast.AST) -> None:
        from migrate.extract import cuda_cpp

        snippet_facts, notes = cuda_cpp.extract_snippet(
            source.text.encode(), row0=source.row0, col0=source.col0, cell=self.cell)
        if not source.exact:
            snippet_facts = [embedded.pin(f, node, self._col) for f in snippet_facts]
            self.notes.append(f"line {node.lineno}: embedded CUDA source has escapes; its findings point at the string's start")  # type: ignore[attr-defined]
        self.facts.extend(snippet_facts)
        self.notes.extend(notes)


def _is_stringish(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, (ast.List, ast.Tuple, ast.BinOp))


def _strings(node: ast.AST) -> list[ast.Constant]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _mentions_nvidia_smi(call: ast.Call) -> bool:
    for sub in ast.walk(call):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and "nvidia-smi" in sub.value:
            return True
    return False
