"""Functions that load a module on demand, and that their own file never names.

An import in a function body runs when the function is called, not when its module is imported
(https://docs.python.org/3/reference/simple_stmts.html#the-import-statement: the statement binds the name where it
runs). A module-level function whose file never names it outside its own body (no call, no reference, no string
equal to its name, no decorator that could register it, not a pytest test function, not a special name such as
a module's `__getattr__`, which Python calls itself, PEP 562) is called, if at all, from another file: whether one does
is the project's to say (workloads/on_demand.py reads the other files' imports and attribute chains).
SpeechSeparation's vendored SpeechBrain: `def transducer_loss(...)` in speechbrain/nnet/losses.py imports
`speechbrain.nnet.loss.transducer_loss` (numba.cuda kernels) in its body, and nothing in the project calls it.
- `uncalled_function`: such a function holding an import in its body; the name is the function, over its lines."""
from __future__ import annotations

import ast
import dataclasses

from migrate.extract.text.lines import entry_point
from migrate.model import Fact

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
NAMED = (*DEFINITIONS, ast.ClassDef)  # nodes that carry a name of their own
# pytest collects functions named test* (python_functions, https://docs.pytest.org/en/stable/reference/reference.html
# #confval-python_functions) and calls them itself: no call in the project is expected
TEST_PREFIX = "test"


def facts(tree: ast.Module, cell: int | None = None) -> list[Fact]:
    """The `uncalled_function` facts of a module (its top-level functions, also those under a top-level if/try)."""
    candidates = [fn for fn in _top_level(tree.body) if not fn.decorator_list and not fn.name.startswith(TEST_PREFIX)
                  and not (fn.name.startswith("__") and fn.name.endswith("__"))
                  and any(isinstance(n, (ast.Import, ast.ImportFrom)) for s in fn.body for n in ast.walk(s))]
    if not candidates:
        return entry_points(tree, cell)
    named: dict[str, int] = {}  # name -> how many times the module names it (its own definition not counted)
    wanted = {fn.name for fn in candidates}
    for node in ast.walk(tree):
        word = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else \
            node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else \
            node.name if isinstance(node, NAMED) else None
        if word in wanted:
            named[word] = named.get(word, 0) + 1
    out: list[Fact] = []
    for fn in candidates:
        inside = sum(1 for n in ast.walk(fn) if n is not fn and _names(n, fn.name))
        if named.get(fn.name, 0) - 1 - inside == 0:  # the definition itself, and any recursive call
            out.append(Fact(kind="uncalled_function", name=fn.name, line=fn.lineno, column=fn.col_offset + 1,
                            end_line=fn.end_lineno or fn.lineno, end_column=1, cell=cell))
    return out + entry_points(tree, cell)


def entry_points(tree: ast.Module, cell: int | None = None) -> list[Fact]:
    """`entry_point` facts of the strings that are entry-point references in a top-level call's `entry_points=`
    (`setup(entry_points={"console_scripts": ["x = pkg.cli:main"]})`, also under a top-level `if`), or in a
    top-level assignment to a name holding `entry_points`: the installer's script calls that function."""
    values: list[ast.AST] = []
    for statement in _statements(tree.body):
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and "entry_points" in t.id.lower()
                                                     for t in statement.targets):
            values.append(statement.value)
        call = getattr(statement, "value", None)
        if isinstance(call, ast.Call):
            values += [k.value for k in call.keywords if k.arg == "entry_points"]
    out: list[Fact] = []
    for node in (n for value in values for n in ast.walk(value)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and ":" in node.value \
                and (made := entry_point(node.value, node.lineno, node.col_offset, node.end_col_offset or 0)):
            out.append(dataclasses.replace(made, cell=cell))
    return out


def _statements(statements: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a module's top level, also those under a top-level if/try (in document order)."""
    out: list[ast.stmt] = []
    for node in statements:
        out.append(node)
        if isinstance(node, (ast.If, ast.Try)):
            out += _statements([*node.body, *node.orelse, *getattr(node, "finalbody", []),
                                *(s for h in getattr(node, "handlers", []) for s in h.body)])
    return out


def _names(node: ast.AST, name: str) -> bool:
    return (isinstance(node, ast.Name) and node.id == name) or (isinstance(node, ast.Attribute) and node.attr == name) \
        or (isinstance(node, ast.Constant) and node.value == name) \
        or (isinstance(node, NAMED) and node.name == name)


def _top_level(statements: list[ast.stmt]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in _statements(statements) if isinstance(node, DEFINITIONS)]
