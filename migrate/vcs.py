"""git, behind one small adapter: the commit a checkout is at, a shallow clone, a remote's HEAD, the
files git would not ignore. Only a folder that is itself the top of a checkout (has .git) has a commit: a fixture tree inside
another repository does not take that repository's commit."""
from __future__ import annotations

import locale
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

from migrate.scan import replay

TIMEOUT = 600
ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}  # never wait for a password
# A scanned checkout is untrusted: its config must not make a read-only listing run a program.
SAFE_CONFIG = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.untrackedCache=false")
LS_FILES_TIMEOUT = 120
GITFILE_BYTES = 4096
CONFIG_BYTES = 1 << 20
WORKTREE = re.compile(r"^\s*worktree\s*=\s*(.+)$", re.MULTILINE | re.IGNORECASE)
REPO_VARIABLES = frozenset({"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                            "GIT_NAMESPACE", "GIT_PREFIX", "GIT_ALTERNATE_OBJECT_DIRECTORIES"})


class GitError(Exception):
    """A git command failed; str() is one line."""


def git_dir(checkout: Path) -> Path | None:
    """The repository folder of a checkout: `.git` itself when it lies inside the checkout, or
    the folder a `.git` file's `gitdir:` names when that folder names this checkout back (a linked
    worktree's `gitdir` file, a submodule's core.worktree), as git's own layouts do. None for any
    other (`gitdir: /elsewhere`, a `.git` link out): a scanned repository must not make git read
    another repository."""
    from migrate.scan.readfile import inside, read_inside

    top, dot_git = os.path.realpath(checkout), checkout / ".git"
    try:
        if dot_git.is_dir():
            found = os.path.realpath(dot_git)
            return Path(found) if inside(found, top) else None
        text = read_inside(dot_git, checkout, GITFILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    named = text.partition("gitdir:")[2].strip().split("\n")[0]
    found = os.path.realpath(os.path.join(checkout, named)) if named else ""
    if not found or not os.path.isdir(found):
        return None
    return Path(found) if inside(found, top) or _names_back(Path(found), dot_git, top) else None


def _names_back(repository: Path, dot_git: Path, top: str) -> bool:
    """A linked worktree's repository folder holds a `gitdir` file naming the worktree's `.git`
    file; a submodule's sets core.worktree to the submodule's folder."""
    from migrate.scan.readfile import read_regular

    try:
        back = read_regular(repository / "gitdir", GITFILE_BYTES).decode("utf-8", "replace").strip()
        if back and os.path.realpath(back) == os.path.realpath(dot_git):
            return True
    except OSError:
        pass
    try:
        config = read_regular(repository / "config", CONFIG_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    worktree = WORKTREE.search(config)
    if worktree is None:
        return False
    return os.path.realpath(os.path.join(repository, worktree.group(1).strip().strip('"'))) == top


def checkout_notes(checkout: Path) -> list[str]:
    """What of the checkout's git metadata is not followed, one note each."""
    if not (checkout / ".git").exists() and not (checkout / ".git").is_symlink():
        return []
    folder = git_dir(checkout)
    if folder is None:
        return [".git: names a repository outside the scanned tree (a gitdir: file or a link): not followed; "
                "git is not used"]
    try:
        worktree = _git(*_pinned(checkout, folder), "config", "--get", "core.worktree", timeout=30, codes=(0, 1)).strip()
    except GitError:
        return []
    if worktree and os.path.realpath(os.path.join(folder, worktree)) != os.path.realpath(checkout):
        return [".git/config: core.worktree names another folder: ignored (the scanned folder is the work tree)"]
    return []


def head_commit(folder: Path) -> str | None:
    if shutil.which("git") is None or (repository := git_dir(folder)) is None:
        return None
    try:
        return _git(*_pinned(folder, repository), "rev-parse", "HEAD", timeout=30).strip() or None
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
    one entry ending in '/'. git's own ignore files (info/exclude, core.excludesFile) are used only
    when they are regular files. Raises GitError when git is missing or fails."""
    repository = git_dir(checkout)
    if repository is None:
        raise GitError("git not used: .git names a repository outside the scanned tree")
    pinned = (*SAFE_CONFIG, *_pinned(checkout, repository))
    excludes = [f"--exclude-from={path}" for path in _exclude_files(pinned, repository)]
    out = _git(*pinned, "ls-files", "-z", "--cached", "--others", "--exclude-per-directory=.gitignore", *excludes,
               timeout=LS_FILES_TIMEOUT)
    return [p for p in dict.fromkeys(out.split("\0")) if p]


def _pinned(checkout: Path, repository: Path) -> tuple[str, ...]:
    """The repository and its work tree named on the command line: core.worktree, GIT_DIR and a
    `.git` file are not consulted."""
    return ("--git-dir", str(repository), "--work-tree", str(checkout), "-C", str(checkout))


def _exclude_files(pinned: tuple[str, ...], repository: Path) -> list[str]:
    """What --exclude-standard reads besides .gitignore, kept only where it is a regular file (a FIFO
    there blocks git until its own timeout)."""
    candidates = [str(repository / "info" / "exclude")]
    try:
        configured = _git(*pinned, "config", "--path", "--get", "core.excludesFile", timeout=30, codes=(0, 1)).strip()
    except GitError:
        configured = ""
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    candidates.append(configured or os.path.join(xdg, "git", "ignore"))
    return [c for c in candidates if _regular(c)]


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


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


def _git(*args: str, timeout: int, codes: tuple[int, ...] = (0,)) -> str:
    if shutil.which("git") is None:
        raise GitError("git is not installed")
    try:
        code, out, err = replay.query(["git", *args], env=_env(), timeout=timeout)
    except subprocess.TimeoutExpired:
        raise GitError(f"git {_verb(args)}: timed out after {timeout} s") from None
    if code not in codes:
        last = (_text(err).strip().splitlines() or [f"exit status {code}"])[-1]
        raise GitError(f"git {_verb(args)}: {last}")
    return _text(out)


def _text(data: bytes) -> str:
    """A program's output as subprocess's text mode gives it (the locale's encoding, universal newlines)."""
    return data.decode(locale.getpreferredencoding(False), "surrogateescape").replace("\r\n", "\n").replace("\r", "\n")


def _env() -> dict[str, str]:
    """The caller's environment without variables that point git at another repository (a pre-commit
    hook runs with GIT_INDEX_FILE set, for one)."""
    return {**{k: v for k, v in os.environ.items() if k not in REPO_VARIABLES}, **ENV}


def _verb(args: tuple[str, ...]) -> str:
    """The subcommand, past the leading -c and -C options."""
    rest = list(args)
    while rest and rest[0] in ("-c", "-C", "--git-dir", "--work-tree"):
        rest = rest[2:]
    return rest[0] if rest else "git"
