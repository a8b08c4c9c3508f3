"""Modules and sources only optional code reaches: modules every import of which is in an optional scope
(or left in a comment), the sources only such modules compile, and CMake modules only optional folders load."""
from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from migrate.model import Fact
from migrate.workloads.assemble import resolve_sources
from migrate.workloads.build_sources import join
from migrate.workloads.fact_index import of_kind
from migrate.workloads.includes import HEADER_SUFFIXES, close_over_includes, includers_of
from migrate.workloads.on_demand import PACKAGE_INIT, opted_in_scopes, uncalled_scopes
from migrate.workloads.option_branches import branches_not_taken
from migrate.workloads.optional_words import Words, optional_root, words
from migrate.workloads.route import CUDA_SUFFIXES

if TYPE_CHECKING:
    from migrate.workloads.modules import ModuleIndex

MODULE_DEPTH = 4  # modules imported only by optional modules, this many levels down


def optional_modules(facts: Mapping[str, Sequence[Fact]], known: Words | None = None) -> dict[str, str]:
    """Project modules every import of which (from another file) sits in an optional scope or in a module
    that is optional itself: a loader's module, and what only that module imports. A test module's import
    (rules/workloads/optional.yaml `test_files`) tests the module and is no use of it, as for extensions below; a
    module that only tests import is read from their imports, as before. An import in a function nothing in the project
    calls (workloads/on_demand.py) loads on demand: it is optional like an untaken branch's."""
    from migrate.workloads.modules import ModuleIndex

    index = ModuleIndex(p for p in facts if p.endswith(".py"))
    imports: dict[str, list[tuple[bool, str, str]]] = {}  # module -> (optional scope?, importer, where)
    untaken = branches_not_taken(facts)
    known = known or words()
    for path, scopes in uncalled_scopes(facts, index, known.test_files).items():  # in functions nothing calls
        untaken.setdefault(path, []).extend(scopes)
    for path, scopes in opted_in_scopes(facts, index, known.test_files).items():  # called only in untaken branches
        untaken.setdefault(path, []).extend(scopes)
    tested: dict[str, list[tuple[bool, str, str]]] = {}  # imports from test modules: they test, they do not use
    picked: set[str] = set()  # `path:line` of imports in a branch a default run does not take, or a function never called
    tests: dict[str, bool] = {}  # importer -> whether it is a test module
    for path, f in of_kind(facts, "python_import"):
        if f.guard not in ("hip", "cuda"):
            if (test := tests.get(path)) is None:
                test = tests[path] = any(fnmatch.fnmatch(posixpath.basename(path), p) for p in known.test_files)
            unasked = any(a <= f.line <= b for a, b, _ in untaken.get(path, ()))
            optional = f.guard == "optional" or unasked
            if unasked:
                picked.add(f"{path}:{f.line}")
            for module in imported_files(index, path, f):
                (tested if test else imports).setdefault(module, []).append((optional, path, f"{path}:{f.line}"))
    imports.update({module: seen for module, seen in tested.items() if module not in imports})  # only tested: as before
    out: dict[str, str] = {}
    for path, f in of_kind(facts, "commented_import"):  # imported nowhere but in a comment: switched off by hand
        if (target := index.resolve(path, f.name)) is not None \
                and target != path and target not in imports and target not in out:
            out[target] = f"{path}:{f.line} `{f.text}`: its only import is commented out"
    # an importer in a folder a package does not need (examples/, benchmarks/: optional_words) uses the module as a
    # user would; where the package's own code imports it only in optional scopes, that is no use of the package's
    # (xgrammar's examples/benchmark/ imports the CUDA kernel's module that matcher.py imports under `backend == "cuda"`)
    # Only where each import by the package's own code is in a branch a default run does not take or a function
    # nothing calls (not a mere `try:`, whose module the package may load at import), and not a package's __init__.py:
    # what `import pkg` runs is the package's entry, which users import (xarray-spatial's xrspatial/__init__.py)
    aside = {importer for seen in imports.values() for _, importer, _ in seen if optional_root(importer, known)}

    def excused(module: str, seen: list[tuple[bool, str, str]]) -> bool:
        return not module.endswith(PACKAGE_INIT) and all(
            importer in aside or importer in out or where in picked
            for _, importer, where in seen)

    for _ in range(MODULE_DEPTH):
        found = {module: seen[0][2] for module, seen in imports.items() if module not in out
                 and all(optional or importer in out for optional, importer, _ in seen)}
        found |= {module: where for module, seen in imports.items() if module not in out and module not in found
                  and excused(module, seen) and (where := next((w for _, i, w in seen if i not in aside), None))}
        if not found:
            break
        out.update({m: f"{where} imports it only in an optional scope (a fallback, an opt-in, a loader or back end "
                       "picked by configuration) or from an optional module" for m, where in found.items()})
    found = out | _loaded_only_by(facts, out) | _built_for_optional_imports(facts, out, known)
    if len(found) > len(out):  # the headers only the sources optional code compiles include go with them
        headers = [p for p in facts if p.endswith(HEADER_SUFFIXES) and p not in found]
        close_over_includes(found, headers, includers_of(facts), lambda p: p in found,
                            "included only by sources that only optional code compiles")
    return found


def imported_files(index: ModuleIndex, path: str, fact: Fact) -> list[str]:
    """The project files an import names other than the importer: the module, and each name of `from package
    import name` that is a submodule of the package (Python imports it: "if not [an attribute], attempts to import
    a submodule with that name", https://docs.python.org/3/reference/simple_stmts.html#the-import-statement;
    InsightFace-REST's `from if_rest.core.model_zoo.exec_backends import trt_backend` in a `try:`)."""
    found = [index.resolve(path, fact.name)]
    found += [index.resolve(path, f"{fact.name}.{name}") for name in fact.text.split("\n") if name]
    return [target for target in dict.fromkeys(found) if target is not None and target != path]


def _loaded_only_by(facts: Mapping[str, Sequence[Fact]], modules: Mapping[str, str]) -> dict[str, str]:
    """The sources that only optional modules, or only calls in optional scopes, compile (`load(sources=[...])`
    under `if os.environ.get("RWKV_CUDA_ON") == "1":`, an extension they declare)."""
    files = frozenset(facts)
    by: dict[str, list[tuple[bool, str]]] = {}  # source -> (from an optional module?, where)
    for path, f in of_kind(facts, "extension"):
        if not f.text and f.role == "jit":  # sources read as text at run time: its own twin, `<module>.cu`
            for source in _twins(path, files):
                by.setdefault(source, []).append((path in modules or f.guard == "optional", f"{path}:{f.line}"))
        if not f.text:
            continue
        base = posixpath.dirname(path)
        for item in filter(None, f.text.split("\n")):
            # a path relative to where the program runs that names no file: the file of that name beside the
            # loader, or for a run-time load() the one file of that name below it (a folder the program joins:
            # microxcaling's `[os.path.join(file_dir, "cpp", x) for x in sources]`)
            beside = join(base, posixpath.basename(item))
            below = _below(item, base, files) if f.role != "setup" else []
            found = resolve_sources(item, base, files) or ([beside] if beside in files else below)
            for source in found:  # from an optional module, or in an optional scope (an opt-in's body)
                by.setdefault(source, []).append((path in modules or f.guard == "optional", f"{path}:{f.line}"))
    return {source: f"compiled only by {seen[0][1]}, in a module or scope that is optional (an opt-in, a fallback)"
            for source, seen in by.items() if source not in modules and all(optional for optional, _ in seen)}


def _twins(loader: str, files: frozenset[str]) -> list[str]:
    """The CUDA files beside a module that JIT-builds an extension from source text it reads at run time, named as the
    module is (mlc-ai/xgrammar's kernels/apply_token_bitmask_inplace_cuda.py: `load_inline(cuda_sources=[source])`
    of `Path(__file__).with_suffix(".cu")`'s text): the file the module compiles."""
    stem = loader.removesuffix(".py")
    return [stem + suffix for suffix in CUDA_SUFFIXES if stem + suffix in files]


def _below(name: str, base: str, files: frozenset[str]) -> list[str]:
    """The one file named `name` (a bare file name) in the folder `base` or below it, if there is exactly one."""
    if "/" in name or name.startswith("glob:"):
        return []
    found = [p for p in files if posixpath.basename(p) == name and (not base or p.startswith(base + "/"))]
    return found if len(found) == 1 else []


def loaded_only_by_optional(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, str]:
    """CMake modules include()d only from folders a package does not need (a test helper in cmake/)."""
    loads: dict[str, list[str]] = {}
    for path, f in of_kind(facts, "cmake"):
        if f.name == "include" and f.role == "command" and f.text:
            loads.setdefault(posixpath.basename(f.text).removesuffix(".cmake"), []).append(f"{path}:{f.line}")
    return {path: f"include()d only from folders a package does not need ({', '.join(sites[:3])})"
            for path in facts if path.endswith(".cmake") and optional_root(path, known) is None
            and (sites := loads.get(posixpath.basename(path).removesuffix(".cmake")))
            and all(optional_root(site.partition(":")[0], known) is not None for site in sites)}


def _built_for_optional_imports(facts: Mapping[str, Sequence[Fact]], modules: Mapping[str, str],
                                known: Words) -> dict[str, str]:
    """The sources of an extension a setup file builds (`CUDAExtension('swin_window_process', [...])`) whose module
    the project imports, and only in an optional scope (an ImportError fallback) or from optional modules: the
    project runs without it. Not where a run-time `load()` also compiles a source (the fallback builds it anyway);
    the setup file goes with them when it sits in a folder of its own and builds nothing else. An import whose
    ImportError handler binds nothing (`except ImportError: pass`) is no fallback: the code calling the extension fails
    without it (NSVF's fairnr/clib/__init__.py, fast-transformers' aggregate/__init__.py). A test module's
    import (test_*.py: rules/workloads/optional.yaml `test_files`) tests the extension; it is no use of it."""
    imports: dict[str, list[tuple[bool, str]]] = {}  # a module's last name -> (optional?, where)
    for path, items in facts.items():
        if any(fnmatch.fnmatch(posixpath.basename(path), pattern) for pattern in known.test_files):
            continue
        unbound = {(f.name, f.line) for f in items if f.kind == "import_unbound"}
        for f in items:
            if f.kind == "python_import" and f.guard not in ("hip", "cuda"):
                # `try: import ext` / `except ImportError: pass` binds nothing in its place: the module's code that
                # calls the extension has no fallback, so the import is no optional scope (NSVF's fairnr/clib)
                scoped = (f.guard == "optional" and (f.name, f.line) not in unbound) or path in modules
                imports.setdefault(f.name.rpartition(".")[2], []).append((scoped, f"{path}:{f.line}"))
    files = frozenset(facts)
    loaded = {source for path, f in of_kind(facts, "extension") if f.role != "setup"
              and f.text for source in resolve_sources(f.text, posixpath.dirname(path), files)}
    out: dict[str, str] = {}
    for path, items in facts.items():
        built = [f for f in items if f.kind == "extension" and f.role == "setup" and f.text]
        optional = [f for f in built if (seen := imports.get(f.name.rpartition(".")[2]))
                    and all(flag for flag, _ in seen)]
        for f in optional:
            where = imports[f.name.rpartition(".")[2]][0][1]
            sources = [s for s in resolve_sources(f.text, posixpath.dirname(path), files) if s not in modules]
            if any(s in loaded for s in sources):
                continue
            for source in sources:
                out[source] = f"{f.name} (built by {path}:{f.line}) is imported only in an optional scope or module ({where})"
            if optional == built and "/" in path:
                out[path] = f"{path} builds only {f.name}, which is imported only in an optional scope or module ({where})"
    return out
