"""git, behind one small adapter: the commit a checkout is at, a shallow clone, a remote's HEAD, the
files git would not ignore. Only a folder that is itself the top of a checkout (has .git) has a commit: a fixture tree inside
another repository does not take that repository's commit."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

TIMEOUT = 600
ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}  # never wait for a password
# A scanned checkout is untrusted: its config must not make a read-only listing run a program.
SAFE_CONFIG = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.untrackedCache=false")
LS_FILES_TIMEOUT = 120
REPO_VARIABLES = frozenset({"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                            "GIT_NAMESPACE", "GIT_PREFIX", "GIT_ALTERNATE_OBJECT_DIRECTORIES"})


class GitError(Exception):
    """A git command failed; str() is one line."""


def head_commit(folder: Path) -> str | None:
    if not (folder / ".git").exists() or shutil.which("git") is None:
        return None
    try:
        return _git("-C", str(folder), "rev-parse", "HEAD", timeout=30).strip() or None
    except GitError:
        return None


def checkout_top(folder: Path) -> Path | None:
    """The top of the git checkout that holds the folder, found lexically by the nearest `.git`
    entry (no git command runs); None outside a checkout."""
    folder = Path(os.path.abspath(folder))
    return next((top for top in (folder, *folder.parents) if os.path.lexists(top / ".git")), None)


def checkout_prefix(folder: Path) -> str | None:
    """The folder's path below the top of its git checkout ('' at the top, '/'-separated); None
    outside a checkout."""
    top = checkout_top(folder)
    return None if top is None else Path(os.path.abspath(folder)).relative_to(top).as_posix().removeprefix(".")


def listed_files(checkout: Path) -> list[str]:
    """The paths git tracks or would not ignore under the checkout's top (tracked files that match
    .gitignore included), relative to that top, '/'-separated; a nested repository or submodule is
    one entry ending in '/'. Raises GitError when git is missing or fails."""
    out = _git(*SAFE_CONFIG, "-C", str(checkout), "ls-files", "-z", "--cached", "--others", "--exclude-standard",
               timeout=LS_FILES_TIMEOUT)
    return [p for p in dict.fromkeys(out.split("\0")) if p]


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
                              env=_env(), stdin=subprocess.DEVNULL, errors="surrogateescape")
    except subprocess.TimeoutExpired:
        raise GitError(f"git {_verb(args)}: timed out after {timeout} s") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise GitError(f"git {_verb(args)}: {last}")
    return done.stdout


def _env() -> dict[str, str]:
    """The caller's environment without variables that point git at another repository (a pre-commit
    hook runs with GIT_INDEX_FILE set, for one)."""
    return {**{k: v for k, v in os.environ.items() if k not in REPO_VARIABLES}, **ENV}


def _verb(args: tuple[str, ...]) -> str:
    """The subcommand, past the leading -c and -C options."""
    rest = list(args)
    while rest and rest[0] in ("-c", "-C"):
        rest = rest[2:]
    return rest[0] if rest else "git"
