"""validate plan: the checks each workload needs and why, from the scan's workloads and the facts in their files.

plan() is a pure function of a finished Report, the facts per file and the check table (checks.yaml).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from migrate.model import Fact
from migrate.model_report import Report, Workload

MAX_EVIDENCE = 5
CODE_SUFFIXES = (".py", ".ipynb", ".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hip")
GPU_IMPORTS = ("torch", "jax", "cupy", "triton", "tensorflow", "numba.cuda", "pycuda")


class PlanError(Exception):
    """Bad input or configuration; str() is one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    path: str
    line: int
    symbol: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "symbol": self.symbol}


@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedCheck:
    id: str
    title: str
    why: str
    runner: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    evidence_count: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "why": self.why, "runner": list(self.runner),
                "evidence": [e.to_json() for e in self.evidence], "evidence_count": self.evidence_count}


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkloadPlan:
    name: str
    kind: str
    root: str
    migration_class: str
    checks: tuple[PlannedCheck, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "root": self.root, "class": self.migration_class,
                "checks": [c.to_json() for c in self.checks]}


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    tool_version: str
    root: str
    workloads: tuple[WorkloadPlan, ...]

    def to_json(self) -> dict[str, Any]:
        kinds = sorted({c.id for w in self.workloads for c in w.checks})
        return {"schema_version": 1, "kind": "rocm-migrate-validation-plan",
                "tool": {"name": "rocm-migrate", "version": self.tool_version}, "root": self.root,
                "summary": {"workloads": len(self.workloads), "checks": kinds,
                            "workloads_with_checks": sum(1 for w in self.workloads if w.checks)},
                "workloads": [w.to_json() for w in self.workloads]}


@lru_cache(maxsize=1)
def check_table() -> tuple[dict[str, Any], ...]:
    import yaml

    data = yaml.safe_load((Path(__file__).parent / "checks.yaml").read_text(encoding="utf-8"))
    return tuple(data)


def plan(report: Report, facts: Mapping[str, Sequence[Fact]], table: Sequence[dict[str, Any]] | None = None) -> Plan:
    table = table if table is not None else check_table()
    return Plan(tool_version=report.tool_version, root=report.root,
                workloads=tuple(_workload(w, report, facts, table) for w in report.workloads))


def _workload(workload: Workload, report: Report, facts: Mapping[str, Sequence[Fact]],
              table: Sequence[dict[str, Any]]) -> WorkloadPlan:
    seen = [(path, fact) for path in workload.files for fact in facts.get(path, ())]
    checks = []
    for entry in table:
        if entry.get("baseline"):
            evidence = _gpu_evidence(workload, report, seen)
        else:
            evidence = [Evidence(path=p, line=f.line, symbol=f.name) for p, f in seen
                        if any(_matches(s, f) for s in entry.get("signals", ()))]
            if any(workload.kind in s.get("workload_kind", ()) for s in entry.get("signals", ())):
                evidence.insert(0, Evidence(path=workload.root, line=0, symbol=f"{workload.kind} workload"))
        if evidence:
            unique = _one_per_line(evidence)
            checks.append(PlannedCheck(id=entry["id"], title=entry["title"], why=" ".join(entry["why"].split()),
                                       runner=tuple(entry.get("runner", ())), evidence=tuple(unique[:MAX_EVIDENCE]),
                                       evidence_count=len(unique)))
    return WorkloadPlan(name=workload.name, kind=workload.kind, root=workload.root,
                        migration_class=workload.migration_class, checks=tuple(checks))


def _one_per_line(evidence: list[Evidence]) -> list[Evidence]:
    """The first symbol of each cited line: findings in source code first, then imports, then other files."""
    first: dict[tuple[str, int], Evidence] = {}
    for e in evidence:
        first.setdefault((e.path, e.line), e)
    return sorted(first.values(), key=lambda e: (not e.path.endswith(CODE_SUFFIXES), e.symbol.startswith("import "),
                                                   e.path, e.line))


def _gpu_evidence(workload: Workload, report: Report, seen: list[tuple[str, Fact]]) -> list[Evidence]:
    """GPU code in the workload: its findings, or an import of a GPU framework."""
    found = [Evidence(path=f.path, line=f.line, symbol=f"{f.rule} {f.symbol}") for f in report.findings
             if f.workload == workload.name]
    found += [Evidence(path=p, line=f.line, symbol=f"import {f.name}") for p, f in seen
              if f.kind == "python_import" and f.name.split(".")[0] in GPU_IMPORTS]
    return found


def _matches(signal: dict[str, Any], fact: Fact) -> bool:
    if "kind" not in signal or signal["kind"] != fact.kind:
        return False
    return fact.name in signal.get("exact", ()) or any(fact.name.startswith(p) for p in signal.get("prefix", ()))


@dataclass(frozen=True, slots=True, kw_only=True)
class Scanned:
    """A scan as validate reads it: the report, the facts per file, and where each file is on disk."""

    report: Report
    facts: Mapping[str, Sequence[Fact]]
    files: Mapping[str, Path]


def scan(paths: list[Path], use_cache: bool = True) -> Scanned:
    """Scan the paths as one project, as `rocm-migrate scan` does (configuration and cache included)."""
    from migrate import settings as config
    from migrate.extract.run import extract_all, extracted
    from migrate.rulebase import precompiled
    from migrate.rulebase.load import RuleError
    from migrate.scan import cache, project
    from migrate.scan.cache import Cache
    from migrate.scan.discover import discover

    try:
        settings = config.load(paths[0].resolve(), {"cache_dir": cache.default_dir() if use_cache else None,
                                                    "use_hipify": False})
        rules = precompiled.load(None, cache.default_dir() if use_cache else None)
    except (config.SettingsError, RuleError) as exc:
        raise PlanError(str(exc)) from None
    report = project.scan_project(paths, settings, rules)
    found = discover(paths, include_vendored=settings.include_vendored, exclude=settings.exclude)
    outcomes = extract_all(found.files, max_file_size=settings.max_file_size, cache=Cache(settings.cache_dir))
    return Scanned(report=report, facts={f.rel: e.facts for f, e in extracted(outcomes)},
                   files={f.rel: f.path for f in found.files})


def plan_paths(paths: list[Path], use_cache: bool = True) -> Plan:
    scanned = scan(paths, use_cache)
    return plan(scanned.report, scanned.facts)
