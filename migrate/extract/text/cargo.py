"""extract, Cargo.toml: what `cargo build` at a workspace root compiles (the workspace's members and default
members, each crate's path dependencies and default features), read by workloads/reach.py. Rust crates are no CUDA
dependency themselves; the file's ROCm features are read by extract/text/rocm_path.py.

Facts (https://doc.rust-lang.org/cargo/reference/workspaces.html, .../specifying-dependencies.html, .../features.html):
- `cargo_package`: the `[package]` name;
- `cargo_member`: a `[workspace]` member as written (a path or a glob); text `default` when `default-members` lists
  it too, `exclude` for an `exclude` entry, `only-default` for a default member `members` does not list;
- `cargo_dependency`: a dependency `cargo build` may compile (`[dependencies]`, `[build-dependencies]`, their
  `[target.*]` forms and `[workspace.dependencies]`; not dev-dependencies): the name is its key (the name features use),
  the text `path=<folder>` (`workspace` for `x.workspace = true`, empty from a registry), role `optional` for
  `optional = true`, `workspace-table` for an entry of `[workspace.dependencies]`, `no-default-features` where
  `default-features = false`;
- `cargo_feature`: a `[features]` entry: the name is the feature, the text its items one a line; a dependency's
  requested features come as `cargo_feature` facts named `<dependency key>/` with the features in the text;
- `requirement`: each feature a dependency entry turns on itself, named `cargo:<crate>[<feature>]` (the crate is
  `package = ...` where the key renames it), so rules/dependencies.yaml matches a crate's CUDA back end as it matches
  a pip extra (`candle-core = { features = ["cuda"] }`); optional (guard) where the dependency is. A `dep/feature` item
  of the package's own `[features]` gives one too, at that feature: required where `default` turns the feature on,
  optional where only a feature a user asks for does (`cuda = ["candle-core/cuda"]`)."""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from typing import Any

from migrate.compat import tomllib
from migrate.extract.text.lines import fact, finish
from migrate.model import Extraction, Fact

DEPENDENCY_TABLES = ("dependencies", "build-dependencies", "build_dependencies")
REQUIREMENT_PREFIX = "cargo:"  # a crate's requirement names, as julia_project.py's `julia:`


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return finish(text, [], [f"Cargo.toml not read: {exc}"])
    where = TomlPositions(text)
    facts: list[Fact] = []
    package = data.get("package")
    if isinstance(package, dict) and isinstance(package.get("name"), str):
        facts.append(where.fact("cargo_package", package["name"], "name"))
    workspace = data.get("workspace")
    if isinstance(workspace, dict):
        facts += _members(workspace, where)  # before the dependencies: a member's line is its `"path"` entry
        table = workspace.get("dependencies")
        if isinstance(table, dict):
            facts += _dependencies(table, where, "workspace-table")
    for table in _dependency_tables(data):
        facts += _dependencies(table, where, "")
    features = data.get("features")
    if isinstance(features, dict):
        table = {str(name): _strings(items) for name, items in features.items() if isinstance(items, list)}
        for name, items in table.items():
            facts.append(where.fact("cargo_feature", name, name, text="\n".join(items)))
        facts += _feature_requirements(table, _crates(data), where)
    return finish(text, facts)


def _crates(data: Mapping[str, Any]) -> dict[str, tuple[str, bool]]:
    """Dependency key -> (the crate it names, optional)."""
    out: dict[str, tuple[str, bool]] = {}
    for table in _dependency_tables(data):
        for key, spec in table.items():
            named = spec.get("package") if isinstance(spec, dict) else None
            out[str(key)] = (named if isinstance(named, str) else str(key),
                             isinstance(spec, dict) and spec.get("optional") is True)
    return out


def _feature_requirements(table: Mapping[str, list[str]], crates: Mapping[str, tuple[str, bool]],
                          where: TomlPositions) -> list[Fact]:
    """`cargo:<crate>[<feature>]` for each `dep/feature` (or `dep?/feature`) item of the package's own features, at
    the feature's entry: required where the `default` feature turns the feature on (through other features too) and
    the dependency is compiled (not optional, or `dep/` turns it on), optional otherwise (module docstring)."""
    on, todo = set(), ["default"]
    while todo:
        name = todo.pop()
        if name in table and name not in on:
            on.add(name)
            todo += [item for item in table[name] if "/" not in item and not item.startswith("dep:")]
    out = []
    for name, items in table.items():
        for item in items:
            m = FEATURE_OF_DEPENDENCY.fullmatch(item)
            if m is None or m.group(1) not in crates:
                continue
            crate, optional = crates[m.group(1)]
            required = name in on and (not optional or not m.group(2))
            out += _requirements(crate, [m.group(3)], where.key(name), not required)
    return out


def _members(workspace: Mapping[str, Any], where: TomlPositions) -> list[Fact]:
    members = _strings(workspace.get("members"))
    defaults = _strings(workspace.get("default-members")) if isinstance(workspace.get("default-members"), list) else None
    out = []
    default_set, member_set = {_norm(m) for m in defaults or []}, {_norm(m) for m in members}
    for member in members:
        text = "" if defaults is None else ("default" if _norm(member) in default_set else "not-default")
        out.append(where.fact("cargo_member", _norm(member), f'"{member}"', text=text))
    out += [where.fact("cargo_member", _norm(m), f'"{m}"', text="only-default") for m in defaults or []
            if _norm(m) not in member_set]
    out += [where.fact("cargo_member", _norm(m), f'"{m}"', text="exclude") for m in _strings(workspace.get("exclude"))]
    return out


def _dependency_tables(data: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for key in DEPENDENCY_TABLES:
        if isinstance(data.get(key), dict):
            yield data[key]
    targets = data.get("target")
    if isinstance(targets, dict):
        for spec in targets.values():
            if isinstance(spec, dict):
                yield from (spec[k] for k in DEPENDENCY_TABLES if isinstance(spec.get(k), dict))


def _dependencies(table: Mapping[str, Any], where: TomlPositions, role: str) -> list[Fact]:
    out = []
    for key, spec in table.items():
        if not isinstance(spec, dict):
            out.append(where.fact("cargo_dependency", str(key), str(key), role=role))  # `x = "1.0"`: a registry's
            continue
        source = f"path={_norm(spec['path'])}" if isinstance(spec.get("path"), str) else \
            "workspace" if spec.get("workspace") is True else ""
        roles = [r for r, on in ((role, bool(role)), ("optional", spec.get("optional") is True),
                                 ("no-default-features", spec.get("default-features") is False)) if on]
        out.append(where.fact("cargo_dependency", str(key), str(key), text=source, role=" ".join(roles)))
        wanted = [str(f) for f in spec.get("features", []) if isinstance(f, str)] \
            if isinstance(spec.get("features"), list) else []
        if wanted:
            out.append(where.fact("cargo_feature", f"{key}/", str(key), text="\n".join(wanted)))
            out += _requirements(str(spec["package"]) if isinstance(spec.get("package"), str) else str(key), wanted,
                                 where.key(str(key)), spec.get("optional") is True)
    return out


def _requirements(crate: str, features: list[str], at: Fact, optional: bool) -> list[Fact]:
    """`cargo:<crate>[<feature>]` requirement facts at the dependency's entry (module docstring)."""
    return [dataclasses.replace(at, kind="requirement", name=f"{REQUIREMENT_PREFIX}{crate}[{feature}]", text=feature,
                                guard="optional" if optional else None) for feature in features]


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _norm(path: str) -> str:
    return path.strip().strip("/").removeprefix("./")


class TomlPositions:
    """The line a key or value is first written on (TOML's parser keeps no positions)."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self._words: dict[str, tuple[int, int, int]] | None = None
        self._quotes: dict[str, list[int]] | None = None

    def fact(self, kind: str, name: str, needle: str, *, text: str = "", role: str = "") -> Fact:
        if WORD.fullmatch(needle):
            at = self._first_words().get(needle)
            return fact(kind, name, *at, text=text, role=role) if at else fact(kind, name, 1, 0, 1, text=text, role=role)
        pattern = re.compile(rf"(?<![\w-]){re.escape(needle)}(?![\w-])")
        single = needle.replace('"', "'")  # a member may be written in single quotes
        quoted = QUOTED.fullmatch(needle)
        for number in self._quoting(quoted.group(1)) if quoted else range(1, len(self.lines) + 1):
            code = self.lines[number - 1].split("#", 1)[0]
            if (m := pattern.search(code) or pattern.search(code.replace(single, needle))) is not None:
                start = m.start() + (1 if needle.startswith('"') else 0)
                return fact(kind, name, number, start, m.end() - (1 if needle.startswith('"') else 0),
                            text=text, role=role)
        return fact(kind, name, 1, 0, 1, text=text, role=role)

    def key(self, name: str) -> Fact:
        """Where a table key is defined (`name = ...` at a line's start, bare or quoted; the first such line), as a
        `cargo_feature` fact: a feature's or a dependency's word may come first in a feature's list above it."""
        pattern = re.compile(rf"^(\s*[\"']?){re.escape(name)}[\"']?\s*=")
        for number, line in enumerate(self.lines, start=1):
            if (m := pattern.match(line)) is not None:
                return fact("cargo_feature", name, number, m.end(1), m.end(1) + len(name))
        return self.fact("cargo_feature", name, name)

    def _first_words(self) -> dict[str, tuple[int, int, int]]:
        r"""(line, start, end) of the first place each word is written outside a comment. A needle that is a word
        (a key, a feature: `[\w-]+`) is found where it is a whole run of `[\w-]`, as the needle's own search of
        each line finds it; that search per needle made 8,000 dependencies (95 KB) take 17.5 s."""
        if self._words is None:
            self._words = {}
            for number, line in enumerate(self.lines, start=1):
                for m in WORD.finditer(line.split("#", 1)[0]):
                    self._words.setdefault(m.group(), (number, m.start(), m.end()))
        return self._words

    def _quoting(self, inner: str) -> list[int]:
        """The lines (in order) where `inner` is written between two quotes with none between them: the only
        lines where a needle `"inner"` (a member) or its single-quoted form can be, as both have no quote inside.
        Every line searched per member made 6,000 members, one a line (65 KB), take 8.7 s."""
        if self._quotes is None:
            self._quotes = {}
            for number, line in enumerate(self.lines, start=1):
                for m in BETWEEN_QUOTES.finditer(line.split("#", 1)[0]):
                    places = self._quotes.setdefault(m.group(1), [])
                    if not places or places[-1] != number:
                        places.append(number)
        return self._quotes.get(inner, [])


FEATURE_OF_DEPENDENCY = re.compile(r"([\w-]+)(\?)?/([\w-]+)")  # `dep/feature`, `dep?/feature` (weak)
QUOTED = re.compile(r"\"([^\"']*)\"")  # a needle that is a string without quotes inside
BETWEEN_QUOTES = re.compile(r"[\"'](?=([^\"']*)[\"'])")  # each quote, and what is between it and the next
WORD = re.compile(r"[\w-]+")
