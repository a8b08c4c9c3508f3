"""A baseline of known findings, keyed by Finding.fingerprint (rule, path, symbol and the
whitespace-folded source line; no line number), so that lint reports only new findings."""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from migrate import __version__
from migrate.model import Finding

VERSION = 1


class BaselineError(Exception):
    """An unreadable or malformed baseline file; str() is one line."""


def _keyed(finding: Finding, cwd: Path, root: Path) -> Finding:
    """The finding with its path relative to the baseline's directory, so the file works from anywhere."""
    path = (cwd / finding.path).resolve()
    try:
        return replace(finding, path=path.relative_to(root.resolve()).as_posix())
    except ValueError:
        return replace(finding, path=path.as_posix())


def write(path: Path, findings: Iterable[Finding], *, cwd: Path) -> int:
    """Record the findings (paths relative to cwd); returns how many were written."""
    keyed = sorted((_keyed(f, cwd, path.parent) for f in findings), key=lambda f: f.sort_key)
    counts = Counter(f.fingerprint for f in keyed)
    entries, seen = [], set()
    for f in keyed:
        if f.fingerprint not in seen:
            seen.add(f.fingerprint)
            entries.append({"fingerprint": f.fingerprint, "rule": f.rule, "path": f.path, "symbol": f.symbol,
                            "count": counts[f.fingerprint]})
    document = {"version": VERSION, "tool": f"rocm-migrate {__version__}", "findings": entries}
    try:
        path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise BaselineError(f"cannot write baseline {path}: {exc.strerror or exc}") from None
    return len(keyed)


def read(path: Path) -> Counter[str]:
    """fingerprint -> how many findings with it the baseline accepts."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BaselineError(f"cannot read baseline {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not isinstance(document, dict) or document.get("version") != VERSION:
        raise BaselineError(f"{path}: not a rocm-migrate baseline (version {VERSION} expected)")
    entries = document.get("findings")
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("fingerprint"), str) and isinstance(e.get("count", 1), int)
            for e in entries):
        raise BaselineError(f"{path}: malformed baseline: 'findings' must be a list of {{fingerprint, count}}")
    return Counter({e["fingerprint"]: e.get("count", 1) for e in entries})


def new_findings(findings: Iterable[Finding], known: Counter[str], *, cwd: Path,
                 root: Path) -> tuple[list[Finding], int]:
    """The findings the baseline does not account for, and how many it did."""
    remaining = Counter(known)
    new = []
    for finding in sorted(findings, key=lambda f: f.sort_key):
        fingerprint = _keyed(finding, cwd, root).fingerprint
        if remaining[fingerprint] > 0:
            remaining[fingerprint] -= 1
        else:
            new.append(finding)
    return new, sum(known.values()) - sum(remaining.values())
