"""ROCm routes as data, every entry with its source URL: names HIPIFY marks unsupported that have a
documented ROCm route, and names a rule grades too leniently (routes.yaml: a finding of a listed
symbol takes the route's class and HIP text); the rewrite lanes of kernels with no mechanical port
(rewrites.yaml)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from migrate.model import CLASSES, MigrationClass
from migrate.rulebase import datafile
from migrate.rulebase.load import RuleError, default_rules_dir

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any, Literal

    Band = Literal["small", "medium", "large"]  # BANDS, in this order
else:  # at run time the type is text
    Band = str


@dataclass(frozen=True, slots=True)
class Route:
    """Where a CUDA symbol goes on ROCm (rules/alternatives/routes.yaml), with its class and source."""

    symbol: str
    migration_class: MigrationClass
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
        checked(path, f"route {names[0]!r}", item, required=("class", "source"), choices={"class": CLASSES})
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


BANDS: tuple[Band, ...] = ("small", "medium", "large")


@dataclass(frozen=True, slots=True)
class Alternative:
    """An AMD library, language or build that takes over a CUDA part, and where it is documented."""

    name: str
    url: str


@dataclass(frozen=True, slots=True)
class Lane:
    """A rewrite lane (rules/alternatives/rewrites.yaml): the rules whose findings are kernels with no
    mechanical port, the AMD alternatives a rewrite lands on, and the size of one rewrite."""

    id: str
    title: str
    rules: tuple[str, ...]
    band: Band
    alternatives: tuple[Alternative, ...]
    source: str


@lru_cache(maxsize=4)
def rewrite_lanes(directory: Path | None = None, version: str = "") -> dict[str, Lane]:
    """rule id -> its rewrite lane. Raises RuleError naming the file, lane and field of a bad entry."""
    path = (directory or default_rules_dir()) / "alternatives" / "rewrites.yaml"
    if not path.is_file():
        return {}
    by_rule: dict[str, Lane] = {}
    for item in datafile.read(path).get("lanes", []):
        lane = _lane(path, item)
        for rule in lane.rules:
            if rule in by_rule:
                raise RuleError(f"{path}: lane {lane.id!r}: rule {rule} is already in lane {by_rule[rule].id!r}")
            by_rule[rule] = lane
    return by_rule


def _lane(path: Path, item: dict[str, Any]) -> Lane:
    name = item.get("id", "?")
    checked(path, f"lane {name!r}", item, required=("id", "title", "rules", "band", "alternatives", "source"),
            choices={"band": BANDS})
    return Lane(id=str(item["id"]), title=str(item["title"]), rules=tuple(str(r) for r in item["rules"]),
                band=item["band"], alternatives=alternatives_of(path, name, item["alternatives"]),
                source=_url(path, name, item["source"]))


def checked(path: Path, entry: str, item: dict[str, Any], *, required: tuple[str, ...],
            choices: dict[str, tuple[str, ...]]) -> None:
    """A data file's entry has every `required` field, and each field of `choices` one of its words;
    RuleError names the file, the entry and the field."""
    for field in required:
        if not item.get(field):
            raise RuleError(f"{path}: {entry}: missing {field}")
    for field, words in choices.items():
        if item[field] not in words:
            raise RuleError(f"{path}: {entry}: {field} {item[field]!r} is not one of {words}")


def alternatives_of(path: Path, owner: str, items: list[dict[str, Any]]) -> tuple[Alternative, ...]:
    """The `{name, url}` entries of a data file, each checked."""
    out = []
    for entry in items:
        if not isinstance(entry, dict) or not entry.get("name"):
            raise RuleError(f"{path}: {owner!r}: an alternative needs a name and a url")
        out.append(Alternative(name=str(entry["name"]), url=_url(path, owner, entry.get("url"))))
    return tuple(out)


def _url(path: Path, owner: str, value: object) -> str:
    if not isinstance(value, str) or not value.startswith("https://"):
        raise RuleError(f"{path}: {owner!r}: {value!r} is not an https:// source")
    return value
