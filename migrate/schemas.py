"""The JSON schemas of the reports: their ids (what a report's `$schema` names) and their files,
shipped in the wheel (migrate/_schemas) and kept in docs/ in a checkout."""
from __future__ import annotations

from pathlib import Path

BASE = "https://github.com/rocm-migrate/rocm-migrate/docs/"
REPORT = "report.schema.json"
LINT = "lint.schema.json"


def schema_id(name: str) -> str:
    """The `$id` of a schema, which the reports it describes carry as their `$schema`."""
    return BASE + name


def path(name: str) -> Path:
    """The schema file: inside an installed wheel, or in a checkout's docs/."""
    package = Path(__file__).resolve().parent
    packaged = package / "_schemas" / name
    return packaged if packaged.is_file() else package.parent / "docs" / name
