"""The list `inventory --scan` reads: one repository per line, a local path or a git URL, optionally
followed by a name; `#` starts a comment. Relative paths are relative to the list file."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)", re.IGNORECASE)
UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")


class RepoListError(Exception):
    """A bad line in the list; str() names the file and line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RepoSpec:
    name: str  # owner/repo for a URL, the folder name for a path, or the name the line gives
    source: str  # the URL, or the absolute path
    is_url: bool

    @property
    def folder(self) -> str:
        """The folder a clone goes to, as `git clone` names it: the URL's last part without .git."""
        tail = re.split(r"[/:]", self.source.rstrip("/").removesuffix(".git"))[-1]
        return UNSAFE.sub("_", tail) or self.slug

    @property
    def slug(self) -> str:
        """The file name of its report: owner/repo -> owner+repo.json."""
        return UNSAFE.sub("_", self.name.replace("/", "+"))


def read(path: Path) -> list[RepoSpec]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RepoListError(f"{path}: cannot read the repository list ({exc})") from None
    specs: list[RepoSpec] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        fields = line.split("#", 1)[0].split() if not URL.match(line.strip()) else _url_fields(line)
        if not fields:
            continue
        if len(fields) > 2:
            raise RepoListError(f"{path}:{number}: expected 'SOURCE [NAME]', got {line.strip()!r}")
        spec = parse(fields[0], fields[1] if len(fields) > 1 else None, base=path.parent)
        if spec.slug in seen:
            raise RepoListError(f"{path}:{number}: {spec.name!r} is already named on line {seen[spec.slug]} "
                                "(give a second column with another name)")
        seen[spec.slug] = number
        specs.append(spec)
    return specs


def parse(source: str, name: str | None = None, *, base: Path) -> RepoSpec:
    if URL.match(source):
        tail = re.split(r"[/:]", source.rstrip("/").removesuffix(".git"))
        return RepoSpec(name=name or "/".join(t for t in tail[-2:] if t), source=source, is_url=True)
    folder = (base / source).resolve()
    return RepoSpec(name=name or folder.name, source=str(folder), is_url=False)


def _url_fields(line: str) -> list[str]:
    """A URL may hold '#' (a fragment), so only ' #' starts a comment after it."""
    return line.split(" #", 1)[0].split()
