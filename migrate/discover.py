"""discover: walk the targets, honour .gitignore, skip vendored trees, give every file a kind.

Inside a git checkout git itself decides what is ignored (`git ls-files --cached --others
--exclude-standard`): a tracked file that matches .gitignore is scanned, negations behave as in git.
Below a nested repository, a submodule or a tracked symlink to a directory, and wherever git is
missing or fails (a note says so), the .gitignore files are matched with pathspec instead."""
from __future__ import annotations

import fnmatch
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import pathspec

from migrate import vcs
from migrate.model import Skipped, SourceFile

VENDORED = frozenset({
    ".git", ".hg", ".svn", "third_party", "thirdparty", "3rdparty", "external", "extern", "vendor",
    "node_modules", "build", "site-packages", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache",
})
VENDORED_GLOBS = ("*.egg-info", "cmake-build-*")
SUFFIX_KINDS = {
    ".cu": "cuda", ".cuh": "cuda",
    ".c": "cpp", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".h": "cpp", ".hpp": "cpp",
    ".hh": "cpp", ".hxx": "cpp", ".inl": "cpp", ".ipp": "cpp", ".tpp": "cpp", ".hip": "hip",
    ".py": "python", ".ipynb": "notebook", ".cmake": "cmake", ".mk": "makefile", ".mak": "makefile",
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".sbatch": "shell", ".slurm": "shell",
}
NAME_KINDS = {
    "cmakelists.txt": "cmake", "makefile": "makefile", "gnumakefile": "makefile",
    "pyproject.toml": "pyproject", "pipfile": "pyproject", "setup.cfg": "setupcfg", ".gitlab-ci.yml": "manifest",
}
NAME_GLOBS = (
    ("dockerfile*", "dockerfile"), ("*.dockerfile", "dockerfile"), ("containerfile*", "dockerfile"),
    ("*.containerfile", "dockerfile"), ("makefile.*", "makefile"),
    ("*requirements*.txt", "requirements"), ("*requirements*.in", "requirements"), ("constraints*.txt", "requirements"),
    ("docker-compose*.y*ml", "manifest"), ("compose*.y*ml", "manifest"),
    ("environment*.y*ml", "conda"), ("*[-_]environment*.y*ml", "conda"), ("conda*.y*ml", "conda"),
)
REQUIREMENTS_DIRS = frozenset({"requirements", "reqs"})
SNIFF_BYTES = 64 * 1024
K8S = re.compile(rb"^(apiVersion|kind):", re.MULTILINE)
SHEBANG = re.compile(rb"^#!.*\b(?:(ba|z|da)?sh|python3?)\b")


@dataclass(frozen=True, slots=True, kw_only=True)
class Discovery:
    root: Path
    files: tuple[SourceFile, ...]
    skipped: tuple[Skipped, ...]
    notes: tuple[str, ...] = ()


def discover(targets: list[Path], *, include_vendored: bool = False, exclude: tuple[str, ...] = ()) -> Discovery:
    """Every scannable file under the targets, with paths relative to their common root."""
    resolved = [t.resolve() for t in targets]
    root = Path(os.path.commonpath([t if t.is_dir() else t.parent for t in resolved]))
    walker = _Walker(root, include_vendored, exclude)
    for target in resolved:
        if target.is_dir():
            walker.walk(target)
        else:
            walker.file(target, explicit=True)
    files = sorted(walker.files.values(), key=lambda f: f.rel)
    return Discovery(root=root, files=tuple(files), skipped=tuple(sorted(walker.skipped, key=lambda s: s.path)),
                     notes=tuple(walker.notes))


def file_kind(path: Path) -> str | None:
    name = path.name.lower()
    if name in NAME_KINDS:
        return NAME_KINDS[name]
    for pattern, kind in NAME_GLOBS:
        if fnmatch.fnmatch(name, pattern):
            return kind
    if path.suffix.lower() in (".yml", ".yaml") and path.parent.name == "workflows" and path.parent.parent.name == ".github":
        return "manifest"  # CI workflows: container images and GPU runners
    if path.suffix.lower() in (".txt", ".in") and path.parent.name.lower() in REQUIREMENTS_DIRS:
        return "requirements"  # requirements/base.txt, requirements/cuda.in
    suffix_kind = SUFFIX_KINDS.get(path.suffix.lower())
    if suffix_kind or path.suffix.lower() not in ("", ".yaml", ".yml"):
        return suffix_kind
    return _sniff(path)


def _sniff(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return None
    if path.suffix.lower() in (".yaml", ".yml"):
        return "manifest" if K8S.search(head) or b"nvidia.com/" in head else None
    m = SHEBANG.match(head)
    if m:
        return "python" if b"python" in m.group(0) else "shell"
    return None


class _Walker:
    def __init__(self, root: Path, include_vendored: bool, exclude: tuple[str, ...]) -> None:
        self.root = root
        self.include_vendored = include_vendored
        self.exclude = pathspec.GitIgnoreSpec.from_lines(exclude)
        self.git_root = _git_root(root)
        self.files: dict[str, SourceFile] = {}
        self.skipped: list[Skipped] = []
        self.notes: list[str] = []
        self._seen_dirs: set[Path] = set()
        self.listing = _listing(self.git_root, self.notes) if self.git_root is not None else None

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() if path != self.root else path.name

    def walk(self, top: Path) -> None:
        specs = self._ancestor_specs(top)
        self._walk_dir(top, specs)

    def _walk_dir(self, directory: Path, specs: list[tuple[Path, pathspec.GitIgnoreSpec]]) -> None:
        try:
            real = directory.resolve()
        except (RuntimeError, OSError):
            self.skipped.append(Skipped(path=self.rel(directory), reason="symlink loop"))
            return
        if real in self._seen_dirs:
            self.skipped.append(Skipped(path=self.rel(directory), reason="symlink loop (directory already scanned)"))
            return
        self._seen_dirs.add(real)
        specs = specs + self._gitignore(directory)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            self.skipped.append(Skipped(path=self.rel(directory), reason=f"unreadable directory: {exc.strerror}"))
            return
        for entry in entries:
            path = Path(entry.path)
            is_dir = _is_dir(entry)
            if self._ignored(path, is_dir, specs):
                continue
            if is_dir:
                if not self.include_vendored and _vendored(entry.name):
                    if entry.name not in (".git", "__pycache__"):
                        self.skipped.append(Skipped(path=self.rel(path) + "/",
                                                    reason="vendored or build directory (use --include-vendored)"))
                    continue
                self._walk_dir(path, specs)
            elif entry.is_symlink() and not path.exists():
                self.skipped.append(Skipped(path=self.rel(path), reason="broken symlink or symlink loop"))
            else:
                self.file(path, explicit=False)

    def file(self, path: Path, *, explicit: bool) -> None:
        kind = file_kind(path)
        rel = self.rel(path)
        if kind is None:
            if explicit:
                self.skipped.append(Skipped(path=rel, reason="not a file kind rocm-migrate scans"))
            return
        try:
            info = path.stat()
        except OSError as exc:
            self.skipped.append(Skipped(path=rel, reason=f"unreadable: {exc.strerror}"))
            return
        if not stat.S_ISREG(info.st_mode):
            self.skipped.append(Skipped(path=rel, reason="not a regular file"))
            return
        size = info.st_size
        self.files[rel] = SourceFile(path=path, rel=rel, kind=kind, size=size)

    def _ignored(self, path: Path, is_dir: bool, specs: list[tuple[Path, pathspec.GitIgnoreSpec]]) -> bool:
        rel_root = self.rel(path) + ("/" if is_dir else "")
        if self.exclude.match_file(rel_root):
            return True
        if self.listing is not None and self.git_root is not None:
            verdict = self.listing.ignored(path.relative_to(self.git_root).as_posix(), is_dir)
            if verdict is not None:
                return verdict
        for base, spec in specs:
            try:
                rel = path.relative_to(base).as_posix() + ("/" if is_dir else "")
            except ValueError:
                continue
            if spec.match_file(rel):
                return True
        return False

    def _gitignore(self, directory: Path) -> list[tuple[Path, pathspec.GitIgnoreSpec]]:
        if self.git_root is None:
            return []
        found = []
        for name in (".gitignore",) + ((".git/info/exclude",) if directory == self.git_root else ()):
            path = directory / name
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            found.append((directory, pathspec.GitIgnoreSpec.from_lines(lines)))
        return found

    def _ancestor_specs(self, top: Path) -> list[tuple[Path, pathspec.GitIgnoreSpec]]:
        if self.git_root is None or top == self.git_root:
            return []
        specs = []
        for parent in reversed(top.parents):
            if parent == self.git_root or self.git_root in parent.parents:
                specs += self._gitignore(parent)
        return specs


class _GitListing:
    """What `git ls-files` listed: files, the folders that hold them, and opaque entries (nested
    repositories, submodules, symlinks to folders) below which git lists nothing."""

    def __init__(self, git_root: Path, paths: list[str]) -> None:
        self.git_root = git_root
        self.listed = {p.rstrip("/") for p in paths}
        self.opaque = {p.rstrip("/") for p in paths if p.endswith("/")}
        self.dirs = {parent for p in self.listed for parent in _parents(p)}

    def ignored(self, rel: str, is_dir: bool) -> bool | None:
        """True or False as git decides; None below an opaque entry (the caller matches .gitignore)."""
        if any(parent in self.opaque for parent in _parents(rel)):
            return None
        if is_dir:
            if rel in self.listed:
                self.opaque.add(rel)  # a submodule or a tracked symlink to a folder: git lists nothing below
                return False
            return rel not in self.dirs
        return rel not in self.listed


def _listing(git_root: Path, notes: list[str]) -> _GitListing | None:
    try:
        return _GitListing(git_root, vcs.listed_files(git_root))
    except vcs.GitError as exc:
        notes.append(f"{exc}; .gitignore files matched without git, which can differ from git "
                     "(negations across folders, tracked files that match .gitignore)")
        return None


def _parents(rel: str) -> list[str]:
    """'a/b/c' -> ['a', 'a/b']."""
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _git_root(path: Path) -> Path | None:
    for candidate in (path, *path.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _vendored(name: str) -> bool:
    return name in VENDORED or any(fnmatch.fnmatch(name, g) for g in VENDORED_GLOBS)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
