"""What the stages after matching know of a rule by its id, as data: its family
(rules/effort/families.yaml: the effort family it is costed in, and what code it is about) and the
validation checks its findings call for (rules/validation/checks.yaml). Read from the files' JSON
twins (rulebase/datafile.py), so lint imports no YAML."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal, cast, get_args

from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir

Code = Literal["c", "python", "text"]  # C/C++/CUDA/HIP code, Python, dependency/build/container files
FAMILIES_FILE = "effort/families.yaml"
CHECKS_FILE = "validation/checks.yaml"


@dataclass(frozen=True, slots=True)
class Family:
    """A family of rules: its name, title, code, and the rule ids and id prefixes it holds."""

    name: str
    title: str
    code: Code
    ids: frozenset[str]
    prefixes: tuple[str, ...]

    def holds(self, rule: str) -> bool:
        return rule in self.ids or rule.startswith(self.prefixes)


@dataclass(frozen=True, slots=True)
class Check:
    """A check of the report: the families and rule ids it covers."""

    name: str
    families: frozenset[str]
    ids: frozenset[str]


@dataclass(frozen=True, slots=True)
class Families:
    """Every family and check of the rule base."""

    families: tuple[Family, ...]
    checks: tuple[Check, ...]
    # rule id -> its family, found once: the report's stages ask for every finding (55k times for cuda-samples,
    # each a scan of the families' ids and prefixes: ~10 % of the miss path's serial work)
    _found: dict[str, Family | None] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def of(self, rule: str) -> Family | None:
        """The first family that holds `rule`, or None (a rule with none fails the rules' tests)."""
        try:
            return self._found[rule]
        except KeyError:
            found = self._found[rule] = next((f for f in self.families if f.holds(rule)), None)
            return found

    def named(self, name: str) -> Family:
        return next(f for f in self.families if f.name == name)

    def is_code(self, rule: str, code: Code) -> bool:
        family = self.of(rule)
        return family is not None and family.code == code

    def checks_for(self, rule: str) -> frozenset[str]:
        """The validation checks a finding of `rule` calls for."""
        family = self.of(rule)
        return frozenset(c.name for c in self.checks
                         if rule in c.ids or (family is not None and family.name in c.families))


@lru_cache(maxsize=4)
def load(directory: Path | None = None) -> Families:
    folder = directory or default_rules_dir()
    families = tuple(_family(entry) for entry in datafile.read(folder / FAMILIES_FILE))
    checks = tuple(Check(name=str(c["name"]), families=frozenset(c.get("families", ())), ids=frozenset(c.get("ids", ())))
                   for c in datafile.read(folder / CHECKS_FILE))
    return Families(families=families, checks=checks)


def _family(entry: dict[str, object]) -> Family:
    code = entry.get("code")
    if code not in get_args(Code):
        raise ValueError(f"{FAMILIES_FILE}: family {entry.get('name')!r}: code must be one of {get_args(Code)}, not {code!r}")
    return Family(name=str(entry["name"]), title=str(entry["title"]), code=cast(Code, code),
                  ids=frozenset(cast("list[str]", entry.get("ids", ()))),
                  prefixes=tuple(cast("list[str]", entry.get("prefixes", ()))))
