"""validate plan: the checks follow from what the scan found, one fixture per check kind (markers
`plan: <check>` on the lines that must be cited), the demo repository, real repositories, and the outputs."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from migrate.validate import plan as planning
from migrate.validate import render_plan
from tests.conftest import ROOT, run_cli

PLANS = ROOT / "fixtures" / "validate" / "plan"
SCHEMA = json.loads((ROOT / "docs" / "validate-plan.schema.json").read_text())
MARKER = re.compile(r"plan: ([a-z-]+)")
MIRROR = ROOT.parent / ".mirror"
REAL = json.loads((PLANS / "real-repos.json").read_text())


def _markers(tree: Path) -> set[tuple[str, str, int]]:
    out = set()
    for path in tree.rglob("*"):
        if path.is_file():
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                out |= {(m, path.relative_to(tree).as_posix(), number) for m in MARKER.findall(line)}
    return out


def _plan(tree: Path) -> planning.Plan:
    return planning.plan_paths([tree], use_cache=False)


def _cited(result: planning.Plan) -> set[tuple[str, str, int]]:
    return {(c.id, e.path, e.line) for w in result.workloads for c in w.checks for e in c.evidence}


@pytest.mark.parametrize("kind", ["checkpoint", "collectives", "collectives_nccl", "precision", "custom_ops", "input_pipeline",
                                  "optimizer"])
def test_each_check_kind_follows_from_its_findings(kind: str) -> None:
    tree = PLANS / kind
    result = _plan(tree)
    expected = _markers(tree)
    assert expected, "the fixture marks the lines the plan must cite"
    assert expected <= _cited(result)
    ids = {c.id for w in result.workloads for c in w.checks}
    assert ids == {"numerics"} | {m[0] for m in expected}  # nothing more than the findings justify


def test_code_without_gpu_use_needs_no_checks() -> None:
    result = _plan(PLANS / "no_gpu")
    assert [w.checks for w in result.workloads] == [()]
    assert "no GPU code, nothing to validate" in render_plan.terminal(result)


def test_the_demo_repository_plan() -> None:
    result = _plan(ROOT / "fixtures" / "repos" / "demo")
    by_name = {w.name: {c.id for c in w.checks} for w in result.workloads}
    assert by_name["fastattn"] == {"numerics", "custom-ops", "optimizer", "precision"}
    optimizer = next(c for w in result.workloads if w.name == "fastattn" for c in w.checks if c.id == "optimizer")
    assert [(e.path, e.line, e.symbol) for e in optimizer.evidence] == [("fastattn/model.py", 78, "torch.optim.AdamW")]
    assert optimizer.runner == ("param_deltas", "loss", "checkpoint")  # the optimizer's state round trip too
    assert by_name["fastattn_cuda"] == {"numerics", "custom-ops"}  # a torch extension: its ops, forward and backward
    custom = next(c for w in result.workloads if w.name == "fastattn" for c in w.checks if c.id == "custom-ops")
    assert ("setup.py", 14, "torch.utils.cpp_extension.CUDAExtension") in {(e.path, e.line, e.symbol) for e in custom.evidence}
    jsonschema.Draft202012Validator(SCHEMA).validate(result.to_json())


@pytest.mark.parametrize("entry", REAL, ids=lambda e: e["repo"])
def test_real_repositories(entry: dict, tmp_path: Path) -> None:
    git_dir = MIRROR / entry["repo"].replace("/", "+") / "repo"
    if not git_dir.is_dir():
        pytest.skip(f"the fetched repository {entry['repo']} is not on this machine ({git_dir})")
    tree = tmp_path / entry["repo"].replace("/", "+")
    tree.mkdir()
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", entry["commit"]], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    result = _plan(tree)
    got = {w.name: sorted(c.id for c in w.checks) for w in result.workloads if w.checks}
    assert got == entry["checks"]
    for check_id, path, line in entry["evidence"]:
        assert (check_id, path, line) in _cited(result)


def test_cli_plan_formats(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(PLANS / "collectives_nccl", tree)
    out_json, out_md, out_html = tmp_path / "p.json", tmp_path / "p.md", tmp_path / "p.html"
    result = run_cli("validate", "plan", str(tree), "-f", "json", "-o", str(out_json), "--markdown-output",
                     str(out_md), "--html-output", str(out_html))
    assert result.returncode == 0, result.stderr
    data = json.loads(out_json.read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert data["summary"]["checks"] == ["collectives", "numerics"]
    assert "| Collectives and a DDP step | comm.cu:2 nccl.h (+" in out_md.read_text()
    html = out_html.read_text()
    assert '<section class="validation-plan" id="validation-plan">' in html and "<code>ddp</code>" in html
    terminal = run_cli("validate", "plan", str(tree))
    assert terminal.returncode == 0 and "collectives" in terminal.stdout


def test_cli_plan_usage_error() -> None:
    result = run_cli("validate", "plan", "no/such/dir")
    assert result.returncode == 2
