"""Standard-library spellings that differ between the Python versions the project supports: tomllib
(tomli before 3.11), imported when first asked for (a lint of a .cu file never reads TOML: ~5 M
instructions), and CPython's own SHA-256 module (`_sha256` up to 3.11, `_sha2` from 3.12).

`sha256_hex`: SHA-256 of a few small inputs without importing hashlib, which loads OpenSSL's binding
(~11 M instructions, ~2 ms; a lint of one file hashes a few hundred bytes once its memos are warm).
CPython's own module gives the same digest, ~5x slower per byte than OpenSSL's: it is used while
this process has hashed at most SHA256_BUDGET bytes with it and has not imported hashlib for another
reason; past that (a scan hashes every file it reads), or where Python was built without it,
hashlib's is used.

`run_text`: `exec` of a function the package writes as text at run time (model's slot makers), compiled by
`compile`, or served by `text_compiler` where cli/startcache.py installed its table (a lint: compiling one
costs ~1 M instructions, and a lint of one file writes six). Imports nothing else."""
from __future__ import annotations

import sys
from collections.abc import Callable

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from types import CodeType
    from typing import Any

    import tomllib


def _own_sha256() -> Callable[[bytes], Any] | None:
    """CPython's own SHA-256 constructor, by its module's name in this release; None in a build without it."""
    for name in ("_sha256", "_sha2"):  # up to 3.11, from 3.12
        try:
            constructor: Callable[[bytes], Any] = __import__(name).sha256
        except (ImportError, AttributeError):
            continue
        return constructor
    return None


_builtin_sha256 = _own_sha256()

SHA256_BUDGET = 256 << 10  # bytes: the builtin's extra time (~8 ns a byte) for this many stays below hashlib's import
_SHA256_USED = [0]  # bytes hashed by the builtin in this process

__all__ = ["import_pathlib", "import_uuid", "import_with_c_datetime", "run_text", "sha256_hex", "text_compiler", "tomllib"]

text_compiler: Callable[[str], CodeType] | None = None  # the start table's (startcache.install), None without one


def sha256_hex(data: bytes) -> str:
    """hashlib.sha256(data).hexdigest(), by whichever implementation costs this process less."""
    if _builtin_sha256 is not None and "hashlib" not in sys.modules and _SHA256_USED[0] + len(data) <= SHA256_BUDGET:
        _SHA256_USED[0] += len(data)
        return str(_builtin_sha256(data).hexdigest())
    import hashlib

    return hashlib.sha256(data).hexdigest()


def run_text(text: str, scope: dict[str, Any]) -> None:
    """`exec(text, scope)`, the text compiled as `exec` compiles it in a module without future imports (the texts
    the package writes hold no annotations, so the code is the same as from the module that writes them)."""
    code = text_compiler(text) if text_compiler is not None else compile(text, "<string>", "exec", dont_inherit=True)
    exec(code, scope)


def import_with_c_datetime(name: str) -> object:
    """`import name`, with the C module `_datetime` standing in for `datetime` while it runs (unless datetime is
    imported already): orjson's start takes datetime's C API (`datetime.datetime_CAPI`) and sqlite3.dbapi2 its
    `date`, `time` and `datetime` classes, all of which _datetime defines and datetime.py re-exports, so the
    pure-Python half of datetime.py (~4 M instructions of an edited-file lint) does not run for them. The classes
    they keep are the ones `datetime` exports; `datetime` imports as before afterwards."""
    import importlib

    if "datetime" in sys.modules:
        return importlib.import_module(name)
    try:
        import _datetime  # type: ignore[import-not-found]
    except ImportError:  # an interpreter with datetime.py's own classes only
        return importlib.import_module(name)
    sys.modules["datetime"] = _datetime
    try:
        return importlib.import_module(name)
    finally:
        if sys.modules.get("datetime") is _datetime:
            del sys.modules["datetime"]


def import_uuid() -> None:
    """`import uuid` (orjson's start imports it for uuid.UUID), on Linux without running platform.py (~3.7 M
    instructions of an edited-file lint with the import of uuid: platform's module body and its `uname()`). Python
    3.10's and 3.11's uuid imports platform only to set `_AIX` and `_LINUX` from `platform.system()`, which on Linux is
    `os.uname().sysname`; from 3.12 on, uuid sets them on Linux without platform. While uuid's body runs, a module
    whose `system()` answers that stands in for platform; uuid's `platform` global then names the stand-in, which uuid
    reads nowhere else, and `import platform` afterwards runs platform.py as before. Elsewhere (another system,
    platform or uuid imported already), nothing is done: orjson's own import of uuid imports as it always did."""
    if sys.platform != "linux" or sys.version_info >= (3, 12) or "uuid" in sys.modules or "platform" in sys.modules:
        return
    import os

    stand_in = type(sys)("platform")
    stand_in.system = lambda: os.uname().sysname  # type: ignore[attr-defined]  # platform.uname().system on Linux
    sys.modules["platform"] = stand_in
    try:
        import uuid  # noqa: F401
    finally:
        if sys.modules.get("platform") is stand_in:
            del sys.modules["platform"]


def import_pathlib() -> None:
    """`import pathlib`, without running urllib.parse (~5 M instructions of an edited-file lint: its module body, a
    dozen classes and six named tuples), which pathlib imports for one name, `quote_from_bytes`, called by `as_uri()`
    alone. While pathlib's body runs, a module holding a `quote_from_bytes` that imports urllib.parse when called and
    answers what urllib.parse's answers stands in for urllib.parse; pathlib's `urlquote_from_bytes` then names that
    function (the one difference: it is not urllib.parse's object), and `import urllib.parse` afterwards runs
    urllib.parse as before. A pathlib that asks the stand-in for another name is imported again with urllib.parse
    itself; with pathlib or urllib.parse imported already, nothing is done."""
    if "pathlib" in sys.modules or "urllib.parse" in sys.modules:
        return

    def quote_from_bytes(bs: bytes | bytearray, safe: str | bytes = "/") -> str:
        from urllib.parse import quote_from_bytes as quote

        return quote(bs, safe)

    stand_in = type(sys)("urllib.parse")
    stand_in.quote_from_bytes = quote_from_bytes  # type: ignore[attr-defined]
    sys.modules["urllib.parse"] = stand_in
    try:
        import pathlib
    except ImportError:  # a pathlib that imports more of urllib.parse than its one function
        sys.modules.pop("pathlib", None)
    finally:
        if sys.modules.get("urllib.parse") is stand_in:
            del sys.modules["urllib.parse"]
    import pathlib  # noqa: F401  # the module imported above, or imported again with urllib.parse


def __getattr__(name: str) -> object:
    """`tomllib`, imported on first use (PEP 562: `from migrate.compat import tomllib` asks for it here)."""
    if name != "tomllib":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if sys.version_info >= (3, 11):
        import tomllib as module
    else:  # Python 3.10
        import tomli as module
    globals()["tomllib"] = module
    return module
