"""The rule data's digests known by the files' stat stamps, as migrate.scan.statcache knows a scanned
tree's: the version digest of every data file (load.data_digest) and the SHA-256 of each rule file
(what the compiled copy is checked against), kept in the cache directory with each file's (size,
mtime, ctime, inode, device). A run whose rule files all have the stamps recorded (and are not racy,
as statcache defines it) reads and hashes none of them: a lint of one file starts ~10 ms sooner.

The memo also holds every data file's SHA-256, handed to rulebase/datafile by stamp (`know`): the data
files a run reads from their JSON twins are then not read and hashed to check their twins.

Data only; a memo of the wrong shape, or one whose files or stamps differ in any way, is a miss
that hashes the files again and rewrites it."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from migrate import jsonio
from migrate.compat import sha256_hex
from migrate.rulebase import datafile, filestamp, load

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

FORMAT = 2  # 1 held no data file's digest beside the rule files'
SUBDIR = "rules"
RACY_NS = filestamp.RACY_NS  # this module's own name, so that a test can set it for the rule base alone
Stamp = filestamp.Stamp
stamp_of = filestamp.stamp_of


@dataclass(frozen=True, slots=True)
class Digests:
    """The rule data's version digest and each rule file's SHA-256, known without reading the files."""

    version: str  # load.data_digest of the directory
    rule_files: dict[str, str]  # rule file name (top-level *.yaml) -> SHA-256 hex of its bytes
    data_files: dict[str, str]  # every data file's relative name -> SHA-256 hex of its bytes


def digests(directory: Path, cache_dir: Path | None) -> Digests:
    """The directory's digests: from the memo in `cache_dir` when every data file's stamp is the one
    recorded, else computed from the files' bytes (and the memo written)."""
    started = time.time_ns()
    named = load.data_file_names(directory)
    paths, rels = [path for path, _ in named], [rel for _, rel in named]
    try:
        stamps = [stamp_of(os.stat(p)) for p in paths]
    except OSError:
        return _computed(directory, paths, rels)
    memo = _memo_path(directory, cache_dir)
    known = None if memo is None else _read(memo, rels, stamps)
    found = known or _computed(directory, paths, rels)
    if memo is not None and known is None:
        _write(memo, rels, stamps, started, found)
    for path, rel, stamp in zip(paths, rels, stamps, strict=True):  # what datafile need not hash again
        if max(stamp[1], stamp[2]) < started - RACY_NS and rel in found.data_files:
            datafile.know(path, stamp, found.data_files[rel])
    return found


def _computed(directory: Path, paths: list[str], rels: list[str]) -> Digests:
    """Every file read once: load.data_digest's digest and the rule files' own."""
    import hashlib  # here: a run whose stamps are the memo's hashes none of the files

    whole = hashlib.sha256()
    data_files: dict[str, str] = {}
    for path, rel in zip(paths, rels, strict=True):
        with open(path, "rb") as handle:
            raw = handle.read()
        whole.update(load.digest_part(rel, raw))
        data_files[rel] = hashlib.sha256(raw).hexdigest()
    return Digests(version=whole.hexdigest()[:10], rule_files={rel: data_files[rel] for rel in rels if "/" not in rel},
                   data_files=data_files)


def _memo_path(directory: Path, cache_dir: Path | None) -> Path | None:
    if cache_dir is None:
        return None
    where = sha256_hex(os.fsencode(directory.resolve()))[:16]
    return cache_dir / SUBDIR / f"stamps-{where}.json"


def _read(memo: Path, rels: list[str], stamps: list[Stamp]) -> Digests | None:
    try:
        data: Any = jsonio.loads(memo.read_bytes())
        if type(data) is not dict or data.get("format") != FORMAT:
            return None
        checked, recorded = data["checked_ns"], data["files"]
        if type(checked) is not int or recorded != [[rel, *stamp] for rel, stamp in zip(rels, stamps, strict=True)]:
            return None
        if any(max(stamp[1], stamp[2]) >= checked - RACY_NS for stamp in stamps):
            return None  # changed too close to the hashing run to be told apart by its stamp
        version, rule_files, data_files = data["version"], data["rule_files"], data["data_files"]
        if type(version) is not str or type(rule_files) is not dict or type(data_files) is not dict \
                or not all(type(k) is str and type(v) is str for k, v in (*rule_files.items(), *data_files.items())):
            return None
        if sorted(rule_files) != sorted(rel for rel in rels if "/" not in rel) or sorted(data_files) != sorted(rels):
            return None
        return Digests(version=version, rule_files=rule_files, data_files=data_files)
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None


def _write(memo: Path, rels: list[str], stamps: list[Stamp], started: int, found: Digests) -> None:
    data = {"format": FORMAT, "checked_ns": started, "version": found.version, "rule_files": found.rule_files,
            "data_files": found.data_files, "files": [[rel, *stamp] for rel, stamp in zip(rels, stamps, strict=True)]}
    filestamp.write_memo(memo, jsonio.dumps(data))
