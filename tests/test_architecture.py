"""The folder tree is the architecture (docs/architecture.md): every import between the
project's packages is an edge the table allows."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "migrate"
# the bottom layer
BASE = {"model", "model_report", "vocabulary", "compat", "jsonio", "safetext", "readfile", "schemas", "__version__"}
ALLOWED: dict[str, set[str]] = {
    "model": set(), "model_report": set(), "vocabulary": set(), "compat": set(), "jsonio": set(), "safetext": set(),
    "schemas": set(), "settings_schema": set(),
    "cache": {"model"}, "readfile": {"model"}, "statcache": {"cache", "readfile"}, "discover": {"model", "vcs"},
    "rulebase": set(), "settings": {"rulebase", "settings_schema"},
    "extract": {"cache", "readfile"},
    "crossref": set(),
    "match": {"rulebase", "crossref"},
    "analyse": {"cache", "extract", "match", "readfile", "rulebase", "settings", "workloads"},
    "hipify": {"match", "rulebase", "settings", "discover"},
    "precise": {"match", "rulebase", "settings"},
    "hipclang": {"rulebase", "precise", "settings", "hipify", "extract"},
    "workloads": {"rulebase"},
    "vcs": set(),
    "pipeline": {"cache", "discover", "extract", "match", "analyse", "hipify", "precise", "hipclang", "workloads", "rulebase",
                 "settings", "portfolio", "vcs", "stack"},
    "reportcache": {"cache", "statcache", "discover", "rulebase", "settings", "vcs", "render", "hipify", "pipeline"},
    "portfolio": {"pipeline", "rulebase", "settings", "vcs"},
    "lint": {"cache", "discover", "extract", "match", "rulebase", "settings", "render", "vcs", "analyse", "statcache"},
    "render": set(),
    "stack": {"rulebase"},
    "validate": {"cache", "pipeline", "settings", "discover", "extract", "render", "rulebase"},
    "inventory": {"cache", "pipeline", "settings", "rulebase", "render", "vcs"},
    "cli": {"*"}, "__main__": {"cli"},
}
EXCEPTIONS = {("migrate/hipify/convert.py", "pipeline"), ("migrate/hipify/todo.py", "pipeline"),
              ("migrate/hipclang/check.py", "pipeline"),
              ("migrate/lint/run.py", "workloads"),  # lint: workloads.classify only, for the effective class
              ("migrate/lint/project.py", "workloads"),  # lint: workloads.parts, the project around the files
              # the rule families of the effort calibration: to move into the report
              ("migrate/render/html_report.py", "workloads")}


def _unit(dotted: str) -> str:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "migrate"


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "migrate":
            out |= {_unit(f"migrate.{a.name}") for a in node.names} if node.module == "migrate" else {_unit(node.module)}
        elif isinstance(node, ast.Import):
            out |= {_unit(a.name) for a in node.names if a.name.split(".")[0] == "migrate"}
    return out


def test_every_package_is_in_the_table() -> None:
    units = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"} | {p.name for p in PACKAGE.iterdir()
                                                                               if (p / "__init__.py").exists()}
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
