"""Settings, resolved once: defaults < [tool.rocm-migrate] / .rocm-migrate.toml < command line."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

DEFAULT_ROCM = "7.2"
DEFAULT_ARCH = ("gfx942",)
KNOWN_KEYS = {"rocm", "target-arch", "exclude", "max-file-size", "include-vendored", "jobs", "fail-on",
              "workloads", "effort"}
EFFORT_KEYS = {"learning-rate": (int, float), "kernel-review": (int, float), "kernel-validation": (int, float),
               "kernel-rules": list, "hipify-factor": dict, "fixed": dict, "uncertainty": dict}


class SettingsError(Exception):
    """Bad configuration; str() is one line naming the file and key."""


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
    workloads: dict = field(default_factory=dict)  # name -> globs, from [tool.rocm-migrate.workloads]
    effort: dict = field(default_factory=dict)  # [tool.rocm-migrate.effort] overrides
    warnings: tuple[str, ...] = ()


def load(start: Path, overrides: dict[str, object]) -> Settings:
    """Settings for a scan rooted at `start`, with command-line overrides (None = not given)."""
    settings = Settings()
    found = _config_file(start)
    if found is not None:
        settings = _apply_file(settings, *found)
    given = {k: v for k, v in overrides.items() if v is not None and v != ()}
    names = {f.name for f in fields(Settings)}
    return replace(settings, **{k: v for k, v in given.items() if k in names})


def _config_file(start: Path) -> tuple[Path, dict] | None:
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


def _read_toml(path: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read configuration: {exc}") from None


def _apply_file(settings: Settings, path: Path, table: dict) -> Settings:
    checks = {
        "rocm": (str, "rocm"), "target-arch": (list, "arch"), "exclude": (list, "exclude"),
        "max-file-size": (int, "max_file_size"), "include-vendored": (bool, "include_vendored"),
        "jobs": (int, "jobs"), "fail-on": (str, "fail_on"),
    }
    changes: dict[str, object] = {}
    warnings = list(settings.warnings)
    for key, value in table.items():
        if key == "workloads":
            changes["workloads"] = _workloads(path, value)
            continue
        if key == "effort":
            changes["effort"] = _effort(path, value, warnings)
            continue
        if key not in checks:
            warnings.append(f"{path.name}: unknown key '{key}' in [tool.rocm-migrate] (ignored)")
            continue
        expected, attr = checks[key]
        if not isinstance(value, expected) or isinstance(value, bool) and expected is not bool:
            raise SettingsError(f"{path}: key '{key}' must be a {expected.__name__}, not {type(value).__name__}")
        changes[attr] = tuple(value) if expected is list else value
    return replace(settings, warnings=tuple(warnings), **changes)


def _workloads(path: Path, value: object) -> dict[str, list[str]]:
    if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(g, str) for g in v) for v in value.values()):
        raise SettingsError(f"{path}: key 'workloads' must map each workload name to a list of path globs")
    return {str(k): list(v) for k, v in value.items()}


def _effort(path: Path, value: object, warnings: list[str]) -> dict:
    if not isinstance(value, dict):
        raise SettingsError(f"{path}: key 'effort' must be a table")
    out = {}
    for key, item in value.items():
        expected = EFFORT_KEYS.get(key)
        if expected is None:
            warnings.append(f"{path.name}: unknown key 'effort.{key}' (ignored)")
            continue
        if not isinstance(item, expected) or isinstance(item, bool):
            raise SettingsError(f"{path}: key 'effort.{key}' has the wrong type ({type(item).__name__})")
        out[key] = item
    return out
