"""A portfolio scan gives each project exactly the result it gets alone (issue 19): the three-repository
case of llm.c, gsplat and timm, reduced to fixture trees with the same `types` / `datasets` clashes."""
from __future__ import annotations

import json

from migrate.model import Fact
from migrate.workloads.assemble import Spec
from migrate.workloads.graph import DependencyGraph
from tests.conftest import run_cli

CLASH = "fixtures/workloads/portfolio_clash"
ORDER = ("llmkernels", "splatlib", "imagemodels")  # imagemodels' own settings matter: it is not first
SOLO_CLASSES = {"llmkernels": "migration-required", "splatlib": "incompatible", "imagemodels": "native"}


def scan(*names: str) -> dict:
    result = run_cli("scan", *(f"{CLASH}/{n}" for n in names), "-f", "json", "--no-cache", "--no-hipify")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def strip(path: str, prefix: str) -> str:
    assert path == prefix or path.startswith(prefix + "/"), (path, prefix)
    return "." if path == prefix else path[len(prefix) + 1:]


def project_view(report: dict, project: dict | None) -> dict:
    """A project's workloads and findings, paths relative to the project and workloads named by root."""
    prefix = project["root"] if project else None
    members = [w for w in report["workloads"] if project is None or w["name"] in project["workloads"]]
    local = (lambda p: p) if prefix is None else (lambda p: strip(p, prefix))
    by_name = {w["name"]: local(w["root"]) for w in members}
    workloads = {
        local(w["root"]): {"kind": w["kind"], "class": w["class"], "effort": w["effort_hours"],
                           "reason_rules": w["reason_rules"], "files": [local(f) for f in w["files"]],
                           "depends_on": sorted(by_name[d] for d in w["depends_on"]),
                           "chain": [step[len(prefix) + 1:] if prefix else step for step in w["chain"]],
                           "targets": {a: t["class"] for a, t in w["targets"].items()}}
        for w in members}
    findings = sorted((f["rule"], local(f["path"]), f["line"], f["column"], f["class"], f["symbol"],
                       by_name[f["workload"]]) for f in report["findings"] if f["workload"] in by_name)
    return {"workloads": workloads, "findings": findings}


def test_each_project_of_a_portfolio_gets_its_solo_result() -> None:
    portfolio = scan(*ORDER)
    projects = {p["name"]: p for p in portfolio["projects"]}
    assert {n: p["class"] for n, p in projects.items()} == SOLO_CLASSES
    for name in ORDER:
        solo = scan(name)
        assert solo["summary"]["class"] == SOLO_CLASSES[name]
        assert projects[name]["effort_hours"] == solo["summary"]["effort_hours"]
        assert project_view(portfolio, projects[name]) == project_view(solo, None), name


def test_stdlib_and_dependency_names_do_not_resolve_to_another_projects_files() -> None:
    portfolio = scan(*ORDER)
    for workload in portfolio["workloads"]:
        assert workload["chain"] == [], workload["name"]  # nothing inherits across projects
    names = {w["name"]: w for w in portfolio["workloads"]}
    assert names["docs"]["root"] == "llmkernels/docs"  # the first project keeps the name, the next is qualified
    assert names["docs (splatlib/docs)"]["root"] == "splatlib/docs"


def test_each_project_reads_its_own_settings() -> None:
    portfolio = scan(*ORDER)
    files = {f for w in portfolio["workloads"] for f in w["files"]}
    assert "imagemodels/imagemodels/layers.py" in files
    assert not any(f.startswith("imagemodels/legacy/") for f in files)  # excluded by imagemodels/.rocm-migrate.toml


def test_a_stdlib_name_does_not_resolve_to_a_deep_module_of_the_same_name() -> None:
    specs = [Spec("app", "app", "python", ["app/main.py"]),
             Spec("kernels", "kernels", "python", ["kernels/pkg/types.py", "kernels/pkg/__init__.py"])]
    imports = {"app/main.py": (Fact(kind="python_import", name="types", line=1, column=1, end_line=1, end_column=13),)}
    assert DependencyGraph(specs, imports).direct("app") == []  # the standard library's types
    imports = {"app/main.py": (Fact(kind="python_import", name="pkg.types", line=1, column=1, end_line=1,
                                    end_column=17),)}
    assert DependencyGraph(specs, imports).direct("app") == ["kernels"]  # a project package still resolves


def test_a_portfolios_hand_hours_per_rule_are_the_sum_of_its_projects(rulebase) -> None:
    from pathlib import Path

    from migrate.scan import pipeline
    from migrate.settings import Settings

    settings = Settings(jobs=1, cache_dir=None, use_hipify=False)
    folders = [Path(CLASH) / name for name in ("llmkernels", "splatlib")]
    solo = [pipeline.run([folder], settings, rulebase).rule_hours for folder in folders]
    merged = pipeline.run(folders, settings, rulebase).rule_hours
    shared = set(solo[0]) & set(solo[1])
    assert shared  # a rule both projects have: the sum is checked, not one side
    assert merged == {rule: round(solo[0].get(rule, 0.0) + solo[1].get(rule, 0.0), 2) for rule in set(solo[0]) | set(solo[1])}
