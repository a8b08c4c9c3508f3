"""Settings, resolved once: defaults < [tool.rocm-migrate] / .rocm-migrate.toml < command line."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

from migrate.rulebase import targets
from migrate.settings_schema import EFFORT_KEYS, KEYS, problem

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

LEVELS = ("default", "configuration file", "command line")  # a layer's index is its level
# key in the file -> (expected type, Settings attribute); lists become tuples.
FILE_KEYS: dict[str, tuple[type, str]] = {
    "rocm": (str, "rocm"), "target-arch": (list, "arch"), "exclude": (list, "exclude"),
    "max-file-size": (int, "max_file_size"), "include-vendored": (bool, "include_vendored"),
    "jobs": (int, "jobs"), "fail-on": (str, "fail_on"), "select": (list, "select"), "ignore": (list, "ignore"),
}
TABLE_KEYS = ("workloads", "effort", "per-file-ignores")
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else max(1, os.cpu_count() or 1)
CONFIG_BYTES = 1 << 20


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
    """The options of a run, from the command line, the configuration file and the defaults."""

    rocm: str = field(default_factory=lambda: targets.load().default_rocm)  # rules/targets/gpus.yaml
    arch: tuple[str, ...] = field(default_factory=lambda: targets.load().default_arch)
    exclude: tuple[str, ...] = ()
    max_file_size: int = 5 * 1024 * 1024
    max_scan_seconds: float = 1800.0  # the analysis of one scan; files left by then are skipped, with a note
    include_vendored: bool = False
    jobs: int = CORES  # the cores this process may run on (taskset, cgroup cpusets), not the machine's
    fail_on: str | None = None
    cache_dir: Path | None = None
    hipify: str | None = None  # path to hipify-perl; else found on the usual paths
    use_hipify: bool = True
    precise: bool = False  # libclang over the translation units with compile commands
    compile_commands: str | None = None
    cuda_path: str | None = None
    timing: bool = False  # elapsed times in the JSON report (which is then not byte-identical run to run)
    hipify_warnings: bool = False  # a full warning pass (slow with the 2024 script) instead of -quiet-warnings
    workloads: dict[str, Any] = field(default_factory=dict)  # name -> globs, from [tool.rocm-migrate.workloads]
    effort: dict[str, Any] = field(default_factory=dict)  # [tool.rocm-migrate.effort] overrides
    choices: tuple[Choice, ...] = (Choice("ALL", False, 0),)  # select/ignore, see migrate.lint.selection
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
    (the command line) on top; `defaults` are a command's own defaults (lint's fail-on).

    A configuration file that cannot be read or does not fit the schema (migrate.settings_schema) is
    an error, as in ruff: SettingsError names the file, each key and what is wrong, one line each
    (a command exits 2 with it; inventory records it as that repository's error)."""
    found = find_config(start)
    from_file = read_table(*found) if found else {}
    return resolve([defaults or {}, from_file, overrides])


def find_config(start: Path) -> tuple[Path, object] | None:
    """The nearest .rocm-migrate.toml, or pyproject.toml with a [tool.rocm-migrate] table, upward."""
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        for name in (".rocm-migrate.toml", "pyproject.toml"):
            path = candidate / name
            if path.is_file():
                data = _read_toml(path, ours=name.startswith("."))
                tool = data.get("tool")
                table = data if name.startswith(".") else tool.get("rocm-migrate") if isinstance(tool, dict) else None
                if table is not None:
                    return path, table
    return None


def _read_toml(path: Path, *, ours: bool) -> dict[str, Any]:
    """The file's TOML. A pyproject.toml (not `ours`) that does not parse is an error only when it
    names rocm-migrate: a scanned project's broken packaging file is not a broken configuration."""
    from migrate.compat import tomllib
    from migrate.scan.readfile import Outside, read_inside

    data = b""
    try:  # a link to a file outside its own folder is not read (the tree is the boundary)
        data = read_inside(path, path.parent, CONFIG_BYTES + 1)
        if len(data) > CONFIG_BYTES:
            raise SettingsError(f"{path}: cannot read configuration: larger than {CONFIG_BYTES} bytes")
        return tomllib.loads(data.decode("utf-8"))
    except Outside:
        if not ours:  # a packaging file that links out is no configuration of ours: not read, not followed
            return {}
        raise SettingsError(f"{path}: not read: a symbolic link to outside its folder") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        if not ours and b"rocm-migrate" not in data:
            return {}
        raise SettingsError(f"{path}: cannot read configuration: {_short(exc)}") from None
    except RecursionError:
        raise SettingsError(f"{path}: cannot read configuration: nested too deeply") from None


def read_table(path: Path, table: object) -> dict[str, object]:
    """Check a [tool.rocm-migrate] table and turn it into a layer for resolve(); raises SettingsError
    with one line per key that does not fit the schema or is unknown."""
    out: dict[str, object] = {"config_file": path}
    warnings: list[str] = []
    problems: list[str] = []
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: [tool.rocm-migrate] must be a table, not {type(table).__name__}")
    for key, value in table.items():
        schema = KEYS.get(key)
        if schema is None:
            problems.append(f"{path}: unknown key '{key}' in [tool.rocm-migrate]{_suggestion(key, KEYS)}")
        elif (wrong := problem(schema, value)) is not None:
            problems.append(f"{path}: key '{key}': {wrong}")
        elif key in TABLE_KEYS:
            out[key.replace("-", "_")] = _TABLES[key](path, value, problems)
        else:
            out[FILE_KEYS[key][1]] = tuple(value) if isinstance(value, list) else value
    if problems:
        raise SettingsError("\n".join(problems))
    jobs = out.get("jobs")
    if isinstance(jobs, int) and jobs > CORES:
        warnings.append(f"{path.name}: key 'jobs' = {jobs} is more than the {CORES} cores here; using {CORES}")
        out["jobs"] = CORES
    out["warnings"] = tuple(warnings)
    return out


def _workloads(path: Path, value: dict[str, Any], problems: list[str]) -> dict[str, list[str]]:
    """Workload globs are relative to the project root: an absolute one, or one that climbs out
    with '..', is a configuration error (exit 2), as the user must fix it to get the workloads."""
    for name, globs in value.items():
        for glob in globs:
            if glob.startswith(("/", "\\")) or ".." in glob.replace("\\", "/").split("/"):
                problems.append(f"{path}: workload {str(name)!r}: glob {glob!r} must be relative to the project "
                                "root, inside it")
    return {str(k): list(v) for k, v in value.items()}


def _per_file_ignores(path: Path, value: dict[str, Any], problems: list[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((str(glob), tuple(rules)) for glob, rules in value.items())


def _effort(path: Path, value: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    out = {}
    for key, item in value.items():
        schema = EFFORT_KEYS.get(key)
        if schema is None:
            problems.append(f"{path}: unknown key 'effort.{key}'{_suggestion(key, EFFORT_KEYS)}")
        elif (wrong := problem(schema, item)) is not None:
            problems.append(f"{path}: key 'effort.{key}': {wrong}")
        else:
            out[key] = item
    return out


_TABLES = {"workloads": _workloads, "effort": _effort, "per-file-ignores": _per_file_ignores}


def _suggestion(key: str, known: Mapping[str, object]) -> str:
    import difflib

    near = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean '{near[0]}'?)" if near else ""


def _short(exc: BaseException) -> str:
    """One line, without the path an OSError carries (notes hold no absolute path)."""
    text = " ".join((exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)).split())
    return text if len(text) <= 200 else text[:200] + "..."


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
