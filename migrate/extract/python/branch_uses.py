"""Where a module uses a function it imports by name: in an `if` branch that a command-line option or a function's
switch picks, or outside every such branch.

PaddlePaddle/models' inference scripts (modelcenter/PP-TinyPose/APP/infer.py) `from utils import
get_current_memory_mb` and call it only under `if run_benchmark:` (a parameter defaulting to False) or
`if FLAGS.run_benchmark:` (an argparse option defaulting to False); the function imports pynvml and GPUtil in its body.
Python runs a function's body only when it is called (https://docs.python.org/3/reference/compound_stmts.html
#function-definitions), so whether a default run reaches those imports is whether it takes those branches: the
project's to say (workloads/option_branches.py evaluates the tests, workloads/on_demand.py the functions). The tests
are the ones options.py records for branches holding an import: attribute reads of an option namespace, or a
function's switches.
- `branch_use`: a use of a name the module binds by `from ... import`, where at least one use of it sits in such a
  branch: the name is the imported name; the text `<then|else>\\n<test>` of the innermost such branch
  ("" outside every one); the role the switches its test reads (`switches:run_benchmark=False`), "" for an option's.
  A use in a lambda, or in a function defined in the branch, is read as outside every branch (it runs when called).
  A name the module imports by `from ... import` and never reads gets one fact at its import's line with the text
  `unused`: binding a function's name calls nothing (det_keypoint_unite_infer.py imports
  get_current_memory_mb and never calls it)."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from migrate.extract.python.options import (
    Switch,
    asked_constants,
    has_switch_defaults,
    imported_names,
    option_test,
    own_nodes,
    reads_options_only,
    switch_role,
    switches_of,
)
from migrate.model import Fact
from migrate.vocabulary import UNUSED_IMPORT

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True, slots=True)
class _Module:
    names: frozenset[str]  # what `from ... import` binds
    modules: set[str]  # the first names of every import (no option namespace)
    asked: set[tuple[str, object]]  # keyword constants its calls pass


def facts(tree: ast.Module, cell: int | None = None) -> list[Fact]:
    """The `branch_use` facts of a module."""
    names = {a.asname or a.name: n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
             for a in n.names if a.name != "*"}
    if not names:
        return []
    uses: list[tuple[ast.Name, str, str]] = []
    found = [n for n in ast.walk(tree) if isinstance(n, ast.If) or (isinstance(n, ast.Name) and n.id in names)]
    spans = [(n.body[0].lineno, n.end_lineno or n.lineno) for n in found if isinstance(n, ast.If)]
    if any(a <= n.lineno <= b for n in found if isinstance(n, ast.Name) for a, b in spans):  # else: none in a branch
        module = _Module(frozenset(names), imported_names(tree), asked_constants(tree))
        todo: list[tuple[ast.AST, tuple[str, str], dict[str, Switch]]] = [(s, ("", ""), {}) for s in tree.body]
        while todo:  # iterative: a long chain of operators nests deeper than Python's recursion allows
            node, branch, switches = todo.pop()
            todo += _children(node, branch, switches, module, uses)
    else:
        uses = [(n, "", "") for n in found if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    branched = {node.id for node, text, _ in uses if text}
    used = {node.id for node, _, _ in uses}
    return [Fact(kind="branch_use", name=node.id, line=node.lineno, column=node.col_offset + 1,
                 end_line=node.end_lineno or node.lineno, end_column=(node.end_col_offset or 0) + 1, text=text,
                 role=role, cell=cell) for node, text, role in uses if node.id in branched] + \
        [Fact(kind="branch_use", name=name, line=line, column=1, end_line=line, end_column=1, text=UNUSED_IMPORT, cell=cell)
         for name, line in sorted(names.items(), key=lambda item: item[1]) if name not in used]


def _children(node: ast.AST, branch: tuple[str, str], switches: dict[str, Switch], module: _Module,
              uses: list[tuple[ast.Name, str, str]]) -> list[tuple[ast.AST, tuple[str, str], dict[str, Switch]]]:
    """Record a use of an imported name; the nodes below `node`, each with the innermost option or switch branch
    around it and the switches of its function."""
    if isinstance(node, ast.Name):
        if node.id in module.names and isinstance(node.ctx, ast.Load):
            uses.append((node, *branch))
        return []
    if isinstance(node, FUNCTIONS):  # decorators and defaults run where the function is defined, its body when called
        inner = switches_of(node, module.asked, own_nodes(node.body)) if has_switch_defaults(node.args) else {}
        return [(c, branch, switches) for c in (*node.decorator_list, node.args)] + \
               [(s, ("", ""), inner) for s in node.body]
    if isinstance(node, ast.Lambda):
        return [(node.body, ("", ""), {})]
    if isinstance(node, ast.If) and ((role := switch_role(node.test, switches))
                                     or reads_options_only(node.test, module.modules)):
        test = option_test(node.test, module.modules)
        return [(node.test, branch, switches)] + [(s, (f"{side}\n{test}", role), switches)
                                                 for side, body in (("then", node.body), ("else", node.orelse))
                                                 for s in body]
    return [(c, branch, switches) for c in ast.iter_child_nodes(node)]
