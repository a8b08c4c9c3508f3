"""Which rule reports each outcome of the stack check (rules/stack/outcomes.yaml), and the class it
counts as: the rule's own, read from the rule file that defines it (rules/stack.yaml)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, get_args

from migrate.rulebase import compiled, datafile
from migrate.rulebase.load import default_rules_dir

Outcome = Literal["gpu-unlisted", "gpu-other-release", "pin-without-rocm-build", "pin-in-other-release",
                  "locked-pin-without-rocm-build", "floating-pin", "binary-without-gpu-target"]
OUTCOMES_FILE = "stack/outcomes.yaml"
RULES_FILE = "stack.yaml"


@dataclass(frozen=True, slots=True)
class Outcomes:
    rule: Mapping[Outcome, str]
    no_rocm_build: frozenset[str]  # dependency rules naming a package with no ROCm build
    classes: Mapping[str, str]  # rule id -> class, for the outcomes' rules

    def class_of(self, rule: str) -> str:
        return self.classes[rule]


@lru_cache(maxsize=4)
def load(directory: Path | None = None) -> Outcomes:
    folder = directory or default_rules_dir()
    data = datafile.read(folder / OUTCOMES_FILE)
    missing = [o for o in get_args(Outcome) if o not in data]
    if missing:
        raise ValueError(f"{OUTCOMES_FILE}: no rule for {', '.join(missing)}")
    rule: dict[Outcome, str] = {o: str(data[o]) for o in get_args(Outcome)}
    classes = {str(r["id"]): str(r["class"]) for r in _rule_records(folder) if r["id"] in rule.values()}
    return Outcomes(rule=rule, no_rocm_build=frozenset(data["no-rocm-build"]), classes=classes)


def _rule_records(folder: Path) -> list[dict[str, Any]]:
    """The records of the stack's rule file: from the compiled rule base while it holds these bytes
    (no YAML import), else parsed."""
    raw = (folder / RULES_FILE).read_bytes()
    shipped = compiled.read(folder).get(RULES_FILE)
    if shipped is not None and shipped[0] == compiled.file_digest(raw):
        return shipped[1]
    records: list[dict[str, Any]] = datafile.parse(raw)
    return records
