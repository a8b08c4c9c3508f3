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
    "scan.cache": {"model"}, "scan.readfile": {"model"}, "scan.statcache": {"scan.cache", "scan.readfile"},
    "scan.discover": {"model", "vcs"},
    "rulebase": set(), "settings": {"rulebase", "settings_schema"},
    "extract": {"scan.cache", "scan.readfile"},
    "scan.crossref": set(),
    "scan.match": {"rulebase", "scan.crossref"},
    "scan.analyse": {"scan.cache", "extract", "scan.match", "scan.readfile", "rulebase", "settings", "workloads"},
    "hipify": {"scan.match", "rulebase", "settings", "scan.discover"},
    "precise": {"scan.match", "rulebase", "settings"},
    "hipclang": {"rulebase", "precise", "settings", "hipify", "extract"},
    "workloads": {"rulebase"},
    "vcs": set(),
    "scan.pipeline": {"scan.cache", "scan.discover", "extract", "scan.match", "scan.analyse", "hipify", "precise",
                      "hipclang", "workloads", "rulebase", "settings", "scan.portfolio", "vcs", "stack"},
    "scan.reportcache": {"scan.cache", "scan.statcache", "scan.discover", "rulebase", "settings", "vcs", "render",
                         "hipify", "scan.pipeline"},
    "scan.portfolio": {"scan.pipeline", "rulebase", "settings", "vcs"},
    "lint": {"scan.cache", "scan.discover", "extract", "scan.match", "rulebase", "settings", "render", "vcs",
             "scan.analyse", "scan.statcache"},
    "render": set(),
    "stack": {"rulebase"},
    "validate": {"scan.cache", "scan.pipeline", "settings", "scan.discover", "extract", "render", "rulebase"},
    "inventory": {"scan.cache", "scan.pipeline", "settings", "rulebase", "render", "vcs"},
    "cli": {"*"}, "__main__": {"cli"},
}
EXCEPTIONS = {("migrate/hipify/convert.py", "scan.pipeline"), ("migrate/hipify/todo.py", "scan.pipeline"),
              ("migrate/hipclang/check.py", "scan.pipeline"),
              ("migrate/lint/run.py", "workloads"),  # lint: workloads.classify only, for the effective class
              ("migrate/lint/project.py", "workloads"),  # lint: workloads.parts, the project around the files
              # the rule families of the effort calibration: to move into the report
              ("migrate/render/html_report.py", "workloads")}


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
        allowed = {"model", "render", "__version__", "vocabulary", "jsonio", "safetext", "schemas"}
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
