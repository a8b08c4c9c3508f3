"""docs/rules is generated from the rule files and must be current; explain renders the same record."""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT, run_cli


def test_rule_docs_are_current() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_docs.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_rules_listing_filters() -> None:
    lines = run_cli("rules", "--family", "device", "--class", "migration-required").stdout.splitlines()
    assert lines and all(line.startswith("HIP4") and " migration-required " in line for line in lines)
    assert any(line.startswith("HIP4003 ") for line in lines)
    assert any(line.startswith("HIP4030 ") for line in lines)  # listed under its class, not only absent elsewhere
    assert not any(line.startswith("HIP4030 ") for line in run_cli(
        "rules", "--family", "device", "--class", "incompatible").stdout.splitlines())


def test_explain_by_name_shows_table_entries() -> None:
    out = run_cli("explain", "cuda-runtime-api-memory-management").stdout
    assert out.startswith("HIP1100 (cuda-runtime-api-memory-management): CUDA runtime API, Memory Management")
    assert "  cudaFree -> hipFree  (since 1.5.0)" in out
