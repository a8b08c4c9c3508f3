"""extract, C/C++/CUDA: identifiers, includes, kernels, launches, inline asm, device constructs."""
from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from migrate.extract.budget import MAX_FACTS
from migrate.extract.c import device, guards, hazards, inert, lanemasks, language, runtime, shadows, ts, wavefront, xref
from migrate.extract.c.guards import GuardMap, off_macros
from migrate.extract.c.needles import LineNeedled
from migrate.extract.c.tree import Parents, in_device_code, qualifiers, reading, reading_now, texts, walk
from migrate.extract.c.tree import text as _text
from migrate.extract.columns import Columns
from migrate.extract.names import name_list
from migrate.extract.text.lines import line_texts
from migrate.model import Extraction, Fact, build_fact
from migrate.vocabulary import COMMENTED_OUT_DEFINE, OWN_RECORD

HASH_ERROR = LineNeedled(re.compile(rb"(?m)^[ \t]*#[ \t]*error\b[^\n]*"), b"error")


@dataclass
class _Ctx:
    """Per-parse state: positions and guards of one source text."""

    source: bytes
    guards: GuardMap
    original: bytes | None = None  # the file's bytes where `source` is a masked copy (a Jinja template)
    row0: int = 0  # line (0-based) of the text in the file it came from
    col0: int = 0  # column (0-based, characters) of its first line
    cell: int | None = None
    names: Callable[[str], bool] | None = None  # identifier names worth a fact (None: every name)
    facts: list[Fact] = field(default_factory=list)
    dropped: int = 0  # identifier facts left out by `names`
    unsure: int = 0  # at most this many more left out, in macro bodies not parsed (inert.words)
    skip_inert: bool = True  # whether macro bodies with no needle go unparsed (with `names` only)
    _newlines: list[int] = field(default_factory=list)  # offsets of the source's line ends, on first use

    def __post_init__(self) -> None:
        read = self.original or self.source
        # ASCII text (most files, nearly every macro body): a character column is the byte column
        self._columns = None if read.isascii() else Columns(read.split(b"\n"))

    def _col(self, row: int, byte_col: int) -> int:
        chars = byte_col if self._columns is None else self._columns.chars(row, byte_col)
        return chars + (self.col0 if row == 0 else 0) + 1

    def add(self, kind: str, name: str, node: ts.Node, *, role: str = "", text: str = "",
            value: int | None = None) -> None:
        (r1, c1), (r2, c2) = node.start_point, node.end_point
        if self._columns is not None:
            c1, c2 = self._columns.chars(r1, c1), self._columns.chars(r2, c2)
        if r1 == 0:
            c1 += self.col0
        if r2 == 0:
            c2 += self.col0
        if self.original is not None and kind == "construct" and text:
            text = self._unmasked(text, node)
        self.facts.append(build_fact((  # Fact's fields in order
            kind, name, r1 + self.row0 + 1, c1 + 1, r2 + self.row0 + 1, c2 + 1,
            role, text, self.guards.at(node.start_byte), self.cell, value)))


    def add_span(self, kind: str, name: str, start: int, end: int, *, text: str = "") -> None:
        """A fact over a byte range (a preprocessor branch), from its first line to its last."""
        if not self._newlines:
            self._newlines.extend(m.start() for m in re.finditer(b"\n", self.source))
        r1, r2 = (bisect.bisect_left(self._newlines, offset) for offset in (start, max(start, end - 1)))
        self.facts.append(build_fact((kind, name, r1 + self.row0 + 1, 1, r2 + self.row0 + 1, 1, "", text,
                                      self.guards.at(start), self.cell, None)))  # Fact's fields in order

    def _unmasked(self, label: str, node: ts.Node) -> str:
        """A label read from the masked copy, as the template spells it (`{{ t }}_kernel`, not `___t____kernel`):
        masking keeps every byte in place, so the label's span on the node's lines is the template's text."""
        assert self.original is not None
        raw = label.encode()
        start = self.source.rfind(b"\n", 0, node.start_byte) + 1
        end = self.source.find(b"\n", node.end_byte)
        at = self.source.find(raw, start, end if end >= 0 else len(self.source))
        return label if at < 0 else self.original[at:at + len(raw)].decode("utf-8", "replace")


# A GLSL directive no C or C++ preprocessor accepts (GLSL 4.60, 3.3): the file is shader code or a header shared
# with shaders (rules/layout/backends.yaml, other_model_constructs).
SHADING_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*extension[ \t]+GL_\w+[ \t]*:", re.MULTILINE)


def _may_be_template(source: bytes) -> bool:
    """jinja.is_template's first, cheap test (a statement tag opens somewhere), made here so that the
    jinja module and its patterns are imported only for a file that passes it."""
    return b"{%" in source


def extract(source: bytes, names: Callable[[str], bool] | None = None) -> Extraction:
    """Facts of one C/C++/CUDA file. A pure function of the bytes (and of `names`).

    With `names`, identifier facts whose name it rejects are not built (the scan passes the
    names its rules can match: no other identifier yields anything); every other fact, and the
    order of the facts kept, is as without it. Should the facts of all names exceed the cap
    (budget.MAX_FACTS keeps the first ones), the file is extracted again in full."""
    parsed, notes = source, []
    if _may_be_template(source):
        from migrate.extract import jinja

        if jinja.is_template(source):
            try:
                parsed, count = jinja.mask(source)
                notes.append(f"a Jinja template: its {count} template tags were masked, ROCm-only branches left out")
            except jinja.NotATemplate as exc:
                notes.append(f"looks like a Jinja template, but its lexer stopped ({exc}); read as plain C++")
    ctx, more = _snippet(parsed, names=names, original=source if parsed is not source else None)
    if ctx.unsure and len(ctx.facts) + ctx.dropped + ctx.unsure > MAX_FACTS:  # the exact count decides
        ctx, more = _snippet(parsed, names=names, original=source if parsed is not source else None, skip_inert=False)
    if ctx.dropped and len(ctx.facts) + ctx.dropped > MAX_FACTS:
        return extract(source)
    facts, notes = ctx.facts, notes + more
    if b"extension" in source and (directive := SHADING_DIRECTIVE.search(source)):
        line = source.count(b"\n", 0, directive.start()) + 1
        facts = [*facts, Fact(kind="construct", name="shading-language-directive", line=line, column=1, end_line=line,
                              end_column=len(directive.group(0).strip()) + 1, text=directive.group(0).strip().decode())]
    try:  # decoded once: text that is UTF-8 decodes the same with "replace"
        decoded = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        notes.append(f"not UTF-8 (byte {exc.start}); bytes that are not UTF-8 were read as one character each")
        decoded = source.decode("utf-8", "replace")
    return Extraction(facts=tuple(facts), lines=source.count(b"\n") + 1,
                      line_text=line_texts(decoded.split("\n"), facts), notes=tuple(notes))


def extract_snippet(source: bytes, *, row0: int = 0, col0: int = 0,
                    cell: int | None = None) -> tuple[list[Fact], list[str]]:
    """Facts of CUDA text that starts at (row0, col0) of its file: whole files and embedded kernels."""
    ctx, notes = _snippet(source, row0=row0, col0=col0, cell=cell)
    return ctx.facts, notes


def _snippet(source: bytes, *, row0: int = 0, col0: int = 0, cell: int | None = None,
             names: Callable[[str], bool] | None = None, original: bytes | None = None,
             skip_inert: bool = True) -> tuple[_Ctx, list[str]]:
    root = ts.parse(source)
    with reading(source):
        caps = captures(root)
        named = texts(caps.get("reference.identifier", []), source)  # read once: _identifiers and xref
        parents = Parents(root)
        defines = [p for n in caps.get("macro.name", []) if (p := parents.of(n)) is not None]
        chains = guards.chains_of(caps.get("conditional", []))
        guard_map = GuardMap.build(chains, off_macros(defines, source), source)
        ctx = _Ctx(source=source, guards=guard_map, original=original,
                   row0=row0, col0=col0, cell=cell, names=names, skip_inert=skip_inert)
        _identifiers(ctx, caps, named, parents.of)
        _own_namespaces(ctx, root)
        _hip_branches(ctx, chains)
        _switch_branches(ctx, chains)
        errors = ts.error_lines(root)
        if errors:
            _switch_branches_by_lines(ctx)
        _includes(ctx, caps)
        _namespace_aliases(ctx, caps)
        _macros(ctx, caps)
        _own_types(ctx, caps)
        _loaded_libraries(ctx, caps)
        _kernels_and_launches(ctx, caps)
        _asm(ctx, caps)
        def emit(name: str, node: ts.Node, label: str, value: int | None = None) -> None:
            ctx.add("construct", name, node, text=label, value=value)

        device.constructs(caps, emit)
        hazards.constructs(caps, source, emit)
        wavefront.constructs(caps, source, emit)
        runtime.constructs(caps, source, emit)
        language.constructs(caps, emit)
        lanemasks.constructs(caps, source, emit, ctx.guards)
        xref.facts(caps, source, lambda kind, name, node, role="", text="": ctx.add(kind, name, node, role=role, text=text),
                   named)
        _per_platform_warp_sizes(ctx)
        _renamed_own_functions(ctx)
        ctx.facts[:] = shadows.hidden(ctx.facts, caps, row0)
        notes = []
        if errors:
            where = ", ".join(str(n + row0) for n in errors)
            lines = "lines" if len(errors) > 1 else "line"
            notes.append(f"syntax errors near {lines} {where}; facts were extracted from what parsed")
        return ctx, notes


WARP_SIZE_USES = frozenset({"warp-size-constant-use", "warp-size-constant-shared", "warp-size-constant-unused"})


def _renamed_own_functions(ctx: _Ctx) -> None:
    """`#define nvmlInit nvmlInit_v2` where the file then defines `nvmlInit(void) { ... }` itself: the macro
    renames the file's own definition to the versioned symbol (a stand-in library exporting the names the vendor's
    header would bind to: OvenMediaEngine's misc/stubs/libnvidia-ml_stub.c), so its value is no use of the vendor's
    API. A macro whose name the file only calls keeps its value (a call of the vendor's versioned function)."""
    own = {f.name for f in ctx.facts if f.kind == "function_defined"}
    renamed = {(f.line, f.text) for f in ctx.facts if f.kind == "defined" and f.text and f.name in own}
    if renamed:
        ctx.facts[:] = [f for f in ctx.facts if not (f.kind == "identifier" and (f.line, f.name) in renamed)]


def _per_platform_warp_sizes(ctx: _Ctx) -> None:
    """A warp-size constant the file defines as 32 only on the CUDA side of a HIP guard (`#if
    defined(__HIP_PLATFORM_HCC__)` / `constexpr int WARP_SIZE = 64;` / `#else` / `... = 32;`: mapillary/inplace_abn
    include/cuda_utils.cuh:8-12, the same shape as PyTorch's C10_WARP_SIZE) has the HIP build's own value there:
    its uses fix nothing at 32, so they are no warp-size findings."""
    defined: dict[str, set[str | None]] = {}
    for f in ctx.facts:
        if f.kind == "construct" and f.name == "warp-size-constant-32":
            defined.setdefault(f.text, set()).add(f.guard)
    per_platform = {name for name, sides in defined.items() if sides == {"cuda"}}
    if per_platform:
        ctx.facts[:] = [f for f in ctx.facts if not (f.kind == "construct" and f.name in WARP_SIZE_USES
                                                     and f.text in per_platform)]


def captures(root: ts.Node) -> dict[str, list[ts.Node]]:
    """The query's captures (queries/cuda.scm, node types only) and those that need a field,
    derived here as these patterns would capture them:

        (call_expression function: (identifier) @reference.call), also through up to two
            qualified_identifier names and one template_function name
        (call_expression function: (field_expression field: (field_identifier) @reference.member))
        (call_expression (kernel_call_syntax)) @launch
        (preproc_include path: (_) @include)
        (preproc_def name: (identifier) @macro.name value: (preproc_arg)? @macro.value) @macro
        (preproc_function_def value: (preproc_arg) @macro.body)
        (preproc_function_def name: (identifier) @macro.name)

    and macro.own: the children of every #define and macro parameter list (a macro's own name and
    parameters, which are no identifier facts), so that no identifier's parent is looked up for that."""
    caps = ts.captures("cuda", root)
    derived: dict[str, list[ts.Node]] = {}

    def add(name: str, node: ts.Node) -> None:
        derived.setdefault(name, []).append(node)

    for call in caps.pop("call", []):
        function = call.child_by_field_name("function")
        if function is not None:
            target = _called_identifier(function)
            if target is not None:
                add("reference.call", target)
            elif function.type == "field_expression":
                member = function.child_by_field_name("field")
                if member is not None and member.type == "field_identifier":
                    add("reference.member", member)
        if any(c.type == "kernel_call_syntax" for c in call.children):
            add("launch", call)
    for node in caps.pop("include.directive", []):
        path = node.child_by_field_name("path")
        if path is not None:
            add("include", path)
    own: list[ts.Node] = []
    for node in caps.pop("define", []):
        own += node.children
        name = node.child_by_field_name("name")
        if name is not None and name.type == "identifier":
            add("macro", node)
            add("macro.name", name)
            value = node.child_by_field_name("value")
            if value is not None and value.type == "preproc_arg":
                add("macro.value", value)
    for node in caps.pop("define.function", []):
        own += node.children
        value, name = node.child_by_field_name("value"), node.child_by_field_name("name")
        if value is not None and value.type == "preproc_arg":
            add("macro.body", value)
        if name is not None and name.type == "identifier":
            add("macro.name", name)
    for node in caps.pop("macro.params", []):
        own += node.children
    for capture, nodes in derived.items():
        caps[capture] = sorted(nodes, key=lambda n: n.start_byte)
    if own:
        caps["macro.own"] = own
    return caps


def _called_identifier(function: ts.Node) -> ts.Node | None:
    """The identifier a call names: `f`, `a::f`, `a::b::f`, `f<T>`, `a::f<T>`, `a::b::f<T>`."""
    node: ts.Node | None = function
    for _ in range(2):
        if node is None or node.type != "qualified_identifier":
            break
        node = node.child_by_field_name("name")
    if node is not None and node.type == "template_function":
        node = node.child_by_field_name("name")
    return node if node is not None and node.type == "identifier" else None


def _hip_branches(ctx: _Ctx, chains: list[tuple[ts.Node, guards.Chain]]) -> None:
    """Evidence of a ROCm path: each #if/#ifdef chain that branches on a HIP/ROCm macro, unless its HIP
    side only fails (`#if defined __HIP_PLATFORM_HCC__` / `TORCH_CHECK(false, "not supported on HIP")`)."""
    for node, chain in chains:
        conditions = [cond for cond, _, _, _ in chain if guards.mentions_hip(cond)]
        if conditions and not _hip_side_fails(node, chain):
            ctx.add("rocm_path", "source", node, text=conditions[0][:120])


def _hip_side_fails(node: ts.Node, chain: list[tuple[str, bool, int, int]]) -> bool:
    """Whether every statement on the HIP side of a chain fails (a throw, `#error`, a check of `false`)."""
    statements: list[ts.Node] = []
    branch: ts.Node | None = node
    for label in guards.labels(chain):
        if branch is None:
            return False
        if label == "hip":
            statements += _branch_statements(branch)
        branch = branch.child_by_field_name("alternative")
    return bool(statements) and all(_fails(s) for s in statements)


def _fails(statement: ts.Node) -> bool:
    if statement.type == "preproc_call":
        return _directive(statement) == "#error"
    return xref.fails(statement)


BRANCH_FIELDS = ("condition", "name", "alternative")


def _branch_statements(branch: ts.Node) -> list[ts.Node]:
    """What one branch of a preprocessor chain holds: its children but its condition, name, next branch
    and comments."""
    skip = {branch.child_by_field_name(f) for f in BRANCH_FIELDS}
    return [c for c in branch.named_children if c not in skip and c.type != "comment"]


def _directive(node: ts.Node) -> str:
    """`#error`, `#pragma`, ... of a preproc_call; "" when it has none."""
    directive = node.child_by_field_name("directive")
    return _text(directive).strip() if directive is not None else ""




def _switch_branches_by_lines(ctx: _Ctx) -> None:
    """In a file that did not parse, the switch branches of its #if chains read line by line (guards.text_chains) that
    the syntax tree's chains missed: a branch on the same switch from the same line is there already."""
    seen = {(f.name, f.line) for f in ctx.facts if f.kind == "switch_branch"}
    unless_seen = {(f.name, f.line) for f in ctx.facts if f.kind == "unless_branch"}
    for chain in guards.text_chains(ctx.source):
        negated = guards.else_switches(chain)
        for cond, positive, start, end in chain:
            for name in guards.switch_names(cond, positive) or (negated if not cond else []):
                line = ctx.source.count(b"\n", 0, start) + ctx.row0 + 1
                if (name, line) in seen:
                    continue
                seen.add((name, line))
                line_end = ctx.source.find(b"\n", start)
                directive = ctx.source[start:line_end if line_end >= 0 else end].decode("utf-8", "replace")
                ctx.add_span("switch_branch", name, start, end, text=directive.strip()[:120])
        _unless_branches(ctx, chain, seen=unless_seen)


def _unless_branches(ctx: _Ctx, chain: guards.Chain, seen: set[tuple[str, int]] | None = None) -> None:
    """`unless_branch`: a branch taken only while a macro is undefined (`#ifndef NO_CUDA`), over its lines; not one
    `seen` already (the macro and the branch's first line; those added are added to it)."""
    for name, start, end in guards.unless_branches(chain, ctx.source):
        if seen is not None:
            line = ctx.source.count(b"\n", 0, start) + ctx.row0 + 1
            if (name, line) in seen:
                continue
            seen.add((name, line))
        line_end = ctx.source.find(b"\n", chain[0][2])
        directive = ctx.source[chain[0][2]:line_end if line_end >= 0 else end].decode("utf-8", "replace")
        ctx.add_span("unless_branch", name, start, end, text=directive.strip()[:120])


def _switch_branches(ctx: _Ctx, chains: list[tuple[ts.Node, guards.Chain]]) -> None:
    """Branches taken on a build switch (`#ifdef USE_CUDNN`: `switch_branch`, one per switch and branch)
    and `#error` directives on the HIP side of a HIP guard (`hip_rejected`: HIP builds stop here)."""
    toggles = guards.commented_toggles(ctx.source)
    tested: set[str] = set()
    for _, chain in chains:
        negated = guards.else_switches(chain)
        for cond, positive, start, end in chain:
            named = guards.toggle_names(cond, positive, toggles)
            tested.update(named)
            if (guard := guards.library_guard(cond, positive)) is not None:
                ctx.add_span("library_guard_branch", guard, start, end)
            for name in [*guards.switch_names(cond, positive), *named] or (negated if not cond else []):
                line_end = ctx.source.find(b"\n", start)
                directive = ctx.source[start:line_end if line_end >= 0 else end].decode("utf-8", "replace")
                ctx.add_span("switch_branch", name, start, end, text=directive.strip()[:120])
        _unless_branches(ctx, chain)
    for name, start, end in guards.valueless_defines(ctx.source):  # another file's toggle turned on here
        ctx.add_span("toggle_define", name, start, end)
    for name, value, start, end in guards.switch_defines(ctx.source):
        ctx.add_span("switch_define", name, start, end, text=value)
    # declared off where the file leaves its define commented out: a toggle this file tests, or a switch-shaped
    # name (`// #define WITH_CUDA` in a config header that the sources testing `#ifdef WITH_CUDA` include)
    tested.update(name for name in toggles if guards.SWITCH_NAME.match(name))
    for name in sorted(tested):
        spelled = rb"^[ \t]*(?://+|/\*)[ \t]*#[ \t]*define[ \t]+" + re.escape(name.encode()) + rb"\b"
        m = re.search(spelled, ctx.source, re.MULTILINE)
        if m is not None:
            ctx.add_span("build_switch", name, m.start(), m.end(), text=f"0 {COMMENTED_OUT_DEFINE}")
    for m in HASH_ERROR.finditer(ctx.source):
        if ctx.guards.at(m.start()) == "hip":
            ctx.add_span("hip_rejected", "error", m.start(), m.end(), text=m.group(0).decode("utf-8", "replace")[:120])


def _identifiers(ctx: _Ctx, caps: dict[str, list[ts.Node]], named: list[str],
                 parent_of: Callable[[ts.Node], ts.Node | None]) -> None:
    """`named`: the texts of caps' reference.identifier nodes, in their order."""
    calls = {n.start_byte for n in caps.get("reference.call", [])}
    own = set(caps.get("macro.own", ()))
    spaces = caps.get("reference.namespace", [])
    members, kinds = caps.get("reference.member", []), caps.get("reference.type", [])
    everything = named + texts(spaces, ctx.source)
    member_names, kind_names = texts(members, ctx.source), texts(kinds, ctx.source)
    # `names` asked once per distinct name of the file (a file names each identifier ~4 times)
    wanted = None if ctx.names is None else \
        {n for n in {*everything, *member_names, *kind_names} if ctx.names(n)}.__contains__
    for node, name in zip(caps.get("reference.identifier", []) + spaces, everything, strict=True):
        if node in own:
            continue  # the macro's own name and parameters
        if wanted is not None and not wanted(name):
            ctx.dropped += 1
            continue
        role = _role(node, calls, parent_of)
        ctx.add("identifier", name, node, role=role, text=_scope(node) if role == "call" else "")
    for node, name in zip(members, member_names, strict=True):
        if wanted is not None and not wanted(name):
            ctx.dropped += 1
            continue
        ctx.add("identifier", name, node, role="member")
    for node, name in zip(kinds, kind_names, strict=True):
        if wanted is not None and not wanted(name):
            ctx.dropped += 1
            continue
        parent = node.parent
        if _own_record(node, parent):
            ctx.add("defined", name, node, text=OWN_RECORD)  # the file's own `struct cuComplex { ... };`
            continue
        is_template = parent is not None and parent.type == "template_type" and parent.child_by_field_name("name") == node
        ctx.add("identifier", name, node, role="template" if is_template else "type")


RECORDS = frozenset({"struct_specifier", "class_specifier", "union_specifier"})


def _own_record(node: ts.Node, parent: ts.Node | None) -> bool:
    """Whether `node` names a struct, class or union the file defines with a body at file scope (`struct cuComplex {
    float r; float i; ... };`: CUDA by Example's chapter04/julia_gpu.cu, copied into other repositories): a file
    that includes the vendor's header cannot define its type again, so the name is the project's, as a typedef's
    is (`_own_types`), in that file only (match.candidates; not repo-wide: a header copying the vendor's declarations
    must not hide the vendor's type in other files). A forward declaration or a definition under a build switch is
    not."""
    return (parent is not None and parent.type in RECORDS and parent.child_by_field_name("name") == node
            and parent.child_by_field_name("body") is not None and _file_scope(parent))


NAMESPACE_PREFIX = "namespace "  # a `defined` fact of a namespace the file opens: `namespace amgx`
PREPROCESSOR_BLOCKS = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "linkage_specification",
                                 "declaration_list"})


def _scope(node: ts.Node) -> str:
    """The namespace a call is qualified by (`amgx::memory` of `amgx::memory::cudaFreeAsync(p)`), or ""."""
    top = node
    while top.parent is not None and top.parent.type == "qualified_identifier":
        top = top.parent
    scope = top.child_by_field_name("scope") if top is not node else None
    return _text(scope) if scope is not None else ""


def _own_namespaces(ctx: _Ctx, root: ts.Node) -> None:
    """Top-level namespaces the file opens (`namespace amgx {`): a call qualified by one of them
    (`amgx::memory::cudaFreeAsync`) is the project's function, not CUDA's C API of the same name."""
    pending = list(root.children)
    while pending:
        node = pending.pop()
        if node.type in PREPROCESSOR_BLOCKS:
            pending.extend(node.children)
        elif node.type == "namespace_definition" and (name := node.child_by_field_name("name")) is not None:
            ctx.add("defined", NAMESPACE_PREFIX + _text(name).split("::")[0].strip(), name)


def _role(node: ts.Node, calls: set[int], parent_of: Callable[[ts.Node], ts.Node | None]) -> str:
    if node.start_byte in calls:
        return "call"
    parent = parent_of(node)
    if parent is not None and parent.type == "namespace_alias_definition" and parent.named_children[0] == node:
        return "alias"
    if node.type == "namespace_identifier" or (parent is not None and parent.type == "using_declaration" \
            and any(c.type == "namespace" for c in parent.children)):
        return "namespace"
    if parent is not None and parent.type == "function_declarator" and parent.child_by_field_name("declarator") == node:
        return "definition"
    negated = False  # under an odd number of `!`: `!defined(X)`, `!(defined(X) || ...)`
    while parent is not None and parent.type in ("parenthesized_expression", "unary_expression",
                                                   "binary_expression", "preproc_defined"):
        if parent.type == "unary_expression" and parent.children and parent.children[0].type == "!":
            negated = not negated
        parent = parent_of(parent)
    if parent is not None and parent.type in ("preproc_ifdef", "preproc_elifdef") and parent.children \
            and parent.children[0].type.endswith("ndef"):
        negated = not negated
    if parent is not None and parent.type in ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"):
        if _only_pragmas(parent):
            return "tuning_macro"
        condition = parent.child_by_field_name("condition")
        if condition is not None and guards.legacy_arch_gate(_text(condition)):
            return "legacy_gate"
        return "negated_macro" if negated else "macro"
    return "value"


CONDITIONALS = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"})


def _only_pragmas(branch: ts.Node) -> bool:
    """Whether every branch of the chain holding `branch` only sets a pragma: `#pragma unroll`, or a macro
    defined as one or as nothing (moderngpu's `#ifdef __CUDA_ARCH__ #define PRAGMA_UNROLL #pragma unroll
    #else #define PRAGMA_UNROLL #endif`); whichever branch a compiler takes, the code is the same."""
    top = branch
    while top.parent is not None and top.parent.type in CONDITIONALS and top.parent.child_by_field_name(
            "alternative") == top:
        top = top.parent
    node: ts.Node | None = top
    seen = False
    while node is not None:
        for child in _branch_statements(node):
            if not _sets_pragma(child):
                return False
            seen = True
        node = node.child_by_field_name("alternative")
    return seen


def _sets_pragma(node: ts.Node) -> bool:
    if node.type == "preproc_call":
        return _directive(node) == "#pragma"
    if node.type in ("preproc_def", "preproc_function_def"):
        value = node.child_by_field_name("value")
        body = _text(value).strip() if value is not None else ""
        return body == "" or body.startswith(("#pragma", "_Pragma", "__pragma"))
    return False


def _namespace_aliases(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    """`namespace cub = hipcub;` facts: under a HIP guard they make `cub::` code portable."""
    for node in caps.get("namespace_alias", []):
        names = [c for c in node.named_children if c.type in ("namespace_identifier", "nested_namespace_specifier")]
        if len(names) >= 2:
            ctx.add("namespace_alias", _text(names[0]), node, text=_text(names[-1]))


def _includes(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    for node in caps.get("include", []):
        header = _text(node).strip()
        if header[:1] in "<\"" and len(header) > 2:
            ctx.add("include", header[1:-1].strip(), node, text=header)


def _macros(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    """Macro names are definitions (text: the value, when it is one identifier: `#define cudaMalloc
    musaMalloc`, which the matcher judges); macro bodies are re-parsed as code."""
    for node in caps.get("macro.name", []):
        ctx.add("defined", _text(node), node, text=_alias_of(node))
    for node in caps.get("macro.value", []) + caps.get("macro.body", []):
        _reparse(ctx, node)


# Where a file-scope declaration may sit: a namespace or extern "C" block, or an include guard
FILE_SCOPE = frozenset({"translation_unit", "linkage_specification", "declaration_list"})
INCLUDE_GUARD = re.compile(r"(^_*[A-Z0-9_]*_(H|HPP|HH|CUH|INCLUDED)_*$)")
# `#ifdef __cplusplus` / `extern "C" {` / `#endif`: the C/C++ linkage idiom, which tree-sitter reads as an #ifdef
# around the rest of the file. `__cplusplus` is defined by every C++ compiler and by none for C (ISO C++
# [cpp.predefined]); it says which language compiles the file, never whether CUDA is there, so a declaration under
# it is no stand-in for builds without CUDA (OvenMediaEngine's misc/stubs/libcublas_stub.c)
LANGUAGE_GUARD = re.compile(r"^!?\s*(?:defined\s*(?:\(\s*)?)?__cplusplus\s*\)?$")


def _own_types(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    """Types the file declares at file scope itself (`typedef struct nvmlDevice_st* nvmlDevice_t;`,
    `typedef nvrtcResult (*NVRTC_CREATE)(...)`): a project that copies a vendor library's declarations
    to load it at run time (dlopen) names its own types, not the vendor header's. A typedef under
    any #if other than an include guard or the `__cplusplus` linkage idiom (a stub for builds without
    CUDA) is left out."""
    for node in caps.get("typedef", []):
        if node.type != "type_definition" or not _file_scope(node):
            continue
        kind = node.child_by_field_name("type")
        if kind is not None and kind.type in ("struct_specifier", "enum_specifier", "union_specifier"):
            tag = kind.child_by_field_name("name")
            if tag is not None:  # `typedef struct nvmlDevice_st* nvmlDevice_t;`: the tag too, opaque or not
                ctx.add("defined", _text(tag), tag)
            body = kind.child_by_field_name("body")
            for item in body.named_children if body is not None and kind.type == "enum_specifier" else []:
                if item.type == "enumerator" and (label := item.child_by_field_name("name")) is not None:
                    ctx.add("defined", _text(label), label)
        for declarator in node.children_by_field_name("declarator"):
            name = _declared_type(declarator)
            if name is not None:
                ctx.add("defined", _text(name), name)


# The calls that open a shared library by name at run time (POSIX dlopen, Win32 LoadLibrary[Ex]): rules/names/
# libraries.yaml `c_loaders`, read at the first C file (a lint of a file reads it then, not at import), with the
# needles a text must hold to name one: the names no shorter name starts (dlopen, LoadLibrary)
@lru_cache(maxsize=1)
def library_loaders() -> tuple[frozenset[str], tuple[bytes, ...]]:
    """The C library loaders' names and the needles that find any of them in a text."""
    loaders = name_list("libraries", "c_loaders")
    return loaders, tuple(sorted(n.encode() for n in loaders if not any(o != n and n.startswith(o) for o in loaders)))


def _loaded_libraries(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    """A library a loader call opens by a string literal (`dlopen("libnvidia-ml.so", RTLD_LAZY)`): a
    `loaded_library` fact named by the string (openwall/john src/gpu_common.c:129). Read only in a text that
    holds a loader's name, so a file without one pays no text read per call."""
    text = reading_now()
    loaders, needles = library_loaders()
    if not any(needle in text for needle in needles):
        return
    for target in caps.get("reference.call", []):
        if _text(target) not in loaders:
            continue
        call = target.parent
        while call is not None and call.type != "call_expression":
            call = call.parent
        arguments = call.child_by_field_name("arguments") if call is not None else None
        first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        if call is None or first is None or first.type != "string_literal":
            continue
        name = "".join(_text(c) for c in first.named_children if c.type == "string_content")
        if name:
            ctx.add("loaded_library", name, call)


def _file_scope(node: ts.Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type not in ("translation_unit", "function_definition"):
        if parent.type == "preproc_ifdef":
            guard = parent.child_by_field_name("name")
            if guard is not None and LANGUAGE_GUARD.match(_text(guard)):
                pass
            elif not parent.children[0].type.endswith("ndef") or guard is None or not INCLUDE_GUARD.match(_text(guard)):
                return False
        elif parent.type == "preproc_if":
            condition = parent.child_by_field_name("condition")
            if condition is None or not LANGUAGE_GUARD.match(_text(condition).strip()):
                return False
        elif parent.type not in FILE_SCOPE and parent.type != "namespace_definition":
            return False
        parent = parent.parent
    return parent is not None and parent.type == "translation_unit"


def _declared_type(declarator: ts.Node) -> ts.Node | None:
    """The name a typedef declarator declares, following the declarator chain (pointers, a function
    pointer's parentheses) and never into parameter lists."""
    node: ts.Node | None = declarator
    while node is not None and node.type != "type_identifier":
        inner = node.child_by_field_name("declarator")
        if inner is None and node.type == "parenthesized_declarator":  # past a calling-convention macro
            inner = next((c for c in node.named_children if c.type not in ("ERROR", "comment")), None)
        node = inner
    return node


LONE_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")


def _alias_of(name: ts.Node) -> str:
    """The identifier an object-like macro stands for (`#define cudaMalloc musaMalloc`), else ""."""
    value = name.parent.child_by_field_name("value") if name.parent is not None and name.parent.type == "preproc_def" \
        else None
    text = _text(value).strip() if value is not None else ""
    return text if LONE_IDENTIFIER.match(text) else ""

# Facts of macro bodies already parsed in this process, relative to the body's start: bodies
# repeat (half of cuda-samples' 12k are copies; a project's headers define the same macros in file
# after file), and each is two tree-sitter parses and every fact pass (~0.2 ms). Bounded by the
# bodies' bytes; when full, the older half is let go (a clear-all made a scan of cuda-samples,
# 6,180 distinct bodies, parse 1,372 of them again). Key: the body, `names`, whether an inert body
# goes unparsed; value: its facts, the identifier facts `names` left out, and (unparsed) at most how many.
_BodyKey = tuple[bytes, Callable[[str], bool] | None, bool]
_BODIES: dict[_BodyKey, tuple[tuple[Fact, ...], int, int]] = {}
BODY_MEMO_BYTES = 8 << 20
_BODY_BYTES = [0]  # bytes of the bodies held in _BODIES


def _reparse(ctx: _Ctx, node: ts.Node) -> None:
    body = ctx.source[node.start_byte:node.end_byte].replace(b"\\\n", b" \n")
    if not re.search(rb"[A-Za-z_]", body) or body.strip().isdigit():
        return
    row, col = node.start_point
    row0, col0 = ctx.row0 + row, ctx._col(row, col) - 1
    skip = ctx.skip_inert and ctx.names is not None
    key = (body, ctx.names, skip)
    found = _BODIES.get(key)
    if found is None:
        count = inert.words(body, ctx.names) if skip and ctx.names is not None else None
        if count is not None:
            found = ((), 0, count)
        else:
            inner, _ = _snippet(body, names=ctx.names)
            found = (tuple(inner.facts), inner.dropped, 0)
        _remember(key, found)
    facts, dropped, unsure = found
    ctx.dropped += dropped
    ctx.unsure += unsure
    guard = ctx.guards.at(node.start_byte)
    for f in facts:  # moved to where the body is: a column on the body's first line starts at col0
        ctx.facts.append(build_fact((  # Fact's fields in order
            f.kind, f.name, f.line + row0, f.column + (col0 if f.line == 1 else 0),
            f.end_line + row0, f.end_column + (col0 if f.end_line == 1 else 0),
            f.role, f.text, f.guard if f.guard or not guard else guard, ctx.cell, f.value)))


def _remember(key: _BodyKey, found: tuple[tuple[Fact, ...], int, int]) -> None:
    if _BODY_BYTES[0] + len(key[0]) > BODY_MEMO_BYTES:
        for old in list(_BODIES)[:len(_BODIES) // 2 + 1]:  # the older half (dicts keep insertion order)
            del _BODIES[old]
        _BODY_BYTES[0] = sum(len(body) for body, _, _ in _BODIES)
    _BODIES[key] = found
    _BODY_BYTES[0] += len(key[0])


def _kernels_and_launches(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    for node in caps.get("definition.function", []):
        if "__global__" in qualifiers(node):
            declarator = node.child_by_field_name("declarator")
            name_node = _declarator_name(declarator) if declarator else None
            ctx.add("construct", "kernel-definition", name_node or node,
                    text=_text(name_node) if name_node else "kernel")
    for node in caps.get("launch", []):
        fn = node.child_by_field_name("function")
        config = next(c for c in node.children if c.type == "kernel_call_syntax")
        construct = "device-kernel-launch" if in_device_code(node) else "kernel-launch"
        name = _text(fn) if fn else "kernel"
        ctx.add("construct", construct, config, text=name.split("<")[0].strip())


# Intel vISA: https://github.com/intel/llvm/blob/sycl/sycl/doc/extensions/supported/sycl_ext_intel_esimd/sycl_ext_intel_esimd.md
# (inline assembly in ESIMD kernels is vISA); intel/llvm-test-suite bb842e3e SYCL/InlineAsm/asm_loop.cpp:31-35
VISA = re.compile(r"\.decl\s+\w+\s+v_type=|\(\s*M\d+(?:_NM)?\s*,\s*\d+\s*\)")


def _asm(ctx: _Ctx, caps: dict[str, list[ts.Node]]) -> None:
    for node in caps.get("asm", []):
        code = node.child_by_field_name("assembly_code")
        if code is None:
            continue
        text = "".join(_text(c) for c in walk(code) if c.type == "string_content") or _text(code)
        # PTX ends every statement with ';'; GCC assembly for CPUs (x86, Arm, RISC-V) separates lines; Intel's vISA
        # (SYCL ESIMD inline assembly) declares its variables with `.decl V v_type=...` and gives each instruction an
        # execution mask and size `(M1, 8)`, neither of which PTX has (its `;` are region separators: `<1;1,0>`)
        ctx.add("asm", text, node, role="ptx" if ";" in text and not VISA.search(text) else "")


# -- small tree helpers -------------------------------------------------------

def _declarator_name(declarator: ts.Node) -> ts.Node | None:
    for current in walk(declarator):
        if current.type in ("identifier", "field_identifier"):
            return current
    return None
