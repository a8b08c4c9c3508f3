"""ROCm routes as data (rules/alternatives/routes.yaml): names HIPIFY marks unsupported that
have a documented ROCm route, and names a rule grades too leniently. A finding of a listed
symbol takes the route's class and HIP text; every route carries its source URL."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from migrate.model import CLASSES
from migrate.rulebase import datafile
from migrate.rulebase.load import RuleError, default_rules_dir


@dataclass(frozen=True, slots=True)
class Route:
    symbol: str
    migration_class: str
    hip: str | None
    source: str


@lru_cache(maxsize=4)
def load(directory: Path | None = None, version: str = "") -> dict[str, Route]:
    """symbol -> route, from the rule base in `directory` (its `version` keys the memo, so an edited
    routes file is read again). Raises RuleError on a malformed entry (file, symbol and field named)."""
    path = (directory or default_rules_dir()) / "alternatives" / "routes.yaml"
    if not path.is_file():
        return {}
    routes: dict[str, Route] = {}
    for item in datafile.read(path).get("routes", []):
        symbols = item.get("symbol")
        names = symbols if isinstance(symbols, list) else [symbols]
        for field in ("class", "source"):
            if not item.get(field):
                raise RuleError(f"{path}: route {names[0]!r}: missing {field}")
        if item["class"] not in CLASSES:
            raise RuleError(f"{path}: route {names[0]!r}: class {item['class']!r} is not one of {CLASSES}")
        for name in names:
            routes[str(name)] = Route(symbol=str(name), migration_class=item["class"], hip=item.get("hip"),
                                      source=item["source"])
    return routes


@lru_cache(maxsize=4)
def torch_hipified(directory: Path | None = None, version: str = "") -> frozenset[str]:
    """Headers PyTorch's own hipify rewrites in a torch extension (rules/alternatives/torch-hipify.yaml)."""
    path = (directory or default_rules_dir()) / "alternatives" / "torch-hipify.yaml"
    if not path.is_file():
        return frozenset()
    import yaml

    data = yaml.safe_load(path.read_text()) or {}
    includes = data.get("includes", [])
    if not str(data.get("source", "")).startswith("https://") or not all(isinstance(i, str) for i in includes):
        raise RuleError(f"{path}: needs a source URL and a list of header names")
    return frozenset(includes)
