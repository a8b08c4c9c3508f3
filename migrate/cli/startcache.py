"""What every new process compiles again, kept from one lint process to the next beside the
package's bytecode: the programs of regular expressions and the methods dataclasses generate.

Both are compiled by Python code at each start. re's parser and code generator take about a
million instructions a pattern (~150 M of an edited-file lint's ~730 M: the extractors' and the
rules' patterns); `dataclasses` writes each class's `__init__`, `__eq__`, `__repr__`, ... as source
text and compiles it (~4.7 M instructions a class, 37 classes on lint's path: ~140 M).

- A pattern is rebuilt by `_sre.compile` from the program re's compiler made for the same pattern
  and flags in an earlier process of the same interpreter: the last step of `re._compiler.compile`,
  with its parse's results kept. A pattern not in the table is compiled by re as before; `save`
  stores its program only when the rebuilt pattern equals the one re compiles (Pattern equality
  compares the flags and the program) with the same groups, and only for the installed code's own
  patterns (`_own`): text a run read (a scanned project's names, globs, configuration) never
  reaches the table, which is world-readable beside the bytecode.
- A dataclass method's source is compiled once and its code object kept, keyed by the source text:
  `exec` in the `dataclasses` module runs the stored code object, which is what `exec` of the text
  compiles (file `<string>`, no inherited future flags: dataclasses.py has none). So are the other texts
  a lint compiles at each start: namedtuple's `__new__` (`eval` in `collections`, keyed by text and mode)
  and model's slot makers (compat.run_text).
- A lint's table also keeps what dataclasses decided about each of the package's slotted dataclasses
  (cli/classmemo.py): a lint replays those classes instead of having dataclasses work them out again.
- Each command that installs the hooks has its own table (`table_path(command)`): a lint reads only what
  lints compiled, not the ~2.5x a scan adds.

The table is a marshal file named after this module's bytecode (`__cached__`, so
PYTHONPYCACHEPREFIX is honoured), with the same trust as bytecode: whoever can write it can run
code, as with the `.pyc` files beside it. Hence not the cache directory, which holds data only.
It is written only where Python writes bytecode (not under PYTHONDONTWRITEBYTECODE), and keyed by
the interpreter (version, bytecode tag, regex engine magic, optimisation level): a table of another
interpreter, or of the wrong shape, is not used. The patterns and code objects are stored as one
marshal payload with its CRC-32: a table damaged on disk (a flipped bit in a stored program or code
object, which would still load) fails the check and is not used either. A CRC-32 finds every error
of up to 32 adjacent bits and any odd number of flipped bits, which is what damage on disk looks
like; it is no defence against someone who can write the file, and none is needed (such a person
can write the bytecode beside it). BLAKE2b did the same at ~14 instructions a byte (~6 M of an
edited-file lint's ~320 M under valgrind), CRC-32 at ~4. Nothing here
changes what a pattern or a class is; a process without the table (an unwritable install) compiles as before."""
from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False  # typing is not imported on lint's way in
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

FORMAT = 6  # 2: the payload with its BLAKE2b digest; 3: with its CRC-32; 4: one table per command; 5: a lint's classes;
# 6: a program's code as bytes (CODE_ITEM, native byte order), not a list of numbers
LINT = "lint"  # the command whose table keeps the name every table had before FORMAT 4
MAX_PATTERNS = 4000  # past this, only what this run used and added is kept
MAX_SOURCES = 2000
DEBUG_FLAG = 128  # re.DEBUG: such a pattern prints its program; never served from the table
MAX_BYTES = 2_000_000  # past this payload, only what this run used and added is kept
RE_MODULES = frozenset({"re", "sre_compile", "functools"})  # frames between a caller and re's compiler
# stages whose composed patterns come from rule data the package (or its user) ships, never from a scanned project
DATA_STAGES = ("migrate.rulebase.", "migrate.scan.")

Program = tuple[int, bytes, int, dict[str, int], tuple[object, ...]]  # _sre.compile's arguments after the pattern (code packed)
# a program's code words as stored: machine words of _sre.CODESIZE bytes, unpacked by one C call where a pattern is
# served (marshal read a list of numbers one by one: ~0.8 M instructions of an edited-file lint's ~240 M)
CODE_ITEM = {2: "H", 4: "I", 8: "Q"}


class _Table:
    """The table read at the start, what this process added, and the hooks that serve it."""

    def __init__(self, path: str, patterns: dict[tuple[object, int], Program], sources: dict[object, Any],
                 classes: dict[object, Any] | None = None) -> None:
        self.path = path
        self.original: Callable[..., Any] | None = None  # re's own compiler, which the hook calls on a miss
        self.patterns = patterns
        self.sources = sources
        self.new_patterns: list[tuple[str | bytes, int]] = []
        self.new_sources: dict[object, Any] = {}
        self.used_patterns: set[tuple[object, int]] = set()
        self.classes: dict[object, Any] = classes or {}  # cli/classmemo.py's recipes by (module, qualified name)
        self.new_classes: dict[object, Any] = {}
        self.stale_classes: set[object] = set()  # stored recipes of classes made here in another shape

    current: _Table | None = None  # the table this process installed

    def compile_hook(self, original: Callable[..., Any], sre_compile: Callable[..., Any]) -> Callable[..., Any]:
        patterns, used, new = self.patterns, self.used_patterns, self.new_patterns
        self.original = original
        import _sre  # type: ignore[import-not-found]

        item: Any = CODE_ITEM[_sre.CODESIZE]  # the struct letter of a code word (the table is keyed by CODESIZE)

        def compile_(p: Any, flags: Any = 0) -> Any:
            if type(flags) is int and type(p) in (str, bytes) and not flags & DEBUG_FLAG:
                key = (p, flags)
                found = patterns.get(key)
                if found is not None:
                    used.add(key)
                    flags_, code, groups, groupindex, indexgroup = found
                    return sre_compile(p, flags_, memoryview(code).cast(item).tolist(), groups, groupindex, indexgroup)
                if _own(p):
                    new.append(key)
            return original(p, flags)

        return compile_

    def code_of(self, mode: str) -> Callable[[str], Any]:
        """The code object `compile(source, "<string>", mode, dont_inherit=True)` makes, from the table where it
        holds one. An `exec` source is keyed by its text (as in every table so far), any other by (text, mode)."""
        sources, new = self.sources, self.new_sources

        def code_(source: str) -> Any:
            key: Any = source if mode == "exec" else (source, mode)
            code = sources.get(key) or new.get(key)
            if code is None:
                code = new[key] = compile(source, "<string>", mode, dont_inherit=True)
            return code

        return code_

    def exec_hook(self) -> Callable[..., None]:
        code_of = self.code_of("exec")

        def exec_(source: Any, globals_: Any = None, locals_: Any = None) -> None:
            exec(code_of(source) if type(source) is str else source, globals_, locals_)

        return exec_

    def eval_hook(self) -> Callable[..., Any]:
        code_of = self.code_of("eval")

        def eval_(source: Any, globals_: Any = None, locals_: Any = None) -> Any:
            return eval(code_of(source) if type(source) is str else source, globals_, locals_)

        return eval_


def _own(pattern: str | bytes) -> bool:
    """Whether a pattern is one of the installed code's own, not text a run read: the code that asked
    re for it (the first frame outside re) holds it as a literal, runs at import time (a module body
    composing it from the package's lists), or is a stage that composes patterns from rule data (the
    rule base, the matcher and layout readings: rules shipped, or the user's own rule files). Patterns
    composed at run time from a scanned project's names (the extractors), build lines, configuration
    or globs (fnmatch, pathspec) are compiled by re each time and never stored."""
    frame: Any = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] in RE_MODULES:
        frame = frame.f_back
    if frame is None:
        return False
    code = frame.f_code
    return (code.co_name == "<module>" or pattern in code.co_consts
            or frame.f_globals.get("__name__", "").startswith(DATA_STAGES))


def table_path(command: str = LINT) -> str | None:
    """The table's file: this module's bytecode file with `.marshal` for `.pyc` for a lint, `.<command>.marshal` for
    another command's (None where Python keeps no bytecode). Each command reads its own table: a scan compiles
    ~2.5x the patterns and dataclass methods of a lint of one file, and a lint that read one table shared with
    scans spent ~16 M instructions of its ~287 M unmarshalling what only scans use."""
    cached = globals().get("__cached__")
    if not isinstance(cached, str) or not cached.endswith(".pyc"):
        return None
    return cached[:-len(".pyc")] + (".marshal" if command == LINT else f".{command}.marshal")


def interpreter() -> tuple[object, ...]:
    """What the stored programs and code objects depend on besides their text."""
    import _sre

    return (FORMAT, sys.version, sys.implementation.cache_tag, _sre.MAGIC, _sre.CODESIZE, sys.byteorder, sys.flags.optimize,
            marshal.version)


def install(command: str = LINT) -> None:
    """Serve patterns and dataclass methods from `command`'s table from now on, and note the new ones for `save`.
    Does nothing when there is no place for a table or re's compiler is not the one this reads."""
    if _Table.current is not None:
        return
    path = table_path(command)
    if path is None:
        return
    import _sre

    from migrate.cli import codebundle

    codebundle.install(command, ("codebundle", codebundle.FORMAT, *interpreter()))
    import collections
    import dataclasses
    import re

    from migrate import compat

    compiler = getattr(re, "_compiler", None)
    if compiler is None or not callable(getattr(compiler, "compile", None)) or not callable(getattr(compiler, "_code", None)) \
            or _sre.CODESIZE not in CODE_ITEM:
        return
    patterns, sources, classes = _read(path)
    table = _Table(path, patterns, sources, classes)
    compiler.compile = table.compile_hook(compiler.compile, _sre.compile)
    dataclasses.exec = table.exec_hook()  # type: ignore[attr-defined]  # the module's global shadows the builtin
    # namedtuple's __new__ (the one eval of collections: urllib.parse's and platform's tuples on lint's way)
    collections.eval = table.eval_hook()  # type: ignore[attr-defined]
    compat.text_compiler = table.code_of("exec")  # model's slot makers (compat.run_text)
    if command == LINT:  # the lint's own dataclasses, as dataclasses made them in an earlier lint
        from migrate.cli import classmemo

        classmemo.install(table.classes, table.new_classes, table.new_sources, code_of=table.code_of("exec"),
                          stale=table.stale_classes)
    _Table.current = table


def _read(path: str) -> tuple[dict[tuple[object, int], Program], dict[object, Any], dict[object, Any]]:
    """The table at `path`: its key, the payload's CRC-32 and the payload (bytes, unmarshalled only
    when the key and the CRC-32 match); empty where any of them does not."""
    try:
        with open(path, "rb") as handle:
            data = marshal.loads(handle.read())
        if type(data) is not tuple or len(data) != 3 or data[0] != interpreter() or type(data[2]) is not bytes \
                or data[1] != _digest(data[2]):
            return {}, {}, {}
        content = marshal.loads(data[2])
    except (OSError, ValueError, EOFError, TypeError, MemoryError):
        return {}, {}, {}
    if type(content) is not tuple or len(content) != 3:
        return {}, {}, {}
    patterns, sources, classes = content
    if type(patterns) is not dict or type(sources) is not dict or type(classes) is not dict:
        return {}, {}, {}
    return patterns, sources, classes


def _digest(payload: bytes) -> int:
    """The payload's CRC-32 (binascii's: zlib's where the interpreter has it, the same number either way)."""
    from binascii import crc32

    return crc32(payload)


def save() -> None:
    """Write the table with what this process compiled that it did not hold, where Python writes
    bytecode; any failure leaves the table as it was."""
    from migrate.cli import codebundle

    codebundle.save()
    table = _Table.current
    if table is None or sys.dont_write_bytecode \
            or not (table.new_patterns or table.new_sources or table.new_classes or table.stale_classes):
        return
    programs = _programs(table.new_patterns)
    patterns, sources = {**table.patterns, **programs}, {**table.sources, **table.new_sources}
    if len(patterns) > MAX_PATTERNS:
        patterns = {**{k: v for k, v in table.patterns.items() if k in table.used_patterns}, **programs}
    if len(sources) > MAX_SOURCES:
        sources = dict(table.new_sources)
    classes = {**table.classes, **table.new_classes}
    if classes:
        from migrate.cli import classmemo

        classes = classmemo.kept(classes, table.stale_classes - table.new_classes.keys())
    partial = f"{table.path}.{os.getpid()}.tmp"
    try:
        content: Any = (patterns, sources, classes)
        payload = marshal.dumps(content)
        if len(payload) > MAX_BYTES:
            used = {k: v for k, v in table.patterns.items() if k in table.used_patterns}
            payload = marshal.dumps(({**used, **programs}, dict(table.new_sources), classes))
        whole: Any = (interpreter(), _digest(payload), payload)
        data = marshal.dumps(whole)
        os.makedirs(os.path.dirname(table.path), exist_ok=True)
        with open(partial, "wb") as handle:
            handle.write(data)
        os.replace(partial, table.path)
    except (OSError, ValueError):
        from contextlib import suppress

        with suppress(OSError):
            os.unlink(partial)


def _programs(keys: list[tuple[str | bytes, int]]) -> dict[tuple[object, int], Program]:
    """Each pattern's program as re's compiler makes it, kept only when the pattern `_sre.compile`
    builds from it equals the one re compiles, groups included."""
    import _sre
    import re
    from re import _compiler, _parser  # type: ignore[attr-defined]

    found: dict[tuple[object, int], Program] = {}
    for pattern, flags in dict.fromkeys(keys):
        try:
            tree = _parser.parse(pattern, flags)
            code = [int(c) for c in _compiler._code(tree, flags)]
            groupindex = {str(k): int(v) for k, v in tree.state.groupdict.items()}
            indexgroup: list[object] = [None] * tree.state.groups
            for name, index in groupindex.items():
                indexgroup[index] = name
            packed = b"".join(word.to_bytes(_sre.CODESIZE, sys.byteorder) for word in code)
            program: Program = (int(flags | tree.state.flags), packed, tree.state.groups - 1, groupindex, tuple(indexgroup))
            item: Any = CODE_ITEM[_sre.CODESIZE]
            rebuilt = _sre.compile(pattern, program[0], memoryview(packed).cast(item).tolist(), *program[2:])
            compiled = re.compile(pattern, flags)
        except Exception:  # whatever the parse says, the pattern is simply not kept
            continue
        if rebuilt == compiled and rebuilt.groups == compiled.groups and rebuilt.groupindex == compiled.groupindex:
            found[(pattern, flags)] = program
    return found
