"""One shared, deterministic report for the renderer golden tests (the demo repository)."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from migrate.model_report import Report
from migrate.rulebase.load import load_rules
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT


@lru_cache(maxsize=1)
def demo_report() -> Report:
    """Without hipify-perl whatever the machine has (tests/test_hipify.py has the golden with it), and
    outside any checkout (the clone's place in git is no part of the golden)."""
    report = scan.run([ROOT / "fixtures" / "repos" / "demo"], Settings(jobs=1, cache_dir=None, use_hipify=False),
                      load_rules())
    return replace(report, root="/srv/demo", seconds=0.5, tool_version="0.0.0", rules_version="0.0.0+test",
                   scanned_at="2026-01-01T00:00:00+00:00", repository_prefix=None)
