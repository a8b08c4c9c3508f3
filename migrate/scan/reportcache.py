"""A rescan of an unchanged tree: the rendered reports of the last scan with the same inputs.

The key covers everything a single-project scan reads: each discovered file's path, kind and
content digest (from `statcache`: a file whose stat did not change is not read again), what
discovery skipped and why, the settings, the rules, the git commit, the requested formats and
the tool's own code and data files. Reports are stored with stand-ins for the two values that
change from run to run (`summary.seconds`, `source.scanned_at`), whose places are recorded; a
hit copies the stored bytes and writes this run's values in those places, so it writes the
bytes a full scan would without decoding anything. Only formats whose only run-dependent values
are those two are kept (JSON, SARIF, CSV, Markdown, and plain text as it goes into a file or a
pipe, whose one line with the time is checked to fit its width: HTML and coloured terminal text
are not), and never a scan with a hipify-perl or libclang pass, whose outside programs the key
cannot see. What a full scan says on stderr (its notes, skipped files and summary line) is stored
with the reports and said again on a hit. Each report is a file in the cache directory (a
prefix, a JSON header, the bytes: data only); a file of the wrong shape is a miss."""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, cast

from migrate import __version__, jsonio, vcs
from migrate.hipify import where
from migrate.model import SourceFile
from migrate.model_report import Report
from migrate.rulebase.load import RuleBase, default_rules_dir
from migrate.safetext import unicode_bytes
from migrate.scan import pooling, statcache
from migrate.scan.cache import Cache, Known
from migrate.scan.discover import Discovery, discover
from migrate.scan.statcache import Digests
from migrate.settings import Settings

FORMATS = frozenset({"json", "sarif", "csv", "markdown", "text"})  # "text": plain (no colour)
SECONDS = 987654.321  # stand-ins for the run-dependent values while a report is stored
SCANNED_AT = "0000-00-00T00:00:00+stand-in"
TEXT_SECONDS = "in {:.2f}s;"  # how the text report shows the time (render/terminal_report.py)


def _values(seconds: float, scanned_at: str) -> tuple[bytes, ...]:
    """How a run's time and start appear in the rendered bytes: this run's values for STAND_INS, in their order."""
    return (f'"seconds": {json.dumps(seconds)}'.encode(), json.dumps(scanned_at).encode(),
            TEXT_SECONDS.format(seconds).encode())


STAND_INS = _values(SECONDS, SCANNED_AT)  # the stand-ins as they appear in the rendered bytes
MAGIC = b"rocm-migrate report 1 "
PREFIX = len(MAGIC) + 17  # the magic, the header's length in 16 digits, a newline
HEADER_MAX = 1 << 26
PIECE = 1 << 20  # bytes copied at a time
SPOOLED = 32 << 20  # a rendered report held in memory up to this size, past it in a temporary file
CODE_FILE_BYTES = 1 << 30  # no file of the tool's own is skipped for its size
# The bytes the key reads (files whose stat entry is not trusted) are kept for the scan that follows
# a miss, up to this much in all: a scan without the key held every file's bytes at once anyway.
KEPT_BYTES = 256 << 20

Progress = Callable[[int, int], None]
Pieces = Callable[[], Iterator[bytes]]  # a report's UTF-8 bytes in pieces, anew at each call


@dataclasses.dataclass(frozen=True, slots=True)
class Said:
    """What a scan says on stderr besides its reports: notes, skipped files, the summary's counts."""

    notes: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()  # (path, reason)
    files_scanned: int = 0
    findings: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class Outputs:
    reports: dict[str, Pieces]  # format -> its bytes with this run's time (readable while `write` runs)
    migration_class: str  # the report's class, for --fail-on
    said: Said = Said()


@dataclasses.dataclass(frozen=True, slots=True)
class TextOptions:
    """How plain text is rendered (part of the key)."""

    width: int = 100
    plan: bool = False
    show_info: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class _Body:
    """Where a format's bytes are in a stored report, and where its stand-ins are in them."""

    start: int
    size: int
    marks: tuple[tuple[int, int], ...]  # (offset in the body, index into STAND_INS), in order


@dataclasses.dataclass(frozen=True, slots=True)
class _Stored:
    bodies: dict[str, _Body]
    migration_class: str
    said: Said


def applies(settings: Settings, formats: Sequence[str]) -> bool:
    return (settings.cache_dir is not None and not settings.precise and bool(formats)
            and all(f in FORMATS for f in formats) and not where.scan_runs(settings))


def scan(targets: list[Path], settings: Settings, *, rules_dir: Path | None, load_rules: Callable[[], RuleBase],
         formats: Sequence[str], write: Callable[[Outputs], None], progress: Progress | None = None,
         text: TextOptions = TextOptions()) -> None:
    """The rendered reports, from the cache when nothing they depend on changed, else scanned
    (the rules are loaded, by `load_rules`, only then), handed to `write`. A hit copies the
    stored bytes with this run's time in the stand-ins' places, and rewrites nothing."""
    started = time.perf_counter()
    scanned_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    wanted = tuple(dict.fromkeys(formats))
    cache = Cache(settings.cache_dir)
    # The default rules are part of the code key; other rules are hashed as the rule cache does.
    rules_key = _rules_key(rules_dir) if rules_dir and rules_dir.resolve() != default_rules_dir() else ""
    key, found, known = _key(targets, settings, rules_key, (*wanted, repr(text)) if {"text", "html"} & set(wanted) else wanted,
                             cache)
    stored = cache.open_report(key)
    if stored is not None:
        with stored:
            hit = _read(stored, wanted)
            if hit is not None:
                cache.used_report(stored)
                values = _values(round(time.perf_counter() - started, 3), scanned_at)
                write(Outputs({name: _pieces(stored, body, values) for name, body in hit.bodies.items()},
                              hit.migration_class, hit.said))
                return
    from migrate.scan import pipeline

    # The files the key read are not read again: the scan gets the discovery and what the key learnt
    # of each file (its digest, its bytes where they were read), and empties `known` as it goes.
    report = dataclasses.replace(pipeline.run(targets, settings, load_rules(), progress=progress, found=found, known=known,
                                              meanwhile=lambda: _renderers(wanted)),
                                 seconds=SECONDS, scanned_at=SCANNED_AT)
    with contextlib.ExitStack() as held:
        texts = {name: held.enter_context(_spooled(report, name, text)) for name in wanted}
        done = _Stored({name: _Body(0, _size(data), _marks_in(data)) for name, data in texts.items()},
                       report.migration_class,
                       Said(notes=report.notes, skipped=tuple((s.path, s.reason) for s in report.skipped),
                            files_scanned=report.files_scanned, findings=len(report.findings)))
        del report
        if _fits(_whole(texts["text"]) if "text" in texts else None, done.bodies.get("text"), text):
            cache.put_report(key, _encode(texts, done))
        values = _values(round(time.perf_counter() - started, 3), scanned_at)
        write(Outputs({name: _pieces(texts[name], body, values) for name, body in done.bodies.items()},
                      done.migration_class, done.said))


def _rules_key(rules_dir: Path) -> str:
    from migrate.rulebase import precompiled

    return precompiled.content_key(rules_dir)


def _renderers(formats: Sequence[str]) -> None:
    """Import the formats' renderers (while the files are analysed: project.load_later_stages)."""
    from migrate.render import renderer

    for name in formats:
        renderer(_RENDERERS.get(name, name))


_RENDERERS = {"text": "terminal"}  # a format's renderer, where its name is another


def _render(report: Report, name: str, text: TextOptions) -> str:
    from migrate.render import renderer

    if name == "text":
        return renderer("terminal")(report, color=False, width=text.width, plan=text.plan, show_info=text.show_info)
    if name == "html":
        return renderer("html")(report, show_info=text.show_info)
    return renderer(name)(report)


def _rendered(report: Report, name: str, text: TextOptions) -> bytes:
    """A format's report as UTF-8 bytes (`_spooled`'s, whole)."""
    with _spooled(report, name, text) as out:
        return _whole(out)


def _spooled(report: Report, name: str, text: TextOptions) -> BinaryIO:
    """A format's report as UTF-8 bytes in a temporary file, held in memory up to SPOOLED bytes, encoded piece by
    piece where its renderer gives pieces (JSON, SARIF and CSV, as the command line writes them without the cache):
    the report is never held as text beside its bytes, nor a large report's bytes beside the report (the JSON report
    of five copies of cuda-samples is 78 MB, its text the same again, its pieces before their join a third). The
    bytes are the whole text's: `unicode_bytes` changes each code point alone (a lone surrogate), and the pieces
    join to the renderer's text."""
    out = tempfile.SpooledTemporaryFile(max_size=SPOOLED)  # noqa: SIM115 (the caller closes it)
    try:
        pieces = _chunks(report, name)
        for piece in [_render(report, name, text)] if pieces is None else pieces:
            out.write(unicode_bytes(piece))
    except BaseException:
        out.close()
        raise
    return cast(BinaryIO, out)


def _size(data: BinaryIO) -> int:
    return data.seek(0, io.SEEK_END)


def _whole(data: BinaryIO) -> bytes:
    data.seek(0)
    return data.read()


def _chunks(report: Report, name: str) -> Iterator[str] | None:
    """The pieces of a format whose renderer gives them (each at the defaults the report cache renders with)."""
    if name == "json":
        from migrate.render import json_report

        return json_report.chunks(report)
    if name == "sarif":
        from migrate.render import sarif_report

        return sarif_report.chunks(report)
    if name == "csv":
        from migrate.render import csv_report

        return csv_report.chunks(report)
    return None


def _marks(data: bytes) -> tuple[tuple[int, int], ...]:
    """Where the stand-ins are: the leftmost non-overlapping matches, as one alternation regex
    finds them, but each stand-in looked for by `bytes.find`, which skips ahead (the regex stepped
    through a 16 MB report a byte at a time: 106 ms against 4 ms). No two stand-ins start alike
    for long, so at most one starts at a place; one that begins inside the match before is dropped."""
    return _leftmost(_starts(data, 0, len(data)))


def _marks_in(data: BinaryIO) -> tuple[tuple[int, int], ...]:
    """`_marks` of a file's bytes, read PIECE at a time (each piece with the bytes a stand-in starting in it may
    run into)."""
    reach = max(len(s) for s in STAND_INS) - 1
    starts: list[tuple[int, int]] = []
    at = 0
    while True:
        data.seek(at)
        window = data.read(PIECE + reach)
        if not window:
            break
        starts += _starts(window, at, PIECE)
        at += PIECE
    return _leftmost(starts)


def _starts(data: bytes, base: int, before: int) -> list[tuple[int, int]]:
    """(offset from `base`, which) of every stand-in starting in `data` before `before`."""
    starts: list[tuple[int, int]] = []
    for which, stand_in in enumerate(STAND_INS):
        at = data.find(stand_in)
        while 0 <= at < before:
            starts.append((base + at, which))
            at = data.find(stand_in, at + 1)
    return starts


def _leftmost(starts: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    found: list[tuple[int, int]] = []
    end = 0
    for at, which in sorted(starts):
        if at >= end:
            found.append((at, which))
            end = at + len(STAND_INS[which])
    return tuple(found)


def _fits(data: bytes | None, body: _Body | None, text: TextOptions) -> bool:
    """Whether the text's line with the stand-in time fits its width (then the shorter real time
    fits too, and the line breaks where a full scan's would)."""
    if data is None or body is None:
        return True
    for offset, which in body.marks:
        if which == 2:
            start, end = data.rfind(b"\n", 0, offset) + 1, data.find(b"\n", offset)
            if len(data[start:end if end >= 0 else len(data)].decode("utf-8")) <= text.width:
                return True
    return False


def _pieces(source: BinaryIO, body: _Body, values: tuple[bytes, ...]) -> Pieces:
    """The body's bytes from `source`, PIECE at a time, this run's values in the stand-ins' places."""

    def pieces() -> Iterator[bytes]:
        at = 0
        for offset, which in (*body.marks, (body.size, -1)):
            while at < offset:
                source.seek(body.start + at)
                piece = source.read(min(PIECE, offset - at))
                if not piece:
                    raise OSError("a stored report ended early")
                yield piece
                at += len(piece)
            if which >= 0:
                yield values[which]
                at += len(STAND_INS[which])

    return pieces


def _encode(texts: dict[str, BinaryIO], done: _Stored) -> Iterator[bytes]:
    """The prefix (magic, header length), a JSON header (class, what the scan said, each format's
    size and stand-in places), then the formats' bytes as they are."""
    said = done.said
    header = jsonio.dumps({"class": done.migration_class,
                           "formats": [[name, body.size, [list(m) for m in body.marks]]
                                       for name, body in done.bodies.items()],
                           "notes": list(said.notes), "skipped": [list(s) for s in said.skipped],
                           "files": said.files_scanned, "findings": said.findings})
    yield MAGIC + b"%016d\n" % len(header) + header
    for data in texts.values():
        data.seek(0)
        while piece := data.read(PIECE):
            yield piece


def _read(stored: BinaryIO, wanted: tuple[str, ...]) -> _Stored | None:
    """The stored report's header, checked against the file: None unless every field has its
    type, the sizes add up to the file's and each stand-in is where the header says."""
    try:
        prefix = stored.read(PREFIX)
        if len(prefix) != PREFIX or not prefix.startswith(MAGIC) or not prefix[len(MAGIC):-1].isdigit():
            return None
        length = int(prefix[len(MAGIC):-1])
        if length > HEADER_MAX:
            return None
        header: Any = jsonio.loads(stored.read(length))
        cls, formats = header["class"], header["formats"]
        notes, skipped, files, findings = header["notes"], header["skipped"], header["files"], header["findings"]
        if not (isinstance(cls, str) and isinstance(formats, list) and isinstance(notes, list)
                and all(type(n) is str for n in notes) and isinstance(skipped, list)
                and all(isinstance(s, list) and len(s) == 2 and all(type(p) is str for p in s) for s in skipped)
                and type(files) is int and type(findings) is int):
            return None
        bodies, start = {}, PREFIX + length
        for name, size, marks in formats:
            if type(name) is not str or type(size) is not int or size < 0 or not isinstance(marks, list):
                return None
            bodies[name] = _Body(start, size, _checked_marks(stored, start, size, marks))
            start += size
        stored.seek(0, io.SEEK_END)
        if sorted(bodies) != sorted(wanted) or len(bodies) != len(formats) or stored.tell() != start:
            return None
    except (ValueError, KeyError, TypeError, RecursionError, OSError):
        return None
    return _Stored(bodies, cls, Said(tuple(notes), tuple((p, r) for p, r in skipped), files, findings))


def _checked_marks(stored: BinaryIO, start: int, size: int, marks: list[Any]) -> tuple[tuple[int, int], ...]:
    """The stand-in places, in order, each inside the body and holding its stand-in; else ValueError."""
    out, at = [], 0
    for offset, which in marks:
        if type(offset) is not int or type(which) is not int or not 0 <= which < len(STAND_INS) or offset < at \
                or offset + len(STAND_INS[which]) > size:
            raise ValueError("a stand-in out of place")
        stored.seek(start + offset)
        if stored.read(len(STAND_INS[which])) != STAND_INS[which]:
            raise ValueError("no stand-in where the header says")
        out.append((offset, which))
        at = offset + len(STAND_INS[which])
    return tuple(out)


def _key(targets: list[Path], settings: Settings, rules_key: str, formats: tuple[str, ...],
         cache: Cache) -> tuple[str, Discovery, dict[str, Known]]:
    """The report's key, the discovery it was built from and what it learnt of each file. The stat rows of the
    tool's files and of the tree's are written together, in one transaction (`Cache.hold_writes`)."""
    cache.hold_writes()
    try:
        found = discover(targets, include_vendored=settings.include_vendored, exclude=settings.exclude)
        digest = hashlib.blake2b(digest_size=32)
        neutral = dataclasses.replace(settings, jobs=1, cache_dir=None)
        for part in (_code_key(cache), rules_key, repr(neutral), repr(formats), str(found.root),
                     repr([str(t) for t in targets]), repr(found.skipped), str(vcs.head_commit(found.root))):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
        # the bytes are kept for a scan that reads its files here; forked workers read their own (`pooling`)
        kept = 0 if pooling.workers_read(settings.jobs, [f.size for f in found.files]) else KEPT_BYTES
        digests = Digests(cache, f"{found.root}\0{settings.max_file_size}", started=found.started_ns,
                          keep_bytes=kept)
        for file in found.files:
            content, reason = digests.digest(file, settings.max_file_size)
            digest.update(f"{file.rel}\0{file.kind}\0{reason}\0{content}\0".encode("utf-8", "surrogateescape"))
        digests.save()
        return digest.hexdigest(), found, digests.known
    finally:
        cache.write_held()


def _code_key(cache: Cache) -> str:
    """The tool's code and data (rules, targets, templates, queries) and Python's version: any
    change is a miss. The files' digests come from the stat cache, like the scanned tree's."""
    package = Path(__file__).resolve().parents[1]  # migrate/
    digest = hashlib.blake2b(f"{__version__}\0{sys.version_info[:2]}".encode(), digest_size=32)
    digests = Digests(cache, f"code\0{package}", statcache.raw)  # every byte: a binary data file too
    for n, root in enumerate((package, default_rules_dir(), package.parent / "templates")):
        for parts in _code_files(str(root)):
            rel = f"{n}/{'/'.join(parts)}"
            content, reason = digests.digest(SourceFile(path=root.joinpath(*parts), rel=rel, kind="code", size=0),
                                             CODE_FILE_BYTES)
            digest.update(f"{rel}\0{reason}\0{content}\0".encode("utf-8", "surrogateescape"))
    digests.save()
    return digest.hexdigest()


def _code_files(root: str) -> list[tuple[str, ...]]:
    """The files under `root` (each as its path's parts below it), in the order of their sorted Paths, without the
    bytecode folders: `__pycache__` holds what Python and the start table (cli/startcache.py) compiled from the code,
    rewritten by the runs themselves, not code (a key that read it missed after a run saved its table). One os.walk:
    `Path.rglob` with an `is_file` and a Path per file took twice as long."""
    found: list[tuple[str, ...]] = []
    for folder, folders, files in os.walk(root):
        folders[:] = [d for d in folders if d != "__pycache__"]
        below = tuple(os.path.relpath(folder, root).split(os.sep)) if folder != root else ()
        found.extend((*below, name) for name in files
                     if not name.endswith(".pyc") and os.path.isfile(os.path.join(folder, name)))
    return sorted(found)
