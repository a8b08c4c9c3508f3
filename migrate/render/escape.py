"""Escaping for text that leaves the tool: Markdown and JSON inside HTML."""
from __future__ import annotations

import html
import json
import re

MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|])")


def md(text: object) -> str:
    """Text for Markdown: HTML-escaped (GitHub renders raw HTML) and Markdown specials escaped."""
    return MD_SPECIAL.sub(r"\\\1", html.escape(str(text), quote=False)).replace("\n", " ")


def script_json(data: object) -> str:
    """JSON that is safe inside <script type="application/json">."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
