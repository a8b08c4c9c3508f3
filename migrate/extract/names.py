"""The names the extractors recognise (CUDA, HIP and NVIDIA API names, tools, packages): data in
rules/names/<area>.yaml, each list with what it means and its source, read through the file's JSON
twin (rulebase/datafile.py) once per process. The extractors' version hashes these files, so an
edited list gives new cache keys (extract.version_of)."""
from __future__ import annotations

from functools import cache
from pathlib import Path

from migrate.rulebase import name_lists

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

FOLDER = "names"


def folder() -> Path:
    """The name lists of the bundled rule base (a user's --rules-dir changes rules, not extraction)."""
    from migrate.rulebase.load import default_rules_dir

    return default_rules_dir() / FOLDER


@cache
def _area(area: str) -> dict[str, Any]:
    return name_lists.lists(folder() / f"{area}.yaml")


@cache
def name_list(area: str, key: str) -> frozenset[str]:
    """The list `key` of rules/names/<area>.yaml (built once: extractors ask per CMake command, per argument)."""
    return frozenset(str(name) for name in _area(area)[key]["names"])


def alternatives(area: str, key: str) -> str:
    """The names of rules/names/<area>.yaml's list `key` as a regular-expression alternation (escaped,
    longest first: a name that starts another is tried after it)."""
    return name_lists.alternatives(area, key)


def guard_map(area: str, key: str) -> dict[str, tuple[str, ...]]:
    """The mapping `key` of rules/names/<area>.yaml: a name to the prefixes it guards."""
    return name_lists.guard_map(area, key)
