"""Per-repository reports -> one inventory: totals by class and by owner, shared blockers."""
from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from migrate.inventory.record import RepoRecord, failed, from_report
from migrate.model import CLASSES, class_rank

UNASSIGNED = "(unassigned)"
INVENTORY_SCHEMA_VERSION = 1


class InventoryError(Exception):
    """An unreadable report or owners file; str() is one line naming it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SharedBlocker:
    """One rule that blocks several repositories: fixing it once (a shared library, a recipe) helps all."""

    rule: str
    migration_class: str
    findings: int
    repos: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Inventory:
    repos: tuple[RepoRecord, ...]
    blockers: tuple[SharedBlocker, ...]
    rule_titles: Mapping[str, str]

    def totals(self, repos: Iterable[RepoRecord] | None = None) -> dict[str, Any]:
        """Repositories and effort per class (failed scans counted apart)."""
        chosen = list(self.repos if repos is None else repos)
        out: dict[str, Any] = {}
        for name in CLASSES:
            members = [r for r in chosen if r.status == "ok" and r.migration_class == name]
            out[name] = {"repos": len(members), "effort_hours": _effort_sum(members)}
        ok = [r for r in chosen if r.status == "ok"]
        return {"repos": len(chosen), "failed": len(chosen) - len(ok), "by_class": out,
                "effort_hours": _effort_sum(ok), "lines": sum(r.lines for r in ok)}

    def by_owner(self) -> dict[str, dict[str, Any]]:
        owners = sorted({r.owner or UNASSIGNED for r in self.repos})
        return {o: self.totals(r for r in self.repos if (r.owner or UNASSIGNED) == o) for o in owners}


def build(records: Iterable[RepoRecord], owners: Mapping[str, str] | None = None,
          rule_titles: Mapping[str, str] | None = None) -> Inventory:
    owners = owners or {}
    repos = tuple(sorted((replace(r, owner=owners.get(r.name) or owners.get(r.source) or r.owner) for r in records),
                         key=lambda r: r.name))
    return Inventory(repos=repos, blockers=shared_blockers(repos), rule_titles=dict(rule_titles or {}))


def shared_blockers(repos: Iterable[RepoRecord]) -> tuple[SharedBlocker, ...]:
    """Every blocking rule with the repositories it blocks, the most widely shared first."""
    names: dict[str, list[str]] = {}
    findings: dict[str, int] = {}
    classes: dict[str, str] = {}
    for repo in repos:
        for b in repo.blockers:
            names.setdefault(b.rule, []).append(repo.name)
            findings[b.rule] = findings.get(b.rule, 0) + b.findings
            if class_rank(b.migration_class) > class_rank(classes.get(b.rule, "native")):
                classes[b.rule] = b.migration_class
    ranked = sorted(names, key=lambda r: (-len(names[r]), -class_rank(classes[r]), -findings[r], r))
    return tuple(SharedBlocker(rule=r, migration_class=classes[r], findings=findings[r], repos=tuple(names[r]))
                 for r in ranked)


def read_reports(paths: Iterable[Path]) -> Iterator[RepoRecord]:
    """Records from report files and folders of them (`*.json`, not recursive)."""
    for path in paths:
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        for file in files:
            yield read_report(file)


def read_report(path: Path) -> RepoRecord:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise InventoryError(f"{path}: not a readable JSON report ({exc})") from None
    if not isinstance(data, dict):
        raise InventoryError(f"{path}: not a rocm-migrate report")
    given = data.get("source")
    origin: dict[str, Any] = given if isinstance(given, dict) else {}
    name = str(origin.get("name") or data.get("name") or path.stem)
    source = str(origin.get("url") or data.get("url") or path)
    if data.get("status") == "failed":
        return failed(name=name, source=source, error=str(data.get("error")), scanned_at=data.get("scanned_at"),
                      commit=data.get("commit"), rules_version=data.get("rules_version"))
    if "summary" not in data or "workloads" not in data:
        raise InventoryError(f"{path}: not a rocm-migrate scan report (no summary or workloads)")
    return from_report(data, name=name, source=source)


def read_owners(path: Path) -> dict[str, str]:
    """A CSV with a `repo` column and an `owner` (or `team`) column."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InventoryError(f"{path}: cannot read owners CSV ({exc})") from None
    if not rows:
        return {}
    column = "owner" if "owner" in rows[0] else "team" if "team" in rows[0] else None
    if "repo" not in rows[0] or column is None:
        raise InventoryError(f"{path}: owners CSV needs a 'repo' column and an 'owner' (or 'team') column")
    return {row["repo"].strip(): row[column].strip() for row in rows if row.get("repo") and row.get(column)}


def _effort_sum(repos: Iterable[RepoRecord]) -> dict[str, float]:
    total = {"low": 0.0, "likely": 0.0, "high": 0.0}
    for repo in repos:
        for key in total:
            total[key] += float(repo.effort.get(key, 0.0))
    return {k: round(v, 2) for k, v in total.items()}
