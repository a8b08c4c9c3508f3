"""The per-file result cache and the parallel scan: a warm rescan skips extraction and matching,
a bad cache row is a miss, and every path (serial, parallel, cached, full extraction) gives the
same bytes in every machine-readable format."""
from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
from migrate import analyse, pipeline
from migrate.cache import Cache
from migrate.render import renderer
from migrate.settings import Settings
from tests.conftest import ROOT

TREES = [ROOT / "fixtures" / "repos" / "demo", *sorted((ROOT / "fixtures" / "trees").iterdir())]
FORMATS = ("json", "sarif", "csv", "markdown")


def rendered(tree: Path, settings: Settings, rulebase) -> dict[str, str]:
    report = dataclasses.replace(pipeline.run([tree], settings, rulebase), seconds=0.0, scanned_at="")
    return {name: renderer(name)(report) for name in FORMATS}


def full_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    """The slower path: every fact of every file kept, as a hipify-perl pass needs."""
    real = analyse.analyse_all
    monkeypatch.setattr(pipeline, "analyse_all", lambda *a, **k: real(*a, **{**k, "keep_extractions": True}))


@pytest.mark.parametrize("tree", [t for t in TREES if t.is_dir()], ids=lambda p: p.name)
def test_cached_and_fresh_results_give_the_same_bytes(tree: Path, tmp_path: Path, rulebase,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    cached = Settings(jobs=1, cache_dir=tmp_path, arch=("gfx942", "gfx1100"))
    cold = rendered(tree, cached, rulebase)
    monkeypatch.setattr(analyse, "extract", lambda *a: pytest.fail("extracted again"))
    assert rendered(tree, cached, rulebase) == cold
    monkeypatch.undo()
    full_extraction(monkeypatch)
    assert rendered(tree, dataclasses.replace(cached, cache_dir=None), rulebase) == cold


def many_files(tmp_path: Path, count: int = analyse.PARALLEL_THRESHOLD + 6) -> Path:
    tree = tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    for n in range(count):
        body = "".join(f"  cudaMalloc(&p{i}, {n});\n" for i in range(n % 7 + 1))
        (tree / "src" / f"k{n:03}.cu").write_text(f"#include <cuda_runtime.h>\nvoid f{n}() {{\n{body}}}\n")
    (tree / "src" / "compat.h").write_text("#define cudaFreeHost hipHostFree\n")
    (tree / "src" / "user.cu").write_text("void g(void* p) { cudaFreeHost(p); cudaFree(p); }\n")
    (tree / "src" / "blob.cu").write_bytes(b"\x00\x01 cudaMalloc")  # skipped alike, read by a worker or not
    return tree


def test_parallel_scan_matches_the_serial_one(tmp_path: Path, rulebase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analyse, "PARALLEL_BYTES", 0)  # the fixture is small: use the workers anyway
    pools = []
    real = analyse.ProcessPoolExecutor
    monkeypatch.setattr(analyse, "ProcessPoolExecutor", lambda *a, **k: pools.append(k) or real(*a, **k))
    tree = many_files(tmp_path)
    serial = rendered(tree, Settings(jobs=1, cache_dir=None), rulebase)
    assert rendered(tree, Settings(jobs=2, cache_dir=None), rulebase) == serial
    assert rendered(tree, Settings(jobs=2, cache_dir=tmp_path / "c"), rulebase) == serial
    assert rendered(tree, Settings(jobs=2, cache_dir=tmp_path / "c"), rulebase) == serial
    assert len(pools) == 2 and all(k["max_workers"] == 2 for k in pools)  # cold runs used workers; warm: none
    report = json.loads(serial["json"])
    assert report["summary"]["files_scanned"] == analyse.PARALLEL_THRESHOLD + 8
    assert [s["path"] for s in report["skipped"]] == ["src/blob.cu"]
    symbols = {(f["path"], f["symbol"]) for f in report["findings"]}
    assert ("src/user.cu", "cudaFree") in symbols and ("src/user.cu", "cudaFreeHost") not in symbols


BAD_ROWS = [
    b"not json",
    b"{}",
    b"[]",
    b"5",
    b"[[[[[[[[[[",
]


def _rows(cache_dir: Path) -> list[tuple[str, bytes]]:
    with sqlite3.connect(cache_dir / "facts.sqlite3") as db:
        return db.execute("SELECT key, value FROM results").fetchall()


def _rewrite(cache_dir: Path, change) -> None:
    with sqlite3.connect(cache_dir / "facts.sqlite3") as db:
        for key, value in db.execute("SELECT key, value FROM results").fetchall():
            db.execute("UPDATE results SET value = ? WHERE key = ?", (change(value), key))


def _retype(value: bytes) -> bytes:
    """The same row with one field of the wrong type: a line number as text, a flag as a number."""
    row = json.loads(value)
    for found in row[7]:
        for candidate in found:
            candidate[1] = str(candidate[1])
    row[1] = True
    return json.dumps(row).encode()


@pytest.mark.parametrize("change", [*(lambda v, b=b: b for b in BAD_ROWS), _retype, lambda v: "text row"],
                         ids=[*(b.decode()[:8] for b in BAD_ROWS), "retyped", "text"])
def test_a_bad_result_row_is_a_miss(tmp_path: Path, rulebase, change) -> None:
    tree = ROOT / "fixtures" / "trees" / "cmake_cuda_lib"
    settings = Settings(jobs=1, cache_dir=tmp_path)
    expected = rendered(tree, settings, rulebase)
    assert _rows(tmp_path)
    _rewrite(tmp_path, change)
    assert rendered(tree, settings, rulebase) == expected
    assert all(value[:1] == b"[" and b'"' in value for _, value in _rows(tmp_path))  # rewritten


def test_a_wrong_typed_extraction_row_is_a_miss(tmp_path: Path) -> None:
    from migrate.extract import extract

    cache = Cache(tmp_path)
    extraction = extract("cuda", b"void f(float** p) { cudaMalloc(p, 4); }\n")
    cache.put_many([("k", extraction)])
    assert cache.get("k") == extraction
    row = json.loads(cache._get("facts", ["k"])["k"])
    for change in (lambda r: r["facts"][0].__setitem__(2, "1"), lambda r: r["facts"][0].__setitem__(8, 3),
                   lambda r: r.__setitem__("lines", 1.5), lambda r: r["facts"][0].pop(),
                   lambda r: r.__setitem__("notes", "a note")):
        bad = json.loads(json.dumps(row))
        change(bad)
        cache._put("facts", [("k", json.dumps(bad).encode())])
        assert cache.get("k") is None


def test_chunks_cover_every_file_once_largest_first() -> None:
    todo = [(n, "cuda", b"x" * size) for n, size in enumerate([5, 900, 40, 40, 3000, 1, 1, 1, 200])]
    chunks = analyse.chunks(todo, 4)
    assert sorted(p for chunk in chunks for p, _, _ in chunk) == list(range(len(todo)))
    assert chunks[0] == [todo[4]]
    assert 1 < len(chunks) <= 5


def _texts(tree: Path, settings: Settings, formats: tuple[str, ...] = ("json", "sarif", "csv", "markdown")):  # noqa: ANN202
    from migrate import reportcache
    from migrate.rulebase import precompiled

    done = reportcache.scan([tree], settings, None, lambda: precompiled.load(None, settings.cache_dir), formats)
    return {name: "\n".join(line for line in text.split("\n") if '"seconds"' not in line and "scanned_at" not in line)
            for name, text in done.texts.items()}, done.migration_class


def test_report_cache_serves_the_bytes_of_a_full_scan_until_anything_changes(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from migrate import reportcache

    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "fixtures" / "repos" / "demo", tree)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache")
    assert reportcache.applies(dataclasses.replace(settings, use_hipify=False), ["json"])
    assert not reportcache.applies(settings, ["terminal"]) and not reportcache.applies(settings, ["json", "html"])
    settings = dataclasses.replace(settings, use_hipify=False)
    first, cls = _texts(tree, settings)
    monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
    assert _texts(tree, settings) == (first, cls)
    monkeypatch.undo()
    full = dataclasses.replace(pipeline.run([tree], settings, _rules(settings)), seconds=0.0, scanned_at="")
    assert first["json"] == "\n".join(line for line in renderer("json")(full).split("\n")
                                      if '"seconds"' not in line and "scanned_at" not in line)
    kernel = next(tree.rglob("*.cu"))
    kernel.write_text(kernel.read_text() + "\nvoid extra(void** p) { cudaMallocManaged(p, 4); }\n")
    changed, _ = _texts(tree, settings)
    assert changed != first and "cudaMallocManaged" in changed["json"]
    assert _texts(tree, dataclasses.replace(settings, rocm="6.4"))[0]["json"] != changed["json"]


def test_a_bad_report_row_is_a_miss(tmp_path: Path) -> None:
    settings = Settings(jobs=1, cache_dir=tmp_path, use_hipify=False)
    tree = ROOT / "fixtures" / "trees" / "cmake_cuda_lib"
    expected = _texts(tree, settings)
    for bad in (b"[]", b'{"class": 3, "sizes": []}\n', b'{"class": "native", "sizes": [["json", 5]]}\nab', b"\xff",
                b'{"class": "native", "sizes": [["json", 1], ["sarif", 1], ["csv", 1], ["markdown", "1"]]}\nabcd',
                b'{"class": "native", "sizes": [["json", 2], ["sarif", 0], ["csv", 0], ["markdown", 0]]}\n\xff\xfe'):
        with sqlite3.connect(tmp_path / "facts.sqlite3") as db:
            db.execute("UPDATE reports SET value = ?", (bad,))
        assert _texts(tree, settings) == expected


def _rules(settings: Settings):  # noqa: ANN202
    from migrate.rulebase import precompiled

    return precompiled.load(None, settings.cache_dir)


@pytest.mark.parametrize("tree", [ROOT / "fixtures" / "repos" / "demo", None], ids=["demo", "empty"])
def test_json_pieces_join_to_the_standard_librarys_bytes(tree: Path | None, tmp_path: Path, rulebase) -> None:  # noqa: ANN001
    from migrate.render import json_report

    if tree is None:
        tree = tmp_path / "empty"
        tree.mkdir()
    report = pipeline.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
    expected = json.dumps(json_report.to_json(report), indent=2, ensure_ascii=False) + "\n"
    pieces = list(json_report.chunks(report))
    assert "".join(pieces) == expected == json_report.render(report)
    assert len(pieces) == len(report.findings) + 3 if report.findings else len(pieces) == 3


@pytest.mark.parametrize("tree", [ROOT / "fixtures" / "repos" / "demo", None], ids=["demo", "empty"])
def test_sarif_and_csv_pieces_join_to_the_whole_texts(tree: Path | None, tmp_path: Path, rulebase,  # noqa: ANN001
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """SARIF (every class and a cap, so that some results are left out) and CSV are written in
    pieces too: the pieces join to the standard library's SARIF bytes and csv.writer's text."""
    import csv
    import io

    from migrate.render import csv_report, sarif_report

    if tree is None:
        tree = tmp_path / "empty"
        tree.mkdir()
    report = pipeline.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
    for options in ({}, {"min_class": "native"}, {"limit": 3}):
        expected = json.dumps(sarif_report.to_sarif(report, **options), indent=2, ensure_ascii=False) + "\n"
        pieces = list(sarif_report.chunks(report, **options))
        assert "".join(pieces) == expected == sarif_report.render(report, **options)
        assert len(pieces) == 3 + sarif_report.to_sarif(report, **options)["runs"][0]["properties"]["results"]
    whole = csv_report.render(report)  # one piece: ROWS_PER_CHUNK is more than the demo's findings
    assert len(list(csv_report.chunks(report))) == 1 and whole.count("\n") == len(report.findings) + 1
    rows = list(csv.reader(io.StringIO(whole)))
    again = io.StringIO()
    csv.writer(again, lineterminator="\n").writerows(rows)
    assert again.getvalue() == whole and rows[0] == list(csv_report.COLUMNS)
    monkeypatch.setattr(csv_report, "ROWS_PER_CHUNK", 2)
    pieces = list(csv_report.chunks(report))
    assert "".join(pieces) == whole and len(pieces) == len(report.findings) // 2 + 1


@pytest.mark.parametrize("verbose", [[], ["-v"]], ids=["default", "verbose"])
def test_a_report_cache_hit_says_on_stderr_what_the_full_scan_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  verbose: list[str]) -> None:
    """Text in a file (or a pipe) and JSON: a hit writes the same reports (but for the time) and
    the same notes, skipped files and summary line on stderr, without scanning."""
    from click.testing import CliRunner

    from migrate.cli.main import cli

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.cu").write_text("__global__ void k( { cudaMalloc(&p, 4;\n")
    (tree / "b.py").write_text("def f(:\n")
    monkeypatch.setenv("ROCM_MIGRATE_CACHE_DIR", str(tmp_path / "cache"))

    def scan(n: int) -> tuple[str, str, str]:
        text, report = tmp_path / f"r{n}.txt", tmp_path / f"r{n}.json"
        done = CliRunner().invoke(cli, ["scan", str(tree), "--no-hipify", "-o", str(text), "--json-output", str(report),
                                        *verbose], catch_exceptions=False)
        assert done.exit_code == 0, done.stderr
        untimed = "\n".join(line for line in text.read_text().split("\n") if not line.startswith("Scanned "))
        return done.stderr, untimed, json.dumps({**json.loads(report.read_text()), "summary": None, "source": None})

    full = scan(1)
    assert "note: a.cu: syntax errors near line 1" in full[0] and "1 files scanned, 1 skipped" in full[0]
    assert ("skipped: b.py: Python syntax error" in full[0]) == bool(verbose)
    monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
    assert scan(2) == full


def test_identifier_names_keep_every_name_a_rule_can_match(rulebase) -> None:  # noqa: ANN001
    """The scan's workers build identifier facts only for names `IdentifierNames` accepts: every
    name any rule of any target matches must be among them (and most others not)."""
    import re

    from migrate.match import IdentifierNames, _one_pattern, indexes
    from migrate.model import Fact

    by_target = indexes(rulebase, rocm="7.2", archs=["gfx942", "gfx1100", "gfx90a"])
    wanted = IdentifierNames(by_target)
    words = {w for p in (ROOT / "fixtures").rglob("*.c*") for w in re.findall(r"[A-Za-z_]\w*", p.read_text(errors="replace"))}
    words |= {"ncclAllReduce", "nvtxRangePushA", "cuvidCreateDecoder", "__nv_fp8_e4m3", "nppiResize_8u", "optixLaunch"}
    matched = {w for w in words for index in by_target for role in ("value", "call", "type", "member")
               if index._lookup(Fact(kind="identifier", name=w, line=1, column=1, end_line=1, end_column=2, role=role))}
    assert len(matched) > 200 and all(wanted(w) for w in matched)
    assert not wanted("my_own_function") and not wanted("threadIdx_copy")
    assert len(_one_pattern(["^a(b)\\1$", "^c$"])) == 2 and len(_one_pattern(["(?i)^x", "^y"])) == 2
    assert [bool(p.search("abb")) for p in _one_pattern(["^a(b)\\1$", "^c$"])] == [True, False]
