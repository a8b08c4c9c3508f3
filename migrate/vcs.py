"""git, behind one small adapter: the commit a checkout is at, a shallow clone, a remote's HEAD.
Only a folder that is itself the top of a checkout (has .git) has a commit: a fixture tree inside
another repository does not take that repository's commit."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

TIMEOUT = 600
ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}  # never wait for a password


class GitError(Exception):
    """A git command failed; str() is one line."""


def head_commit(folder: Path) -> str | None:
    if not (folder / ".git").exists() or shutil.which("git") is None:
        return None
    try:
        return _git("-C", str(folder), "rev-parse", "HEAD", timeout=30).strip() or None
    except GitError:
        return None


def remote_head(url: str) -> str:
    """The commit the remote's default branch is at, without cloning."""
    out = _git("ls-remote", url, "HEAD", timeout=120)
    return out.split()[0] if out.split() else ""


def shallow_clone(url: str, destination: Path) -> str:
    """Clone the default branch at depth 1; returns the commit."""
    _git("clone", "--quiet", "--depth", "1", "--single-branch", url, str(destination), timeout=TIMEOUT)
    commit = head_commit(destination)
    if commit is None:
        raise GitError(f"git clone {url}: no commit checked out")
    return commit


def _git(*args: str, timeout: int) -> str:
    if shutil.which("git") is None:
        raise GitError("git is not installed")
    try:
        done = subprocess.run(["git", *args], check=False, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **ENV}, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]}: timed out after {timeout} s") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise GitError(f"git {args[0]}: {last}")
    return done.stdout
