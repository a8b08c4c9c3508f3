"""How a lint start reads the rule base, cheaper and the same. rules/compiled.json is read line by line with
`find` (rulebase/compiled._lines) instead of `split(b"\\n")`, whose byte-by-byte scan and copy of every line cost
~10 M instructions of an edited-file lint: the lines, rows and tails are those the split gave, blank and
whitespace-only lines skipped as before, on the shipped file and on shapes it never has (no tab, no final line
break, CRLF, blank lines). The rule data files are listed as text (load.data_file_names: ~6 M instructions of Path
objects less): the same files, names and order as the Paths gave."""
from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
from migrate import jsonio
from migrate.rulebase import compiled, load
from tests.conftest import ROOT


def _split_read(directory: Path) -> tuple[dict[str, tuple[str, Any]], dict[str, Any]]:
    """read_all as it was written with split (the reference)."""
    try:
        lines = compiled.path_in(directory).read_bytes().split(b"\n")
        head = jsonio.loads(lines[0])
        if not isinstance(head, dict) or head.get("format") != compiled.FORMAT \
                or head.get("checked_against") != compiled.checked_against():
            return {}, {}
        found, tables = {}, {}
        for line in lines[1:]:
            if line.strip():
                row, _, tail = line.partition(b"\t")
                name, digest, records, table = jsonio.loads(row)
                if isinstance(name, str) and isinstance(digest, str) and isinstance(records, list):
                    found[name] = (digest, compiled._with_maps(records, tail))
                    tables[name] = compiled._table(table, tail)
        return found, tables
    except (OSError, ValueError, TypeError, RecursionError):
        return {}, {}


@pytest.mark.parametrize("raw", [b"", b"\n", b"a", b"a\n", b"\na\n\n", b"a\r\nb\r\n", b"  \n\t\n[1]\t\n", b"x\ny"])
def test_lines_are_split_s(raw: bytes) -> None:
    assert [raw[start:end] for start, end in compiled._lines(raw)] == raw.split(b"\n")


def test_lines_of_random_text_are_split_s() -> None:
    rng = random.Random(20)
    for _ in range(300):
        raw = bytes(rng.choice(b"\n\t a[]\r") for _ in range(rng.randrange(0, 40)))
        assert [raw[start:end] for start, end in compiled._lines(raw)] == raw.split(b"\n"), raw


def test_the_shipped_copy_reads_as_with_split() -> None:
    directory = ROOT / "rules"
    found, tables = compiled.read_all(directory)
    assert found and found == _split_read(directory)[0] and tables == _split_read(directory)[1]
    assert any(isinstance(names, load.PackedNames) for table in tables.values() for names in table.values())


def test_blank_lines_rows_without_a_tail_and_crlf_read_as_with_split(tmp_path: Path) -> None:
    lines = compiled.path_in(ROOT / "rules").read_bytes().split(b"\n")
    head, first, second = lines[0], lines[1], lines[2]
    row = first.partition(b"\t")[0]
    for body in (b"\n".join([head, b"", b"   ", second, b"\t", row]),  # blank, spaces, a row with no tail, a lone tab
                 b"\n".join([head, first, b" " + second]) + b"\n\n",  # a line that starts with a space
                 b"\r\n".join([head, first]),  # CRLF: the row's JSON ends in \r (allowed whitespace), the tail keeps it
                 head):  # no rule file at all
        (tmp_path / compiled.NAME).write_bytes(body)
        assert compiled.read_all(tmp_path) == _split_read(tmp_path), body[:80]


def _paths_listing(directory: Path) -> list[tuple[str, str]]:
    """load.data_files as it was written with Path objects (the reference), as text."""
    found = [Path(folder, name) for folder, _, names in os.walk(directory) for name in names if name.endswith(".yaml")]
    return [(os.fspath(p), p.relative_to(directory).as_posix())
            for p in sorted(found, key=lambda p: p.relative_to(directory).as_posix())]


def test_the_rule_data_files_are_listed_as_with_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for rel in ("b.yaml", "a.yaml", "a/z.yaml", "a/b/c.yaml", "ab.yaml", "a-b/x.yaml", "notes.txt", "x/y.yml"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("- 1\n")
    monkeypatch.chdir(tmp_path)
    for directory in (ROOT / "rules", tmp_path, Path("."), Path("a")):
        assert load.data_file_names(directory) == _paths_listing(directory), directory
        assert load.data_files(directory) == [Path(path) for path, _ in _paths_listing(directory)]
    assert [rel for _, rel in load.data_file_names(tmp_path)] == ["a-b/x.yaml", "a.yaml", "a/b/c.yaml", "a/z.yaml",
                                                                 "ab.yaml", "b.yaml"]


def test_the_schema_s_digest_is_known_by_its_stamps_and_hashed_again_when_they_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """compiled.checked_against(cache_dir): the digest of the schema and the vocabulary from a memo while both files
    have the stamps it recorded (a lint start then reads and hashes neither), the same digest as without the memo;
    a changed schema is hashed again and its own digest recorded."""
    from migrate.rulebase import filestamp

    monkeypatch.setattr(filestamp, "RACY_NS", 0)  # the copies were just written
    schema = tmp_path / "rule.schema.json"
    schema.write_bytes(load.SCHEMA_PATH.read_bytes())
    monkeypatch.setattr(load, "SCHEMA_PATH", schema)
    cache = tmp_path / "cache"
    plain = compiled.checked_against()
    assert compiled.checked_against(cache) == plain  # computed, and the memo written
    read: list[str] = []
    real_open = open

    def counted(path: Any, *args: Any, **kwargs: Any) -> Any:
        read.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", counted)
    assert compiled.checked_against(cache) == plain and str(schema) not in read  # from the memo
    monkeypatch.undo()
    monkeypatch.setattr(filestamp, "RACY_NS", 0)
    monkeypatch.setattr(load, "SCHEMA_PATH", schema)
    schema.write_bytes(schema.read_bytes() + b" ")
    changed = compiled.checked_against()
    assert changed != plain and compiled.checked_against(cache) == changed == compiled.checked_against(cache)
    rel = next((cache / "rules").glob("checked-*.json"))
    assert jsonio.loads(rel.read_bytes())["digest"] == changed
