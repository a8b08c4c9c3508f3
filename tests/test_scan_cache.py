"""The per-file result cache and the parallel scan: a warm rescan skips extraction and matching,
a bad cache row is a miss, and every path (serial, parallel, cached, full extraction) gives the
same bytes in every machine-readable format."""
from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from concurrent import futures
from pathlib import Path

import pytest
from migrate.render import renderer
from migrate.scan import analyse, pipeline, pooling, project
from migrate.scan.cache import Cache
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
    monkeypatch.setattr(project, "analyse_all", lambda *a, **k: real(*a, **{**k, "keep_extractions": True}))


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


def many_files(tmp_path: Path, count: int = pooling.PARALLEL_THRESHOLD + 6) -> Path:
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
    monkeypatch.setattr(pooling, "PARALLEL_BYTES", 0)  # the fixture is small: use the workers anyway
    pools = []
    real = futures.ProcessPoolExecutor  # imported by analyse._pool where a pool runs
    monkeypatch.setattr(futures, "ProcessPoolExecutor", lambda *a, **k: pools.append(k) or real(*a, **k))
    tree = many_files(tmp_path)
    serial = rendered(tree, Settings(jobs=1, cache_dir=None), rulebase)
    assert rendered(tree, Settings(jobs=2, cache_dir=None), rulebase) == serial
    assert rendered(tree, Settings(jobs=2, cache_dir=tmp_path / "c"), rulebase) == serial
    assert rendered(tree, Settings(jobs=2, cache_dir=tmp_path / "c"), rulebase) == serial
    assert len(pools) == 2 and all(k["max_workers"] == 2 for k in pools)  # cold runs used workers; warm: none
    report = json.loads(serial["json"])
    assert report["summary"]["files_scanned"] == pooling.PARALLEL_THRESHOLD + 8
    assert [s["path"] for s in report["skipped"]] == ["src/blob.cu"]
    symbols = {(f["path"], f["symbol"]) for f in report["findings"]}
    assert ("src/user.cu", "cudaFree") in symbols and ("src/user.cu", "cudaFreeHost") not in symbols



def test_a_fresh_parallel_scan_analyses_copies_once(tmp_path: Path, rulebase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pooling, "PARALLEL_BYTES", 0)
    tree = many_files(tmp_path)
    vendored = tree / "third_party" / "copy"
    shutil.copytree(tree / "src", vendored)
    (vendored / "k001.cu").write_text((tree / "src" / "k002.cu").read_text())  # a copy of another name
    (tree / "src" / "k003.cpp").write_text((tree / "src" / "k003.cu").read_text())  # the same bytes, another kind
    sent: list[str] = []
    real = analyse.chunks
    monkeypatch.setattr(analyse, "chunks", lambda todo, *a, **k: sent.extend(i[2].rel for i in todo) or real(todo, *a, **k))
    serial = rendered(tree, Settings(jobs=1, cache_dir=None, include_vendored=True), rulebase)
    assert sent == []  # the serial scan sends nothing to workers
    assert rendered(tree, Settings(jobs=2, cache_dir=None, include_vendored=True), rulebase) == serial
    assert "src/k003.cpp" in sent  # the same bytes as a .cu file, read as another kind
    assert [rel for rel in sent if rel.startswith("third_party/")] == ["third_party/copy/blob.cu"]  # skipped: a worker's
    report = json.loads(serial["json"])
    assert {s["path"] for s in report["skipped"]} == {"src/blob.cu", "third_party/copy/blob.cu"}
    assert {f["path"] for f in report["findings"]} >= {"third_party/copy/user.cu", "third_party/copy/k001.cu"}

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


def _texts(tree: Path, settings: Settings, formats: tuple[str, ...] = ("json", "sarif", "csv", "markdown")):
    from migrate.rulebase import precompiled
    from migrate.scan import reportcache

    got = []
    def write(done: reportcache.Outputs) -> None:
        got.append(({name: b"".join(pieces()).decode() for name, pieces in done.reports.items()}, done.migration_class))

    reportcache.scan([tree], settings, rules_dir=None, load_rules=lambda: precompiled.load(None, settings.cache_dir),
                     formats=formats, write=write)
    texts, cls = got[0]
    return {name: "\n".join(line for line in text.split("\n") if '"seconds"' not in line and "scanned_at" not in line
                            and not line.startswith("Scanned "))
            for name, text in texts.items()}, cls


def test_report_cache_serves_the_bytes_of_a_full_scan_until_anything_changes(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from migrate.scan import reportcache

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


def _report_files(cache_dir: Path) -> list[Path]:
    return [p for p in (cache_dir / "reports").iterdir() if not p.name.startswith(".")]


def test_a_bad_report_file_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stored report whose prefix, header, sizes or stand-in places do not check out, a link or
    a folder in its place: a full scan, and its report stored again."""
    import os

    from migrate.scan import reportcache

    settings = Settings(jobs=1, cache_dir=tmp_path / "cache", use_hipify=False)
    tree = ROOT / "fixtures" / "trees" / "cmake_cuda_lib"
    expected = _texts(tree, settings, ("json", "text"))
    [stored] = _report_files(tmp_path / "cache")
    good = stored.read_bytes()
    length = int(good[len(reportcache.MAGIC):reportcache.PREFIX - 1])
    header = json.loads(good[reportcache.PREFIX:reportcache.PREFIX + length])
    body = good[reportcache.PREFIX + length:]
    assert [name for name, _, _ in header["formats"]] == ["json", "text"] and header["formats"][1][2]

    def shaped(change) -> bytes:
        bad = json.loads(json.dumps(header))
        change(bad)
        data = json.dumps(bad).encode()
        return reportcache.MAGIC + b"%016d\n" % len(data) + data + body

    bads = [b"", b"[]", good[:-1], good + b"x", good.replace(reportcache.MAGIC, b"x" * len(reportcache.MAGIC)),
            reportcache.MAGIC + b"9" * 16 + b"\n", reportcache.MAGIC + b"-" * 16 + b"\n",
            shaped(lambda h: h.__setitem__("class", 3)), shaped(lambda h: h["formats"].pop()),
            shaped(lambda h: h["formats"][0].__setitem__(1, "5")), shaped(lambda h: h.__setitem__("notes", [1])),
            shaped(lambda h: h["formats"][1][2][0].__setitem__(0, 0)),  # no stand-in there
            shaped(lambda h: h["formats"][1][2][0].__setitem__(1, 7)),
            shaped(lambda h: h["formats"][1][2][0].__setitem__(0, 10**12)),
            shaped(lambda h: h["formats"].__setitem__(0, ["json", header["formats"][0][1] + 1, []]))]
    for bad in bads:
        stored.write_bytes(bad)
        monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
        with pytest.raises(pytest.fail.Exception):
            _texts(tree, settings, ("json", "text"))
        monkeypatch.undo()
        assert _texts(tree, settings, ("json", "text")) == expected
        assert stored.read_bytes() == good  # stored again
    for replace in (lambda p: (p.unlink(), p.symlink_to(tmp_path / "elsewhere")),
                    lambda p: (p.unlink(), p.mkdir()), lambda p: (p.unlink(), os.mkfifo(p))):
        (tmp_path / "elsewhere").write_bytes(good)
        replace(stored)
        monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
        with pytest.raises(pytest.fail.Exception):
            _texts(tree, settings, ("json", "text"))
        monkeypatch.undo()
        if stored.is_dir():
            assert _texts(tree, settings, ("json", "text")) == expected  # cannot be stored: still right
            stored.rmdir()
        else:
            assert _texts(tree, settings, ("json", "text")) == expected
            assert stored.read_bytes() == good and not stored.is_symlink()
        assert _texts(tree, settings, ("json", "text")) == expected


def _rules(settings: Settings):
    from migrate.rulebase import precompiled

    return precompiled.load(None, settings.cache_dir)


@pytest.mark.parametrize("at_once", [1, 2, 256])
@pytest.mark.parametrize("tree", [ROOT / "fixtures" / "repos" / "demo", None], ids=["demo", "empty"])
def test_json_pieces_join_to_the_standard_librarys_bytes(tree: Path | None, at_once: int, tmp_path: Path, rulebase,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from migrate.render import json_report

    monkeypatch.setattr(json_report, "FINDINGS_AT_ONCE", at_once)
    if tree is None:
        tree = tmp_path / "empty"
        tree.mkdir()
    report = pipeline.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
    expected = json.dumps(json_report.to_json(report), indent=2, ensure_ascii=False) + "\n"
    pieces = list(json_report.chunks(report))
    assert "".join(pieces) == expected == json_report.render(report)
    batches = -(-len(report.findings) // at_once)
    assert len(pieces) == batches + 3 if report.findings else len(pieces) == 3
    assert batches > 2 or at_once == 256 or not report.findings  # batch ends were crossed


@pytest.mark.parametrize("tree", [ROOT / "fixtures" / "repos" / "demo", None], ids=["demo", "empty"])
def test_sarif_and_csv_pieces_join_to_the_whole_texts(tree: Path | None, tmp_path: Path, rulebase,
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
    csv.writer(again, lineterminator="\n", quoting=csv.QUOTE_ALL).writerows(rows)  # every field quoted
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
    assert "note: a.cu: syntax errors near line 1" in full[0] and "1 file scanned, 1 skipped" in full[0]
    assert ("skipped: b.py: Python syntax error" in full[0]) == bool(verbose)
    monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
    assert scan(2) == full


def test_identifier_names_keep_every_name_a_rule_can_match(rulebase) -> None:
    """The scan's workers build identifier facts only for names `IdentifierNames` accepts: every
    name any rule of any target matches must be among them (and most others not)."""
    import re

    from migrate.model import Fact
    from migrate.scan.match import IdentifierNames, _one_pattern, indexes

    by_target = indexes(rulebase, rocm="7.2", archs=["gfx942", "gfx1100", "gfx90a"])
    wanted = IdentifierNames(by_target)
    sources = [p for p in (ROOT / "fixtures").rglob("*.c*") if p.is_file()]  # not a `.cmake/` folder
    words = {w for p in sources for w in re.findall(r"[A-Za-z_]\w*", p.read_text(errors="replace"))}
    words |= {"ncclAllReduce", "nvtxRangePushA", "cuvidCreateDecoder", "__nv_fp8_e4m3", "nppiResize_8u", "optixLaunch"}
    matched = {w for w in words for index in by_target for role in ("value", "call", "type", "member")
               if index._lookup(Fact(kind="identifier", name=w, line=1, column=1, end_line=1, end_column=2, role=role))}
    assert len(matched) > 200 and all(wanted(w) for w in matched)
    assert not wanted("my_own_function") and not wanted("threadIdx_copy")
    assert len(_one_pattern(["^a(b)\\1$", "^c$"])) == 2 and len(_one_pattern(["(?i)^x", "^y"])) == 2
    assert [bool(p.search("abb")) for p in _one_pattern(["^a(b)\\1$", "^c$"])] == [True, False]


def _stat_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "a.cu").write_text("void f(void** p) { cudaMalloc(p, 4); }\n")
    (tree / "src" / "b.cu").write_text("void g(void* p) { cudaFree(p); }\n")
    (tree / "run.py").write_text("import pycuda.autoinit\n")
    return tree


def _digests(tree: Path, cache_dir: Path, reader=None):
    from migrate.scan import statcache
    from migrate.scan.discover import discover

    found = discover([tree])
    digests = statcache.Digests(Cache(cache_dir), f"{found.root}\0{5 << 20}", reader or statcache.read)
    return digests, {f.rel: digests.digest(f, 5 << 20) for f in found.files}


def test_the_stat_cache_reads_no_unchanged_file_and_rehashes_racy_ones(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry is trusted only when the file's mtime and ctime are older than the moment its run
    started, by more than RACY_NS (git's racy-clean rule): a file just written is hashed again,
    and one older than that is not read at all."""
    import hashlib

    from migrate.scan import statcache

    tree, cache_dir = _stat_tree(tmp_path), tmp_path / "cache"
    first, digests = _digests(tree, cache_dir)
    first.save()
    assert first.hashed == 3 and digests["src/a.cu"][0] == hashlib.blake2b((tree / "src" / "a.cu").read_bytes(),
                                                                            digest_size=32).hexdigest()
    again, same = _digests(tree, cache_dir)  # every file was written within RACY_NS of the first run
    assert again.hashed == 3 and same == digests
    monkeypatch.setattr(statcache, "RACY_NS", 0)  # now old enough
    again.save()
    trusted, same = _digests(tree, cache_dir, lambda *a: pytest.fail("read an unchanged file"))
    assert trusted.hashed == 0 and same == digests
    monkeypatch.undo()
    row = json.loads(Cache(cache_dir).get_stats(trusted.row_key))
    for entry in row[1]:  # a change the stamp did not show (what raciness is about)
        entry[8] = "0" * 64
    Cache(cache_dir).put_stats(trusted.row_key, json.dumps(row).encode())
    racy, fresh = _digests(tree, cache_dir)  # RACY_NS again: the files are still too new to trust
    assert racy.hashed == 3 and fresh == digests
    monkeypatch.setattr(statcache, "RACY_NS", 0)
    # past the racy window the entry is believed (the file is not read)
    trusting, stale = _digests(tree, cache_dir, lambda *a: pytest.fail("read a file its entry vouches for"))
    assert trusting.hashed == 0 and {d for d, _ in stale.values()} == {"0" * 64}


def test_the_stat_cache_notices_a_rewrite_that_keeps_size_and_mtime(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import time

    from migrate.scan import statcache

    monkeypatch.setattr(statcache, "RACY_NS", 0)
    tree, cache_dir = _stat_tree(tmp_path), tmp_path / "cache"
    first, digests = _digests(tree, cache_dir)
    first.save()
    kernel = tree / "src" / "a.cu"
    before = kernel.stat()
    time.sleep(0.02)
    kernel.write_text(kernel.read_text().replace("4", "8"))  # same size
    os.utime(kernel, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime set back; ctime moves on
    after = kernel.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    again, changed = _digests(tree, cache_dir)
    assert again.hashed == 1 and changed["src/a.cu"] != digests["src/a.cu"]
    assert {k: v for k, v in changed.items() if k != "src/a.cu"} == {k: v for k, v in digests.items() if k != "src/a.cu"}


@pytest.mark.parametrize("row", [b"5", b"[]", b'["1", 5]', b'["2", []]', b"[" * 100_000, b"\xff",
                                 b'["1", [["a", "cuda", 1, 2, 3, 4, 5, 6, "d", null], 7, ["src/a.cu"]]]',
                                 b'["1", [["src/a.cu", "cuda", "1", 2, 3, 4, 5, 6, "d", null]]]',
                                 b'["1", [["src/a.cu", "cuda", true, 2, 3, 4, 5, 6, "d", null]]]',
                                 b'["1", [["src/a.cu", "cuda", 1, 2, 3, 4, 5, 6, "d", 3]]]'],
                         ids=["int", "empty", "not-a-list", "format", "deep", "bytes", "junk-items", "text-size",
                              "bool-size", "int-reason"])
def test_a_wrong_typed_stat_row_is_ignored(tmp_path: Path, row: bytes) -> None:
    tree, cache_dir = _stat_tree(tmp_path), tmp_path / "cache"
    first, digests = _digests(tree, cache_dir)
    first.save()
    Cache(cache_dir).put_stats(first.row_key, row)
    again, same = _digests(tree, cache_dir)
    assert again.hashed == 3 and same == digests


def test_a_warm_rescan_is_served_until_the_tree_config_or_rules_change(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Touched but unchanged: a hit. Rewritten with size and mtime kept, a file added, removed or
    renamed, the configuration or the rules changed: a full scan, whose report says so."""
    import os
    import shutil
    import time

    from migrate.scan import statcache

    monkeypatch.setattr(statcache, "RACY_NS", 0)  # the stat entries are trusted at once
    tree = _stat_tree(tmp_path)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache", use_hipify=False)

    def scan(expect_hit: bool, **changes: object) -> dict[str, str]:
        if expect_hit:
            monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
        try:
            return _texts(tree, dataclasses.replace(settings, **changes), ("json",))[0]
        finally:
            monkeypatch.undo()
            monkeypatch.setattr(statcache, "RACY_NS", 0)

    first = scan(False)
    assert scan(True) == first
    kernel = tree / "src" / "a.cu"
    os.utime(kernel)  # touched, content unchanged
    assert scan(True) == first
    before = kernel.stat()
    time.sleep(0.02)
    kernel.write_text(kernel.read_text().replace("cudaMalloc(p, 4)", "cudaFree(*p);   "))
    os.utime(kernel, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert kernel.stat().st_size == before.st_size
    rewritten = scan(False)
    assert rewritten != first and '"symbol": "cudaMalloc"' not in rewritten["json"]
    assert scan(True) == rewritten
    (tree / "src" / "c.cu").write_text("void h(void* p) { cudaFreeHost(p); }\n")
    added = scan(False)
    assert "src/c.cu" in added["json"] and scan(True) == added
    (tree / "src" / "c.cu").rename(tree / "src" / "d.cu")
    renamed = scan(False)
    assert "src/d.cu" in renamed["json"] and "src/c.cu" not in renamed["json"]
    (tree / "src" / "d.cu").unlink()
    assert scan(False) == rewritten
    (tree / ".rocm-migrate.toml").write_text('exclude = ["run.py"]\n')
    from migrate import settings as config

    configured = config.load(tree, {"cache_dir": settings.cache_dir, "use_hipify": False, "jobs": 1})
    monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
    with pytest.raises(pytest.fail.Exception):
        _texts(tree, configured, ("json",))
    monkeypatch.undo()
    assert '"run.py"' not in _texts(tree, configured, ("json",))[0]["json"]
    (tree / ".rocm-migrate.toml").unlink()
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    from migrate.rulebase import precompiled
    from migrate.scan import reportcache

    def with_rules() -> list[object]:
        got: list[object] = []
        reportcache.scan([tree], settings, rules_dir=rules, load_rules=lambda: precompiled.load(rules, settings.cache_dir),
                         formats=["json"], write=got.append)
        return got

    assert with_rules()  # a full scan (other rules than the default ones)
    monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
    assert with_rules()
    monkeypatch.undo()
    some = next(p for p in sorted(rules.glob("*.yaml")))
    some.write_text(some.read_text() + "\n# changed\n")
    monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
    with pytest.raises(pytest.fail.Exception):
        with_rules()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_cli_writes_the_same_bytes_cold_stored_and_warm(tmp_path: Path, jobs: str) -> None:
    """The real CLI: --no-cache, the first cached scan and the warm hit write the same files and
    stdout (the text's one time line aside), and the hit rewrites no cache file."""
    import shutil

    from tests.conftest import run_cli

    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "fixtures" / "repos" / "demo", tree)
    env = {"ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    names = ("json", "sarif", "csv", "markdown")

    def scan(run: str, *extra: str) -> dict[str, bytes]:
        out = tmp_path / run
        out.mkdir()
        args = ["scan", str(tree), "--no-hipify", "--jobs", jobs, "-o", str(out / "r.txt"), *extra]
        for name in names:
            args += [f"--{name}-output", str(out / f"r.{name}")]
        done = run_cli(*args, env=env)
        assert done.returncode == 0, done.stderr
        stdout = run_cli("scan", str(tree), "--no-hipify", "--jobs", jobs, "-f", "csv", *extra, env=env)
        files = {p.name: p.read_bytes() for p in out.iterdir()}
        files["r.txt"] = b"\n".join(line for line in files["r.txt"].split(b"\n") if not line.startswith(b"Scanned "))
        return {**files, "stdout": stdout.stdout.encode(), "stderr": done.stderr.encode()}

    import time

    from migrate.scan import statcache

    cold = scan("cold", "--no-cache")
    newest = max(p.stat().st_ctime_ns for p in tree.rglob("*"))
    time.sleep(max(0.0, (newest + statcache.RACY_NS - time.time_ns()) / 1e9 + 0.1))  # no racy entry to rewrite
    stored = scan("stored")
    cache_files = {p: p.stat().st_mtime_ns for p in (tmp_path / "cache").rglob("*") if p.is_file()}
    warm = scan("warm")
    assert cold == stored == warm
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "cache").rglob("*") if p.is_file()} == cache_files


def test_the_tools_own_files_are_digested_byte_for_byte(tmp_path: Path) -> None:
    """The code key's digests read every byte (`statcache.raw`): a binary data file that changes
    changes its digest, where the scan's reader gives every binary file the same empty digest."""
    from migrate.model import SourceFile
    from migrate.scan import statcache

    blob = tmp_path / "font.bin"
    digests = []
    for content in (b"\x00\x01abc", b"\x00\x02abc"):
        blob.write_bytes(content)
        file = SourceFile(path=blob, rel="font.bin", kind="code", size=len(content))
        raw = statcache.Digests(Cache(None), "code", statcache.raw).digest(file, 1 << 20)
        scanned = statcache.Digests(Cache(None), "tree").digest(file, 1 << 20)
        digests.append((raw, scanned))
    assert digests[0][0] != digests[1][0] and digests[0][0][1] is None
    assert digests[0][1] == digests[1][1] and digests[0][1][1].startswith("binary file")


def test_pieces_written_through_text_keep_a_character_split_between_them(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the newline is not "\\n" the pieces are decoded and written as text: as one stream,
    so a character whose bytes two pieces share (a PIECE boundary) is not replaced."""
    from migrate.cli import outputs

    data = "µ-é€\n".encode()
    monkeypatch.setattr(outputs.os, "linesep", "\r\n")
    outputs.write_bytes(lambda: iter([data[i:i + 1] for i in range(len(data))]), str(tmp_path / "r.txt"))
    assert (tmp_path / "r.txt").read_text(encoding="utf-8") == data.decode()


def test_a_row_decodes_to_the_same_facts_and_findings() -> None:
    """Decoding sets each field through its slot, in the dataclasses' field order: a field added or
    moved must still come back in its place."""
    from migrate.model import Candidate, Fact, FileResult, Finding

    fact = Fact(kind="call", name="cudaMalloc", line=3, column=5, end_line=3, end_column=15, role="r", text="t",
                guard="g", cell=None, value=7)
    finding = Finding(rule="cuda-malloc", path="src/a.cu", line=3, column=5, end_line=3, end_column=15,
                      symbol="cudaMalloc", message="m", hip="hipMalloc", hipify="yes", confidence="high",
                      migration_class="minor-adaptation", source_line="x = cudaMalloc(&p, n);", cell=None,
                      status="optional")
    result = FileResult(lines=9, notes=("n",), facts=(fact,), defined=("d",), portable=("p",), masks=("m",),
                        found=((Candidate(finding, "a", "b", "c"),),), line_text={(0, 3): "x = cudaMalloc(&p, n);"},
                        string_device_lines=4)
    assert analyse.decode("src/a.cu", analyse.encode(result)) == result


def test_stand_in_marks_are_the_alternation_regex_answer() -> None:
    """The stored report's stand-in places, found literal by literal, equal one regex's leftmost
    non-overlapping matches, on text where the stand-ins abut, repeat and sit inside each other's
    neighbourhood (a scanned file's text can hold them too)."""
    import random
    import re

    from migrate.scan import reportcache

    regex = re.compile(b"|".join(re.escape(s) for s in reportcache.STAND_INS))
    pieces = [*reportcache.STAND_INS, b'"', b"in ", b" ", b"987654.32", b"x", b"\n",
              *(s[:n] for s in reportcache.STAND_INS for n in (1, 3, len(s) - 1))]
    chooser = random.Random(33)
    texts = [b"".join(chooser.choice(pieces) for _ in range(chooser.randrange(1, 40))) for _ in range(3000)]
    for text in texts:
        assert reportcache._marks(text) == tuple((m.start(), reportcache.STAND_INS.index(m.group()))
                                                 for m in regex.finditer(text))
    assert sum(len(reportcache._marks(t)) for t in texts) > 1000  # the stand-ins were there to find


def test_rows_a_scan_just_made_decode_alike_without_the_type_checks(tmp_path: Path, rulebase) -> None:
    """A scan decodes the rows its own workers just encoded without checking their types (cache
    hits are checked); both give equal results on every row of a real tree."""
    pipeline.run([ROOT / "fixtures" / "repos" / "demo"], Settings(jobs=1, cache_dir=tmp_path, use_hipify=False),
                 rulebase)
    with sqlite3.connect(tmp_path / "facts.sqlite3") as db:
        stored = [value for (value,) in db.execute("SELECT value FROM results")]
    decoded = [analyse.decode("d/k.cu", row) for row in stored]
    assert decoded == [analyse.decode("d/k.cu", row, checked=False) for row in stored]
    assert sum(len(r.facts) for r in decoded) > 20 and sum(len(c) for r in decoded for c in r.found) > 10


def test_stand_in_marks_are_the_alternation_regexs_matches() -> None:
    """reportcache._marks finds each stand-in with bytes.find: the same (offset, which) pairs, in the same order,
    as one alternation regex over all of them (leftmost, non-overlapping, the first listed at a tie)."""
    import itertools
    import re

    from migrate.scan.reportcache import STAND_INS, _marks

    regex = re.compile(b"|".join(re.escape(s) for s in STAND_INS))
    pieces = [*STAND_INS, b"x", b"\n", STAND_INS[0][:-3], STAND_INS[2][3:], b'"seconds": 987654.321s;']
    texts = [b"", b"no stand-in here"] + [b"".join(p) for p in itertools.product(pieces, repeat=3)]
    for data in texts:
        expected = tuple((m.start(), STAND_INS.index(m.group())) for m in regex.finditer(data))
        assert _marks(data) == expected, data
    assert len(_marks(b"".join(STAND_INS) * 2)) == 2 * len(STAND_INS)


def test_an_unchecked_decode_of_a_fresh_row_equals_the_checked_one(rulebase, monkeypatch: pytest.MonkeyPatch) -> None:
    """decode(checked=False) skips the type checks for rows this scan just made: the same FileResult."""
    from migrate.scan.match import IdentifierNames, indexes

    settings = Settings()
    by_target = indexes(rulebase, rocm=settings.rocm, archs=settings.arch)
    monkeypatch.setitem(analyse._STATE, "work", analyse._Work(by_target, IdentifierNames(by_target)))
    sources = sorted((ROOT / "fixtures" / "trees").rglob("*.cu"))
    assert sources
    decoded = 0
    for path in sources:
        row = analyse._analyse("cuda", path.read_bytes())
        checked = analyse.decode("src/a.cu", row)
        assert analyse.decode("src/a.cu", row, checked=False) == checked
        decoded += bool(checked.facts and any(checked.found))
    assert decoded  # some file had facts and candidates to compare
