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
from migrate.workloads.option_branches import uses_not_taken

if TYPE_CHECKING:
    from migrate.workloads.modules import ModuleIndex

# a package's __init__ binds names to export them: an import it never reads is the package's API, not an unused one
# (https://docs.python.org/3/tutorial/modules.html#packages)
PACKAGE_INIT = "__init__.py"


def uncalled_scopes(facts: Mapping[str, Sequence[Fact]], index: ModuleIndex,
                    test_files: Sequence[str] = ()) -> dict[str, list[tuple[int, int, str]]]:
    """Per Python file, (first line, last line, evidence) of each function that nothing in the project calls. Not in
    test modules (`test_files` patterns): pytest calls their functions, and what they import is read as before."""
    return {path: [(a, b, f"{where}: `{name}` imports it in its body, and nothing in the project calls or names that "
                          "function: it loads on demand, when code outside the project calls it")
                   for a, b, name, where, _ in scopes]
            for path, scopes in _unnamed(facts, index, test_files, {}).items()}


def opted_in_scopes(facts: Mapping[str, Sequence[Fact]], index: ModuleIndex,
                    test_files: Sequence[str] = ()) -> dict[str, list[tuple[int, int, str]]]:
    """Per Python file, (first line, last line, evidence) of each function that the project calls, but only in `if`
    branches a default run does not take (workloads/option_branches.py uses_not_taken: PaddlePaddle/models'
    `get_current_memory_mb()`, under `if run_benchmark:` in every script that imports it). Its body runs only when a
    user asks for that option: what it does is an optional part. A function nothing calls at all is not one of them
    (uncalled_scopes: code outside the project may call it)."""
    excused = uses_not_taken(facts)
    if not excused:
        return {}
    out: dict[str, list[tuple[int, int, str]]] = {}
    for path, scopes in _unnamed(facts, index, test_files, excused).items():
        for a, b, name, where, why in scopes:
            if why:
                out.setdefault(path, []).append((a, b, f"{where}: `{name}` is called only in branches a default run "
                                                       f"does not take ({why})"))
    return out


def _unnamed(facts: Mapping[str, Sequence[Fact]], index: ModuleIndex, test_files: Sequence[str],
             excused: Mapping[str, Mapping[str, tuple[str, frozenset[int]]]],
             ) -> dict[str, list[tuple[int, int, str, str, str]]]:
    """Per Python file, (first line, last line, name, where, why) of each function no file names, but for the files
    whose every use of it, imported by name, is `excused` (file -> name -> (why, the lines of those uses)): `why` the
    first excuse, "" where none was needed."""
    candidates = [(path, f) for path, f in of_kind(facts, "uncalled_function")
                  if not any(fnmatch.fnmatch(posixpath.basename(path), p) for p in test_files)]
    if not candidates:
        return {}
    wanted = {f.name for _, f in candidates}
    named: dict[str, set[str]] = {}  # function name -> the files that name it
    excuses: dict[str, list[tuple[str, frozenset[int]]]] = {}  # function name -> why files importing it by name do
    # not call it on a default run
    for path, f in of_kind(facts, "entry_point"):  # an installed script calls it (pyproject, setup.cfg, setup.py)
        if f.name in wanted:
            named.setdefault(f.name, set()).add(f"{path} (entry point)")
    opened: set[str] = set()  # modules another file binds whole by a relative import, or star-imports
    for path, f in of_kinds(facts, "python_attr", "python_import", "import_unbound"):
        if f.kind == "python_attr":
            if (last := f.name.rpartition(".")[2]) in wanted:
                if (excuse := excused.get(path, {}).get(last)) and f.line in excuse[1]:
                    continue  # the attribute chain of a use read above: in a branch a default run does not take
                named.setdefault(last, set()).add(path)
            continue
        listed = [n for n in f.text.split("\n") if n]
        for name in [*listed, f.name.rpartition(".")[2]]:
            if name in wanted:
                if f.kind == "python_import" and name in listed and (excuse := excused.get(path, {}).get(name)) \
                        and (excuse[1] or posixpath.basename(path) != PACKAGE_INIT):  # a package re-exports it
                    excuses.setdefault(name, []).append(excuse)  # imported by name, used only where a default
                    continue  # run does not go
                named.setdefault(name, set()).add(path)
        module = index.resolve(path, f.name)
        if module is not None and module != path and not listed:
            opened.add(module)  # `from . import losses` (name `.losses`), `from x import *`: uses leave no fact
        for name in listed:  # `from .nnet import losses`: a submodule bound whole
            if f.name.startswith(".") and (sub := index.resolve(path, f"{f.name}.{name}")) is not None:
                opened.add(sub)
    out: dict[str, list[tuple[int, int, str, str, str]]] = {}
    for path, f in candidates:
        if path in opened or named.get(f.name, set()) - {path}:
            continue
        seen = excuses.get(f.name, [])
        if seen and not any(lines for _, lines in seen):
            continue  # only imported, never used: no sign the project calls it only on request (a re-export)
        why = min(seen, key=lambda e: not e[1], default=("", frozenset()))[0]  # a branch's first
        out.setdefault(path, []).append((f.line, f.end_line, f.name, f"{path}:{f.line}", why))
    return out
