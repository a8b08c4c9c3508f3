"""extract, dependency manifests: requirements*.txt, conda environment files, pyproject.toml."""
from __future__ import annotations

import re

from migrate.extract.lines import fact, finish, numbered
from migrate.model import Extraction, Fact

REQUIREMENT = re.compile(r"^\s*(?:-\s+)?([A-Za-z0-9][A-Za-z0-9._-]*)")
INDEX_URL = re.compile(r"--(?:extra-)?index-url[=\s]+(\S+)|--find-links[=\s]+(\S+)|(https?://\S+)")


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    facts: list[Fact] = []
    for number, line, _ in numbered(text):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("-"):
            facts.extend(_index(line, number))
            continue
        m = REQUIREMENT.match(line)
        if m:
            facts.append(fact("requirement", normalise(m.group(1)), number, m.start(1), len(line.rstrip()),
                              text=stripped))
            facts.extend(_index(line, number))
    return finish(text, facts)


def _index(line: str, number: int) -> list[Fact]:
    out = []
    for m in INDEX_URL.finditer(line):
        url = next(g for g in m.groups() if g)
        out.append(fact("requirement", f"index:{url}", number, m.start(), m.end(), text=url))
    return out


def conda(source: bytes) -> Extraction:
    """Conda environment files: channels, dependencies, and the pip section's entries."""
    text = source.decode("utf-8")
    facts: list[Fact] = []
    section = ""
    for number, line, _ in numbered(text):
        if m := re.match(r"^([A-Za-z_-]+):", line):
            section = m.group(1)
            continue
        item = re.match(r"^\s*-\s+(.*?)\s*$", line)
        if not item or not item.group(1) or item.group(1) == "pip:":
            continue
        value, start = item.group(1), item.start(1)
        if section == "channels":
            facts.append(fact("requirement", f"channel:{value.split('/')[0]}", number, start, start + len(value)))
        elif value.startswith(("-", "http://", "https://")):
            facts.extend(_index(line, number))
        elif m := re.match(r"(?:[\w.-]+::)?([A-Za-z0-9][A-Za-z0-9._-]*)", value):
            facts.append(fact("requirement", normalise(m.group(1)), number, start + m.start(1), len(line.rstrip()),
                              text=value))
    return finish(text, facts)


def pyproject(source: bytes) -> Extraction:
    """pyproject.toml: PEP 621 dependencies and optional dependencies, located by line."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    text = source.decode("utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return finish(text, []).__class__(facts=(), lines=text.count("\n") + 1, error=f"TOML error: {exc}")
    project = data.get("project", {})
    wanted = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        wanted.extend(extra)
    facts = []
    lines = text.split("\n")
    for spec in wanted:
        m = REQUIREMENT.match(spec)
        for number, line in enumerate(lines, start=1):
            col = line.find(spec)
            if m and col >= 0:
                facts.append(fact("requirement", normalise(m.group(1)), number, col, col + len(spec), text=spec))
                break
    return finish(text, facts)


def setup_cfg(source: bytes) -> Extraction:
    """setup.cfg: install_requires and extras_require entries, one per line."""
    text = source.decode("utf-8")
    facts: list[Fact] = []
    section, in_list = "", False
    for number, line, _ in numbered(text):
        if m := re.match(r"^\s*\[([^\]]+)\]", line):
            section, in_list = m.group(1).strip(), False
            continue
        key = re.match(r"^([\w-]+)\s*=\s*(.*)$", line)
        if key:
            in_list = section.startswith("options") and key.group(1) in ("install_requires", "setup_requires") \
                or section == "options.extras_require"
            rest = key.group(2)
            offset = key.start(2)
        elif in_list and line[:1].isspace():
            rest, offset = line, 0
        else:
            continue
        if in_list and (m := REQUIREMENT.match(rest)) and rest.strip():
            facts.append(fact("requirement", normalise(m.group(1)), number, offset + m.start(1),
                              len(line.rstrip()), text=rest.strip()))
    return finish(text, facts)
