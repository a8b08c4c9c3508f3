"""The name lists of rules/names/<area>.yaml, read through their JSON twins (rulebase/datafile.py) once per process
and file: by the extractors (extract/names.py) and by the stages before and after extraction (scan/discover.py,
workloads), which may not import the extractors."""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from migrate.rulebase import datafile

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any


@cache
def lists(path: Path) -> dict[str, Any]:
    """Every list of one rules/names file."""
    content: dict[str, Any] = datafile.read(path)
    return content


def name_list(area: str, key: str) -> frozenset[str]:
    """The list `key` of the bundled rules/names/<area>.yaml."""
    from migrate.rulebase.load import default_rules_dir  # as extract/names.folder: not imported with the extractors

    return frozenset(str(name) for name in lists(default_rules_dir() / "names" / f"{area}.yaml")[key]["names"])


def alternatives(area: str, key: str) -> str:
    """The names of the list `key` of the bundled rules/names/<area>.yaml as a regular-expression alternation (escaped,
    longest first: a name that starts another is tried after it)."""
    return "|".join(re.escape(name) for name in sorted(name_list(area, key), key=lambda n: (-len(n), n)))


@cache
def ordered_list(area: str, key: str) -> tuple[str, ...]:
    """The list `key` of the bundled rules/names/<area>.yaml in its file's order (for `str.endswith`, and where the
    first that fits wins)."""
    from migrate.rulebase.load import default_rules_dir

    return tuple(str(name) for name in lists(default_rules_dir() / "names" / f"{area}.yaml")[key]["names"])


@cache
def guard_map(area: str, key: str) -> dict[str, tuple[str, ...]]:
    """The mapping `key` of the bundled rules/names/<area>.yaml: a name to the prefixes it guards."""
    from migrate.rulebase.load import default_rules_dir

    found = lists(default_rules_dir() / "names" / f"{area}.yaml")[key]["guards"]
    return {str(name): tuple(str(p) for p in prefixes) for name, prefixes in found.items()}


def header_suffixes() -> tuple[str, ...]:
    """The endings of C, C++ and CUDA headers (rules/names/build.yaml `header_suffixes`): the one list every stage
    that tells a header from a source reads."""
    return ordered_list("build", "header_suffixes")
