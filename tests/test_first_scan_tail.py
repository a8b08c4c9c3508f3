"""The first scan's serial tail and its cache commits, cut with the same results
(docs/decisions/2026-12-06-s23-first-scan-tail.md): each shortcut against the long way it replaces, near misses
included."""
from __future__ import annotations

import dataclasses
import os
import posixpath
import random
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import pytest
from migrate.model import Fact, Finding, SourceFile, evolve, evolver
from migrate.scan import cache as cache_module
from migrate.scan.cache import STATS_KEPT, Cache
from migrate.stack import pins
from migrate.workloads import assemble, build_sources, switches
from migrate.workloads.build_sources import SOURCE_KINDS, sources_named

FINDING = Finding(rule="r", path="a/b.cu", line=3, column=4, end_line=3, end_column=9, symbol="cudaMalloc",
                  message="m", hip="hipMalloc", hipify="yes", confidence="high", migration_class="migration-required",
                  source_line="cudaMalloc(&p, 4);", targets=("gfx90a",), status="")


@pytest.mark.parametrize("changes", [
    {"targets": ("gfx90a", "gfx942")},
    {"workload": "w", "status": "optional"},
    {"effective_class": "native"},
    {"status": "ported", "workload": "x"},  # another order of the same fields
    {"rule": "q", "path": "c.cu", "compiler": "miss", "source_line": ""},
])
def test_an_evolver_makes_what_evolve_and_replace_make_and_leaves_the_finding_as_it_was(changes: dict[str, object]) -> None:
    before = dataclasses.astuple(FINDING)
    made = evolver(*changes)(FINDING, *changes.values())
    assert made == evolve(FINDING, **changes) == dataclasses.replace(FINDING, **changes)  # type: ignore[arg-type]
    assert type(made) is Finding and made is not FINDING and dataclasses.astuple(FINDING) == before
    assert evolver(*changes) is evolver(*changes)  # made once per set of fields
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.line = 1  # type: ignore[misc]


@pytest.mark.parametrize("names", [("workload", "nosuch"), ("status", "status")])
def test_an_evolver_of_a_field_finding_lacks_or_of_one_field_twice_is_refused(names: tuple[str, ...]) -> None:
    with pytest.raises(KeyError):
        evolver(*names)


@pytest.mark.parametrize(("folder", "name"), [
    ("a/b", "../c.h"), ("", "./x.cu"), ("a", "b//c.cu"), ("a/b", "/abs.h"), ("a", ""), ("x/./y", "../../z.h"),
])
def test_the_cached_join_is_normpath_of_join(folder: str, name: str) -> None:
    expected = posixpath.normpath(posixpath.join(folder, name)) if folder else posixpath.normpath(name)
    assert build_sources.join(folder, name) == expected == build_sources.join.__wrapped__(folder, name)


@pytest.mark.parametrize("kind", ["include", "cmake", "cmake_subdirectory", "function_reference", "runtime_source",
                                  "source_unplaced", "python_import", "flag", "cmake_include"])
def test_a_fact_of_a_kind_outside_source_kinds_names_no_source(kind: str) -> None:
    """reached_files skips the facts outside SOURCE_KINDS: sources_named has nothing for them, whatever they say."""
    fact = Fact(kind=kind, name="k.cu", line=1, column=1, end_line=1, end_column=1, text="GLOB_RECURSE k.cu")
    assert kind not in SOURCE_KINDS
    assert sources_named("CMakeLists.txt", fact, frozenset({"k.cu", "CMakeLists.txt"})) == []


def test_a_build_source_is_in_source_kinds_and_names_its_file() -> None:  # the near miss
    fact = Fact(kind="build_source", name="k.cu", line=1, column=1, end_line=1, end_column=1)
    assert "build_source" in SOURCE_KINDS and "extension" in SOURCE_KINDS
    assert sources_named("CMakeLists.txt", fact, frozenset({"k.cu", "CMakeLists.txt"})) == ["k.cu"]


def _ordered_owner(path: str, roots: dict[str, assemble.Spec]) -> assemble.Spec | None:
    """The long way: every root, deepest first, tried in turn."""
    ordered = sorted(roots.values(), key=lambda s: -s.root.count("/") - (s.root != "."))
    return next((s for s in ordered if s.root == "." or path.startswith(s.root + "/")), None)


@pytest.mark.parametrize("seed", range(30))
def test_the_deepest_root_by_folder_is_the_first_root_of_the_ordered_search(seed: int) -> None:
    rng = random.Random(seed)
    words = ["a", "b", "ab", "a.b", "c"]
    paths = {"/".join(rng.choice(words) for _ in range(rng.randint(1, 5))) for _ in range(60)}
    folders = {posixpath.dirname(p) or "." for p in paths} | {"a/b/c", "ab", "."}
    roots = {f: assemble.Spec(f, f, "make") for f in folders if rng.random() < 0.4 and (f != "." or seed % 2)}
    for path in sorted(paths | {"x", "a", "ab/", "a/bc/d"}):
        assert assemble._deepest_root(path, roots) is _ordered_owner(path, roots), path


def test_no_work_is_the_union_wrapped_folders_made_for_every_command() -> None:
    assert switches._NO_WORK == switches.NON_BUILDING | switches.NAMING_ONLY


def _locked_long_way(files: list[SourceFile]) -> Iterable[pins.Pin]:
    """pins._locked before it looked in each folder once: every file's folder, every time."""
    seen: set[Path] = set()
    for file in files:
        for name in pins.LOCKS:
            lock = file.path.parent / name
            if lock in seen or not lock.is_file() or lock.is_symlink() or lock.stat().st_size > pins.MAX_LOCK_BYTES:
                continue
            seen.add(lock)
            rel = str(Path(file.rel).parent / name).removeprefix("./")
            yield from pins._lock_pins(lock, rel, pins.tree_of(file))


UV_LOCK = '[[package]]\nname = "torch"\nversion = "2.3.1"\n\n[[package]]\nname = "numpy"\nversion = "1.26.4"\n'
POETRY_LOCK = '[[package]]\nname = "torch"\nversion = "2.1.0"\n'


def test_lock_files_looked_for_once_per_folder_give_the_pins_of_every_file(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    (tmp_path / "a" / "uv.lock").write_text(UV_LOCK)
    (tmp_path / "a" / "poetry.lock").write_text(POETRY_LOCK)
    (tmp_path / "a" / "b" / "poetry.lock").write_text(POETRY_LOCK)
    (tmp_path / "c" / "uv.lock").mkdir()  # a folder of that name: no lock (the near miss)
    os.symlink(tmp_path / "a" / "uv.lock", tmp_path / "uv.lock")  # a link: not read
    rels = ["a/pyproject.toml", "a/requirements.txt", "a/b/setup.py", "c/pyproject.toml", "pyproject.toml",
            "a/b/x.py", "a/k.cu"]
    files = [SourceFile(path=tmp_path / rel, rel=rel, kind="manifest", size=1) for rel in rels]
    found = list(pins._locked(files))
    assert found == list(_locked_long_way(files))
    assert sorted({(p.package, p.version, p.where.path) for p in found}) == [
        ("numpy", "1.26.4", "a/uv.lock"), ("torch", "2.1.0", "a/b/poetry.lock"), ("torch", "2.1.0", "a/poetry.lock"),
        ("torch", "2.3.1", "a/uv.lock")]


def _state(path: Path) -> list[tuple[int, str, bytes]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT rowid, key, value FROM stats ORDER BY rowid").fetchall()


def _writes(cache: Cache, n: int) -> None:
    cache.put_stats(f"code{n}", b"c")
    cache.used_stats("tree0")
    cache.put_stats(f"tree{n}", b"t")


@pytest.mark.parametrize("before", [0, 3, STATS_KEPT - 1, STATS_KEPT + 5])
def test_held_writes_leave_the_rows_one_by_one_writes_leave_in_one_transaction(tmp_path: Path, before: int) -> None:
    """put_stats (a put and a keep) and used_stats, held and written together, leave the same rows, rowids and
    values as written one by one; the held ones are one transaction (one BEGIN, one COMMIT)."""
    states = []
    for held in (False, True):
        folder = tmp_path / str(held)
        setup = Cache(folder)
        for n in range(before):
            setup.put_stats(f"old{n}", b"o")
        setup.put_stats("tree0", b"t0")
        for n in range(STATS_KEPT // 2 if before else 0):
            setup.put_stats(f"newer{n}", b"n")  # tree0 among the older half: used_stats moves it
        cache = Cache(folder)
        statements: list[str] = []
        if held:
            cache.hold_writes()
        _writes(cache, 1)
        assert cache._db is None or not held  # nothing written while held
        if cache._connect() is not None:
            cache._connect().set_trace_callback(statements.append)  # type: ignore[union-attr]
        cache.write_held()
        if held:
            assert [s.split()[0] for s in statements if s.split()[0] in ("BEGIN", "COMMIT")] == ["BEGIN", "COMMIT"]
        states.append(_state(folder / "facts.sqlite3"))
    assert states[0] == states[1]
    assert len(states[1]) <= STATS_KEPT


def test_a_new_cache_makes_its_tables_in_one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    statements: list[str] = []
    real = sqlite3.connect

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        db = real(*args, **kwargs)  # type: ignore[arg-type]
        db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(cache_module.sqlite3, "connect", connect)
    cache = Cache(tmp_path)
    assert cache.get_rows(["k"]) == {}
    kinds = [s.split()[0] for s in statements]
    assert kinds[:len(cache_module.TABLES) + 2] == ["BEGIN", *["CREATE"] * len(cache_module.TABLES), "COMMIT"]
    assert kinds.count("COMMIT") == 1  # each CREATE on its own was a commit of its own (no BEGIN, no COMMIT)
    with sqlite3.connect(tmp_path / "facts.sqlite3") as db:
        assert {name for name, in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} \
            == set(cache_module.TABLES)


def test_held_writes_of_a_cache_without_a_folder_are_nothing() -> None:
    cache = Cache(None)
    cache.hold_writes()
    cache.put_stats("k", b"v")
    cache.write_held()
    assert cache._db is None and cache.get_stats("k") is None


def _traced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    statements: list[str] = []
    real = sqlite3.connect

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        db = real(*args, **kwargs)  # type: ignore[arg-type]
        db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(cache_module.sqlite3, "connect", connect)
    return statements


def test_held_writes_of_a_first_connection_go_in_the_transaction_that_makes_the_tables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one_by_one = Cache(tmp_path / "one")
    _writes(one_by_one, 1)
    statements = _traced(monkeypatch)
    cache = Cache(tmp_path / "held")
    cache.hold_writes()
    _writes(cache, 1)
    cache.write_held()
    assert [s.split()[0] for s in statements].count("COMMIT") == 1
    assert _state(tmp_path / "held" / "facts.sqlite3") == _state(tmp_path / "one" / "facts.sqlite3")


def test_a_held_write_that_fails_leaves_the_tables_and_none_of_the_held_writes(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.hold_writes()
    cache.put_stats("k", b"v")
    assert cache._held is not None
    cache._held.append(("INSERT INTO nosuch VALUES (?)", [(1,)]))
    cache.write_held()
    assert cache.path is not None and cache.get_stats("k") is None  # the cache works; the held rows were not written
    cache.put_stats("k", b"w")
    assert cache.get_stats("k") == b"w"


@pytest.mark.parametrize("text", ["plain", "caf\u00e9 \u2014 \U0001f600", "bad \udcff byte", "\ud800", ""])
def test_unicode_bytes_are_unicode_text_encoded(text: str) -> None:
    from migrate.safetext import unicode_bytes, unicode_text

    assert unicode_bytes(text) == unicode_text(text).encode("utf-8")
