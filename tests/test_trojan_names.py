"""The Trojan-name case: file names (and a repository folder) with escape sequences, bidi overrides
(U+202E, Trojan Source), tag characters, a carriage return and spreadsheet formulas, read back from
every output: scan (text, terminal, JSON, HTML, Markdown, SARIF, CSV), lint (text, JSON, SARIF) and
inventory (JSON, CSV, HTML). No output may hold a raw control, bidi or tag character, and no CSV
cell may start a formula."""
from __future__ import annotations

import csv
import io
import re

import pytest
from tests.conftest import run_cli

CUDA = "void f(float** p) { cudaMalloc(p, 4); }\n"
NAMES = ["\x1b[2J\x1b]0;pwned\x07.cu", "bidi\u202euc.cu", "tag\U000e0041\U000e0042.cu", "\r=1+1.cu", "=SUM(A1).cu",
         "@cmd.cu", "+x.cu", "-x.cu", "\tt.cu", "zw\u200bsp.cu"]
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
FORMULA = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    work = tmp_path_factory.mktemp("trojan")
    repo, out = work / "=HYPERLINK(1)", work / "out"
    repo.mkdir()
    out.mkdir()
    for name in NAMES:
        (repo / name).write_text(CUDA)
    scan = run_cli("scan", str(repo), "-f", "text", "-o", str(out / "r.txt"), "--json-output", str(out / "r.json"),
                   "--html-output", str(out / "r.html"), "--markdown-output", str(out / "r.md"),
                   "--sarif-output", str(out / "r.sarif"), "--csv-output", str(out / "r.csv"))
    assert scan.returncode == 0, scan.stderr
    texts = {"scan stderr": scan.stderr}
    terminal = run_cli("scan", str(repo), "-f", "terminal", "-o", "-", "--plan")
    texts.update({"terminal": terminal.stdout, "terminal stderr": terminal.stderr})
    for fmt in ("text", "json", "sarif"):
        lint = run_cli("lint", str(repo), "--format", fmt)
        assert lint.returncode == 1, lint.stderr
        texts[f"lint {fmt}"] = lint.stdout + lint.stderr
    inventory = run_cli("inventory", str(out / "r.json"), "--out", str(work / "inventory"))
    assert inventory.returncode == 0, inventory.stderr
    texts["inventory stdout"] = inventory.stdout + inventory.stderr
    for folder in (out, work / "inventory"):
        for path in folder.iterdir():
            if path.is_file():
                texts[f"{folder.name}/{path.name}"] = path.read_text(encoding="utf-8")
    return texts


def test_every_output_is_read(outputs: dict[str, str]) -> None:
    assert {"out/r.txt", "out/r.json", "out/r.html", "out/r.md", "out/r.sarif", "out/r.csv", "terminal", "lint json",
            "inventory/inventory.json", "inventory/inventory.csv", "inventory/inventory.html"} <= set(outputs)
    assert "bidi\\u202euc.cu" in outputs["lint text"] and "bidi\\u202euc.cu" in outputs["out/r.html"]  # shown visibly


def test_no_output_holds_a_raw_control_bidi_or_tag_character(outputs: dict[str, str]) -> None:
    raw = {name: sorted(set(RAW.findall(text.replace("\n", "").replace("\t", "")))) for name, text in outputs.items()}
    assert {name: found for name, found in raw.items() if found} == {}


@pytest.mark.parametrize("name", ["out/r.csv", "inventory/inventory.csv"])
def test_csv_quotes_every_field_and_starts_no_formula(outputs: dict[str, str], name: str) -> None:
    text = outputs[name]
    assert "\r" not in text
    assert all(line.startswith('"') for line in text.splitlines())
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) > 1 and all(len(row) == len(rows[0]) for row in rows)
    assert [cell for row in rows for cell in row if cell.startswith(FORMULA)] == []
