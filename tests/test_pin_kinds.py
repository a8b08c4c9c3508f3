"""Every pin kind (vocabulary.PIN_KINDS) through every output format of a scan and through `stack`,
alone and beside a range pin of the same package (the stack table then ranks them). A
`torch==${{ matrix.torch }}` in a CI file beside `torch>=2.0` once crashed the text, Markdown,
terminal and stack outputs (the table had no rank for `variable`)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from migrate.render import FORMATS
from migrate.vocabulary import PIN_KINDS, pin_rank
from tests.conftest import ROOT, run_cli

TREES: dict[str, dict[str, str]] = {
    "exact": {"requirements.txt": "torch==2.6.0\n"},
    "locked": {"pyproject.toml": '[project]\nname = "p"\nversion = "1"\ndependencies = ["torch"]\n',
               "uv.lock": '[[package]]\nname = "torch"\nversion = "2.6.0"\n'},
    "range": {"requirements.txt": "torch>=2.0\n"},
    "unpinned": {"requirements.txt": "torch\n"},
    "variable": {".github/workflows/ci.yml": "jobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
                                             "      - run: pip install torch==${{ matrix.torch }}\n"},
}
BESIDE = {"docker/requirements.txt": "torch>=2.0\n"}


def test_every_kind_has_a_tree_and_a_rank() -> None:
    assert set(TREES) == set(PIN_KINDS)
    assert [pin_rank(k) for k in PIN_KINDS] == list(range(len(PIN_KINDS)))
    assert pin_rank("from a newer report") == len(PIN_KINDS)


def test_the_report_schema_lists_every_kind() -> None:
    schema = (ROOT / "docs" / "report.schema.json").read_text()
    enums = [e for e in _enums(json.loads(schema)) if "exact" in e]
    assert enums and all(sorted(e) == sorted(PIN_KINDS) for e in enums)


def _enums(node: object) -> list[list[str]]:
    if isinstance(node, dict):
        found = [node["enum"]] if isinstance(node.get("enum"), list) else []
        return found + [e for v in node.values() for e in _enums(v)]
    if isinstance(node, list):
        return [e for v in node for e in _enums(v)]
    return []


def _tree(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder


@pytest.mark.parametrize(("kind", "beside"), [*((k, True) for k in PIN_KINDS), ("variable", False)],
                         ids=[*(f"{k}-beside-a-range" for k in PIN_KINDS), "variable-alone"])
def test_pin_kind_in_every_format_and_stack(kind: str, beside: bool, tmp_path: Path) -> None:
    tree = _tree(tmp_path / "repo", {**TREES[kind], **(BESIDE if beside else {})})
    out = tmp_path / "out"
    out.mkdir()
    files = ["text", *(f for f in FORMATS if f != "terminal")]  # the terminal summary goes to stdout only
    extra = [a for f in files if f != "text" for a in (f"--{f}-output", str(out / f"r.{f}"))]
    scan = run_cli("scan", str(tree), "-f", "text", "-o", str(out / "r.text"), *extra)
    assert scan.returncode == 0, scan.stderr
    assert {p.name for p in out.iterdir()} == {f"r.{f}" for f in files}
    terminal = run_cli("scan", str(tree), "-f", "terminal", "-o", "-")
    assert terminal.returncode == 0 and "Stack: torch" in terminal.stdout, terminal.stderr
    report = json.loads((out / "r.json").read_text())
    assert kind in {p["kind"] for p in report["stack"]["pins"]}
    assert "Stack: torch" in (out / "r.text").read_text()
    for fmt in ("terminal", "json"):
        stack = run_cli("stack", str(tree), "-f", fmt)
        assert stack.returncode == 0, stack.stderr
    block = json.loads(stack.stdout)
    deciding = min({kind, "range"} if beside else {kind}, key=pin_rank)
    assert [f["pin_kind"] for t in block["targets"] for f in t["frameworks"]] == [deciding]


@pytest.mark.parametrize("kept", sorted((ROOT / "fixtures" / "fuzz").glob("*.bin")), ids=lambda p: p.name)
def test_kept_fuzz_input_scans_and_renders(kept: Path, tmp_path: Path, rulebase) -> None:
    from tests import fuzzing

    kind = kept.stem.rsplit("-", 1)[-1]
    assert fuzzing.fuzz_scan(kind, kept.read_bytes(), tmp_path, rulebase) == []
