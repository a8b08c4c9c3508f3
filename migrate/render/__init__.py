"""render: every output format is a pure function of a finished Report."""
from __future__ import annotations

import importlib
from collections.abc import Callable

FORMATS = ("terminal", "json", "html", "markdown", "sarif", "csv")


def renderer(name: str) -> Callable[..., str]:
    """The render function of one format (imported on demand, so lint stays light)."""
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}")
    render: Callable[..., str] = importlib.import_module(f"migrate.render.{name}_report").render
    return render

