"""The name lists of rules/names/<area>.yaml for the stages after extraction (workloads): the same files
extract/names.py reads for the extractors, through their JSON twins (rulebase/datafile.py), once per process."""
from __future__ import annotations

from functools import cache

from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir


@cache
def name_list(area: str, key: str) -> frozenset[str]:
    """The list `key` of the bundled rules/names/<area>.yaml."""
    lists = datafile.read(default_rules_dir() / "names" / f"{area}.yaml")
    return frozenset(str(name) for name in lists[key]["names"])
