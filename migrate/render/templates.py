"""The jinja2 environment for the HTML and Markdown reports (templates/ is package data)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2
import markupsafe

from migrate.render.escape import md
from migrate.render.route_view import label
from migrate.safetext import visible


def _shown(value: object) -> object:
    """Every value a template prints: controls, bidi and tag characters shown visibly (safetext)."""
    if isinstance(value, markupsafe.Markup):  # already HTML: the visible forms are plain text, safe in it
        return markupsafe.Markup(visible(str(value)))
    return visible(value) if isinstance(value, str) else value


def templates_dir() -> Path:
    """Installed wheels carry the templates inside the package; a checkout has them beside it."""
    packaged = Path(__file__).resolve().parent.parent / "_templates"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "templates"


@lru_cache(maxsize=2)
def environment(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), autoescape=autoescape,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, finalize=_shown)
    env.filters["md"] = md
    env.filters["route_label"] = label
    env.filters["hours"] = lambda v: f"{v:.1f}"
    env.filters["weeks"] = lambda v: f"{v / 40:.1f}"
    env.filters["pct"] = lambda v: "n/a" if v is None else f"{v:.0%}"
    return env
