"""The one module that picks the JSON encoder: orjson where it is installed, else the standard
library, with the standard library's bytes either way (indent 2, UTF-8, Python's float repr)."""
from __future__ import annotations

import json
import re

from migrate.compat import import_uuid, import_with_c_datetime

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

    import orjson
else:
    try:
        import_uuid()  # orjson's start imports uuid: on Linux without platform.py (compat)
        orjson = import_with_c_datetime("orjson")  # not datetime.py's Python classes (compat)
    except ImportError:  # pragma: no cover - orjson is a dependency; this keeps a bare install working
        orjson = None

# Where orjson and Python may spell a float differently (Python writes 1e-05, orjson 0.00001 or
# 1e-7). Literal prefixes keep the search fast; a hit that looks like a number (even one inside a
# string) sends the value to the standard library.
_SUSPECTS = (re.compile(rb"0\.0000"), re.compile(rb"e-\d"))


def dumps(value: Any) -> bytes:
    """Compact JSON of plain values (cache rows)."""
    if orjson is not None:
        try:
            return orjson.dumps(value)
        except (TypeError, orjson.JSONEncodeError):
            pass
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def loads(data: bytes | str) -> Any:
    """Raises ValueError (or RecursionError) for text that is not JSON."""
    return orjson.loads(data) if orjson is not None else json.loads(data)


def dumps_indented(value: Any) -> str:
    """Exactly json.dumps(value, indent=2, ensure_ascii=False), faster where orjson can say the same."""
    if orjson is not None:
        try:
            encoded = orjson.dumps(value, option=orjson.OPT_INDENT_2)
        except (TypeError, orjson.JSONEncodeError):
            encoded = None
        if encoded is not None and not _small_floats(encoded):
            return encoded.decode("utf-8")
    return json.dumps(value, indent=2, ensure_ascii=False)


def _small_floats(encoded: bytes) -> bool:
    for hit in (h for pattern in _SUSPECTS for h in pattern.finditer(encoded)):
        before = encoded[hit.start() - 1:hit.start()]
        if before.isdigit() if hit.group().startswith(b"e") else before in (b" ", b"-", b"[", b""):
            return True
    return False
