"""One repository, on whichever machine the task runs: find its commit, skip it when its report is
current, else clone (URLs, shallowly) and scan it; every outcome is a plain dict sent back to the
client, a failure included, so one bad repository never stops the run."""
from __future__ import annotations

import os
import resource
import shutil
import socket
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from migrate import vcs
from migrate.inventory.repolist import RepoSpec
from migrate.rulebase.load import RuleBase


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanOptions:
    overrides: dict[str, Any] = field(default_factory=dict)  # settings from the command line (rocm, arch ...)
    rules_dir: str | None = None
    use_cache: bool = True
    clone_dir: str | None = None  # where clones go (default: the system's temporary folder)
    isolated: bool = True  # each repository in a process of its own, ended at the limits below
    repo_seconds: float = 3600.0
    repo_memory_mib: int = 8192


@dataclass(frozen=True, slots=True, kw_only=True)
class Previous:
    """What the output folder already holds for a repository."""

    commit: str
    rules_version: str


def scan_repo(spec: RepoSpec, previous: Previous | None, options: ScanOptions, *,
              rules: RuleBase | None = None) -> dict[str, Any]:
    started = time.perf_counter()
    outcome: dict[str, Any] = {"name": spec.name, "slug": spec.slug, "source": spec.source,
                               "worker": f"{socket.gethostname()}:{os.getpid()}"}
    scanned_at = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    commit: str | None = None
    try:
        rules = rules or rules_for(options)
        commit = vcs.remote_head(spec.source) if spec.is_url else vcs.head_commit(Path(spec.source))
        if previous and commit and previous.commit == commit and previous.rules_version == rules.version:
            outcome.update(status="skipped", commit=commit)
        else:
            report = _scan(spec, rules, options)
            report["source"].update(name=spec.name, url=spec.source,  # a scan leaves the time out (reproducible)
                                    scanned_at=report["source"].get("scanned_at") or scanned_at)
            outcome.update(status="ok", commit=report["source"]["commit"], report=report,
                           lines=report["summary"]["lines"])
    except (Exception, MemoryError) as exc:  # any failure is this repository's, recorded, not raised
        last = traceback.extract_tb(exc.__traceback__)[-1:]
        where = f" at {Path(last[0].filename).name}:{last[0].lineno}" if last else ""
        outcome.update(status="failed", commit=commit, error=f"{type(exc).__name__}: {exc}{where}",
                       failure={"status": "failed", "name": spec.name, "url": spec.source,
                                "error": f"{type(exc).__name__}: {exc}", "scanned_at": scanned_at, "commit": commit,
                                "rules_version": _version_or_none(options)})
    outcome.update(seconds=round(time.perf_counter() - started, 3), peak_rss_mb=_peak_rss_mb())
    return outcome


def failure(spec: RepoSpec, options: ScanOptions, error: str, *, started: float) -> dict[str, Any]:
    """The outcome of a repository whose scan did not return (ended at a limit, or its process died)."""
    scanned_at = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    return {"name": spec.name, "slug": spec.slug, "source": spec.source, "worker": f"{socket.gethostname()}:{os.getpid()}",
            "status": "failed", "commit": None, "error": error, "seconds": round(time.perf_counter() - started, 3),
            "peak_rss_mb": _peak_rss_mb(),
            "failure": {"status": "failed", "name": spec.name, "url": spec.source, "error": error,
                        "scanned_at": scanned_at, "commit": None, "rules_version": _version_or_none(options)}}


def _scan(spec: RepoSpec, rules: RuleBase, options: ScanOptions) -> dict[str, Any]:
    from migrate import settings
    from migrate.render.json_report import to_json
    from migrate.scan import cache, pipeline

    overrides = {**options.overrides, "jobs": 1, "cache_dir": cache.default_dir() if options.use_cache else None}
    if not spec.is_url:
        folder = Path(spec.source)
        if not folder.is_dir():
            raise FileNotFoundError(f"no such folder: {folder}")
        return to_json(pipeline.run([folder], settings.load(folder, overrides), rules))
    holder = Path(tempfile.mkdtemp(prefix="rocm-migrate-clone-", dir=options.clone_dir))
    try:
        folder = holder / spec.folder  # the root workload is named after it, as in a clone of one's own
        vcs.shallow_clone(spec.source, folder)
        return to_json(pipeline.run([folder], settings.load(folder, overrides), rules))
    finally:
        shutil.rmtree(holder, ignore_errors=True)


def rules_for(options: ScanOptions) -> RuleBase:
    return _rules(options.rules_dir, options.use_cache)


@lru_cache(maxsize=4)
def _rules(rules_dir: str | None, use_cache: bool) -> RuleBase:
    """The rule base, loaded once per worker process."""
    from migrate.rulebase import precompiled
    from migrate.scan import cache

    return precompiled.load(Path(rules_dir) if rules_dir else None, cache.default_dir() if use_cache else None)


def _version_or_none(options: ScanOptions) -> str | None:
    try:
        return _rules(options.rules_dir, options.use_cache).version
    except Exception:  # the rules themselves may be what failed
        return None


def _peak_rss_mb() -> float:
    """The peak resident memory of this worker process so far (Linux reports kilobytes)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
