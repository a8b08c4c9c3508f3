"""Which way each workload goes to AMD: an existing AMD build (the project's own ROCm path, or dependencies with
an AMD build in the ported-elsewhere registry), a framework route, or a port (the default), which a plain CUDA
C++ workload on GPUs SCALE's public record supports may replace by compiling unchanged with SCALE.

The routes, their conditions and their sources are data (rules/routes/routes.yaml, rules/routes/scale.yaml,
rules/alternatives/ported-elsewhere.yaml); this module only evaluates them on a finished workload, the findings
in its files and the files' include facts."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from migrate.model import Fact, Finding
from migrate.model_report import Component, Workload
from migrate.rulebase import datafile, scale
from migrate.rulebase.load import default_rules_dir
from migrate.rulebase.scale import ScaleRecord

RouteId = Literal["native", "port", "amd-build", "framework"]
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hip")
CUDA_SUFFIXES = (".cu", ".cuh")
PYTHON_SUFFIXES = (".py", ".pyx", ".ipynb")
# a PyTorch extension, a Python project, notebooks, a kernel module Python loads: never SCALE
FRAMEWORK_KINDS = frozenset({"torch-extension", "python", "notebooks", "gpu-module", "runtime-compiled"})
SHOWN_USES = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class Alternative:
    """Another way than the route, with what supports it and what to watch (SCALE: compile unchanged)."""
    id: Literal["compile-unchanged"]
    via: str
    why: str
    evidence: tuple[str, ...]
    caveats: tuple[str, ...]
    source: str

    def to_json(self) -> dict[str, Any]:
        return {"route": self.id, "via": self.via, "why": self.why, "evidence": list(self.evidence),
                "caveats": list(self.caveats), "source": self.source}


@dataclass(frozen=True, slots=True, kw_only=True)
class Route:
    """A route a workload can take to ROCm, and why."""

    id: RouteId
    via: str | None
    why: str
    source: str | None
    notes: tuple[str, ...] = ()
    uses: tuple[dict[str, str], ...] = ()  # amd-build via ported-elsewhere: each entry, its AMD build and source
    alternative: Alternative | None = None

    def to_json(self) -> dict[str, Any]:
        return {"route": self.id, "via": self.via, "why": self.why, "source": self.source, "notes": list(self.notes),
                "uses": [dict(u) for u in self.uses],
                "alternative": self.alternative.to_json() if self.alternative else None}


@lru_cache(maxsize=2)
def load(path: Path | None = None) -> dict[str, Any]:
    data: dict[str, Any] = datafile.read(path or default_rules_dir() / "routes" / "routes.yaml")
    return data


def attach(workloads: Sequence[Workload], findings: Iterable[Finding], facts: Mapping[str, tuple[Fact, ...]], *,
           archs: Sequence[str], rules_dir: Path | None = None) -> list[Workload]:
    """The workloads with their route (after their components are attached: the registry route reads them)."""
    mine: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        mine[f.workload].append(f)
    record = scale.load(rules_dir)
    scanned = frozenset(facts).union(*(w.files for w in workloads))
    return [replace(w, route=choose(workload=w, findings=mine[w.name], facts=facts, arch=archs,
                                    record=record, scanned=scanned).to_json())
            for w in workloads]


def choose(*, workload: Workload, findings: Iterable[Finding], facts: Mapping[str, tuple[Fact, ...]],
           arch: Sequence[str], record: ScaleRecord | None, scanned: frozenset[str] = frozenset()) -> Route:
    """The first route of rules/routes/routes.yaml whose condition holds, else `port` (with SCALE as its
    alternative where SCALE's record supports the workload on every target)."""
    data = load()
    files = workload.files
    findings = tuple(findings)
    rules = {f.rule for f in findings}
    has_sources = any(f.endswith(SOURCE_SUFFIXES) for f in files)
    elsewhere = [c for c in workload.components if c.kind == "ported-elsewhere" and not c.optional]
    notes = _notes(data, arch)
    for entry in data["routes"]:
        when = entry["when"]
        if when.get("native") and (rules or workload.migration_class != "native"):
            continue
        if when.get("rocm_path") and not workload.rocm_path:
            continue
        if "rules" in when and not rules & set(when["rules"]):
            continue
        if when.get("no_sources") and has_sources:
            continue
        if when.get("ported_elsewhere") and not elsewhere:
            continue
        if any(rule.startswith(tuple(when.get("no_rule_families", ()))) for rule in rules):
            continue
        if "imports" in when and not _imports(workload, facts) & set(when["imports"]):
            continue
        source = data["sources"][entry["source"]]["url"] if entry.get("source") else None
        if entry.get("via") == "ported-elsewhere":
            uses = tuple(_use(c) for c in elsewhere)
            named = "; ".join(f"{u['name']} -> {u['amd']} ({u['kind']}, {u['source']})" for u in uses)
            return Route(id=entry["id"], via=", ".join(c.title for c in elsewhere), why=f"{entry['why']}: {named}",
                         source=source, notes=notes, uses=uses)
        return Route(id=entry["id"], via=entry.get("via"), why=entry["why"], source=source, notes=notes)
    alternative, why_not = _scale(workload, findings, facts, arch, record, scanned)
    return Route(id="port", via=None, why="convert the CUDA code (hipify) and fix what the findings name",
                 source=None, notes=notes + why_not, alternative=alternative)


def _imports(workload: Workload, facts: Mapping[str, tuple[Fact, ...]]) -> set[str]:
    """The top-level Python modules the workload's files import."""
    return {fact.name.split(".", 1)[0] for path in workload.files for fact in facts.get(path, ())
            if fact.kind == "python_import"}


def _use(component: Component) -> dict[str, str]:
    name, url = component.alternatives[0] if component.alternatives else ("its AMD build", component.source)
    return {"id": component.id, "name": component.title, "kind": component.route or "", "amd": name,
            "amd_url": url, "source": component.source}


def plain_cuda(workload: Workload, findings: Iterable[Finding]) -> bool:
    """CUDA C++ sources built by the project's own build, and no GPU code in Python (no finding in a Python
    file; a helper script beside the C++ does not count): the only workload SCALE may compile unchanged."""
    return (workload.kind not in FRAMEWORK_KINDS and any(f.endswith(CUDA_SUFFIXES) for f in workload.files)
            and not any(f.path.endswith(PYTHON_SUFFIXES) for f in findings))


def _scale(workload: Workload, findings: Sequence[Finding], facts: Mapping[str, tuple[Fact, ...]],
           arch: Sequence[str], record: ScaleRecord | None,
           scanned: frozenset[str]) -> tuple[Alternative | None, tuple[str, ...]]:
    """SCALE as the port's alternative, or the note saying why a plain CUDA C++ workload does not get it."""
    if record is None or not plain_cuda(workload, findings):
        return None, ()
    unlisted = [a for a in arch if a not in record.supported]
    if unlisted:
        return None, (f"SCALE (compile unchanged) not offered: {', '.join(unlisted)} not on SCALE's list of "
                      f"supported GPUs ({record.targets_source})",)
    untested = [a for a in arch if a not in record.validated]
    if untested:
        return None, (f"SCALE (compile unchanged) not offered: {', '.join(untested)} on SCALE's supported list but "
                      f"not in its public validation matrix ({', '.join(record.validated)}; {record.matrix_source})",)
    includes = {fact.name for path in workload.files for fact in facts.get(path, ()) if fact.kind == "include"}
    used = [p for p in record.projects if any(p.used_by(i) for i in includes) or p.is_scan_of(scanned)]
    blocked = [(p, a, p.result(a)) for p in used for a in arch if p.result(a) != "pass"]
    if blocked:
        shown = "; ".join(f"{p.name} {result} on {a}" for p, a, result in blocked[:SHOWN_USES])
        return None, (f"SCALE (compile unchanged) not offered: the workload is or uses projects SCALE's public "
                      f"matrix does not pass ({shown}; {record.matrix_version}, {record.matrix_source})",)
    evidence = [f"{a}: {record.passing(a)} of {len(record.projects)} projects in SCALE's public matrix pass "
                f"({record.matrix_version})" for a in arch]
    evidence += [f"uses {p.name}: passes on {', '.join(arch)}" for p in used]
    return Alternative(id="compile-unchanged", via="SCALE",
                       why="plain CUDA C++ on GPUs SCALE lists and validates publicly: SCALE's nvcc may compile it "
                           "unchanged instead of a port",
                       evidence=tuple(evidence), caveats=tuple(f"{c.text} ({c.source})" for c in record.caveats),
                       source=record.matrix_source), ()


def _notes(data: dict[str, Any], arch: Iterable[str]) -> tuple[str, ...]:
    note = data.get("workstation_note")
    if note and set(arch) & set(note["archs"]):
        return (f"{note['text']} ({data['sources'][note['source']]['url']})",)
    return ()
