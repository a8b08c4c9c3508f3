"""Settings, resolved once: defaults < [tool.rocm-migrate] / .rocm-migrate.toml < command line."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from migrate.model import CLASSES

DEFAULT_ROCM = "7.2"
DEFAULT_ARCH = ("gfx942",)
LEVELS = ("default", "configuration file", "command line")  # a layer's index is its level
EFFORT_KEYS: dict[str, type | tuple[type, ...]] = {
    "learning-rate": (int, float), "kernel-review": (int, float), "kernel-validation": (int, float),
    "kernel-rules": list, "hipify-factor": dict, "fixed": dict, "uncertainty": dict, "calibrated": bool}
# key in the file -> (expected type, Settings attribute); lists become tuples.
FILE_KEYS: dict[str, tuple[type, str]] = {
    "rocm": (str, "rocm"), "target-arch": (list, "arch"), "exclude": (list, "exclude"),
    "max-file-size": (int, "max_file_size"), "include-vendored": (bool, "include_vendored"),
    "jobs": (int, "jobs"), "fail-on": (str, "fail_on"), "select": (list, "select"), "ignore": (list, "ignore"),
}
TABLE_KEYS = ("workloads", "effort", "per-file-ignores")


class SettingsError(Exception):
    """Bad configuration; str() is one line naming the file and key."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One select or ignore entry (a rule id, name or id prefix, or ALL) and the level that gave it."""

    selector: str
    ignore: bool
    level: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    rocm: str = DEFAULT_ROCM
    arch: tuple[str, ...] = DEFAULT_ARCH
    exclude: tuple[str, ...] = ()
    max_file_size: int = 5 * 1024 * 1024
    include_vendored: bool = False
    jobs: int = max(1, os.cpu_count() or 1)
    fail_on: str | None = None
    cache_dir: Path | None = None
    hipify: str | None = None  # path to hipify-perl; else found on the usual paths
    use_hipify: bool = True
    precise: bool = False  # libclang over the translation units with compile commands
    compile_commands: str | None = None
    cuda_path: str | None = None
    hipify_warnings: bool = False  # a full warning pass (slow with the 2024 script) instead of -quiet-warnings
    workloads: dict[str, Any] = field(default_factory=dict)  # name -> globs, from [tool.rocm-migrate.workloads]
    effort: dict[str, Any] = field(default_factory=dict)  # [tool.rocm-migrate.effort] overrides
    choices: tuple[Choice, ...] = (Choice("ALL", False, 0),)  # select/ignore, see migrate.selection
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, selectors)
    config_file: Path | None = None
    warnings: tuple[str, ...] = ()


def resolve(layers: Sequence[Mapping[str, Any]]) -> Settings:
    """The precedence rule, in one place. `layers` run from weakest to strongest (LEVELS: defaults,
    configuration file, command line) and map Settings attribute names to values; None or an
    empty tuple means "not given". A stronger layer's value replaces a weaker one's, with three
    exceptions: `ignore` entries and `per_file_ignores` add up, `select` replaces the weaker
    selects, and both keep their level so that the rule filter can let explicit choices beat
    implicit ones; `warnings` add up."""
    values: dict[str, object] = {}
    selects: list[Choice] = [Choice("ALL", False, 0)]
    ignores: list[Choice] = []
    per_file: list[tuple[str, tuple[str, ...]]] = []
    warnings: list[str] = []
    names = {f.name for f in fields(Settings)} - {"choices", "per_file_ignores", "warnings"}
    for level, layer in enumerate(layers):
        given = {k: v for k, v in layer.items() if v is not None and v != ()}
        if "select" in given:
            selects = [Choice(s, False, level) for s in given["select"]]
        ignores += [Choice(s, True, level) for s in given.get("ignore", ())]
        per_file += list(given.get("per_file_ignores", ()))
        warnings += list(given.get("warnings", ()))
        values.update({k: v for k, v in given.items() if k in names})
    return Settings(**values, choices=tuple(selects + ignores),  # type: ignore[arg-type]
                    per_file_ignores=tuple(per_file), warnings=tuple(warnings))


def load(start: Path, overrides: Mapping[str, object], *, defaults: Mapping[str, object] | None = None) -> Settings:
    """Settings for files under `start`: the nearest configuration file above it, then `overrides`
    (the command line) on top; `defaults` are a command's own defaults (lint's fail-on)."""
    found = find_config(start)
    from_file = read_table(*found) if found else {}
    return resolve([defaults or {}, from_file, overrides])


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest .rocm-migrate.toml, or pyproject.toml with a [tool.rocm-migrate] table, upward."""
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        for name in (".rocm-migrate.toml", "pyproject.toml"):
            path = candidate / name
            if path.is_file():
                data = _read_toml(path)
                table = data if name.startswith(".") else data.get("tool", {}).get("rocm-migrate")
                if table is not None:
                    return path, table
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    from migrate.compat import tomllib
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read configuration: {exc}") from None


def read_table(path: Path, table: dict[str, Any]) -> dict[str, object]:
    """Check a [tool.rocm-migrate] table and turn it into a layer for resolve()."""
    out: dict[str, object] = {"config_file": path}
    warnings: list[str] = []
    for key, value in table.items():
        if key in TABLE_KEYS:
            out[key.replace("-", "_")] = _TABLES[key](path, value, warnings)
        elif key in FILE_KEYS:
            expected, attr = FILE_KEYS[key]
            out[attr] = _checked(path, key, value, expected)
        else:
            warnings.append(f"{path.name}: unknown key '{key}' in [tool.rocm-migrate] (ignored)")
    out["warnings"] = tuple(warnings)
    return out


def _checked(path: Path, key: str, value: object, expected: type) -> object:
    if not isinstance(value, expected) or (isinstance(value, bool) and expected is not bool):
        raise SettingsError(f"{path}: key '{key}' must be a {expected.__name__}, not {type(value).__name__}")
    if isinstance(value, list):
        if not all(isinstance(item, str) for item in value):
            raise SettingsError(f"{path}: key '{key}' must be a list of strings")
        return tuple(value)
    if key == "fail-on" and value not in CLASSES:
        raise SettingsError(f"{path}: key 'fail-on' must be one of {', '.join(CLASSES)}, not {value!r}")
    return value


def _workloads(path: Path, value: object, warnings: list[str]) -> dict[str, list[str]]:
    if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(g, str) for g in v) for v in value.values()):
        raise SettingsError(f"{path}: key 'workloads' must map each workload name to a list of path globs")
    return {str(k): list(v) for k, v in value.items()}


def _per_file_ignores(path: Path, value: object, warnings: list[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(r, str) for r in v) for v in value.values()):
        raise SettingsError(f"{path}: key 'per-file-ignores' must map each path glob to a list of rules")
    return tuple((str(glob), tuple(rules)) for glob, rules in value.items())


def _effort(path: Path, value: object, warnings: list[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SettingsError(f"{path}: key 'effort' must be a table")
    out = {}
    for key, item in value.items():
        expected = EFFORT_KEYS.get(key)
        if expected is None:
            warnings.append(f"{path.name}: unknown key 'effort.{key}' (ignored)")
            continue
        if not isinstance(item, expected) or (isinstance(item, bool) and expected is not bool):
            raise SettingsError(f"{path}: key 'effort.{key}' has the wrong type ({type(item).__name__})")
        out[key] = item
    return out


_TABLES = {"workloads": _workloads, "effort": _effort, "per-file-ignores": _per_file_ignores}


def parse_per_file_ignores(items: Sequence[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Command-line `GLOB:RULE,RULE` entries (flake8's --per-file-ignores)."""
    out = []
    for item in items:
        glob, sep, rules = item.rpartition(":")
        if not sep or not glob or not rules.strip():
            raise SettingsError(f"--per-file-ignores takes GLOB:RULE[,RULE...], not {item!r}")
        out.append((glob, split_list([rules])))
    return tuple(out)


def split_list(items: Sequence[str]) -> tuple[str, ...]:
    """Repeatable, comma-separated command-line values as one tuple."""
    return tuple(part.strip() for item in items for part in item.split(",") if part.strip())
