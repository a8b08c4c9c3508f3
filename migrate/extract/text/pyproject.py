"""extract, TOML manifests: pyproject.toml (PEP 621, PEP 735, build-system, Poetry, uv, PDM, pixi)
and Pipfile. The TOML parser gives the values; the lines are scanned only to locate them."""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from migrate.compat import tomllib
from migrate.extract.text.lines import entry_point, fact, finish
from migrate.extract.text.packages import canonical, conda_names, pip_names, url_names
from migrate.model import Extraction, Fact

HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
KEY_LINE = re.compile(r"^\s*(\"(?:[^\"\\]|\\.)*\"|'[^']*'|[\w-]+)\s*[.=]")
KEY_PART = re.compile(r"\s*(\"(?:[^\"\\]|\\.)*\"|'[^']*'|[\w-]+)\s*\.?")
PIP_LISTS: tuple[tuple[str, ...], ...] = (
    ("project", "dependencies"), ("build-system", "requires"), ("tool", "uv", "dev-dependencies"),
             ("tool", "uv", "constraint-dependencies"), ("tool", "uv", "override-dependencies"))
PIP_LIST_TABLES: tuple[tuple[str, ...], ...] = (
    ("project", "optional-dependencies"), ("dependency-groups",), ("tool", "pdm", "dev-dependencies"))
REQUIREMENT_NAME = re.compile(r"\s*[A-Za-z0-9][A-Za-z0-9._-]*")
URL_KEYS = ("url", "index", "index-url", "extra-index-url", "find-links", "default-index")
# Tables of requirements a plain install does not pull: extras (PEP 621), dependency groups (PEP 735), dev
# dependencies (uv, PDM, Poetry, Pipfile). Their requirements are optional facts (guard "optional"): reikna's
# `pycuda` extra beside `pyopencl` (https://packaging.python.org/en/latest/specifications/pyproject-toml/). So are
# Poetry dependencies marked `optional = true`, which only an extra installs (https://python-poetry.org/docs/pyproject/
# #extras: python-audio-separator's onnxruntime-gpu beside onnxruntime and onnxruntime-directml extras).
OPTIONAL_TABLES: tuple[tuple[str, ...], ...] = (
    ("project", "optional-dependencies"), ("dependency-groups",), ("tool", "pdm", "dev-dependencies"),
    ("tool", "uv", "dev-dependencies"), ("tool", "poetry", "dev-dependencies"), ("tool", "poetry", "group"),
    ("dev-packages",))


@dataclass
class Item:
    """One value to report: its names, the table and key it sits under, and the text to find."""

    names: list[str]
    table: tuple[str, ...]
    key: str
    needle: str | None = None  # the string value to locate; None locates the key itself
    occurrence: int = 0        # which [[array-of-tables]] entry
    optional: bool = False     # marked optional in its own entry (Poetry's `optional = true`: installed by an extra)


@dataclass
class Locator:
    lines: list[str]
    spans: list[tuple[tuple[str, ...], int, int, int]] = field(default_factory=list)  # path, occurrence, first, last
    used: set[tuple[int, int]] = field(default_factory=set)
    key_lines: dict[int, dict[str, int]] = field(default_factory=dict)
    cursor: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seen: dict[tuple[str, ...], int] = {}
        path: tuple[str, ...] = ()
        start = 0
        for number, line in enumerate(self.lines):
            m = HEADER.match(line)
            if m and not _in_multiline_string(self.lines, number):
                self._close(path, seen, start, number)
                path, start = _key_path(m.group(2)), number
        self._close(path, seen, start, len(self.lines))

    def _close(self, path: tuple[str, ...], seen: dict[tuple[str, ...], int], start: int, end: int) -> None:
        occurrence = seen.get(path, 0)
        seen[path] = occurrence + 1
        self.spans.append((path, occurrence, start, end))

    def find(self, item: Item) -> tuple[int, int, int]:
        """(0-based line, start column, end column) of the item, or of the best place near it."""
        first, last = self._key_line(item.table, item.key, item.occurrence)
        if item.needle is None:
            col = len(self.lines[first]) - len(self.lines[first].lstrip())
            return first, col, len(self.lines[first].rstrip())
        # Values of one array come in order: resume where the previous one was found.
        resume = self.cursor.get(first, first)
        for begin in (resume, first) if resume != first else (first,):
            for quoted in (f'"{item.needle}"', f"'{item.needle}'", item.needle):
                for number in range(begin, last):
                    col = self.lines[number].find(quoted)
                    while col >= 0 and (number, col) in self.used:
                        col = self.lines[number].find(quoted, col + 1)
                    if col >= 0:
                        self.used.add((number, col))
                        self.cursor[first] = number
                        skip = 1 if quoted[0] in "\"'" else 0
                        return number, col + skip, col + len(quoted) - skip
        return first, 0, len(self.lines[first].rstrip())

    def _key_line(self, table: tuple[str, ...], key: str, occurrence: int) -> tuple[int, int]:
        """The key's line in its table (or in a parent table that spells it as a dotted key), and the
        table's end."""
        for depth in range(len(table), -1, -1):
            parent, first_key = table[:depth], (*table[depth:], key)[0]
            for index, (path, occ, _start, end) in enumerate(self.spans):
                if path != parent or (parent == table and occ != occurrence):
                    continue
                line = self._keys(index).get(first_key)
                if line is not None:
                    return line, end
        return 0, len(self.lines)

    def _keys(self, index: int) -> dict[str, int]:
        """First line of each key in one table span."""
        if index not in self.key_lines:
            _, _, start, end = self.spans[index]
            found: dict[str, int] = {}
            for number in range(start, end):
                if m := KEY_LINE.match(self.lines[number]):
                    found.setdefault(m.group(1).strip("\"'"), number)
            self.key_lines[index] = found
        return self.key_lines[index]


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return Extraction(facts=(), lines=text.count("\n") + 1, error=f"TOML error: {exc}")
    locator = Locator(text.split("\n"))
    facts: list[Fact] = []
    for item in _items(data):
        line, start, end = locator.find(item)
        shown = item.needle if item.needle is not None else item.key
        optional = item.optional or any(item.table[:len(t)] == t or (*item.table, item.key)[:len(t)] == t
                                        for t in OPTIONAL_TABLES)
        facts.extend(dataclasses.replace(made, guard="optional") if optional else made
                     for made in (fact("requirement", name, line + 1, start, end, text=shown) for name in item.names))
    facts += _entry_points(data, text.split("\n"))
    name = _table(data.get("project")).get("name") or _table(_table(data.get("tool")).get("poetry")).get("name")
    if isinstance(name, str):
        number = next((i for i, line in enumerate(text.split("\n"), start=1) if line.strip().startswith("name")), 1)
        facts.append(fact("distribution", name, number, 0, 0, text=name))
    return finish(text, facts)


QUOTED_VALUE = re.compile(r"""=\s*["']([^"'\n]*)["']""")


def _entry_points(data: dict[str, Any], lines: list[str]) -> list[Fact]:
    """`entry_point` facts of [project.scripts], [project.gui-scripts], [project.entry-points.*] and
    [tool.poetry.scripts], each on the first line holding its reference."""
    project, poetry = _table(data.get("project")), _table(_table(data.get("tool")).get("poetry"))
    groups = [_table(project.get("scripts")), _table(project.get("gui-scripts")), _table(poetry.get("scripts")),
              *(_table(group) for group in _table(project.get("entry-points")).values())]
    out: list[Fact] = []
    first_line: dict[str, int] = {}  # a quoted value -> the first line holding it (one pass: a table may be long)
    if any(groups):
        for number, line in enumerate(lines, start=1):
            for value in QUOTED_VALUE.findall(line):
                first_line.setdefault(value, number)
    for group in groups:
        for name, reference in group.items():
            if isinstance(reference, str) and (made := entry_point(f"{name} = {reference}",
                                                                   first_line.get(reference, 1), 0, 0)) is not None:
                out.append(made)
    return out


def _items(data: dict[str, Any]) -> Iterator[Item]:
    for path in PIP_LISTS:
        yield from _pip_list(_get(data, path), path[:-1], path[-1])
    for path in PIP_LIST_TABLES:
        for key, values in _table(_get(data, path)).items():
            yield from _pip_list(values, path, key)
    tool = _table(data.get("tool"))
    yield from _uv(_table(tool.get("uv")), _required_names(data))
    poetry = _table(tool.get("poetry"))
    for key in ("dependencies", "dev-dependencies"):
        yield from _name_table(poetry.get(key), ("tool", "poetry", key), conda=False)
    for group, spec in _table(poetry.get("group")).items():
        yield from _name_table(_table(spec).get("dependencies"), ("tool", "poetry", "group", group, "dependencies"),
                               conda=False)
    yield from _sources(poetry.get("source"), ("tool", "poetry", "source"))
    yield from _sources(_table(tool.get("pdm")).get("source"), ("tool", "pdm", "source"))
    yield from _pixi(_table(tool.get("pixi")), ("tool", "pixi"))
    for key in ("packages", "dev-packages"):  # Pipfile
        yield from _name_table(data.get(key), (key,), conda=False)
    yield from _sources(data.get("source"), ("source",))


def _pip_list(values: object, table: tuple[str, ...], key: str) -> Iterator[Item]:
    for value in values if isinstance(values, list) else ():
        if isinstance(value, str):
            yield Item(pip_names(value), table, key, value)


def _name_table(values: object, table: tuple[str, ...], *, conda: bool) -> Iterator[Item]:
    """Poetry, Pipfile and pixi tables: name = "version" or name = {version, extras, url, git, index ...}."""
    for name, spec in _table(values).items():
        if name == "python":
            continue
        for entry in spec if isinstance(spec, list) else [spec]:
            names = conda_names(f"{name}={_version(entry)}") if conda else _pip_entry(name, entry)
            yield Item(names, table, name, optional=isinstance(entry, dict) and entry.get("optional") is True)
            for key in URL_KEYS if isinstance(entry, dict) else ():
                if isinstance(entry.get(key), str) and "://" in entry[key]:
                    yield Item(url_names(entry[key]), table, name, entry[key])


def _pip_entry(name: str, entry: object) -> list[str]:
    extras = [e for e in entry.get("extras", []) if isinstance(e, str)] if isinstance(entry, dict) else []
    version = _version(entry).strip()
    if re.match(r"^\d", version):
        version = "==" + version
    try:
        SpecifierSet(version)
    except InvalidSpecifier:  # Poetry's ^1.2 and ~1.2
        version = ""
    return pip_names(name + (f"[{','.join(extras)}]" if extras else "") + version) or pip_names(name)


def _version(entry: object) -> str:
    value = entry.get("version", "") if isinstance(entry, dict) else entry
    return value if isinstance(value, str) else ""


def _uv(uv: dict[str, Any], required: frozenset[str]) -> Iterator[Item]:
    scoped = _extras_only_indexes(uv, required)
    for item in _sources(uv.get("index"), ("tool", "uv", "index")):
        yield dataclasses.replace(item, optional=True) if item.occurrence in scoped else item
    for key in ("index-url", "extra-index-url", "find-links"):
        for url in _strings(uv.get(key)):
            yield Item([f"index:{url}"], ("tool", "uv"), key, url)
    for name, spec in _table(uv.get("sources")).items():
        for entry in spec if isinstance(spec, list) else [spec]:
            if isinstance(entry, dict) and isinstance(entry.get("url"), str):
                yield Item(url_names(entry["url"]), ("tool", "uv", "sources"), name, entry["url"])


def _extras_only_indexes(uv: dict[str, Any], required: frozenset[str]) -> set[int]:
    """The [[tool.uv.index]] entries (by position) that only an extra or a dependency group installs from. An index
    marked `explicit = true` serves only the packages whose [tool.uv.sources] entry names it; a source entry with an
    `extra` or `group` key applies only when that extra or group is installed
    (https://docs.astral.sh/uv/concepts/indexes/#pinning-a-package-to-an-index ;
    https://docs.astral.sh/uv/guides/integration/pytorch/#configuring-accelerators-with-optional-dependencies). Where
    every package it serves is in no plain install (not in [project] dependencies or build-system requires) or is
    served from it only for an extra or a group, the default install never reads it (mind-inria/mri-nufft's
    pytorch-cu130 index serves torch and torchvision, which only its extras name)."""
    served: dict[str, list[bool]] = {}  # index name -> for each source entry naming it: only for an extra/group?
    for package, spec in _table(uv.get("sources")).items():
        for entry in spec if isinstance(spec, list) else [spec]:
            if isinstance(entry, dict) and isinstance(entry.get("index"), str):
                scoped = "extra" in entry or "group" in entry or _canonical(package) not in required
                served.setdefault(entry["index"], []).append(scoped)
    indexes = uv.get("index")
    return {occurrence for occurrence, index in enumerate(indexes if isinstance(indexes, list) else [])
            if _table(index).get("explicit") is True and all(served.get(str(_table(index).get("name")), [False]))}


def _required_names(data: dict[str, Any]) -> frozenset[str]:
    """The normalized names of the requirements a plain install (or build) pulls: [project] dependencies and
    build-system requires."""
    names: set[str] = set()
    for path in (("project", "dependencies"), ("build-system", "requires")):
        values = _get(data, path)
        for value in values if isinstance(values, list) else ():
            if isinstance(value, str) and (match := REQUIREMENT_NAME.match(value)):
                names.add(_canonical(match.group(0)))
    return frozenset(names)


def _canonical(name: str) -> str:
    return canonical(name.strip())  # PEP 503 normalization


def _sources(values: object, table: tuple[str, ...]) -> Iterator[Item]:
    for occurrence, source in enumerate(values if isinstance(values, list) else []):
        url = _table(source).get("url")
        if isinstance(url, str):
            yield Item([f"index:{url}"], table, "url", url, occurrence)


def _pixi(pixi: dict[str, Any], table: tuple[str, ...]) -> Iterator[Item]:
    for key in ("project", "workspace"):
        for channel in _strings(_table(pixi.get(key)).get("channels")):
            yield Item([f"channel:{channel.split('/')[0]}"], (*table, key), "channels", channel)
    yield from _name_table(pixi.get("dependencies"), (*table, "dependencies"), conda=True)
    yield from _name_table(pixi.get("pypi-dependencies"), (*table, "pypi-dependencies"), conda=False)
    if "cuda" in _table(pixi.get("system-requirements")):
        yield Item(["__cuda"], (*table, "system-requirements"), "cuda")
    default = _default_features(pixi)
    for feature, spec in _table(pixi.get("feature")).items():
        items = list(_pixi(_table(spec), (*table, "feature", feature)))
        for channel in _strings(_table(spec).get("channels")):
            items.append(Item([f"channel:{channel.split('/')[0]}"], (*table, "feature", feature), "channels", channel))
        yield from (items if feature in default else (dataclasses.replace(i, optional=True) for i in items))


def _default_features(pixi: dict[str, Any]) -> frozenset[str]:
    """The features pixi's `default` environment installs besides the default feature: those its
    `[environments]` entry names (a list of features, or a table's `features`). A feature no default environment names
    is installed only in an environment a user selects (`pixi run --environment dev`), as a dependency group is: its
    dependencies are optional facts. Pixi: a feature is part of an environment, an environment the features the
    `[environments]` table composes, and `default` the environment normally used
    (https://pixi.prefix.dev/latest/tutorials/multi_environment, https://pixi.prefix.dev/latest/workspace/environment)."""
    entry = _table(pixi.get("environments")).get("default")
    features = entry if isinstance(entry, list) else _table(entry).get("features")
    return frozenset(_strings(features))


def _get(data: dict[str, Any], path: tuple[str, ...]) -> object:
    value: object = data
    for part in path:
        value = _table(value).get(part)
    return value


def _table(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v if isinstance(v, str) else _table(v).get("channel", "") for v in value] if isinstance(value, list) else []


def _key_path(header: str) -> tuple[str, ...]:
    return tuple(m.group(1).strip("\"'") for m in KEY_PART.finditer(header) if m.group(1))


def _in_multiline_string(lines: list[str], number: int) -> bool:
    before = "\n".join(lines[:number])
    return before.count('"""') % 2 == 1 or before.count("'''") % 2 == 1
