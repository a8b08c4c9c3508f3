"""One read boundary: nothing outside the scanned tree is read, whatever names it: a file given on
the command line, a link swapped in after discovery, git metadata (`.git` as a `gitdir:` file,
core.worktree, ignore files that are FIFOs). Configuration files are in test_settings.py, includes
of precise mode in test_precise.py."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from migrate.model import SourceFile
from migrate.scan import readfile
from tests.conftest import run_cli

SECRET = "OUTSIDE_SECRET_boundary"
CUDA = "void f(float** p) { cudaMalloc(p, 4); }\n"
OUTSIDE = f"// {SECRET}\nvoid g(float** p) {{ cudaMallocManaged(p, 4); }} // {SECRET}\n"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True, timeout=60)


def _repo(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "k.cu").write_text(CUDA)
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-qm", "x")


def test_a_file_named_on_the_command_line_that_links_outside_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.cu").write_text(OUTSIDE)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "s.cu").symlink_to(tmp_path / "outside" / "o.cu")
    for command in (["scan", "s.cu", "-f", "json"], ["lint", "s.cu", "--format", "json"]):
        result = run_cli(*command, cwd=tmp_path / "tree")
        assert SECRET not in result.stdout + result.stderr and "cudaMallocManaged" not in result.stdout
    report = json.loads(run_cli("scan", "s.cu", "-f", "json", cwd=tmp_path / "tree").stdout)
    assert report["skipped"] == [{"path": "s.cu", "reason": "symlink to outside the scanned tree"}]


def test_a_link_swapped_after_discovery_is_never_read(tmp_path: Path) -> None:
    """The primitive: 2,000 reads of a link flipped between an inside and an outside file."""
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (tree / "in.cu").write_text(CUDA)
    (outside / "o.cu").write_text(OUTSIDE)
    (tree / "flip.cu").symlink_to(tree / "in.cu")
    file = SourceFile(path=tree / "flip.cu", rel="flip.cu", kind="cuda", size=len(CUDA))
    stop = threading.Event()
    flipper = threading.Thread(target=_flip, args=(tree / "flip.cu", tree / "in.cu", outside / "o.cu", stop))
    flipper.start()
    seen: set[str | None] = set()
    try:
        for _ in range(2000):
            data, reason = readfile.read(file, 1 << 20)
            assert data is None or SECRET.encode() not in data
            seen.add(reason)
    finally:
        stop.set()
        flipper.join()
    assert "symlink to outside the scanned tree" in seen and None in seen  # both sides were met


def _flip(link: Path, inside: Path, outside: Path, stop: threading.Event) -> None:
    spare = link.with_name("flip.tmp")
    targets = (outside, inside)
    i = 0
    while not stop.is_set():
        spare.unlink(missing_ok=True)
        spare.symlink_to(targets[i % 2])
        os.replace(spare, link)
        i += 1
        time.sleep(0)


def test_the_link_flip_race_in_a_whole_scan_leaks_nothing_in_20_runs(tmp_path: Path, rulebase) -> None:
    from migrate.render import renderer
    from migrate.scan import pipeline
    from migrate.settings import Settings

    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / "src").mkdir(parents=True)
    outside.mkdir()
    for i in range(200):
        (tree / "src" / f"k{i:03}.cu").write_text(CUDA)
    (outside / "o.cu").write_text(OUTSIDE)
    (tree / "flip.cu").symlink_to(tree / "src" / "k000.cu")
    leaks = 0
    for _ in range(20):
        stop = threading.Event()
        flipper = threading.Thread(target=_flip, args=(tree / "flip.cu", tree / "src" / "k000.cu", outside / "o.cu", stop))
        flipper.start()
        try:
            report = pipeline.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
        finally:
            stop.set()
            flipper.join()
        texts = [renderer(name)(report) for name in ("json", "html", "sarif", "csv")]
        leaks += any(SECRET in text or "cudaMallocManaged" in text for text in texts)
    assert leaks == 0


@needs_git
def test_a_gitdir_file_naming_another_repository_is_not_followed(tmp_path: Path) -> None:
    _repo(tmp_path / "other")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.cu").write_text(CUDA)
    (tree / ".git").write_text(f"gitdir: {tmp_path / 'other' / '.git'}\n")
    report = json.loads(run_cli("scan", str(tree), "-f", "json", "--no-cache").stdout)
    assert report["source"]["commit"] is None
    assert {f["path"] for f in report["findings"]} == {"a.cu"}
    assert any("names a repository outside the scanned tree" in n for n in report["notes"])
    assert str(tmp_path) not in json.dumps(report["notes"])


@needs_git
def test_core_worktree_naming_another_folder_is_ignored(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    _repo(tree)
    (tmp_path / "elsewhere").mkdir()
    _git(tree, "config", "core.worktree", str(tmp_path / "elsewhere"))
    report = json.loads(run_cli("scan", str(tree), "-f", "json", "--no-cache").stdout)
    assert {f["path"] for f in report["findings"]} == {"k.cu"}
    assert any("core.worktree" in n for n in report["notes"])


@needs_git
@pytest.mark.parametrize("where", ["info-exclude", "core-excludesfile"])
def test_an_ignore_file_that_is_a_fifo_costs_no_time(tmp_path: Path, where: str) -> None:
    tree = tmp_path / "tree"
    _repo(tree)
    if where == "info-exclude":
        (tree / ".git" / "info").mkdir(exist_ok=True)
        (tree / ".git" / "info" / "exclude").unlink(missing_ok=True)
        os.mkfifo(tree / ".git" / "info" / "exclude")
    else:
        os.mkfifo(tmp_path / "ignore-fifo")
        _git(tree, "config", "core.excludesFile", str(tmp_path / "ignore-fifo"))
    started = time.monotonic()
    result = run_cli("scan", str(tree), "-f", "json", "--no-cache")
    assert result.returncode == 0 and time.monotonic() - started < 60, result.stderr
    assert {f["path"] for f in json.loads(result.stdout)["findings"]} == {"k.cu"}


def test_the_same_tree_at_two_places_gives_the_same_json(tmp_path: Path) -> None:
    """Notes hold no absolute path: a missing compilation database, git's absence."""
    reports = []
    for place in ("a", "b/deeper"):
        tree = tmp_path / place / "tree"
        tree.mkdir(parents=True)
        (tree / "k.cu").write_text(CUDA)
        (tree / "options.rsp").symlink_to(tmp_path)
        result = run_cli("scan", str(tree), "-f", "json", "--no-cache", "--precise")
        assert result.returncode == 0, result.stderr
        assert str(tmp_path) not in result.stdout
        reports.append(json.loads(result.stdout))
    assert reports[0] == reports[1] and reports[0]["notes"]
