"""Which way each workload goes to AMD: an existing AMD build, a framework route, or a port (the default).

The routes, their conditions and their sources are data (rules/routes/routes.yaml); this module only evaluates
them on a finished workload and the findings in its files."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml

from migrate.model import Finding
from migrate.rulebase.load import default_rules_dir

RouteId = Literal["port", "amd-build", "framework"]
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hip")


@dataclass(frozen=True, slots=True, kw_only=True)
class Route:
    id: RouteId
    via: str | None
    why: str
    source: str | None
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"route": self.id, "via": self.via, "why": self.why, "source": self.source, "notes": list(self.notes)}


@lru_cache(maxsize=2)
def load(path: Path | None = None) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((path or default_rules_dir() / "routes" / "routes.yaml").read_text())
    return data


def choose(*, files: Iterable[str], findings: Iterable[Finding], rocm_path: bool, arch: Iterable[str]) -> Route:
    """The first route of rules/routes.yaml whose condition holds, else `port`."""
    data = load()
    files = tuple(files)
    rules = {f.rule for f in findings}
    has_sources = any(f.endswith(SOURCE_SUFFIXES) for f in files)
    notes = _notes(data, arch)
    for entry in data["routes"]:
        when = entry["when"]
        if when.get("rocm_path") and not rocm_path:
            continue
        if "rules" in when and not rules & set(when["rules"]):
            continue
        if when.get("no_sources") and has_sources:
            continue
        return Route(id=entry["id"], via=entry.get("via"), why=entry["why"],
                     source=data["sources"][entry["source"]]["url"], notes=notes)
    return Route(id="port", via=None, why="convert the CUDA code (hipify) and fix what the findings name",
                 source=None, notes=notes)


def _notes(data: dict[str, Any], arch: Iterable[str]) -> tuple[str, ...]:
    note = data.get("workstation_note")
    if note and set(arch) & set(note["archs"]):
        return (f"{note['text']} ({data['sources'][note['source']]['url']})",)
    return ()
