"""Inside a git checkout git decides what is ignored; without git, pathspec with a note. Real CLI."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from migrate.scan.discover import discover
from tests.conftest import run_cli

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for rel, text in {".gitignore": "*.cu\ngen/\n", "d/.gitignore": "!d.cu\n", "d/d.cu": "int d;\n",
                      "e.cu": "int e;\n", "tracked.cu": "int t;\n", "gen/g.cu": "int g;\n", "ok.py": "x = 1\n"}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    _git(repo.parent, "init", "-q", str(repo))
    _git(repo, "add", "-f", "tracked.cu")
    _git(repo, "commit", "-q", "-m", "t")
    return repo


def test_git_is_the_authority_in_a_checkout(checkout: Path) -> None:
    assert [f.rel for f in discover([checkout]).files] == ["d/d.cu", "ok.py", "tracked.cu"]
    result = run_cli("scan", str(checkout), "--format", "json", "--no-cache")
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["files_scanned"] == 3
    assert not [n for n in report["notes"] if "git" in n]


def test_pathspec_fallback_with_a_note_when_git_is_missing(checkout: Path, tmp_path: Path) -> None:
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    result = run_cli("scan", str(checkout), "--format", "json", "--no-cache", env={"PATH": str(empty)})
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["files_scanned"] == 1  # ok.py: pathspec's own reading of the same .gitignore files
    assert any("git is not installed" in n and ".gitignore" in n for n in report["notes"])


def test_the_checkout_config_runs_no_program(checkout: Path, tmp_path: Path) -> None:
    witness = tmp_path / "ran"
    hook = tmp_path / "fsmonitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {witness}\n")
    hook.chmod(0o755)
    _git(checkout, "config", "core.fsmonitor", str(hook))
    assert [f.rel for f in discover([checkout]).files] == ["d/d.cu", "ok.py", "tracked.cu"]
    assert not witness.exists()


def test_nested_repository_and_vendored_dirs_keep_their_rules(checkout: Path) -> None:
    nested = checkout / "nested"
    (nested / "third_party").mkdir(parents=True)
    (nested / "k.py").write_text("y = 2\n")
    (nested / "skip.py").write_text("z = 3\n")
    (nested / ".gitignore").write_text("skip.py\n")
    (nested / "third_party" / "v.py").write_text("v = 4\n")
    _git(checkout.parent, "init", "-q", str(nested))
    found = discover([checkout])
    assert [f.rel for f in found.files] == ["d/d.cu", "nested/k.py", "ok.py", "tracked.cu"]
    assert "nested/third_party/" in {s.path for s in found.skipped}
