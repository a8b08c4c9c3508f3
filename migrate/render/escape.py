"""Escaping for text that leaves the tool: Markdown and JSON inside HTML."""
from __future__ import annotations

import html
import json
import re

from migrate.safetext import terminal, visible_data

MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|])")
LINE_BREAKS = re.compile("\r\n|[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")


def md(text: object) -> str:
    """Text for Markdown: HTML-escaped (GitHub renders raw HTML) and Markdown specials escaped."""
    flat = LINE_BREAKS.sub(" ", str(text))  # a CR or LF would end a table row
    return MD_SPECIAL.sub(r"\\\1", html.escape(terminal(flat), quote=False))


def script_json(data: object) -> str:
    """JSON that is safe inside <script type="application/json">."""
    text = json.dumps(visible_data(data), separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")

