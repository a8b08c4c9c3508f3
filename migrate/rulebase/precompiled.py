"""The validated rule base, precompiled: the schema-checked records as JSON in the cache directory,
keyed by a hash of the rule files and of the code that reads them, so a hit skips YAML parsing and
schema validation. Data only (no pickle): whoever can write a shared cache cannot run code in the
next scan, and a row of the wrong shape or type is a miss that rebuilds it."""
from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from migrate import __version__, jsonio, vocabulary
from migrate.rulebase import compiled
from migrate.rulebase import load as rules
from migrate.rulebase.load import (
    Entries,
    Entry,
    Rule,
    RuleBase,
    RuleError,
    default_rules_dir,
    from_records,
)

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

SUBDIR = "rules"
FORMAT = 2  # of the cached file; 1 was a pickle
# What a cached file of the wrong shape raises while it is rebuilt: any of these means "miss".
BAD_ROW = (KeyError, IndexError, TypeError, ValueError, AttributeError, re.error, RuleError, RecursionError)
STR_FIELDS = ("id", "name", "title", "migration_class", "hipify", "confidence", "status", "rationale", "docs", "file")
OPTIONAL_STR_FIELDS = ("hip", "message", "rocm_min", "rocm_max", "when", "exceeds", "file_has", "file_has_what",
                       "file_lacks", "file_lacks_what", "header_only_when", "header_only_what", "needs_context")


def _debug(message: str, *args: object) -> None:
    """A debug log line (logging is imported only when there is one: a lint run starts without it)."""
    import logging

    logging.getLogger(__name__).debug(message, *args)


def content_key(directory: Path) -> str:
    """A hash of every rule data file, the loader and its schema, the tool and Python versions."""
    import hashlib  # here: a lint served by the compiled copy never computes it

    digest = hashlib.sha256(f"{__version__}\0{sys.version_info[:2]}\0{FORMAT}\0".encode())
    for path in (Path(rules.__file__), Path(__file__), rules.SCHEMA_PATH, Path(vocabulary.__file__)):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(rules.data_digest(directory).encode())
    return digest.hexdigest()[:32]


def load(directory: Path | None = None, cache_dir: Path | None = None) -> RuleBase:
    """rules.load_rules(directory), served from `cache_dir` when the rules are unchanged."""
    directory = directory or default_rules_dir()
    shipped, tables = compiled.read_all(directory, cache_dir)
    if shipped:  # validated when the copy was written: only files edited since are validated now
        from migrate.rulebase import stamps

        files, version = rules.validated_records(directory, known=shipped,
                                                 digests=stamps.digests(directory, cache_dir))
        taken = {name for name, records in files if shipped.get(name, ("", None))[1] is records}
        return from_records(files, version, checked=len(taken) == len(files), directory=directory,
                            tables={name: tables[name] for name in taken})
    if cache_dir is None:
        return rules.load_rules(directory)
    try:
        path = cache_dir / SUBDIR / f"{content_key(directory)}.json"
    except OSError:
        return rules.load_rules(directory)
    cached = _read(path, directory)
    if cached is not None:
        return cached
    files, version = rules.validated_records(directory, known={})
    rulebase = from_records(files, version, directory=directory)
    _write(path, {"format": FORMAT, "version": version, "files": files})
    return rulebase


def _read(path: Path, directory: Path) -> RuleBase | None:
    try:
        data = jsonio.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:
        _debug("ignoring unreadable rule cache %s: %s", path, exc)
        return None
    try:
        if data["format"] != FORMAT or not isinstance(data["version"], str):
            return None
        files = [(name, records) for name, records in data["files"]]
        if not all(_record_typed(record) for _, records in files for record in records):
            return None
        rulebase = from_records(files, data["version"], checked=True, directory=directory)
        typed = all(_well_typed(rule) for rule in rulebase.rules)  # every rule built: a bad row is a miss here
    except BAD_ROW as exc:
        _debug("ignoring rule cache of the wrong shape %s: %s", path, exc)
        return None
    return rulebase if typed else None


def _well_typed(rule: Rule) -> bool:
    """The types the schema guarantees, checked again on what was read from the cache."""
    m = rule.matcher
    return (all(isinstance(getattr(rule, f), str) for f in STR_FIELDS)
            and all(isinstance(getattr(rule, f), (str, type(None))) for f in OPTIONAL_STR_FIELDS)
            and isinstance(rule.fallback, bool) and isinstance(rule.covers_file, bool)
            and isinstance(rule.in_backend_files, bool) and isinstance(rule.mask_elsewhere, bool)
            and isinstance(rule.known_name, bool) and isinstance(rule.product_header, bool) and _strings(rule.arch)
            and isinstance(m.kind, str)
            and _strings(m.exact) and _strings(m.prefixes) and _strings(m.roles)
            and (m.regex is None or type(m.regex.pattern) is str)
            and _strings(m.entries) and _entries_typed(m.entries)
            and all(isinstance(k, str) and (isinstance(v, (str, int, float, bool)) or (
                isinstance(v, list) and all(isinstance(x, (str, int)) for x in v))) for k, v in rule.target))


def _record_typed(record: dict[str, Any]) -> bool:
    """The fields the builder converts (and so would hide a wrong type in)."""
    effort = record["effort"]
    (spec,) = record["match"].values()
    names = [spec.get(k) for k in ("exact", "prefix") if k in spec]
    return (isinstance(record.get("fallback", False), bool) and isinstance(record.get("covers_file", False), bool)
            and isinstance(record.get("in_backend_files", True), bool)
            and isinstance(record.get("mask_elsewhere", False), bool)
            and isinstance(record.get("known_name", False), bool)
            and isinstance(record.get("product_header", False), bool)
            and isinstance(record.get("arch", []), list)
            and all(isinstance(v, str) or (isinstance(v, list) and _strings(v)) for v in names)
            and all(isinstance(effort[k], (int, float)) and not isinstance(effort[k], bool)
                    for k in ("per_occurrence", "first_use"))
            and isinstance(record.get("target", {}), dict) and isinstance(record.get("rocm", {}), dict))


def _strings(values: object) -> bool:
    return all(type(v) is str for v in values)  # type: ignore[attr-defined]


_TEXT_OR_NONE = frozenset({str, type(None)})


ENTRY_FIELDS = frozenset(Entry.__slots__)


def _entries_typed(entries: Mapping[str, Entry]) -> bool:
    if isinstance(entries, Entries):  # not built yet: the raw values are checked
        return all(map(_raw_entry_typed, entries.raw.values()))
    return all(map(_entry_typed, entries.values()))


def _raw_entry_typed(value: object) -> bool:
    """What load._entry accepts and turns into an Entry of the right types (a name alone, or a
    table of text fields and a `value` pattern that compiles)."""
    if not isinstance(value, dict):
        return True  # None or a name: Entry(hip=...); anything else: an empty Entry (as before)
    for key, item in value.items():
        if key not in ENTRY_FIELDS:
            return False
        if key == "value":
            if item and not (type(item) is str and _compiles(item)):
                return False
        elif type(item) not in _TEXT_OR_NONE:
            return False
    return True


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _entry_typed(entry: Entry) -> bool:
    return {type(entry.hip), type(entry.since), type(entry.hipify), type(entry.note), type(entry.deprecated),
            type(entry.removed), type(entry.experimental)} <= _TEXT_OR_NONE


def _write(path: Path, data: dict[str, Any]) -> None:
    """Write atomically and drop copies of older rule sets; any failure leaves no cache."""
    import tempfile  # here: a run that reads the cache needs neither it nor shutil, random, bz2, lzma

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as handle:
            handle.write(text)
        os.replace(handle.name, path)
        for old in (*path.parent.glob("*.json"), *path.parent.glob("*.pickle")):
            if old != path:
                old.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError) as exc:
        _debug("cannot write rule cache %s: %s", path, exc)
