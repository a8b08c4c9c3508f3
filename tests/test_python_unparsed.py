"""A .py file Python 3 cannot parse is read by lines (migrate/extract/python/unparsed.py): its imports outside strings
and the CUDA kernels of its triple-quoted strings (or of the whole file, CUDA C saved as .py)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ROOT, run_cli

TREES = ROOT / "fixtures" / "trees"


def scan(tree: Path) -> dict:
    result = run_cli("scan", str(tree), "--format", "json", "--no-cache", "--no-hipify")
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def rules(report: dict) -> set[str]:
    return {f["rule"] for f in report["findings"]}


def test_python2_pycuda_kernel_string_is_read() -> None:
    report = scan(TREES / "python2_pycuda")
    assert report["summary"]["class"] == "migration-required"
    lines = {f["line"] for f in report["findings"] if f["path"] == "kmeans.py"}
    assert 3 in lines  # the pycuda import
    assert any(9 <= line <= 17 for line in lines)  # the kernel in the string


def test_python2_without_gpu_code_stays_native() -> None:
    report = scan(TREES / "python2_plain")
    assert report["summary"]["class"] == "native"
    assert not report["findings"]


def test_listings_of_kernels_are_read() -> None:
    report = scan(TREES / "listing_rawkernel")
    files = {f["path"] for f in report["findings"]}
    assert {"listing2.py", "listing5.py"} <= files
    assert report["summary"]["class"] != "native"
