"""The capability audit: each CUDA capability check the scan found, with what it sees on every AMD target.

Which rules are capability checks, and the values AMD targets report, are data
(rules/targets/capability.yaml, each value with its source)."""
from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from migrate.model import Finding
from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir

TUPLE_GATE = re.compile(r"(>=|<=|==|!=|>|<)\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)")
MAJOR_GATE = re.compile(r"\bmajor\w*\s*(>=|<=|==|!=|>|<)\s*(\d+)\b")
OPS = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
       "!=": lambda a, b: a != b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}


@lru_cache(maxsize=2)
def load(path: Path | None = None) -> dict[str, Any]:
    data: dict[str, Any] = datafile.read(path or default_rules_dir() / "targets" / "capability.yaml")
    return data


def audit(findings: Iterable[Finding], arch: list[str]) -> tuple[dict[str, Any], ...]:
    """One row per capability-check finding: the check, and per target what it sees (and decides, when the
    line compares with a literal capability)."""
    data = load()
    rows = []
    for f in sorted(findings, key=lambda f: f.sort_key):
        check = data["checks"].get(f.rule)
        if check is None:
            continue
        targets = []
        for gpu in arch:
            targets.append(_on_target(check, data["device_capability"].get(gpu), gpu, f.source_line or ""))
        rows.append({"rule": f.rule, "check": check["check"], "path": f.path, "line": f.line,
                     "code": (f.source_line or "").strip()[:160], "targets": targets,
                     "source": data["sources"][check["source"]]["url"]})
    return tuple(rows)


def _on_target(check: dict[str, Any], capability: dict[str, Any] | None, gpu: str, code: str) -> dict[str, Any]:
    if check["on_amd"] != "device_capability":
        return {"arch": gpu, "sees": check["on_amd"], "decides": None, "evidence": "documented"}
    if capability is None:
        return {"arch": gpu, "sees": None, "decides": None, "evidence": "unknown"}
    value = tuple(capability["value"])
    return {"arch": gpu, "sees": f"({value[0]}, {value[1]})", "decides": _decide(code, value),
            "evidence": capability["evidence"]}


def _decide(code: str, value: tuple[int, ...]) -> bool | None:
    """The gate's outcome when the line compares with a literal capability: `>= (8, 0)`, `major >= 9`."""
    if m := TUPLE_GATE.search(code):
        return bool(OPS[m.group(1)](value, (int(m.group(2)), int(m.group(3)))))
    if m := MAJOR_GATE.search(code):
        return bool(OPS[m.group(1)](value[0], int(m.group(2))))
    return None
