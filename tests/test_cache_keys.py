"""What the caches are keyed and kept by: the extractor's version is a digest of its sources, a
report-cache miss reads each file once, discovery's stat is the stat cache's, and eviction
goes by last use."""
from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path
from typing import cast

import pytest
from migrate import extract
from migrate.extract import run as extract_run
from migrate.model import SourceFile
from migrate.scan import pooling
from migrate.scan.cache import Cache
from tests.conftest import ROOT


def _package_copy(tmp_path: Path) -> Path:
    """A copy of migrate/extract and the modules beside it that its version covers."""
    copy = tmp_path / "migrate"
    shutil.copytree(ROOT / "migrate" / "extract", copy / "extract", ignore=shutil.ignore_patterns("__pycache__"))
    for name in extract.BESIDE:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "migrate" / name, copy / name)
    shutil.copytree(ROOT / "rules" / "names", tmp_path / "names")
    return copy / "extract"


def test_the_extractor_version_is_a_digest_of_its_sources(tmp_path: Path) -> None:
    """Any edit to an extractor's source, a query or a module the facts are built with gives
    another version; a file that is none of them does not."""
    package = _package_copy(tmp_path)
    lists = tmp_path / "names"
    first = extract.version_of(package, lists)
    assert first == extract.version_of(package, lists) == extract.extractor_version()
    (package / "notes.txt").write_text("not a source\n")
    (lists / "device.json").write_text("{}\n")  # a twin: the YAML is what counts
    assert extract.version_of(package, lists) == first
    seen = {first}
    for edited in (package / "c" / "wavefront.py", package / "c" / "queries" / "cuda.scm", package / "text" / "deps.py",
                   package.parent / "model.py", package.parent / "scan" / "readfile.py", lists / "device.yaml"):
        original = edited.read_bytes()
        edited.write_bytes(original + b"\n")
        seen.add(extract.version_of(package, lists))
        edited.write_bytes(original)
    (package / "python" / "new.py").write_text("X = 1\n")
    seen.add(extract.version_of(package, lists))
    assert len(seen) == 8


def test_the_extraction_cache_misses_when_the_extractor_version_changes(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "k.cu"
    source.write_text("void f(void** p) { cudaMalloc(p, 4); }\n" * 2000)  # worth a cache row
    file = SourceFile(path=source, rel="k.cu", kind="cuda", size=source.stat().st_size)
    cache = Cache(tmp_path / "cache")
    extract_run.extract_all([file], max_file_size=1 << 20, cache=cache)
    calls = []
    real = extract_run._run
    monkeypatch.setattr(extract_run, "_run", lambda work, *a: calls.append(len(work)) or real(work, *a))
    extract_run.extract_all([file], max_file_size=1 << 20, cache=cache)
    monkeypatch.setattr(extract_run, "extractor_version", lambda *_: "another")
    extract_run.extract_all([file], max_file_size=1 << 20, cache=cache)
    assert calls == [0, 1]


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "a.cu").write_text("void f(void** p) { cudaMalloc(p, 4); }\n")
    (tree / "src" / "b.cu").write_text("void g(void* p) { cudaFree(p); }\n")
    (tree / "src" / "blob.cu").write_bytes(b"\x00\x01 cudaMalloc")  # skipped as binary: read for its verdict
    (tree / "run.py").write_text("import pycuda.autoinit\n")
    return tree


def _scan(tree: Path, settings, monkeypatch: pytest.MonkeyPatch, counted: str) -> tuple[dict[str, int], str]:
    """Scan through the report cache; how often each of the tree's files was read (`counted`:
    "read") or stat'ed ("stat"), and the JSON report."""
    import os

    from migrate.rulebase import precompiled
    from migrate.scan import readfile, reportcache

    calls: dict[str, int] = {}

    def count(path: object) -> None:
        text = os.fspath(path)  # type: ignore[call-overload]
        if isinstance(text, str) and text.startswith(str(tree) + os.sep) and "/.git" not in text:  # files, not git
            calls[text[len(str(tree)) + 1:]] = calls.get(text[len(str(tree)) + 1:], 0) + 1

    real_read, real_inside, real_stat = readfile.read_regular, readfile.read_inside, os.stat
    if counted == "read":  # every read of a scanned file goes through one of the two
        monkeypatch.setattr(readfile, "read_regular", lambda path, limit: count(path) or real_read(path, limit))
        monkeypatch.setattr(readfile, "read_inside",
                            lambda path, top, limit: count(path) or real_inside(path, top, limit))
    else:
        monkeypatch.setattr(os, "stat", lambda path, *a, **k: count(path) or real_stat(path, *a, **k))
    got: list[str] = []
    try:
        reportcache.scan([tree], settings, rules_dir=None, load_rules=lambda: precompiled.load(None, settings.cache_dir),
                         formats=["json"], write=lambda done: got.append(b"".join(done.reports["json"]()).decode()))
    finally:
        monkeypatch.undo()
    return calls, got[0]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_report_cache_miss_reads_each_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    """The key's digests and the scan share one read in this process: a first scan reads every file once, a miss
    whose files are unchanged reads none, and one changed file is read once. (With jobs=2 the forked workers read
    the files they analyse again, in their own processes: the key keeps no bytes for them, `pooling.workers_read`.)"""
    import dataclasses

    from migrate.scan import statcache
    from migrate.settings import Settings

    monkeypatch.setattr(pooling, "PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr(pooling, "PARALLEL_BYTES", 0)
    tree = _tree(tmp_path)
    settings = Settings(jobs=jobs, cache_dir=tmp_path / "cache", use_hipify=False)
    reads, first = _scan(tree, settings, monkeypatch, "read")
    assert reads == {"src/a.cu": 1, "src/b.cu": 1, "src/blob.cu": 1, "run.py": 1} and "cudaMalloc" in first
    monkeypatch.setattr(statcache, "RACY_NS", 0)  # the stat entries are trusted at once
    _scan(tree, settings, monkeypatch, "read")  # (entries rewritten as trusted)
    monkeypatch.setattr(statcache, "RACY_NS", 0)
    reads, other = _scan(tree, dataclasses.replace(settings, exclude=("nothing.txt",)), monkeypatch, "read")
    assert reads == {} and other == first  # a miss (another key), every row and digest known
    (tree / "src" / "b.cu").write_text("void g(void** p) { cudaMallocManaged(p, 4); }\n")
    monkeypatch.setattr(statcache, "RACY_NS", 0)
    reads, changed = _scan(tree, settings, monkeypatch, "read")
    assert reads == {"src/b.cu": 1} and "cudaMallocManaged" in changed


def test_a_file_changed_after_its_digest_is_analysed_as_read(tmp_path: Path) -> None:
    """A file known by a digest whose bytes were not kept is read when it must be analysed: what
    was read then is analysed and stored under its own digest, not the stale one."""
    from migrate.rulebase import precompiled
    from migrate.scan import analyse, pipeline
    from migrate.scan.cache import Known, content_digest
    from migrate.scan.discover import discover
    from migrate.settings import Settings

    tree = _tree(tmp_path)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache", use_hipify=False)
    rules = precompiled.load(None, settings.cache_dir)
    found = discover([tree])
    stale = content_digest((tree / "src" / "a.cu").read_bytes())
    (tree / "src" / "a.cu").write_text("void f(void** p) { cudaMallocHost(p, 4); }\n")
    known = {"src/a.cu": Known(stale, None)}
    report = pipeline.run([tree], settings, rules, found=found, known=known)
    assert known == {} and any(f.symbol == "cudaMallocHost" for f in report.findings)
    version = analyse.result_version(rules, settings)
    new = analyse.row_key("cuda", content_digest((tree / "src" / "a.cu").read_bytes()), version)
    assert Cache(settings.cache_dir).get_rows([new, analyse.row_key("cuda", stale, version)]).keys() == {new}


def test_the_stat_cache_takes_discoverys_stat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm rescan stats each scanned file once (discovery's stat is the stat cache's)."""
    from migrate.scan import statcache
    from migrate.settings import Settings

    monkeypatch.setattr(statcache, "RACY_NS", 0)
    tree = _tree(tmp_path)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache", use_hipify=False)
    _scan(tree, settings, monkeypatch, "stat")
    monkeypatch.setattr(statcache, "RACY_NS", 0)
    stats, _ = _scan(tree, settings, monkeypatch, "stat")
    scanned = ("src/a.cu", "src/b.cu", "src/blob.cu", "run.py")
    assert {name: stats.get(name) for name in scanned} == dict.fromkeys(scanned, 1)  # (.git: looked for)


def test_stamps_taken_before_the_digests_began_are_used_only_when_said(tmp_path: Path) -> None:
    """Digests trust a file's own stamp (discovery's) only when told when that stat began (the
    racy rule measures from there); otherwise it stats the file itself."""
    from migrate.scan import statcache

    tree = _tree(tmp_path)
    path = tree / "src" / "a.cu"
    real = statcache.stamp_of(path.stat())
    file = SourceFile(path=path, rel="src/a.cu", kind="cuda", size=real[0], stamp=(1, 2, 3, 4, 5))
    own = statcache.Digests(Cache(tmp_path / "c1"), "t")
    own.digest(file, 1 << 20)
    given = statcache.Digests(Cache(tmp_path / "c2"), "t", started=123)
    given.digest(file, 1 << 20)
    assert own.new["src/a.cu"].stamp == real and own.new["src/a.cu"].checked_ns > 123
    assert given.new["src/a.cu"].stamp == (1, 2, 3, 4, 5) and given.new["src/a.cu"].checked_ns == 123


def test_a_stat_row_read_while_old_is_kept_before_newer_unread_ones(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Stat rows are evicted by last use: a tree's row read when STATS_KEPT - 1 others came after it
    survives more of them; one read while among the newer half is not rewritten."""
    from migrate.scan import cache as caches
    from migrate.scan import statcache
    from migrate.scan.discover import discover

    monkeypatch.setattr(statcache, "RACY_NS", 0)
    tree = _tree(tmp_path)
    store = Cache(tmp_path / "cache")

    def digests() -> statcache.Digests:
        found = discover([tree])
        out = statcache.Digests(store, "tree")
        for file in found.files:
            out.digest(file, 1 << 20)
        out.save()
        return out

    first = digests()

    def rows() -> list[str]:
        return [k for (k,) in sqlite3.connect(store.path).execute("SELECT key FROM stats ORDER BY rowid")]

    for n in range(caches.STATS_KEPT // 2 - 1):
        store.put_stats(f"other-{n}", b"[]")
    assert digests().hashed == 0 and rows()[0] == first.row_key  # among the newer half: not moved
    for n in range(caches.STATS_KEPT // 2 - 1, caches.STATS_KEPT - 1):
        store.put_stats(f"other-{n}", b"[]")
    assert rows()[0] == first.row_key and len(rows()) == caches.STATS_KEPT
    assert digests().hashed == 0 and rows()[-1] == first.row_key  # read while the oldest: to the front
    for n in range(caches.STATS_KEPT, caches.STATS_KEPT + caches.STATS_KEPT // 2):
        store.put_stats(f"other-{n}", b"[]")
    assert first.row_key in rows() and "other-0" not in rows() and len(rows()) == caches.STATS_KEPT
    assert digests().hashed == 0


def test_a_report_read_while_old_is_kept_before_newer_unread_ones(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Reports are evicted by last use: a hit on a report with REPORTS_KEPT - 1 newer ones moves it
    to the front, so the next stored ones evict the unread; a hit on a recent one touches nothing."""
    import os

    from migrate.scan import cache as caches
    from migrate.scan import pipeline
    from migrate.settings import Settings

    tree = _tree(tmp_path)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache", use_hipify=False)
    _, first = _scan(tree, settings, monkeypatch, "read")
    store = Cache(settings.cache_dir)
    [report] = (settings.cache_dir / "reports").iterdir()
    os.utime(report, ns=(10**18, 10**18))  # stored long ago
    for n in range(caches.REPORTS_KEPT // 2 - 1):
        store.put_report(f"other-{n}", [b"x"])
    monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
    assert _scan(tree, settings, monkeypatch, "read")[1] == first
    assert report.stat().st_mtime_ns == 10**18  # among the newer half: left as it is
    for n in range(caches.REPORTS_KEPT // 2 - 1, caches.REPORTS_KEPT - 1):
        store.put_report(f"other-{n}", [b"x"])
    monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
    assert _scan(tree, settings, monkeypatch, "read")[1] == first
    assert report.stat().st_mtime_ns > 10**18
    for n in range(caches.REPORTS_KEPT, caches.REPORTS_KEPT + caches.REPORTS_KEPT // 2):
        store.put_report(f"other-{n}", [b"x"])
    assert report.exists() and not (settings.cache_dir / "reports" / "other-0").exists()
    monkeypatch.setattr(pipeline, "run", lambda *a, **k: pytest.fail("scanned again"))
    assert _scan(tree, settings, monkeypatch, "read")[1] == first


def test_a_few_small_files_are_not_cached_but_many_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One small file (lint's pre-commit case) is not worth a cache write; WORTH_CACHING_FILES small
    files (a stack run's manifests) are, and a second run extracts none of them."""
    files = []
    for n in range(extract_run.WORTH_CACHING_FILES):
        source = tmp_path / f"requirements-{n}.txt"
        source.write_text(f"torch=={n}.0\n")
        files.append(SourceFile(path=source, rel=source.name, kind="requirements", size=source.stat().st_size))
    calls: list[int] = []
    real = extract_run._run
    monkeypatch.setattr(extract_run, "_run", lambda work, *a: calls.append(len(work)) or real(work, *a))
    one = Cache(tmp_path / "one")
    extract_run.extract_all(files[:1], max_file_size=1 << 20, cache=one)
    extract_run.extract_all(files[:1], max_file_size=1 << 20, cache=one)
    many = Cache(tmp_path / "many")
    extract_run.extract_all(files, max_file_size=1 << 20, cache=many)
    extract_run.extract_all(files, max_file_size=1 << 20, cache=many)
    assert calls == [1, 1, len(files), 0]


def test_the_extractor_sources_are_listed_as_rglob_lists_them(tmp_path: Path) -> None:
    """extract.sources walks the package with os.walk and strings: the same files, in the order of
    the sorted Paths that pathlib's rglob gave (the version hashes them in that order), a name that
    only ends like a source (a folder `x.py`, a file called `.py`) as rglob's suffix test takes it."""
    package = _package_copy(tmp_path)
    lists = tmp_path / "names"
    (package / "c" / "a-b.py").write_text("A = 1\n")  # '-' sorts before '/' in a string, after it in a Path
    (package / "c" / "a").mkdir()
    (package / "c" / "a" / "z.py").write_text("Z = 1\n")
    (package / ".py").write_text("not a source: no suffix\n")
    (package / "folder.scm").mkdir()
    expected = [*sorted(p for p in package.rglob("*") if p.suffix in extract.OWN_SUFFIXES),
                *(package.parent / name for name in extract.BESIDE), *sorted(lists.glob("*.yaml"))]
    named = extract.sources(str(package), str(lists))
    assert [Path(path) for _, path in named] == expected
    assert [name for name, _ in named] == [p.relative_to(package.parent).as_posix() for p in expected[:-len(
        list(lists.glob("*.yaml")))]] + [f"names/{p.name}" for p in sorted(lists.glob("*.yaml"))]
    assert extract.sources(str(package), str(tmp_path / "no-lists"))[-1][0] == extract.BESIDE[-1]


def test_the_extractor_version_is_kept_by_its_sources_stamps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A memo in the cache directory (extract/versionmemo.py) gives the version computed from the
    bytes without reading them again while every source's stamp is the one recorded; an edited,
    added or racy source, or a memo of the wrong shape, is hashed again."""
    from migrate.extract import versionmemo

    package = _package_copy(tmp_path)
    lists = tmp_path / "names"
    memo_dir = tmp_path / "cache"
    monkeypatch.setattr(versionmemo, "RACY_NS", 0)  # the copies' ctimes are this second's
    hashed: list[int] = []
    digest = extract._digest
    monkeypatch.setattr(extract, "_digest", lambda named: hashed.append(1) or digest(named))
    first = extract.version_of(package, lists, memo_dir=memo_dir)
    assert hashed == [1] and first == extract.version_of(package, lists)
    hashed.clear()
    assert extract.version_of(package, lists, memo_dir=memo_dir) == first and hashed == []  # from the memo
    edited = package / "c" / "wavefront.py"
    edited.write_bytes(edited.read_bytes() + b"\n")
    second = extract.version_of(package, lists, memo_dir=memo_dir)
    assert hashed == [1] and second != first and second == extract.version_of(package, lists)
    hashed.clear()
    (package / "python" / "new.py").write_text("X = 1\n")
    third = extract.version_of(package, lists, memo_dir=memo_dir)
    assert hashed == [1] and third not in (first, second)
    hashed.clear()
    (memo,) = memo_dir.glob("extract-version-*.json")
    memo.write_text('{"key": 1}')
    assert extract.version_of(package, lists, memo_dir=memo_dir) == third and hashed == [1]
    hashed.clear()
    monkeypatch.setattr(versionmemo, "RACY_NS", 10**18)  # every stamp racy: never trusted
    assert extract.version_of(package, lists, memo_dir=memo_dir) == third and hashed == [1]


def test_a_lint_without_a_cache_keeps_no_extractor_version(tmp_path: Path) -> None:
    """Only a cache directory holds the memo: extract_all with a disabled cache writes nothing."""
    source = tmp_path / "k.cu"
    source.write_text("void f(void** p) { cudaMalloc(p, 4); }\n")
    file = SourceFile(path=source, rel="k.cu", kind="cuda", size=source.stat().st_size)
    (outcome,) = extract_run.extract_all([file], max_file_size=1 << 20, cache=Cache(None))
    assert outcome.ok and sorted(p.name for p in tmp_path.iterdir()) == ["k.cu"]


def test_the_report_code_key_reads_no_bytecode_folder(tmp_path: Path) -> None:
    """The report cache's code key lists the tool's files in the order of their sorted Paths, without `__pycache__`
    folders: the start table a run saves there (cli/startcache.py) is not code, and a key that read it missed after
    every run that rewrote it. A folder that is only named like one (`pycache`) and a data file are kept."""
    from migrate.scan.reportcache import _code_files

    for rel in ("a.py", "a/b.py", "a.b/c.yaml", "a-b.py", "pycache/x.json", "B.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    for rel in ("__pycache__/a.cpython-311.pyc", "a/__pycache__/startcache.cpython-311.marshal", "a/c.pyc"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"\0")
    expected = [p.relative_to(tmp_path).parts for p in sorted(tmp_path.rglob("*"))
                if p.is_file() and p.suffix != ".pyc" and "__pycache__" not in p.parts]
    assert _code_files(str(tmp_path)) == expected
    assert ("a", "b.py") in expected and ("pycache", "x.json") in expected and len(expected) == 6


def test_a_few_files_edited_since_the_cache_was_written_are_not_looked_up(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch too small for its misses to be written (lint of an edited file) looks up only the files not modified
    since the cache file was last written: an edited file's new bytes are not there, and the lookup cost sqlite3's
    import and a connection. A file the cache holds, unchanged since, is still served; an edit undone (the old bytes,
    a new mtime) is extracted again: the cost accepted. A batch worth writing looks every file up, as before."""
    files = []
    for n in range(extract_run.WORTH_CACHING_FILES):
        source = tmp_path / f"requirements-{n}.txt"
        source.write_text(f"torch=={n}.0\n")
        os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns - 10**10))  # before the cache
        files.append(_stamped(source))
    cache = Cache(tmp_path / "cache")
    calls: list[int] = []
    looked_up: list[str] = []
    real_run, real_get = extract_run._run, Cache.get
    monkeypatch.setattr(extract_run, "_run", lambda work, *a: calls.append(len(work)) or real_run(work, *a))
    monkeypatch.setattr(Cache, "get", lambda self, key: looked_up.append(key) or real_get(self, key))
    extract_run.extract_all(files, max_file_size=1 << 20, cache=cache)  # worth writing: all eight stored
    written = cache.written_ns()
    assert written is not None and calls == [len(files)] and len(looked_up) == len(files)
    one = files[0].path
    first = extract_run.extract_all([_stamped(one)], max_file_size=1 << 20, cache=Cache(tmp_path / "cache"))
    assert calls[1:] == [0] and len(looked_up) == len(files) + 1  # unchanged since the write: served
    one.write_text("torch==9.0\n")
    os.utime(one, ns=(written, written + 10**9))  # edited after the write
    edited = extract_run.extract_all([_stamped(one)], max_file_size=1 << 20, cache=Cache(tmp_path / "cache"))
    assert calls[1:] == [0, 1] and len(looked_up) == len(files) + 1  # not looked up, extracted
    one.write_text("torch==0.0\n")  # the edit undone: the stored bytes again, with a new mtime
    os.utime(one, ns=(written, written + 2 * 10**9))
    undone = extract_run.extract_all([_stamped(one)], max_file_size=1 << 20, cache=Cache(tmp_path / "cache"))
    assert calls[1:] == [0, 1, 1] and len(looked_up) == len(files) + 1
    assert undone[0].extraction == first[0].extraction and edited[0].extraction != first[0].extraction
    extract_run.extract_all([_stamped(f.path) for f in files], max_file_size=1 << 20, cache=Cache(tmp_path / "cache"))
    assert calls[1:] == [0, 1, 1, 0] and len(looked_up) == 2 * len(files) + 1  # all looked up and held (the undone too)
    fresh = Cache(tmp_path / "fresh")  # no cache file at all: nothing is looked up, nothing is made
    extract_run.extract_all([files[1]], max_file_size=1 << 20, cache=fresh)
    assert fresh.written_ns() is None and len(looked_up) == 2 * len(files) + 1


def _stamped(source: Path) -> SourceFile:
    info = source.stat()
    return SourceFile(path=source, rel=source.name, kind="requirements", size=info.st_size,
                      stamp=(info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev))


def test_a_scan_s_result_version_takes_the_extractor_version_from_the_cache_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """result_version (a scan's result rows, a linted project's parts) keeps the extractor version in the cache
    directory by its sources' stamps, as extract_all does: a process whose first need of the version is there (a lint
    inside a project whose own file is not looked up) does not read and hash the extractor's sources again."""
    from types import SimpleNamespace

    from migrate.rulebase.load import RuleBase
    from migrate.scan import analyse
    from migrate.settings import Settings

    hashed: list[int] = []
    digest = extract._digest
    monkeypatch.setattr(extract, "_digest", lambda named: hashed.append(1) or digest(named))
    monkeypatch.setattr(extract, "_VERSION", [])
    settings, rules = Settings(cache_dir=tmp_path / "cache"), cast(RuleBase, SimpleNamespace(version="rules"))
    first = analyse.result_version(rules, settings)
    assert hashed == [1] and list((tmp_path / "cache").glob("extract-version-*.json"))
    monkeypatch.setattr(extract, "_VERSION", [])  # as a new process
    assert analyse.result_version(rules, settings) == first and hashed == [1]
