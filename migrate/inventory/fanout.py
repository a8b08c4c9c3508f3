"""`inventory --scan`: one Dask task per repository, each result written into the output folder as
it arrives (repos/<slug>.json: the scan report, or the failure), a line per result in scan-log.jsonl;
repositories whose report matches their commit and the rules version are skipped by the worker."""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from migrate.inventory import cluster
from migrate.inventory.isolate import scan_within_limits
from migrate.inventory.repolist import RepoSpec
from migrate.inventory.worker import Previous, ScanOptions
from migrate.safetext import unicode_text

REPORTS = "repos"
LOG = "scan-log.jsonl"


@dataclass(slots=True)
class Tally:
    """What a run did, for the progress line and the closing summary."""

    total: int
    done: int = 0
    counts: dict[str, int] = field(default_factory=dict)  # ok, skipped, failed
    lines: int = 0
    peak_rss_mb: dict[str, float] = field(default_factory=dict)  # per worker


def run(specs: Iterable[RepoSpec], out: Path, options: ScanOptions, *, scheduler: str | None = None,
        workers: int | None = None, progress: Callable[[dict[str, Any], Tally], None] | None = None) -> Tally:
    specs = list(specs)
    folder = out / REPORTS
    folder.mkdir(parents=True, exist_ok=True)
    tally = Tally(total=len(specs))
    calls = [(s.slug, (s, previous(folder / f"{s.slug}.json"), options)) for s in specs]
    with cluster.connect(scheduler, workers) as client, (out / LOG).open("a", encoding="utf-8") as log:
        for slug, result in cluster.run_each(client, scan_within_limits, calls):
            outcome = result if isinstance(result, dict) else _lost(next(s for s in specs if s.slug == slug), result)
            _record(folder, outcome)
            summary = {k: v for k, v in outcome.items() if k not in ("report", "failure")}
            log.write(_json(summary) + "\n")
            log.flush()
            _count(tally, outcome)
            if progress:
                progress(summary, tally)
    return tally


def previous(path: Path) -> Previous | None:
    """The commit and rules version of a finished report already in the folder."""
    try:
        data = json.loads(path.read_bytes())
        commit, rules = data["source"]["commit"], data["tool"]["rules_version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return Previous(commit=commit, rules_version=rules) if commit and rules else None


def _record(folder: Path, outcome: dict[str, Any]) -> None:
    body = outcome.get("report") if outcome["status"] == "ok" else outcome.get("failure")
    if body is None:  # skipped: the report in the folder is current
        return
    target = folder / f"{outcome['slug']}.json"
    partial = target.with_suffix(".json.partial")
    partial.write_text(_json(body, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, target)  # a reader never sees half a report


def _json(value: object, indent: int | None = None) -> str:
    """JSON for a UTF-8 file: a file name's undecodable bytes (lone surrogates) become U+FFFD, so
    that one repository's bad name is never the whole run's error."""
    return unicode_text(json.dumps(value, indent=indent, ensure_ascii=False))


def _lost(spec: RepoSpec, error: BaseException) -> dict[str, Any]:
    """A task that never returned (its worker died, the scheduler lost it)."""
    message = f"{type(error).__name__}: {error}"
    return {"name": spec.name, "slug": spec.slug, "source": spec.source, "status": "failed", "error": message,
            "failure": {"status": "failed", "name": spec.name, "url": spec.source, "error": message}}


def _count(tally: Tally, outcome: dict[str, Any]) -> None:
    tally.done += 1
    tally.counts[outcome["status"]] = tally.counts.get(outcome["status"], 0) + 1
    if outcome["status"] == "ok":
        tally.lines += int(outcome.get("lines", 0))
    worker = outcome.get("worker")
    if worker:
        tally.peak_rss_mb[worker] = max(tally.peak_rss_mb.get(worker, 0.0), float(outcome.get("peak_rss_mb", 0.0)))
