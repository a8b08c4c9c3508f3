"""The info level: hints (low confidence, tuning parameters) never move a class and are left out of
the text and HTML findings lists unless `--show-info` (through the real CLI)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import run_cli

TRITON = '''import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=8)], key=["n"])
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n), mask=offs < n)
'''


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tritonadd"
    (root / "tritonadd").mkdir(parents=True)
    (root / "tritonadd" / "kernels.py").write_text(TRITON)
    return root


def scan(root: Path, *extra: str) -> str:
    result = run_cli("scan", str(root), "--no-cache", "--no-hipify", *extra)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_tuning_hint_is_info_and_decides_nothing(tmp_path: Path) -> None:
    report = json.loads(scan(tree(tmp_path), "--format", "json"))
    [hint] = report["findings"]
    assert (hint["rule"], hint["info"], hint["class"]) == ("HIP6015", True, "native")
    assert report["summary"]["class"] == "native" and report["workloads"][0]["reasons"] == []
    assert report["plan"]["risks"] == []


def test_text_leaves_info_out_unless_asked(tmp_path: Path) -> None:
    root = tree(tmp_path)
    plain = scan(root)
    assert "Top rules" not in plain
    assert "1 info findings (hints: low confidence, tuning parameters) not listed; --show-info lists them." in plain
    shown = scan(root, "--show-info")
    assert re.search(r"HIP6015 │ info +│ +1 │ +\S+ │ tritonadd/kernels.py:5 num_warps=8", shown)
    assert "not listed" not in shown


def test_html_findings_table_leaves_info_out_unless_asked(tmp_path: Path) -> None:
    root = tree(tmp_path)
    plain = scan(root, "--format", "html")
    rows = re.search(r'id="findings-data">(.*?)</script>', plain, re.S)
    assert rows and json.loads(rows.group(1)) == []
    assert "1 info findings" in plain
    shown = scan(root, "--format", "html", "--show-info")
    rows = re.search(r'id="findings-data">(.*?)</script>', shown, re.S)
    assert rows and [r[1] for r in json.loads(rows.group(1))] == ["HIP6015"]
