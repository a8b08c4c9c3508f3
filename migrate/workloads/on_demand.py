"""Functions nothing in the project calls, whose imports load a module on demand: `uncalled_function` facts
(extract/python/on_demand.py: a module-level function its own file never names, holding an import) that no other
file names either. An import in such a function runs only when code outside the project calls it: the module it
loads is an optional part where every other import of it is optional too (workloads/optional_imports.py).

Another file names a function by an attribute chain an import resolves (`losses.transducer_loss(...)`, a
`python_attr` fact ending in the name), by importing it (`from .losses import transducer_loss`) or by importing
its module in a way whose attribute uses no fact records (`from . import losses`, `from .losses import *`): each
counts as a use, so a function reached that way is never read as uncalled. A use no fact records (a string in a
configuration file, `getattr(module, name)`) is missed: the reading needs the function's own file silent too."""
from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from migrate.model import Fact
from migrate.workloads.fact_index import of_kind, of_kinds

if TYPE_CHECKING:
    from migrate.workloads.modules import ModuleIndex


def uncalled_scopes(facts: Mapping[str, Sequence[Fact]], index: ModuleIndex,
                    test_files: Sequence[str] = ()) -> dict[str, list[tuple[int, int, str]]]:
    """Per Python file, (first line, last line, evidence) of each function that nothing in the project calls. Not in
    test modules (`test_files` patterns): pytest calls their functions, and what they import is read as before."""
    candidates = [(path, f) for path, f in of_kind(facts, "uncalled_function")
                  if not any(fnmatch.fnmatch(posixpath.basename(path), p) for p in test_files)]
    if not candidates:
        return {}
    wanted = {f.name for _, f in candidates}
    named: dict[str, set[str]] = {}  # function name -> the files that name it
    for path, f in of_kind(facts, "entry_point"):  # an installed script calls it (pyproject, setup.cfg, setup.py)
        if f.name in wanted:
            named.setdefault(f.name, set()).add(f"{path} (entry point)")
    opened: set[str] = set()  # modules another file binds whole by a relative import, or star-imports
    for path, f in of_kinds(facts, "python_attr", "python_import", "import_unbound"):
        if f.kind == "python_attr":
            if (last := f.name.rpartition(".")[2]) in wanted:
                named.setdefault(last, set()).add(path)
            continue
        listed = [n for n in f.text.split("\n") if n]
        for name in [*listed, f.name.rpartition(".")[2]]:
            if name in wanted:
                named.setdefault(name, set()).add(path)
        module = index.resolve(path, f.name)
        if module is not None and module != path and not listed:
            opened.add(module)  # `from . import losses` (name `.losses`), `from x import *`: uses leave no fact
        for name in listed:  # `from .nnet import losses`: a submodule bound whole
            if f.name.startswith(".") and (sub := index.resolve(path, f"{f.name}.{name}")) is not None:
                opened.add(sub)
    out: dict[str, list[tuple[int, int, str]]] = {}
    for path, f in candidates:
        if path in opened or named.get(f.name, set()) - {path}:
            continue
        out.setdefault(path, []).append((f.line, f.end_line, f"{path}:{f.line}: `{f.name}` imports it in its body, "
                                         "and nothing in the project calls or names that function: it loads on "
                                         "demand, when code outside the project calls it"))
    return out
