"""SCALE's public record (rules/routes/scale.yaml): the AMD targets Spectral Compute's SCALE lists as supported,
the columns of its public validation matrix, each tested project's result per column with the header names by
which a workload shows it uses that project, and the caveats, each with its source."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args

from migrate.rulebase import datafile
from migrate.rulebase.load import RuleError, default_rules_dir

Result = Literal["pass", "fail", "skipped", "not-expected"]
RESULTS: tuple[str, ...] = get_args(Result)


@dataclass(frozen=True, slots=True)
class Project:
    """A project of the scale matrix and its result per GPU target."""

    name: str
    version: str
    results: tuple[tuple[str, Result], ...]  # (gfx target, result) per matrix column
    uses: tuple[str, ...] = ()  # a header name, or a folder prefix ending in "/"
    identity: tuple[str, ...] = ()  # paths only this project's tree has: a scan holding one is that project

    def result(self, arch: str) -> Result | None:
        return dict(self.results).get(arch)

    def is_scan_of(self, paths: frozenset[str]) -> bool:
        return any(p == i or p.endswith("/" + i) for p in paths for i in self.identity)

    def used_by(self, include: str) -> bool:
        """A header name matches the include's last part; a folder ("thrust/") any whole folder of its path."""
        return any(f"/{u}" in f"/{include}" if u.endswith("/") else include == u or include.endswith("/" + u)
                   for u in self.uses)


@dataclass(frozen=True, slots=True)
class Caveat:
    """A caveat of the scale matrix, with its source."""

    text: str
    source: str  # URL


@dataclass(frozen=True, slots=True)
class ScaleRecord:
    """The scale matrix: supported and validated targets, its version, projects and caveats."""

    supported: frozenset[str]
    validated: tuple[str, ...]
    matrix_version: str
    projects: tuple[Project, ...]
    caveats: tuple[Caveat, ...]
    targets_source: str
    matrix_source: str

    def passing(self, arch: str) -> int:
        return sum(1 for p in self.projects if p.result(arch) == "pass")


@lru_cache(maxsize=4)
def load(directory: Path | None = None, version: str = "") -> ScaleRecord | None:
    """The record of the rule base in `directory`, None where it has none; RuleError names a bad field."""
    path = (directory or default_rules_dir()) / "routes" / "scale.yaml"
    if not path.is_file():
        return None
    data = datafile.read(path)
    sources = {key: str(entry["url"]) for key, entry in data["sources"].items()}
    validated = tuple(str(a) for a in data["validated"])
    projects = []
    for item in data["projects"]:
        results = tuple((str(arch), item["results"][arch]) for arch in validated)
        bad = [r for _, r in results if r not in RESULTS]
        if bad or set(item["results"]) != set(validated):
            raise RuleError(f"{path}: project {item.get('name')!r}: results must give one of {RESULTS} "
                            f"for each of {validated}")
        projects.append(Project(name=str(item["name"]), version=str(item.get("version", "")), results=results,
                                uses=tuple(str(u) for u in item.get("uses") or ()),
                                identity=tuple(str(i) for i in item.get("identity") or ())))
    caveats = []
    for item in data["caveats"]:
        if item["source"] not in sources:
            raise RuleError(f"{path}: caveat {item['text'][:40]!r}: unknown source {item['source']!r}")
        caveats.append(Caveat(text=str(item["text"]), source=sources[item["source"]]))
    return ScaleRecord(supported=frozenset(str(a) for a in data["supported"]), validated=validated,
                       matrix_version=str(data["matrix_version"]), projects=tuple(projects), caveats=tuple(caveats),
                       targets_source=sources["scale-targets"], matrix_source=sources["scale-validation"])
