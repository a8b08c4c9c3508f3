"""The parent's own work runs while the workers analyse (analyse_all's `meanwhile`), and the later stages are not
loaded before the workers fork (docs/decisions/2026-12-06-later-stages-load-while-workers-analyse.md)."""
from __future__ import annotations

import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest
from migrate.scan import analyse, pooling
from migrate.scan.discover import discover
from migrate.settings import Settings
from tests.conftest import ROOT
from tests.test_scan_cache import many_files


def _calls(tree: Path, settings: Settings, rulebase) -> list[int]:
    """How many worker processes were alive at each call of `meanwhile`."""
    alive: list[int] = []
    analyse.analyse_all(discover([tree], include_vendored=False, exclude=()).files, settings, rulebase,
                        meanwhile=lambda: alive.append(len(multiprocessing.active_children())))
    return alive


def test_meanwhile_runs_once_while_the_workers_analyse(tmp_path: Path, rulebase,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pooling, "PARALLEL_BYTES", 0)  # the fixture is small: use the workers anyway
    tree = many_files(tmp_path)
    assert _calls(tree, Settings(jobs=2, cache_dir=None), rulebase) == [2]  # cold, no cache: the workers are up
    assert _calls(tree, Settings(jobs=2, cache_dir=tmp_path / "c"), rulebase) == [2]  # first scan into a cache


def test_meanwhile_runs_once_where_no_worker_starts(tmp_path: Path, rulebase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pooling, "PARALLEL_BYTES", 0)
    tree = many_files(tmp_path)
    assert _calls(tree, Settings(jobs=1, cache_dir=None), rulebase) == [0]  # a serial scan: after its files
    _calls(tree, Settings(jobs=2, cache_dir=tmp_path / "c"), rulebase)
    assert _calls(tree, Settings(jobs=2, cache_dir=tmp_path / "c"), rulebase) == [0]  # every row from the cache


def test_the_scan_path_loads_no_later_stage_before_the_workers_fork() -> None:
    """What a first scan imports up to the fork (the CLI, the report cache, the pipeline and the analysis) leaves
    the workloads' stages, the stack and the renderers to `project.load_later_stages`."""
    code = ("import sys; import migrate.cli.scan, migrate.scan.reportcache, migrate.scan.pipeline, migrate.cli.rules; "
            "print(sorted(m for m in sys.modules if m.startswith(('migrate.workloads.', 'migrate.stack', "
            "'migrate.render.'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    code = "import sys; from migrate.scan import project; project.load_later_stages(); print('migrate.workloads.verdict' " \
           "in sys.modules, 'migrate.stack.assess' in sys.modules, 'migrate.workloads.plan' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True True True"


def test_the_rules_are_built_while_the_workers_analyse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule base builds a rule on first use and nothing before the fork reads them all: `scan_project` builds
    every one with the later stages (while the workers analyse), not in the serial tail after the last row."""
    from migrate.rulebase import precompiled
    from migrate.scan import project

    monkeypatch.setattr(pooling, "PARALLEL_BYTES", 0)
    rules = precompiled.load(None, None)
    assert rules.built == 0
    seen: list[tuple[int, int]] = []
    project.scan_project([many_files(tmp_path)], Settings(jobs=2, cache_dir=tmp_path / "c", use_hipify=False), rules,
                         meanwhile=lambda: seen.append((rules.built, len(multiprocessing.active_children()))))
    assert seen == [(len(rules), 2)]
