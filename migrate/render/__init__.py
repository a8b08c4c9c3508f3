"""render: every output format is a pure function of a finished Report."""
from __future__ import annotations

import importlib
from collections.abc import Callable

from migrate.model import Report

FORMATS = ("terminal", "json", "html", "markdown", "sarif", "csv")


def renderer(name: str) -> Callable[[Report], str]:
    """The render function of one format (imported on demand, so lint stays light)."""
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}")
    return importlib.import_module(f"migrate.render.{name}_report").render  # type: ignore[no-any-return]
