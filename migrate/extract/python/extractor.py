"""extract, Python: imports, resolved attribute chains and calls, NVIDIA-specific constructs
(python_constructs), HIP guards (python_guards), and CUDA source embedded in strings."""
from __future__ import annotations

import ast
import dataclasses
import functools
import re
import warnings

from migrate.extract.c.guards import SWITCH, SWITCH_NAME
from migrate.extract.columns import Columns
from migrate.extract.names import guard_map, name_list
from migrate.extract.python import (
    branch_uses,
    commands,
    constructs,
    deferred,
    embedded,
    on_demand,
    options,
    structure,
    unparsed,
)
from migrate.extract.python.guards import HIP_MARKERS, HipGuards
from migrate.extract.python.optional import (
    EnvOptIns,
    alternative_imports,
    binds_names,
    import_scopes,
    is_build_fallback,
    is_import_fallback,
    presence_tests,
    selected_functions,
)
from migrate.extract.text.deps import REQUIREMENT
from migrate.extract.text.lines import ARCH_OPTION, FLAG, flag_text, line_texts
from migrate.extract.text.packages import canonical
from migrate.extract.text.rocm_path import INSTALL, ROCM_INDEX
from migrate.model import Extraction, Fact
from migrate.vocabulary import ALWAYS_DEFINED

PROPERTY_CALLS = name_list("python", "property_calls")
NVCC_KEYWORDS = name_list("python", "nvcc_keywords")
REQUIRES_KEYWORDS = frozenset({"install_requires", "setup_requires", "extras_require"})
KERNEL_BINARY = re.compile(r"(?:^|/)([A-Za-z_][\w-]*)\.(?:fatbin|cubin|ptx)$")
# a string that runs pip (or gives it an index): `pip install torch --index-url ...`, `install rocm --index-url ...`
PIP_RUN = re.compile(r"\binstall\b|--(?:extra-)?index-url\b|--find-links\b")
# A string that is, whole, a Kubernetes resource, label or taint key in NVIDIA's domain, as a pod spec or toleration
# built in Python names it (`{"key": "nvidia.com/gpu", "operator": "Exists"}`, `limits={"nvidia.com/gpu": 1}`,
# AKS's taint form "nvidia.com/gpu=true:NoSchedule"): the `manifest` fact a manifest's line gives (the
# Kubernetes GPU resource and toleration rules read it).
# Taints: https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/.
# Only the GPU stack's keys (rules/names/python.yaml `k8s_nvidia_gpu_keys`), not an NVIDIA operator's API group.
K8S_GPU_KEYS = "|".join(re.escape(word) for word in sorted(name_list("python", "k8s_nvidia_gpu_keys")))
K8S_NVIDIA_KEY = re.compile(rf"(nvidia\.com/(?:{K8S_GPU_KEYS})(?:[.-][\w.-]*)?)(?:=[\w.-]*)?"
                            r"(?::(?:NoSchedule|PreferNoSchedule|NoExecute))?")


def extract(source: bytes) -> Extraction:
    """Facts of one Python file. A pure function of the bytes."""
    text = source.decode("utf-8")
    try:
        facts, notes = extract_text(text)
    except SyntaxError as exc:  # read by lines: its imports and kernel strings (unparsed.py); skipped if none
        error = f"Python syntax error at line {exc.lineno}: {exc.msg}"
        facts, notes = unparsed.facts(text)
        if not facts:
            return Extraction(facts=(), lines=text.count("\n") + 1, error=error)
        notes.insert(0, f"{error}; read by lines (imports, CUDA strings)")
    return Extraction(facts=tuple(facts), lines=text.count("\n") + 1,
                      line_text=line_texts(text.split("\n"), facts), notes=tuple(notes))


def extract_text(text: str, *, cell: int | None = None) -> tuple[list[Fact], list[str]]:
    return extract_tree(parse(text), text, cell=cell)


def parse(text: str) -> ast.Module:
    with warnings.catch_warnings():  # a scanned file's SyntaxWarnings are not the user's to read
        warnings.simplefilter("ignore")
        return ast.parse(text)


def extract_tree(tree: ast.Module, text: str, *, cell: int | None = None) -> tuple[list[Fact], list[str]]:
    """The facts and notes of `tree`, the parse of `text`."""
    visitor = _Visitor(text.split("\n"), cell)
    visitor.prescan(tree)
    visitor.visit(tree)
    return (_behind_device_count(_optional_uses(_without_flag_strings(visitor.facts))) + _commented_imports(text, cell)
            + options.facts(tree, cell) + on_demand.facts(tree, cell) + deferred.facts(tree, cell)
            + branch_uses.facts(tree, cell)), visitor.notes


DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


def _optional_uses(facts: list[Fact]) -> list[Fact]:
    """Uses of a module this file imports only in an optional scope (`try: import cupyx` / `except ImportError:
    return False`) are as optional as the import: without the module they never run."""
    def root(name: str) -> str:
        return name.split(".", maxsplit=1)[0]

    optional = {root(f.name) for f in facts if f.kind == "python_import" and f.guard == "optional"}
    optional -= {root(f.name) for f in facts if f.kind == "python_import" and f.guard != "optional"}
    if not optional:
        return facts
    return [dataclasses.replace(f, guard="optional") if f.guard is None and root(_used_name(f)) in optional else f
            for f in facts]


def _used_name(fact: Fact) -> str:
    """The module name a fact uses: a python_attr's name, a construct's call (`cupy-runtime-compile` of
    cupy.RawKernel); empty for other facts (a construct named after a function: numba's kernels)."""
    if fact.kind == "python_attr":
        return fact.name
    return fact.text if fact.kind == "construct" and DOTTED.match(fact.text) else ""


# A package's count of CUDA devices that is 0 where the package was built without CUDA, and the calls that count
# guards: "If OpenCV is compiled without CUDA support, this function returns 0"
# (cv::cuda::getCudaEnabledDeviceCount, https://docs.opencv.org/3.0.0/d8/d40/group__cudacore__init.html and
# https://docs.opencv.org/2.4.1/modules/gpu/doc/initalization_and_information.html). OpenCV has no ROCm build of its
# CUDA modules, so on ROCm the count is 0 and a file that asks for it runs its cv2.cuda calls on no path (the CPU
# path it keeps for machines without CUDA runs).
DEVICE_COUNT_GUARDS = guard_map("python", "device_count_guards")


def _behind_device_count(facts: list[Fact]) -> list[Fact]:
    """A file that asks a package for its CUDA device count (DEVICE_COUNT_GUARDS) before calling its CUDA module:
    those calls are optional, as the count is 0 on a build without CUDA."""
    prefixes = tuple(p for query, guarded in DEVICE_COUNT_GUARDS.items()
                     if any(f.kind == "python_attr" and f.name == query and f.guard is None for f in facts)
                     for p in guarded)
    if not prefixes:
        return facts
    return [dataclasses.replace(f, guard="optional") if f.kind == "python_attr" and f.guard is None
            and f.name.startswith(prefixes) and f.name not in DEVICE_COUNT_GUARDS else f for f in facts]


# An import left in a comment (`#     from .fused_act import FusedLeakyReLU`): code switched off by hand.
COMMENTED_IMPORT = re.compile(r"^(\s*#\s*)(?:from\s+(\.+[\w.]*|[A-Za-z_][\w.]*)\s+import\s+([\w., ]+)"
                              r"|import\s+([A-Za-z_][\w.]*))\s*$")


def _commented_imports(text: str, cell: int | None) -> list[Fact]:
    """`commented_import` facts: the module each commented-out import line names (relative ones with their dots;
    `from . import x` names `.x`). No rule matches them; workloads/parts.py reads them."""
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not (m := COMMENTED_IMPORT.match(line)):
            continue
        module, names, plain = m.group(2), m.group(3), m.group(4)
        modules = [plain] if plain else ([module + n.strip() for n in names.split(",") if n.strip()]
                                         if module and not module.strip(".") else [module])
        out += [Fact(kind="commented_import", name=name, line=number, column=m.end(1) + 1, end_line=number,
                     end_column=len(line) + 1, text=line.strip(), cell=cell) for name in modules if name]
    return out


def _without_flag_strings(facts: list[Fact]) -> list[Fact]:
    """An architecture string already read as an nvcc flag (extra_compile_args) is no second fact, and
    none is one in a file that already branches for ROCm (DeepSpeed's and ROCm apex's op builders
    call their `-gencode` helpers only under `if not self.is_rocm_pytorch()`)."""
    flags = {(f.line, f.column) for f in facts if f.kind == "flag"}
    ported = any(f.kind == "rocm_path" for f in facts)
    return [f for f in facts if not (f.name == "cuda-arch-option" and (ported or (f.line, f.column) in flags))]


class _Visitor(ast.NodeVisitor):
    def __init__(self, lines: list[str], cell: int | None) -> None:
        self.lines = lines
        self._columns: Columns | None = None
        self.cell = cell
        self.aliases: dict[str, str] = {}
        self.called: set[int] = set()  # id() of the nodes that are called
        self.compared: set[int] = set()  # id() of the operands of comparisons and isinstance checks
        self.matched_literal: set[int] = set()  # id() of names tested only for equality with string literals
        self.messages = 0  # depth of print/logging/warn arguments being visited
        self.raised: set[int] = set()  # id() of the exception calls of raise statements: their arguments are text
        self.runs: set[int] = set()  # id() of the command arguments of subprocess calls (a string or an argv list)
        self.tests = 0  # depth of test functions (def test*, pytest's prefix) being visited: their strings are expectations
        self.decorates: dict[int, str] = {}  # id() of a decorator call -> the function it decorates
        self.assigned: dict[str, set[str]] = {}  # extension = CUDAExtension -> {"extension": {...CUDAExtension}}
        self.exprs: dict[str, ast.expr] = {}  # the last value assigned to each plain name
        self.runtime_read: set[int] = set()  # id() of the strings naming a CUDA file a run-time compiler reads
        self.grown: dict[str, list[ast.expr]] = {}  # sources += [...], sources.append(x): what was added since
        self.returns: dict[str, ast.Tuple] = {}  # function -> the one tuple it returns
        self.globbed: list[str] = []  # source patterns of the glob.glob calls seen so far (structure.py)
        self.setup_named: dict[int, str] = {}  # an extension call inside setup(name=...) -> that name (structure.py)
        self.tree: ast.Module | None = None
        self._named_sources: list[str] | None = None
        self.handles: constructs.Handles | None = None  # made when a CUDA library load is met (constructs.py)
        self.strings: dict[str, ast.expr] = {}
        self.capability_vars: set[str] = set()
        self.property_vars: set[str] = set()
        self.lists: dict[str, ast.expr] = {}
        self.guards = HipGuards(self.resolve, self.aliases, lines)
        self.opt_ins = EnvOptIns(self.resolve)
        self.guard: str | None = None
        self.selected: frozenset[str] = frozenset()  # functions a dispatch table picks (python/optional.py)
        self.in_selected = 0  # depth of such functions being visited: their imports are optional
        self.alternatives: frozenset[int] = frozenset()  # id() of imports of a non-default branch (optional.py)
        self.scopes: dict[int, tuple[int, int]] = {}  # id() of an import below the top level -> its scope (optional.py)
        self.presence: frozenset[int] = frozenset()  # id() of `if` tests for a package their body imports
        self.unused_homes: dict[str, tuple[ast.ImportFrom, str]] = {}  # ROCM_HOME imported, not yet read
        self.facts: list[Fact] = []
        self.notes: list[str] = []

    def named_sources(self) -> list[str]:
        """Every string of the file that names a C/C++/CUDA source file (`"src/x_cuda.cu"`), once, in order:
        read only for an extension whose source list cannot be followed (structure.py)."""
        if self._named_sources is None:
            found = [n.value for n in ast.walk(self.tree) if isinstance(n, ast.Constant)
                     and isinstance(n.value, str) and SOURCE_NAME.match(n.value)] if self.tree else []
            self._named_sources = list(dict.fromkeys(found))
        return self._named_sources

    def prescan(self, tree: ast.Module) -> None:
        """One pass before the visit: every import, and what each function returns."""
        self.tree = tree
        returns: list[tuple[str, ast.expr]] = []
        todo: list[tuple[ast.AST, str]] = [(tree, "")]
        while todo:
            node, function = todo.pop()
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._bind(node)
            elif isinstance(node, ast.Return) and node.value is not None and function:
                returns.append((function, node.value))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                function = node.name
            if isinstance(node, (ast.stmt, ast.Module, ast.excepthandler, ast.match_case)):
                todo.extend((child, function) for child in ast.iter_child_nodes(node))
        self.guards.prescan(tree, returns)
        self.selected = selected_functions(tree)
        self.alternatives = alternative_imports(tree)
        self.presence = presence_tests(tree)
        self.scopes = import_scopes(tree)

    @functools.cached_property
    def compiles_at_run_time(self) -> bool:
        """Whether the file calls a run-time compiler (embedded.RUNTIME_COMPILERS), found the first time a read of a
        CUDA file asks: most files read none."""
        tree = self.tree or ast.Module(body=[], type_ignores=[])
        return any(isinstance(c, ast.Call) and self.call_name(c) in embedded.RUNTIME_COMPILERS for c in ast.walk(tree))

    @functools.cached_property
    def walkers(self) -> frozenset[str]:
        """Functions of the file that os.walk() their first parameter (structure.py: `sources=find_sources("src")`),
        found the first time a source list asks: most files have none to ask about."""
        def walks_first_parameter(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
            first = fn.args.args[0].arg
            return any(isinstance(c, ast.Call) and self.call_name(c) == "os.walk" and c.args
                       and isinstance(c.args[0], ast.Name) and c.args[0].id == first for c in ast.walk(fn))

        return frozenset(fn.name for fn in ast.walk(self.tree or ast.Module(body=[], type_ignores=[]))
                         if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args
                         and walks_first_parameter(fn))

    # -- locations --------------------------------------------------------
    def _col(self, line: int, byte_col: int) -> int:
        if self._columns is None:
            self._columns = Columns([text.encode("utf-8", "surrogatepass") for text in self.lines])
        return self._columns.chars(line - 1, byte_col) + 1

    def add(self, kind: str, name: str, node: ast.AST, *, role: str = "", text: str = "") -> None:
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
        end_line = getattr(node, "end_lineno", None) or line
        end_col = getattr(node, "end_col_offset", None)
        self.facts.append(Fact(
            kind=kind, name=name, role=role, text=text, cell=self.cell,
            line=line, column=self._col(line, col),
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

    def dotted(self, node: ast.expr) -> str | None:
        """The imported name an attribute chain or a plain name stands for."""
        if isinstance(node, ast.Attribute):
            return self.resolve(node)
        return self.aliases.get(node.id) if isinstance(node, ast.Name) else None

    def chosen(self, node: ast.expr) -> set[str]:
        """The imported names a value may stand for: one name, or each branch of a conditional expression
        (`ExtensionType = CppExtension if not use_cuda else CUDAExtension`, torchmd-net's and NNPOps' setup.py)."""
        if isinstance(node, ast.IfExp):
            return self.chosen(node.body) | self.chosen(node.orelse)
        name = self.dotted(node)
        return {name} if name else set()

    def call_name(self, call: ast.Call) -> str | None:
        return self.dotted(call.func)

    def is_properties(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.property_vars
        return isinstance(node, ast.Call) and self.call_name(node) in PROPERTY_CALLS

    def _bind(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:  # `import a.b` binds `a`
                    root = alias.name.split(".")[0]
                    self.aliases[root] = root
        elif node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        if (self.in_selected or id(node) in self.alternatives) and self.guard is None:
            self._under("optional", node)
        elif isinstance(node, ast.Import):
            self._bind(node)
            for alias in node.names:
                self.add("python_import", alias.name, node, role=self._scope(node))
        else:
            self._import_from(node)

    visit_ImportFrom = visit_Import

    def _scope(self, node: ast.Import | ast.ImportFrom) -> str:
        """The role of an import below the top level: `local:<first>-<last>`, the lines of its function or branch."""
        scope = self.scopes.get(id(node))
        return f"local:{scope[0]}-{scope[1]}" if scope else ""

    def _import_from(self, node: ast.ImportFrom) -> None:
        # the names imported from the module (text, one a line): each may be a submodule, which `from package
        # import name` imports when the package has no attribute of that name
        # (https://docs.python.org/3/reference/simple_stmts.html#the-import-statement)
        imported = "\n".join(a.name for a in node.names if a.name != "*")
        if node.level:  # relative: kept for the import graph, resolved by assemble
            prefix = "." * node.level
            if node.module:
                self.add("python_import", f"{prefix}{node.module}", node, role=self._scope(node), text=imported)
            for alias in [] if node.module else node.names:
                self.add("python_import", prefix + alias.name, node, role=self._scope(node))
            return
        if not node.module:
            return
        self._bind(node)
        self.add("python_import", node.module, node, role=self._scope(node), text=imported)
        for alias in node.names:  # ROCM_HOME & co. are evidence once read: an import alone builds nothing for HIP
            if f"{node.module}.{alias.name}" in HIP_MARKERS or alias.name in HIP_HOMES:
                self.unused_homes[alias.asname or alias.name] = (node, f"from {node.module} import {alias.name}")

    def visit_Assign(self, node: ast.Assign) -> None:
        self._unpack_returned(node)
        capability, properties = constructs.is_capability(self, node.value), self.is_properties(node.value)
        value_names = self.chosen(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name) and not _filters_itself(target.id, node.value):
                self.exprs[target.id] = node.value
                self.grown.pop(target.id, None)
                if value_names:
                    self.assigned.setdefault(target.id, set()).update(value_names)
            if isinstance(target, ast.Name) and _is_stringish(node.value):
                self.strings[target.id] = node.value
            if isinstance(target, ast.Name) and isinstance(node.value, (ast.List, ast.Tuple)):
                self.lists[target.id] = node.value
            for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                (self.capability_vars.add if capability else self.capability_vars.discard)(name)
                (self.property_vars.add if properties else self.property_vars.discard)(name)
        if self.guards.mentions_hip(node.value):
            self.add("rocm_path", "python", node, text=_segment(self.lines, node))
        self.guards.note_assignment(node)
        self.opt_ins.note_assignment(node)
        constructs.on_assign(self, node)
        self.generic_visit(node)

    # -- HIP guards ---------------------------------------------------------
    def generic_visit(self, node: ast.AST) -> None:
        for _, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self._block(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def _block(self, statements: list[ast.stmt]) -> None:
        saved = self.guard
        for statement in statements:
            self.visit(statement)
            if self.guard is None:
                self.guard = self.guards.early_exit(statement)
        self.guard = saved

    def _under(self, label: str, nodes: list[ast.stmt] | ast.AST) -> None:
        saved, self.guard = self.guard, label
        if isinstance(nodes, list):
            self._block(nodes)
        else:
            self.visit(nodes)
        self.guard = saved

    def _unpack_returned(self, node: ast.Assign) -> None:
        """`ext, sources = helper()` where the helper of this file returns one tuple: each name gets its item."""
        value, target = node.value, node.targets[0] if len(node.targets) == 1 else None
        if not (isinstance(target, ast.Tuple) and isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return
        returned = self.returns.get(value.func.id)
        if returned is None or len(returned.elts) != len(target.elts):
            return
        for name, item in zip(target.elts, returned.elts, strict=True):
            if isinstance(name, ast.Name):
                self.exprs[name.id] = item
                self.grown.pop(name.id, None)
                if dotted := self.dotted(item):
                    self.assigned.setdefault(name.id, set()).add(dotted)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            self.grown.setdefault(node.target.id, []).append(node.value)
        self.generic_visit(node)

    def visit_Try(self, node: ast.Try) -> None:
        """`try: import X` with an ImportError fallback: the body is optional (python/optional.py)."""
        if self.guard or not is_import_fallback(node):
            if self.guard or not is_build_fallback(node):
                self.generic_visit(node)
                return
            first = len(self.facts)  # `try: ops = load(...)` / `except Exception: ops = None`: a build it can do without
            for statement in node.body:
                self.visit(statement)
            if any(f.kind == "extension" and f.role == "jit" for f in self.facts[first:]):
                self.facts[first:] = [dataclasses.replace(f, guard="optional") if f.guard is None else f
                                      for f in self.facts[first:]]
            self._rest_of_try(node)
            return
        first = len(self.facts)
        self._under("optional", node.body)
        if not any(binds_names(h.body) for h in node.handlers):  # `except ImportError: pass`: no fallback
            self.facts += [dataclasses.replace(f, kind="import_unbound", guard=None) for f in self.facts[first:]
                           if f.kind == "python_import"]
        self._rest_of_try(node)

    def _rest_of_try(self, node: ast.Try) -> None:
        """The handlers, `else:` and `finally:` of a `try:` whose body was visited on its own."""
        for handler in node.handlers:
            self.visit(handler)
        for statement in [*node.orelse, *node.finalbody]:
            self.visit(statement)

    def visit_If(self, node: ast.If | ast.IfExp) -> None:
        """Code under `if torch.version.hip:` (either branch, or a ternary) is already handled for ROCm, and so is
        the `if torch.version.cuda:` arm of a chain whose `elif` arm tests a HIP build (guards.dispatch_to_hip);
        the body of an environment-variable opt-in (`if os.environ.get("USE_X"):`), or of a test for the package
        it imports (`if is_module_available("tensorrt"):`), is optional."""
        if not self.guard and isinstance(node, ast.If) and (id(node) in self.presence or self.opt_ins.opt_in(node.test)):
            self.visit(node.test)
            self._under("optional", node.body)
            self._block(node.orelse)
            return
        if not self.guard and isinstance(node, ast.If) and self.guards.dispatch_to_hip(node):
            self._under("hip", node.test)  # the CUDA arm of a dispatch whose `elif` arm is ROCm's
            self._under("cuda", node.body)
            self._block(node.orelse)
            return
        if self.guard or not self.guards.mentions_hip(node.test):
            self.generic_visit(node)
            return
        label = self.guards.polarity(node.test)
        self.add("rocm_path", "python", node.test, text=_segment(self.lines, node.test))
        self._under("hip", node.test)
        self._under(label, node.body)
        if node.orelse:
            self._under("cuda" if label == "hip" else "hip", node.orelse)

    visit_IfExp = visit_If

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        if self.guard or not self.guards.mentions_hip(node):
            self.generic_visit(node)
            return
        self.add("rocm_path", "python", node, text=_segment(self.lines, node))
        for value in node.values:
            self._under("hip", value)

    # -- facts --------------------------------------------------------------
    def visit_Constant(self, node: ast.Constant) -> None:
        """A string naming a compiled GPU module (`"/convolution/_convolution.fatbin"`): the module a
        loader such as cupy.RawModule(path=...) reads; assemble links it to the source it is built from.
        A string that is an NVIDIA architecture option (NVRTC or nvcc arguments) is a construct."""
        if isinstance(node.value, str) and (found := KERNEL_BINARY.search(node.value)):
            self.add("kernel_binary", found.group(1), node)
        value = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
        if isinstance(value, str) and not self.tests and PIP_RUN.search(value) and (index := ROCM_INDEX.search(value)):
            # a launcher's pip command from a ROCm build's index: the project installs that build (`install` evidence)
            self.add("rocm_path", INSTALL, node, text=index.group(0))
        if isinstance(value, str) and not self.tests and len(value) < 200 and (key := K8S_NVIDIA_KEY.fullmatch(value)):
            self.add("manifest", key.group(1), node, text=value)
        if isinstance(value, str) and not self.tests and len(value) < 200 and ARCH_OPTION.match(value):
            self.add("construct", "cuda-arch-option", node, text=value)
        if isinstance(value, str) and self.guard in (None, "optional") and (macro := DEFINE_OPTION.match(value)):
            self.add("build_switch", macro.group(1), node,
                     text="0 environment-opt-in" if self.guard == "optional" else f"1 {ALWAYS_DEFINED}")

    def visit_List(self, node: ast.List) -> None:
        commands.on_sequence(self, node)
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        commands.on_joined(self, node)
        self.generic_visit(node)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        """`define_macros=[("WITH_X", None)]` in an environment opt-in: the macro is a switch, off unset."""
        commands.on_sequence(self, node)
        first = node.elts[0] if len(node.elts) == 2 else None
        if self.guard == "optional" and isinstance(first, ast.Constant) and isinstance(first.value, str) \
                and SWITCH_NAME.match(first.value):
            self.add("build_switch", first.value, node, text="0 environment-opt-in")
        self.generic_visit(node)

    def _use(self, node: ast.expr) -> str:
        """The role of a name's use: called, printed or logged, compared, or any other value."""
        if id(node) in self.called:
            return "call"
        if self.messages:
            return "message"
        if id(node) in self.matched_literal:
            return "literal_match"
        return "compare" if id(node) in self.compared else "value"

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self.resolve(node)
        if name is not None:
            self.add("python_attr", name, node, role=self._use(node))
            return  # the inner links of the chain are part of this fact
        root = node.value  # no inner link resolves either (the same root): visit the root once, not the chain
        while isinstance(root, ast.Attribute):  # link by link (quadratic in a 16,000-link chain: 55 s)
            root = root.value
        self.visit(root)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id in self.unused_homes:
            statement, text = self.unused_homes.pop(node.id)
            self.add("rocm_path", "python", statement, text=text)
        target = self.aliases.get(node.id)
        if target and "." in target and isinstance(node.ctx, ast.Load):
            self.add("python_attr", target, node, role=self._use(node))

    def visit_Call(self, node: ast.Call) -> None:
        self.called.add(id(node.func))
        name = self.call_name(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and node.args \
                and func.attr in ("append", "extend"):  # sources.append("x.cu"), sources.extend(glob(...))
            added = node.args[0] if func.attr == "extend" else ast.List(elts=[node.args[0]], ctx=ast.Load())
            self.grown.setdefault(func.value.id, []).append(added)
        if name in structure.SETUP_CALLS:
            self._requirements(node)
        if isinstance(node.func, ast.Name) and node.func.id not in self.aliases:
            for value_name in sorted(self.assigned.get(node.func.id, ())):
                self.add("python_attr", value_name, node.func, role="call")
        if getattr(node.func, "id", "") == "getattr" and len(node.args) >= 2:
            base = self.resolve(node.args[0]) if isinstance(node.args[0], ast.Attribute) else None
            attr = node.args[1]
            if base and isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                self.add("python_attr", f"{base}.{attr.value}", node, role=self._use(node))
        for keyword in node.keywords:
            if keyword.arg in NVCC_KEYWORDS:
                self._nvcc_flags(keyword.value)
        constructs.on_call(self, node, name)
        if name in constructs.SUBPROCESS_CALLS and node.args:
            self.runs.add(id(node.args[0]))
            commands.on_head(self, node.args[0], argv=True)
        structure.on_call(self, node, name)
        if name:
            for source, snippet_node in embedded.sources_of(name, node, self.strings, self.lines):
                self._embedded(source, snippet_node)
            for file_name, string in embedded.source_files(name, node, self.exprs):
                self._runtime_source(file_name, string)
            if embedded.compiles_source(name, node):
                self.add("construct", "cupy-runtime-compile", node, text=name)
        if (read := embedded.read_file(node, self.exprs)) and self.compiles_at_run_time:
            self._runtime_source(*read)
        if isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) == 2:
            self.compared.update(map(id, _operands(node.args[1])))
        if not (_is_message(node, name) or id(node) in self.raised):
            self.generic_visit(node)
            return
        self.visit(node.func)
        self.messages += 1
        for part in [*node.args, *node.keywords]:
            self.visit(part)
        self.messages -= 1

    def visit_Raise(self, node: ast.Raise) -> None:
        """`raise RuntimeError(f"... cuda={torch.version.cuda} ...")`: the exception's arguments are its message, text
        for a person like print's (https://docs.python.org/3/library/exceptions.html#BaseException.args)."""
        if isinstance(node.exc, ast.Call):
            self.raised.add(id(node.exc))
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        constructs.on_compare(self, node)
        for operand in [node.left, *node.comparators]:
            self.compared.update(map(id, _operands(operand)))
        if _literal_match(node):
            self.matched_literal.add(id(node.left))
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        constructs.on_subscript(self, node)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        constructs.on_binop(self, node)
        commands.on_binop(self, node)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for deco in node.decorator_list:
            if isinstance(deco, ast.Call):
                self.decorates[id(deco)] = node.name
            else:
                constructs.on_decorator(self, deco, node.name)
        returns = [r for r in ast.walk(node) if isinstance(r, ast.Return)]  # one walk for both readers
        self.opt_ins.note_function(node.name, returns)
        returned = [r.value for r in returns if isinstance(r.value, ast.Tuple)]
        if len(returned) == 1:  # `return CUDAExtension, ["a.cu"]`: unpacked by a caller of this file
            self.returns[node.name] = returned[0]
        test = node.name.startswith("test")
        selected = node.name in self.selected
        self.tests += test
        self.in_selected += selected
        self.generic_visit(node)
        self.tests -= test
        self.in_selected -= selected

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.visit_FunctionDef(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        """nvcc flags in extra_compile_args={"nvcc": [...]} (setup.py, load())."""
        for key, value in zip(node.keys, node.values, strict=False):
            if isinstance(key, ast.Constant) and key.value in NVCC_KEYWORDS:
                self._nvcc_flags(value)
        self.generic_visit(node)

    def _nvcc_flags(self, value: ast.expr) -> None:
        if isinstance(value, ast.Name) and value.id in self.lists:
            value = self.lists[value.id]
        for const in _strings(value):
            for m in FLAG.finditer(str(const.value)):
                self.add("flag", m.group(1), const, text=flag_text(m))

    # -- helpers ----------------------------------------------------------
    def _requirements(self, call: ast.Call) -> None:
        for keyword in call.keywords:
            if keyword.arg in REQUIRES_KEYWORDS:
                value = keyword.value
                values = value.values if isinstance(value, ast.Dict) else [value]
                before = len(self.facts)
                for const in (c for v in values for c in _strings(v)):
                    if m := REQUIREMENT.match(str(const.value)):
                        self.add("requirement", canonical(m.group(1)), const, text=str(const.value))
                if keyword.arg == "extras_require" and self.guard is None:  # extras: not in a plain install
                    self.facts[before:] = [dataclasses.replace(f, guard="optional") for f in self.facts[before:]]

    def _runtime_source(self, file_name: str, string: ast.expr) -> None:
        """A CUDA file a run-time compiler reads, once per string that names it (the call's argument and the read
        inside it name the same file)."""
        if id(string) not in self.runtime_read:
            self.runtime_read.add(id(string))
            self.add("runtime_source", file_name, string)

    def _embedded(self, source: embedded.Snippet, node: ast.expr) -> None:
        from migrate.extract.budget import WorkExceeded
        from migrate.extract.c import cuda_cpp

        try:
            snippet_facts, notes = cuda_cpp.extract_snippet(
                source.text.encode(), row0=source.row0, col0=source.col0, cell=self.cell)
        except WorkExceeded as exc:
            self.notes.append(f"line {node.lineno}: embedded CUDA source not analysed ({exc})")
            return
        if not source.exact:
            snippet_facts = [embedded.pin(f, node, self._col) for f in snippet_facts]
            self.notes.append(f"line {node.lineno}: embedded CUDA source has escapes; its findings point at the string's start")
        self.facts.extend(snippet_facts)
        self.notes.extend(notes)


LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "exception", "log", "print"})
LOGGER = re.compile(r"(?i)^(logging|warnings|\w*log(ger)?|console|rich)$")


def _is_message(call: ast.Call, name: str | None) -> bool:
    """print(...), logging.info(...), logger.warning(...), warnings.warn(...): the arguments are text
    for a person, so a CUDA name among them (`print(torch.version.cuda)`) decides nothing."""
    func = call.func
    if isinstance(func, ast.Name):  # print, or a function imported from logging or warnings
        module, _, method = (name or "").rpartition(".")
        return func.id == "print" or (module in ("logging", "warnings") and method in LOG_METHODS)
    if isinstance(func, ast.Attribute) and func.attr in LOG_METHODS:
        base = func.value
        base_name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        return bool(LOGGER.match(base_name))
    return False


def _operands(node: ast.expr) -> list[ast.expr]:
    """A comparison's operand, or each element of a tuple, list or set it is compared with."""
    return list(node.elts) if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]


def _literal_match(node: ast.Compare) -> bool:
    """`x == "12.5"` or `x in ("11.8", "12.1")`: true only for those strings, so false when `x` is None."""
    return all(isinstance(op, (ast.Eq, ast.In)) for op in node.ops) and all(
        isinstance(item, ast.Constant) and isinstance(item.value, str)
        for comparator in node.comparators for item in _operands(comparator))


def _is_stringish(node: ast.expr) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(node, (ast.List, ast.Tuple, ast.BinOp))


def _strings(node: ast.AST) -> list[ast.Constant]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


# A compiler option that defines a macro (`-DGROUPED_GEMM_CUTLASS`, `-DWITH_X=1`): in a scope that runs only when
# an environment variable is set, the macro is a build switch that is off by default (workloads/parts.py).
DEFINE_OPTION = re.compile(rf"^-D({SWITCH})(?:=1)?$")
# torch.utils.cpp_extension names that only a ROCm-aware build reads (an import never read is no evidence).
# A relative path of a source file an extension compiles (no folder above, no pattern, no space)
SOURCE_NAME = re.compile(r"^(?!\.\./)[\w.+-]+(?:/[\w.+-]+)*\.(?:cu|cpp|cc|cxx|c|hip)$")
HIP_HOMES = name_list("python", "hip_homes")


def _segment(lines: list[str], node: ast.AST) -> str:
    """The first line of a node's source, for evidence text."""
    line = getattr(node, "lineno", 0)
    return lines[line - 1].strip()[:120] if 0 < line <= len(lines) else ""


def _filters_itself(name: str, value: ast.expr) -> bool:
    """`sources = [p for p in sources if "hip" not in p]`: a subset of what the name held, which stays its
    best known value (every file the build may compile)."""
    return isinstance(value, ast.ListComp) and len(value.generators) == 1 \
        and isinstance(value.generators[0].iter, ast.Name) and value.generators[0].iter.id == name
