"""Rule families and validation checks are data (rules/effort/families.yaml, rules/validation/checks.yaml):
every rule has a family, and the stages read them instead of rule ids written in Python."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from migrate.model import Finding
from migrate.model_report import Workload
from migrate.rulebase import families
from migrate.rulebase.load import load_rules
from migrate.workloads import classify
from migrate.workloads.plan import validation
from tests.conftest import ROOT

WAVE64 = "64-lane wavefronts"
HELP_EXAMPLES = "\b\nExamples:"  # a click command's epilog


def _finding(rule: str, path: str = "k.cu", symbol: str = "s") -> Finding:
    return Finding(rule=rule, path=path, line=1, column=0, end_line=1, end_column=1, symbol=symbol, message="m",
                   hip=None, hipify="yes", confidence="high", migration_class="migration-required")


def test_every_rule_has_a_family() -> None:
    rule_families = families.load()
    orphans = [r.id for r in load_rules(ROOT / "rules").rules if rule_families.of(r.id) is None]
    assert orphans == []


def test_a_rule_outside_every_family_is_found(tmp_path: Path) -> None:
    (tmp_path / "effort").mkdir()
    (tmp_path / "validation").mkdir()
    (tmp_path / "effort" / "families.yaml").write_text("- {name: device, code: c, title: t, prefixes: [HIP4]}\n")
    (tmp_path / "validation" / "checks.yaml").write_text("[]\n")
    loaded = families.load(tmp_path)
    assert loaded.of("HIP4002") is not None and loaded.of("HIP3001") is None


def test_a_family_without_a_known_code_is_refused(tmp_path: Path) -> None:
    (tmp_path / "effort").mkdir()
    (tmp_path / "effort" / "families.yaml").write_text("- {name: device, code: cuda, title: t, prefixes: [HIP4]}\n")
    (tmp_path / "validation").mkdir()
    (tmp_path / "validation" / "checks.yaml").write_text("[]\n")
    with pytest.raises(ValueError, match="code must be one of"):
        families.load(tmp_path)


def test_checks_name_known_families() -> None:
    rule_families = families.load()
    names = {f.name for f in rule_families.families}
    assert all(c.families <= names for c in rule_families.checks)
    assert {c.name for c in rule_families.checks} == {"kernel-outputs", "wave64", "library-results"}


PORTED = Workload(name="app", root=".", kind="app", files=("k.cu",), verdicts=())


@pytest.mark.parametrize("rule", ["HIP4010", "HIP4027", "HIP4033", "HIP4040", "HIP4068", "HIP4083"])
def test_warp_and_lane_mask_rules_ask_for_a_wave64_run(rule: str) -> None:
    assert any(WAVE64 in check for check in validation(PORTED, [_finding(rule)]))


@pytest.mark.parametrize("rule", ["HIP4002", "HIP1100", "HIP6001"])
def test_other_rules_do_not_ask_for_a_wave64_run(rule: str) -> None:
    assert not any(WAVE64 in check for check in validation(PORTED, [_finding(rule)]))


def test_c_rules_in_python_files_are_embedded_cuda() -> None:
    """A C-family finding in a Python file is CUDA in a string, which the framework's build hipifies."""
    assert classify.converted_by_build(_finding("HIP1100", path="ops.py"), "package")
    assert not classify.converted_by_build(_finding("HIP6001", path="ops.py"), "package")
    assert not classify.converted_by_build(_finding("HIP1100", path="ops.cu"), "package")


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings (what code compares or emits)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_rule_id_in_python_code_outside_lints_own_rules() -> None:
    """Rule ids in code are data kept in Python; comments and docstrings that name the rules a
    recogniser serves are documentation, as are the commands' help examples, and lint's own rules
    (HIP09xx) are lint's."""
    ids = re.compile(r"\bHIP(?!09\d\d)\d{4}")
    hits = [f"{path.relative_to(ROOT)}:{line}: {text[:60]}" for path in sorted((ROOT / "migrate").rglob("*.py"))
            for line, text in _code_strings(path) if ids.search(text) and not text.startswith(HELP_EXAMPLES)]
    assert hits == []


def test_rule_ids_in_migrate_are_lints_own_only() -> None:
    """Not in comments or help either (the issue's grep): recognisers and examples name rules by name."""
    ids = re.compile(r"\bHIP(?!09\d\d)\d{4}")
    hits = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "migrate").rglob("*.py"))
            for n, line in enumerate(path.read_text().splitlines(), 1) if ids.search(line)]
    assert hits == []
