"""The folder tree is the architecture (docs/architecture.md): every import between the
project's packages is an edge the table allows."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "migrate"
# the bottom layer
BASE = {"model", "model_report", "vocabulary", "compat", "jsonio", "safetext", "scan.readfile", "schemas",
        "__version__"}
ALLOWED: dict[str, set[str]] = {
    "model": set(), "model_report": set(), "vocabulary": set(), "compat": set(), "jsonio": set(), "safetext": set(),
    "schemas": set(), "settings_schema": set(),
    "scan.cache": {"model", "scan.storedfiles"}, "scan.storedfiles": set(), "scan.replay": {"scan.storedfiles", "rulebase"},
    "scan.readfile": {"model", "scan.build_output"}, "scan.build_output": {"rulebase"},
    "scan.pooling": set(),
    "scan.statcache": {"scan.cache", "scan.readfile", "rulebase"},
    "scan.discover": {"model", "vcs", "scan.vendored", "rulebase"}, "scan.vendored": {"rulebase"},
    "rulebase": set(), "settings": {"rulebase", "settings_schema"},
    "extract": {"scan.cache", "scan.readfile", "scan.replay", "rulebase"},  # rulebase: datafile, name lists
    "scan.crossref": {"rulebase"},  # rulebase: the header suffixes (rules/names/build.yaml)
    "scan.own_headers": set(),
    "scan.layout": {"rulebase"},
    "scan.match": {"rulebase", "scan.crossref", "scan.layout", "scan.own_headers"},
    "scan.analyse": {"scan.cache", "scan.pooling", "extract", "scan.match", "scan.layout", "scan.readfile", "rulebase",
                     "settings", "workloads"},
    "hipify": {"scan.match", "rulebase", "settings", "scan.discover"},
    "precise": {"scan.match", "rulebase", "settings"},
    "hipclang": {"rulebase", "precise", "settings", "hipify", "extract"},
    "workloads": {"rulebase"},
    "vcs": {"scan.replay"},
    "scan.project": {"scan.cache", "scan.discover", "extract", "scan.match", "scan.layout", "scan.analyse", "hipify",
                     "precise",
                     "hipclang", "workloads", "rulebase", "settings", "vcs", "stack"},
    "scan.portfolio": {"scan.project", "rulebase", "settings", "vcs"},
    "scan.pipeline": {"scan.project", "scan.portfolio", "scan.cache", "scan.discover", "extract", "rulebase",
                      "settings", "workloads", "hipclang"},
    "scan.reportcache": {"scan.cache", "scan.statcache", "scan.pooling", "scan.discover", "rulebase", "settings", "vcs", "render",
                         "hipify", "scan.pipeline"},
    "lint": {"scan.cache", "scan.discover", "extract", "scan.match", "scan.layout", "rulebase", "settings", "render", "vcs",
             "scan.analyse", "scan.statcache"},
    "render": set(),
    "stack": {"rulebase"},
    "validate": {"scan.cache", "scan.pipeline", "scan.project", "settings", "scan.discover", "extract", "render",
                 "rulebase"},
    "inventory": {"scan.cache", "scan.pipeline", "settings", "rulebase", "render", "vcs"},
    "cli": {"*"}, "__main__": {"cli"},
}
EXCEPTIONS = {("migrate/hipify/convert.py", "scan.pipeline"), ("migrate/hipify/todo.py", "scan.pipeline"),
              ("migrate/hipclang/check.py", "scan.pipeline"),
              ("migrate/lint/run.py", "workloads"),  # lint: workloads.classify only, for the effective class
              ("migrate/lint/project.py", "workloads"),  # lint: workloads.parts, the project around the files
              ("migrate/workloads/costs.py", "scan.layout"),  # effort: the per-back-end files a port twins
              ("migrate/workloads/parts.py", "scan.layout")}  # ported: CUDA members whose HIP twin is there


# packages each module of which is a layer of its own (the scan path: discover -> read -> cache ->
# extract/match -> join): a lower stage may use `scan.readfile` without depending on `scan.pipeline`
LAYERED_PACKAGES = {"scan"}


def _unit(dotted: str) -> str:
    parts = dotted.split(".")
    if len(parts) > 2 and parts[1] in LAYERED_PACKAGES:
        return f"{parts[1]}.{parts[2]}"
    return parts[1] if len(parts) > 1 else "migrate"


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "migrate":
            package = node.module in {"migrate"} | {f"migrate.{p}" for p in LAYERED_PACKAGES}
            out |= {_unit(f"{node.module}.{a.name}") for a in node.names} if package else {_unit(node.module)}
        elif isinstance(node, ast.Import):
            out |= {_unit(a.name) for a in node.names if a.name.split(".")[0] == "migrate"}
    return out


def test_every_package_is_in_the_table() -> None:
    units = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"} | {p.name for p in PACKAGE.iterdir()
                                                                               if (p / "__init__.py").exists()
                                                                               and p.name not in LAYERED_PACKAGES}
    units |= {f"{name}.{p.stem}" for name in LAYERED_PACKAGES for p in (PACKAGE / name).glob("*.py")
              if p.stem != "__init__"}
    assert units <= set(ALLOWED), f"add {sorted(units - set(ALLOWED))} to docs/architecture.md and ALLOWED here"


def test_imports_follow_the_pipeline() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        unit = _unit(".".join(path.relative_to(ROOT).with_suffix("").parts))
        allowed = ALLOWED.get(unit, set()) | BASE | {unit}
        for target in _imports(path) - allowed:
            entry_point = path.name == "__main__.py" and target == "cli"
            if "*" not in allowed and (rel, target) not in EXCEPTIONS and not entry_point:
                wrong.append(f"{rel} imports migrate.{target}")
    assert not wrong, "imports against docs/architecture.md:\n" + "\n".join(wrong)


def test_renderers_import_only_the_model() -> None:
    for path in (PACKAGE / "render").glob("*.py"):
        excepted = {target for rel, target in EXCEPTIONS if rel == path.relative_to(ROOT).as_posix()}
        allowed = {"model", "model_report", "render", "__version__", "vocabulary", "jsonio", "safetext", "schemas"}
        assert _imports(path) - excepted <= allowed, path.name


# Each external library behind one small adapter module (docs/architecture.md): who may import it.
ADAPTERS = {
    "tree_sitter": {"migrate/extract/c/ts.py"},
    "clang": {"migrate/precise/clang.py"},
    "jinja2": {"migrate/render/templates.py",  # renders the HTML and Markdown reports
               "migrate/extract/jinja.py"},  # lexes scanned templates, never renders them
}


def test_each_library_has_its_adapters() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            wrong += [f"{rel} imports {n}" for n in names if n.split(".")[0] in ADAPTERS
                      and rel not in ADAPTERS[n.split(".")[0]]]
    assert not wrong, "\n".join(wrong)


MAX_TOP_LEVEL_MODULES = 12  # a new concept gets a package, not another module beside the records


def test_the_top_of_the_package_stays_small() -> None:
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(modules) <= MAX_TOP_LEVEL_MODULES, f"{len(modules)} top-level modules: {modules}"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The nodes under `if TYPE_CHECKING:`, which never run."""
    return {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for statement in node.body for inner in ast.walk(statement)}


def _run_time_imports(path: Path, modules: set[str]) -> set[str]:
    """The project's modules `path` imports when it runs: at the top or inside a function (a deferred
    import is still an edge), not under TYPE_CHECKING; `from package import name` is the submodule
    when `name` is one."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("migrate"):
            out |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in modules}
    return out - {_module_name(path)}


def _a_cycle(edges: dict[str, set[str]]) -> list[str]:
    """One import cycle (its modules in order, the first repeated at the end), or [] when there is none."""
    state: dict[str, str] = {}  # "open" while on the path, "done" once every module below it is seen
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = "open"
        path.append(module)
        for target in sorted(edges.get(module, ())):
            if state.get(target) == "open":
                return [*path[path.index(target):], target]
            if target not in state and (found := visit(target)):
                return found
        state[module] = "done"
        path.pop()
        return []

    for module in sorted(edges):
        if module not in state and (found := visit(module)):
            return found
    return []


def test_no_import_cycle_at_run_time() -> None:
    """Code lives where what it needs is below it: no cycle, not even one a deferred import hides."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges = {name: _run_time_imports(path, set(paths)) for name, path in paths.items()}
    cycle = _a_cycle(edges)
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _a_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _a_cycle({"a": {"b"}, "b": {"c"}, "d": {"a", "c"}}) == []


# Packages whose public functions take at most three positional parameters, the rest keyword-only
# (the owners' standard; the others follow as they are worked on).
KEYWORD_ONLY_PACKAGES = ("scan",)


def test_public_functions_take_at_most_three_positional_parameters() -> None:
    wrong = []
    for package in KEYWORD_ONLY_PACKAGES:
        for path in sorted((PACKAGE / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
                    positional = [a for a in [*node.args.posonlyargs, *node.args.args] if a.arg not in ("self", "cls")]
                    if len(positional) > 3:
                        wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not wrong, "more than three positional parameters:\n" + "\n".join(wrong)
