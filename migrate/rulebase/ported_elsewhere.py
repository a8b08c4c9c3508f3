"""The ported-elsewhere registry (rules/alternatives/ported-elsewhere.yaml): AMD builds, forks and
equivalents of dependencies and kernel libraries, each entry with its source. A project that uses one
installs or builds its AMD counterpart instead of porting it."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, get_args

from packaging.utils import canonicalize_name

from migrate.rulebase import datafile
from migrate.rulebase.alternatives import Alternative, alternatives_of, checked
from migrate.rulebase.load import RuleError, default_rules_dir

PortRoute = Literal["upstream", "fork", "equivalent"]
ROUTES: tuple[str, ...] = get_args(PortRoute)
_NAME = re.compile(r"^([a-z0-9][a-z0-9._-]*)")
_GITHUB = re.compile(r"github\.com[/:]([\w.-]+/[\w.-]+?)(?:\.git)?(?:[/#@?]|$)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Port:
    id: str
    name: str
    packages: frozenset[str]  # canonical requirement names
    imports: frozenset[str]  # top-level Python modules
    repositories: frozenset[str]  # owner/name, lower case
    route: PortRoute
    amd: tuple[Alternative, ...]
    source: str
    since: str | None = None  # the first upstream release with ROCm support


@dataclass(frozen=True, slots=True)
class Umbrella:
    """A meta-package that installs a suite (RAPIDS's `rapids`): judged by the members a workload imports."""
    id: str
    packages: frozenset[str]  # canonical requirement names
    imports: frozenset[str]  # top-level Python modules of the suite's members
    source: str


@dataclass(frozen=True, slots=True)
class Registry:
    ports: tuple[Port, ...]
    umbrellas: tuple[Umbrella, ...] = ()

    def for_requirement(self, fact_name: str) -> Port | None:
        """The entry a `requirement` fact names: a package (with or without a pin or extra), or a
        source repository (`index:https://github.com/owner/name...`)."""
        if fact_name.startswith("index:"):
            m = _GITHUB.search(fact_name)
            repo = m.group(1).lower() if m else None
            return next((p for p in self.ports if repo in p.repositories), None) if repo else None
        name = _package(fact_name)
        return next((p for p in self.ports if name in p.packages), None)

    def umbrella(self, fact_name: str) -> Umbrella | None:
        """The umbrella package a requirement (with or without a pin) names."""
        name = _package(fact_name)
        return next((u for u in self.umbrellas if name in u.packages), None)

    def for_import(self, module: str) -> Port | None:
        top = module.split(".", maxsplit=1)[0]
        return next((p for p in self.ports if top in p.imports), None)


def _package(fact_name: str) -> str:
    """The canonical package name a `requirement` fact's name starts with ("" where none does)."""
    m = _NAME.match(fact_name.lower())
    return canonical(m.group(1)) if m else ""


def canonical(name: str) -> str:
    """A package's name as PEP 503 normalises it (the extractors' requirement facts are named so: packages.canonical,
    which rulebase/ may not import: docs/architecture.md)."""
    return canonicalize_name(name)


@lru_cache(maxsize=4)
def load(directory: Path | None = None, version: str = "") -> Registry:
    """The registry of the rule base in `directory`; RuleError names the file, entry and field of a bad entry."""
    path = (directory or default_rules_dir()) / "alternatives" / "ported-elsewhere.yaml"
    if not path.is_file():
        return Registry(())
    content = datafile.read(path)
    ports = tuple(_port(path, item) for item in content.get("entries", []))
    umbrellas = tuple(_umbrella(path, item) for item in content.get("umbrellas") or [])
    seen: set[str] = set()
    for port in ports:
        if port.id in seen:
            raise RuleError(f"{path}: entry {port.id!r} appears twice")
        seen.add(port.id)
    return Registry(ports, umbrellas)


def _port(path: Path, item: dict[str, Any]) -> Port:
    name = item.get("id", "?")
    checked(path, f"entry {name!r}", item, required=("id", "name", "match", "route", "amd", "source"),
            choices={"route": ROUTES})
    match = item["match"]
    unknown = set(match) - {"packages", "imports", "repositories"}
    if unknown:
        raise RuleError(f"{path}: entry {name!r}: unknown match keys {sorted(unknown)}")
    source = alternatives_of(path, name, [{"name": "source", "url": item["source"]}])[0].url
    return Port(id=str(item["id"]), name=str(item["name"]),
                packages=frozenset(canonical(p) for p in match.get("packages") or ()),
                imports=frozenset(str(i) for i in match.get("imports") or ()),
                repositories=frozenset(str(r).lower() for r in match.get("repositories") or ()),
                route=item["route"], amd=alternatives_of(path, name, item["amd"]), source=source,
                since=str(item["since"]) if item.get("since") else None)


def _umbrella(path: Path, item: dict[str, Any]) -> Umbrella:
    name = item.get("id", "?")
    checked(path, f"umbrella {name!r}", item, required=("id", "packages", "imports", "source"), choices={})
    source = alternatives_of(path, name, [{"name": "source", "url": item["source"]}])[0].url
    return Umbrella(id=str(name), packages=frozenset(canonical(str(p)) for p in item["packages"]),
                    imports=frozenset(str(i) for i in item["imports"]), source=source)
