"""The extractor's version (extract.version_of) known by its inputs' stat stamps, as rulebase/stamps
knows the rule data's digests: a memo in the cache directory records the version with the (size,
mtime, ctime, inode, device) of every file it hashed (this package's sources and queries, the
modules beside it, the name lists) and, for each parser, where it was found and the stamps of its
module file and of the folder whose dist-info names were read. A run whose files, parsers and
stamps are all the ones recorded (none of them racy, as filestamp defines it) returns the recorded
version without reading or hashing ~550 KB of sources: ~23 M of an edited-file lint's ~415 M
instructions. Anything else (another file list, a stamp that differs, a memo of the wrong shape)
is a miss: the version is computed from the bytes as before and the memo written again.

Data only; the memo is a file of its own (`extract-version-<digest of the package path and Python's
release>.json`)."""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

from migrate import jsonio
from migrate.compat import sha256_hex
from migrate.rulebase import filestamp

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1
RACY_NS = filestamp.RACY_NS  # this module's own name, so that a test can set it for this memo alone


def version(package: Path, lists: Path, memo_dir: Path, sources: list[str], parsers: tuple[str, ...],
            compute: Callable[[], str]) -> str:
    """`compute()` (the version from the bytes of `sources` and the parsers' releases), or the
    version recorded in `memo_dir` while every source and parser is as it was when it was computed."""
    started = time.time_ns()
    try:
        files = [[path, *filestamp.stamp_of(os.stat(path))] for path in sources]
        found = [_parser(name) for name in parsers]
    except OSError:
        return compute()
    where = sha256_hex(os.fsencode(package) + f"\0{sys.version_info[:2]}".encode())[:16]
    memo = memo_dir / f"extract-version-{where}.json"
    key = {"format": FORMAT, "python": list(sys.version_info[:2]), "package": os.fsdecode(package),
           "lists": os.fsdecode(lists), "files": files, "parsers": found}
    known = _read(memo, key)
    if known is not None:
        return known
    result = str(compute())
    _write(memo, key, started, result)
    return result


def _parser(name: str) -> list[Any]:
    """Where extract._release finds a parser's distribution, and the stamps its answer depends on."""
    spec = find_spec(name)
    if spec is None or not spec.origin:
        return [name, None]
    folder = os.path.dirname(os.path.dirname(spec.origin))
    return [name, spec.origin, [*filestamp.stamp_of(os.stat(spec.origin))], [*filestamp.stamp_of(os.stat(folder))]]


def _stamps(key: dict[str, Any]) -> list[list[int]]:
    stamps: list[list[int]] = [row[1:] for row in key["files"]]
    stamps += [stamp for row in key["parsers"] for stamp in row[2:]]
    return stamps


def _read(memo: Path, key: dict[str, Any]) -> str | None:
    try:
        data: Any = jsonio.loads(memo.read_bytes())
        if type(data) is not dict or data.get("key") != key:
            return None
        checked, recorded = data["checked_ns"], data["version"]
        if type(checked) is not int or type(recorded) is not str:
            return None
        if any(max(stamp[1], stamp[2]) >= checked - RACY_NS for stamp in _stamps(key)):
            return None  # changed too close to the hashing run to be told apart by its stamp
        return recorded
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None


def _write(memo: Path, key: dict[str, Any], started: int, result: str) -> None:
    filestamp.write_memo(memo, jsonio.dumps({"key": key, "checked_ns": started, "version": result}))
