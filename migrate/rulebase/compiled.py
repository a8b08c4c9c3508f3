"""The rule base validated at build time: `rules/compiled.json` (in the wheel, `_rules/compiled.json`)
holds each rule file's schema-checked records beside the SHA-256 of the YAML they were read from,
written by scripts/generate_docs.py (whose --check test fails on a stale copy). A rule file whose
bytes have that digest is taken as it is, without YAML or jsonschema; an edited or added one, and a
--rules-dir of one's own without the file, is parsed and validated as before. The whole copy is
set aside when the schema or the vocabulary it was checked against changed.

One line per rule file, so that two branches that edit different rule files change different lines.

Each line is `[file name, digest, records, name table]`. The name table (load.name_table: fact kind ->
name -> the rules of the file listing it) is what the match index looks names up in: a lint start read
11k names and entered each into an index (~20 M of an edited-file lint's ~340 M instructions); it now
reads each file's table as it is (scan/match.RuleIndex). A rule's `map` is written as one JSON text
(`"{...}"`), decoded when the rule is built for a fact that found it: `read` gives it back as a
`load.MapText`. FORMAT 3; a copy of another format is set aside (its `checked_against` differs), so
every rule file is validated from its YAML."""
from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from migrate import jsonio, vocabulary
from migrate.compat import sha256_hex
from migrate.rulebase import filestamp, load
from migrate.rulebase import stamps as stamps_memo

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

    Records = list[dict[str, Any]]

NAME = "compiled.json"
MEMO_FORMAT = 1  # the memo of checked_against's digest
FORMAT = 3  # 2: a map as its names and its values' JSON text; 3: a map as one JSON text, each file's name table


def path_in(directory: Path) -> Path:
    return directory / NAME


def checked_against(cache_dir: Path | None = None) -> str:
    """What validation depends on besides a file's bytes: the schema and the vocabulary that fills it. With a
    cache directory, known from the memo of an earlier run while both files have the stat stamps it recorded
    (filestamp's racy rule, as the rule data's memo, rulebase/stamps, which covers the rules directory and not the
    package's schema and vocabulary): a lint start then does not read and hash their ~40 KB (~2 M instructions)."""
    paths = [os.fspath(load.SCHEMA_PATH), vocabulary.__file__ or ""]
    if cache_dir is None:
        return _checked_against(paths)
    started = time.time_ns()
    try:
        stamps = [list(filestamp.stamp_of(os.stat(path))) for path in paths]
    except OSError:
        return _checked_against(paths)
    memo = cache_dir / stamps_memo.SUBDIR / f"checked-{sha256_hex(os.fsencode(chr(0).join(paths)))[:16]}.json"
    files = [[path, *stamp] for path, stamp in zip(paths, stamps, strict=True)]
    try:
        data: Any = jsonio.loads(memo.read_bytes())
        if type(data) is dict and data.get("format") == [MEMO_FORMAT, FORMAT] and data.get("files") == files \
                and type(data.get("checked_ns")) is int and type(data.get("digest")) is str \
                and all(max(stamp[1], stamp[2]) < data["checked_ns"] - filestamp.RACY_NS for stamp in stamps):
            return str(data["digest"])
    except (OSError, ValueError, RecursionError):
        pass
    digest = _checked_against(paths)
    if all(max(stamp[1], stamp[2]) < started - filestamp.RACY_NS for stamp in stamps):
        filestamp.write_memo(memo, jsonio.dumps({"format": [MEMO_FORMAT, FORMAT], "checked_ns": started, "files": files,
                                                 "digest": digest}))
    return digest


def _checked_against(paths: list[str]) -> str:
    contents = []
    for path in paths:
        with open(path, "rb") as handle:
            contents.append(handle.read() + b"\0")
    return sha256_hex(b"".join([f"{FORMAT}\0".encode(), *contents]))


def file_digest(raw: bytes) -> str:
    return sha256_hex(raw)


def read(directory: Path) -> dict[str, tuple[str, Records]]:
    """Rule file name -> (digest of the YAML it was validated from, its records), from the directory's
    compiled copy; empty when there is none, it does not parse, or it was checked against another schema."""
    return read_all(directory)[0]


def read_all(directory: Path, cache_dir: Path | None = None) -> tuple[dict[str, tuple[str, Records]],
                                                                      dict[str, load.NameTable]]:
    """`read`, and each file's name table (load.name_table); `cache_dir` holds checked_against's memo."""
    try:
        raw = path_in(directory).read_bytes()
        lines = _lines(raw)
        head = jsonio.loads(raw[slice(*next(lines))])
        if not isinstance(head, dict) or head.get("format") != FORMAT \
                or head.get("checked_against") != checked_against(cache_dir):
            return {}, {}
        found: dict[str, tuple[str, Records]] = {}
        tables: dict[str, load.NameTable] = {}
        for start, end in lines:
            if end > start and (not raw[start:start + 1].isspace() or raw[start:end].strip()):  # a line not blank
                tab = raw.find(b"\t", start, end)  # the row, a tab and the tail (line.partition(b"\t"))
                row, tail = (raw[start:end], b"") if tab < 0 else (raw[start:tab], raw[tab + 1:end])
                name, digest, records, table = jsonio.loads(row)
                if isinstance(name, str) and isinstance(digest, str) and isinstance(records, list):
                    found[name] = (digest, _with_maps(records, tail))
                    tables[name] = _table(table, tail)
        return found, tables
    except (OSError, ValueError, TypeError, RecursionError):
        return {}, {}


def _lines(raw: bytes) -> Iterator[tuple[int, int]]:
    """Where each line of `raw` starts and ends (`raw.split(b"\n")`'s lines, the last one possibly empty), found by
    `find`: split's byte-by-byte scan and its copy of every line cost ~10 M instructions of an edited-file lint for
    the 1.6 MB of rules/compiled.json, where the records' text is 0.5 MB of it and the rest is copied once."""
    start = 0
    while True:
        end = raw.find(b"\n", start)
        if end < 0:
            yield start, len(raw)
            return
        yield start, end
        start = end + 1


def text(directory: Path) -> str:
    """The compiled copy of the rule files in `directory` (every one validated now)."""
    files, _ = load.validated_records(directory, known={})
    head = json.dumps({"format": FORMAT, "checked_against": checked_against(),
                       "note": "generated by scripts/generate_docs.py from rules/*.yaml: do not edit"})
    return "\n".join([head, *(_line(directory, name, records) for name, records in files)]) + "\n"


def _line(directory: Path, name: str, records: Records) -> str:
    """One rule file's line: `[name, digest, records, name table]`, a tab, and the bytes the records and
    the table point into (`[start, end]`, offsets in those bytes): each map's JSON text and the packed names."""
    tail = bytearray()

    def span(data: bytes) -> list[int]:
        tail.extend(data)
        return [len(tail) - len(data), len(tail)]

    written = []
    for record in records:
        ((kind, spec),) = record["match"].items()
        if "map" in spec:
            text = json.dumps(spec["map"], ensure_ascii=False, separators=(",", ":")).encode()
            record = {**record, "match": {kind: {**spec, "map": span(text)}}}
        written.append(record)
    table: dict[str, Any] = {}
    for kind, names in load.name_table(records).items():
        packed = load.PackedNames.pack(names)
        table[kind] = names if packed is None else [len(tail), *(span(text)[1] for pair in packed for text in pair)]
    row = json.dumps([name, file_digest((directory / name).read_bytes()), written, table],
                     ensure_ascii=False, separators=(",", ":"))
    return f"{row}\t{tail.decode()}"


def _with_maps(records: list[Any], tail: bytes) -> list[Any]:
    """The records read back: each written map a load.MapText (raises TypeError for one of another
    shape, which sets the whole copy aside)."""
    for record in records:
        ((_, spec),) = record["match"].items()
        written = spec.get("map")
        if written is not None:
            start, end = written
            if not (type(start) is int and type(end) is int and 0 <= start <= end <= len(tail)):
                raise TypeError("a compiled map of the wrong shape")
            spec["map"] = load.MapText(tail, start, end)
    return records


def _table(written: object, tail: bytes) -> load.NameTable:
    """A file's name table read back (raises TypeError for one of another shape, which sets the whole copy
    aside; the hits are read as the index looks names up: they were generated with the records)."""
    if type(written) is not dict:
        raise TypeError("a compiled name table of the wrong shape")
    table: dict[str, Mapping[str, int | list[int]]] = {}
    for kind, names in written.items():
        if type(names) is list and all(type(at) is int for at in names) and names == sorted(names) \
                and len(names) % 2 and names[-1] <= len(tail):
            table[kind] = load.PackedNames(tail, names)
        elif type(names) is dict:
            table[kind] = names
        else:
            raise TypeError("a compiled name table of the wrong shape")
    return table
