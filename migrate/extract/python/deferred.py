"""Code a module runs when called, not when imported: the bodies of its top-level functions and of its top-level
classes' methods. `def` binds the function; its body runs at each call
(https://docs.python.org/3/reference/compound_stmts.html#function-definitions: "The function definition does not
execute the function body; this gets executed only when the function is called").
- `deferred_body`: one such body; the name is the function, over the lines of its body (its decorators and
  default values, which run at import, are on the lines before)."""
from __future__ import annotations

import ast

from migrate.model import Fact

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def facts(tree: ast.Module, cell: int | None = None) -> list[Fact]:
    functions = [node for node in tree.body if isinstance(node, DEFINITIONS)]
    functions += [node for cls in tree.body if isinstance(cls, ast.ClassDef)
                  for node in cls.body if isinstance(node, DEFINITIONS)]
    return [Fact(kind="deferred_body", name=fn.name, line=fn.body[0].lineno, column=1,
                 end_line=fn.end_lineno or fn.body[0].lineno, end_column=1, cell=cell)
            for fn in functions if fn.body[0].lineno > fn.lineno]
