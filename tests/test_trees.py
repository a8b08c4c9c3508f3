"""Whole-tree fixtures: each fixtures/trees/<name>/ is scanned and compared with its expected.txt.

expected.txt has one finding per line, `path:line:col: RULE class symbol`, then the
workload class. Regenerate with `pytest --update-golden` and review the diff by eye."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

TREES = sorted(p for p in (ROOT / "fixtures" / "trees").iterdir() if p.is_dir()) \
    if (ROOT / "fixtures" / "trees").is_dir() else []


def summary(tree: Path, rulebase) -> str:
    report = scan.run([tree], Settings(jobs=1, cache_dir=None), rulebase)
    lines = [f"{f.path}:{f.line}:{f.column}: {f.rule} {f.migration_class} {f.symbol}"
             + (f" (cell {f.cell})" if f.cell else "") for f in report.findings]
    lines += [f"skipped {s.path}: {s.reason}" for s in report.skipped]
    lines += [f"workload {w.name}: {w.migration_class}" for w in report.workloads]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_tree_matches_expected(tree: Path, rulebase, update_golden: bool) -> None:
    expected = tree / "expected.txt"
    actual = summary(tree, rulebase)
    if update_golden or not expected.exists():
        expected.write_text(actual)
        if not update_golden:
            pytest.fail(f"{expected} was missing and has been written: review it")
    assert actual == expected.read_text()
