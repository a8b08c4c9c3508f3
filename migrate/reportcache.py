"""A rescan of an unchanged tree: the rendered reports of the last scan with the same inputs.

The key covers everything a single-project scan reads: each discovered file's path, kind and
content hash, what discovery skipped and why, the settings, the rules, the git commit, the
requested formats and the tool's own code and data files. Reports are stored with stand-ins for
the two values that change from run to run (`summary.seconds`, `source.scanned_at`), which get
this run's values, so a hit writes the same bytes a full scan would. Only formats whose only
run-dependent values are those two are kept (JSON, SARIF, CSV, Markdown, and plain text as it
goes into a file or a pipe, whose one line with the time is checked to fit its width: HTML and
coloured terminal text are not), and never a scan with a hipify-perl or libclang pass, whose
outside programs the key cannot see. What a full scan says on stderr (its notes, skipped files
and summary line) is stored with the reports and said again on a hit. The row is JSON in the
per-file cache's sqlite file (data only); a row of the wrong shape is a miss."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from migrate import __version__, jsonio, vcs
from migrate.cache import Cache
from migrate.discover import discover
from migrate.model import Report
from migrate.readfile import read
from migrate.rulebase.load import RuleBase, default_rules_dir
from migrate.settings import Settings

FORMATS = frozenset({"json", "sarif", "csv", "markdown", "text"})  # "text": plain (no colour)
SECONDS = 987654.321  # stand-ins for the run-dependent values while a report is stored
SCANNED_AT = "0000-00-00T00:00:00+stand-in"
TEXT_SECONDS = "in {:.2f}s;"  # how the text report shows the time (render/terminal_report.py)

Progress = Callable[[int, int], None]


@dataclasses.dataclass(frozen=True, slots=True)
class Said:
    """What a scan says on stderr besides its reports: notes, skipped files, the summary's counts."""

    notes: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()  # (path, reason)
    files_scanned: int = 0
    findings: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class Outputs:
    texts: dict[str, str]  # format -> rendered report
    migration_class: str  # the report's class, for --fail-on
    said: Said = Said()


@dataclasses.dataclass(frozen=True, slots=True)
class TextOptions:
    """How plain text is rendered (part of the key)."""

    width: int = 100
    plan: bool = False


def applies(settings: Settings, formats: Sequence[str]) -> bool:
    return (settings.cache_dir is not None and not settings.precise and bool(formats)
            and all(f in FORMATS for f in formats) and not _hipify_installed(settings))


def scan(targets: list[Path], settings: Settings, rules_dir: Path | None, load_rules: Callable[[], RuleBase],
         formats: Sequence[str], progress: Progress | None = None, text: TextOptions = TextOptions()) -> Outputs:
    """The rendered reports, from the cache when nothing they depend on changed, else scanned
    (the rules are loaded, by `load_rules`, only then)."""
    from migrate.rulebase import precompiled

    started = time.perf_counter()
    scanned_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    wanted = tuple(dict.fromkeys(formats))
    cache = Cache(settings.cache_dir)
    key = _key(targets, settings, precompiled.content_key(rules_dir or default_rules_dir()),
               (*wanted, repr(text)) if "text" in wanted else wanted)
    stored = _decode(cache.get_report(key), wanted)
    if stored is None:
        from migrate import pipeline

        rules = load_rules()
        report = dataclasses.replace(pipeline.run(targets, settings, rules, progress),
                                     seconds=SECONDS, scanned_at=SCANNED_AT)
        stored = Outputs({name: _render(report, name, text) for name in wanted}, report.migration_class,
                         Said(notes=report.notes, skipped=tuple((s.path, s.reason) for s in report.skipped),
                              files_scanned=report.files_scanned, findings=len(report.findings)))
        if _fits(stored, text):
            cache.put_report(key, _encode(stored))
    seconds = round(time.perf_counter() - started, 3)
    return Outputs({name: _fill(body, seconds, scanned_at) for name, body in stored.texts.items()},
                   stored.migration_class, stored.said)


def _render(report: Report, name: str, text: TextOptions) -> str:
    from migrate.render import renderer

    if name == "text":
        return renderer("terminal")(report, color=False, width=text.width, plan=text.plan)
    return renderer(name)(report)


def _fits(outputs: Outputs, text: TextOptions) -> bool:
    """Whether the text's line with the stand-in time fits its width (then the shorter real time
    fits too, and the line breaks where a full scan's would)."""
    if "text" not in outputs.texts:
        return True
    shown = TEXT_SECONDS.format(SECONDS)
    return any(shown in line and len(line) <= text.width for line in outputs.texts["text"].split("\n"))


def _fill(text: str, seconds: float, scanned_at: str) -> str:
    return (text.replace(f'"seconds": {json.dumps(SECONDS)}', f'"seconds": {json.dumps(seconds)}')
            .replace(json.dumps(SCANNED_AT), json.dumps(scanned_at))
            .replace(TEXT_SECONDS.format(SECONDS), TEXT_SECONDS.format(seconds)))


def _encode(outputs: Outputs) -> bytes:
    """A JSON header line (class, what the scan said, formats and their sizes), then the texts'
    UTF-8 bytes as they are."""
    texts = {name: text.encode("utf-8", "surrogatepass") for name, text in outputs.texts.items()}
    said = outputs.said
    header = {"class": outputs.migration_class, "sizes": [[name, len(data)] for name, data in texts.items()],
              "notes": list(said.notes), "skipped": [list(s) for s in said.skipped],
              "files": said.files_scanned, "findings": said.findings}
    return jsonio.dumps(header) + b"\n" + b"".join(texts.values())


def _decode(row: bytes | None, wanted: tuple[str, ...]) -> Outputs | None:
    if row is None:
        return None
    head, _, body = row.partition(b"\n")
    try:
        header = jsonio.loads(head)
        cls, sizes = header["class"], header["sizes"]
        if not isinstance(cls, str) or sorted(name for name, _ in sizes) != sorted(wanted) \
                or not all(type(size) is int and size >= 0 for _, size in sizes) or sum(s for _, s in sizes) != len(body):
            return None
        notes, skipped, files, findings = header["notes"], header["skipped"], header["files"], header["findings"]
        if not (isinstance(notes, list) and all(type(n) is str for n in notes) and isinstance(skipped, list)
                and all(isinstance(s, list) and len(s) == 2 and all(type(p) is str for p in s) for s in skipped)
                and type(files) is int and type(findings) is int):
            return None
        texts, start = {}, 0
        for name, size in sizes:
            texts[name] = body[start:start + size].decode("utf-8")
            start += size
    except (ValueError, KeyError, TypeError, RecursionError):
        return None
    return Outputs(texts, cls, Said(tuple(notes), tuple((p, r) for p, r in skipped), files, findings))


def _key(targets: list[Path], settings: Settings, rules_key: str, formats: tuple[str, ...]) -> str:
    found = discover(targets, include_vendored=settings.include_vendored, exclude=settings.exclude)
    digest = hashlib.blake2b(digest_size=32)
    neutral = dataclasses.replace(settings, jobs=1, cache_dir=None)
    for part in (_code_key(), rules_key, repr(neutral), repr(formats), str(found.root),
                 repr([str(t) for t in targets]), repr(found.skipped), str(vcs.head_commit(found.root))):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    for file in found.files:
        data, reason = read(file, settings.max_file_size)
        digest.update(f"{file.rel}\0{file.kind}\0{reason}\0".encode("utf-8", "surrogateescape"))
        digest.update(hashlib.blake2b(data or b"", digest_size=32).digest())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _code_key() -> str:
    """The tool's code and data (rules, targets, templates, queries): any change is a miss."""
    package = Path(__file__).resolve().parent
    digest = hashlib.blake2b(__version__.encode(), digest_size=32)
    for root in (package, default_rules_dir(), package.parent / "templates"):
        for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".pyc"):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _hipify_installed(settings: Settings) -> bool:
    from migrate.hipify import tool as hipify

    return settings.use_hipify and hipify.installed(settings.hipify)
