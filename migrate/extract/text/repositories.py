"""Source repositories a build pulls in: CMake FetchContent/ExternalProject/CPM, `.gitmodules`
submodules and `git clone` commands. Each becomes a `requirement` fact named `index:URL` (the
name packages.py gives VCS URLs), so dependency rules judge the repository like a pip VCS URL."""
from __future__ import annotations

import itertools
import re

from migrate.extract.text.lines import fact, finish, numbered
from migrate.model import Extraction, Fact

# CPM's shorthand: gh:owner/name@version, gl:owner/name#tag, bb:owner/name
CPM_SHORTHAND = re.compile(r"^(gh|gl|bb):([\w.-]+/[\w.-]+?)(?:[@#].*)?$")
CPM_HOSTS = {"gh": "https://github.com/", "gl": "https://gitlab.com/", "bb": "https://bitbucket.org/"}
FETCH_COMMANDS = frozenset({"fetchcontent_declare", "externalproject_add", "cpmaddpackage", "cpmfindpackage",
                            "cpmdeclarepackage", "cpmusepackagelock"})
URL_KEYWORDS = frozenset({"GIT_REPOSITORY", "URL", "URI"})
SUBMODULE_URL = re.compile(r"^\s*url\s*=\s*(\S+)")
# git clone [options] <repository> [<directory>]: options that take a value.
CLONE_VALUED = frozenset({"-b", "--branch", "--depth", "-o", "--origin", "-c", "--config", "--reference",
                          "--separate-git-dir", "-j", "--jobs", "--filter", "--shallow-since", "--shallow-exclude",
                          "--template", "-u", "--upload-pack", "--server-option"})


def name(url: str) -> str:
    return f"index:{url}"


def cpm_url(value: str) -> str | None:
    """The repository URL of a CPM shorthand (gh:NVIDIA/cutlass@3.4.0), or None."""
    m = CPM_SHORTHAND.match(value)
    return CPM_HOSTS[m.group(1)] + m.group(2) if m else None


def cmake_urls(command: str, arguments: list[tuple[int, str]]) -> list[tuple[int, str, str]]:
    """(offset, argument, URL) of the repositories one fetch command names; `arguments` are
    (offset, text) pairs."""
    if command not in FETCH_COMMANDS:
        return []
    out = []
    for (_, keyword), (offset, value) in itertools.pairwise(arguments):
        if keyword in URL_KEYWORDS and (url := cpm_url(value) or (value if _is_url(value) else None)):
            out.append((offset, value, url))
        elif keyword == "GITHUB_REPOSITORY" and re.fullmatch(r"[\w.-]+/[\w.-]+", value):
            out.append((offset, value, f"https://github.com/{value}"))
    if command.startswith("cpm") and arguments and (url := cpm_url(arguments[0][1])):
        out.append((arguments[0][0], arguments[0][1], url))
    return out


def clone_url(args: list[str]) -> int | None:
    """Index into `args` (the words after `git`) of the repository a `git clone` fetches, or None."""
    if args[:1] != ["clone"] and args[:2] != ["submodule", "add"]:
        return None
    i = 1 if args[0] == "clone" else 2
    while i < len(args):
        word = args[i]
        if word.startswith("-"):
            i += 2 if word in CLONE_VALUED else 1
            continue
        return i if _is_url(word) else None
    return None


def _is_url(value: str) -> bool:
    return "://" in value or value.startswith("git@")


def gitmodules(source: bytes) -> Extraction:
    """`.gitmodules`: one fact per submodule URL."""
    text = source.decode("utf-8")
    facts: list[Fact] = []
    for number, line, _ in numbered(text, strip_hash_comments=False):
        if line.lstrip().startswith(("#", ";")):
            continue
        if m := SUBMODULE_URL.match(line):
            facts.append(fact("requirement", name(m.group(1)), number, m.start(1), m.end(1), text=m.group(1)))
    return finish(text, facts)
