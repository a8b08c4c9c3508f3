"""Parse what hipify-perl prints: conversions, statistics and every kind of warning.

Both generations of hipify-perl are read (the 2024 HIP 6.3 script and the 2026 HIP 7.x
one): their line layouts are the same, only some message texts differ. See
`docs/decisions/2026-11-29-hipify-perl.md` and `../shared/reference/hipify-perl-runs/README.md`."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# Table-driven warnings: "  <file>:<line>: warning: <message>", printed per original line.
TABLE = re.compile(r"^  (?P<path>.+?):(?P<line>\d+): warning: (?P<message>.*)$")
# The leftover heuristic: "  warning: <file>:#<line> : <the line after conversion>".
LEFTOVER = re.compile(r"^  warning: (?P<path>.+?):#(?P<line>\d+) : (?P<text>.*)$")
STATS = re.compile(r"^\[HIPIFY\] info: file '(?P<path>.*)' statistics:$")
COUNT = re.compile(r"^  (?P<key>CONVERTED refs count|TOTAL lines of code|WARNINGS): (?P<n>\d+)$")
BY_NAMES = "[HIPIFY] info: CONVERTED refs by names:"
CONVERSION = re.compile(r"^  (?P<cuda>\S+) => (?P<hip>\S*): (?P<n>\d+)$")  # an empty HIP side: deleted
VERSION = re.compile(r"HIP version (\d+(?:\.\d+)*)")
LEFTOVER_NAME = re.compile(r"\bcuda[A-Z]\w+")  # the exact pattern hipify-perl uses

MESSAGES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("unsupported", re.compile(r"^unsupported (?P<scope>ROCm HIP|HIP|ROC) identifier: (?P<name>\S+)$")),
    ("deprecated", re.compile(r"^deprecated CUDA identifier: (?P<name>\S+) since (?P<since>.+)$")),
    ("removed", re.compile(r"^removed CUDA identifier: (?P<name>\S+) since (?P<since>.+)$")),
    ("experimental", re.compile(r"^experimental (?P<scope>ROCm HIP|HIP) identifier: (?P<name>\S+)(?: (?P<since>\S+))?$")),
    ("device-function", re.compile(r'^unsupported device function "(?P<name>[^"]+)": (?P<source>.*)$')),
)
KINDS = ("unsupported", "deprecated", "removed", "experimental", "device-function", "leftover", "launch", "other")


@dataclass(frozen=True, slots=True)
class Conversion:
    """One line of "CONVERTED refs by names": `cuda => hip: count`.

    hipify-perl keys the count by the HIP name: with two CUDA names that both become
    hipDeviceSynchronize, each line shows the total for hipDeviceSynchronize."""

    cuda: str
    hip: str  # "" when hipify-perl deletes it (`device_launch_parameters.h => : 1`)
    count: int

    @property
    def identity(self) -> bool:
        """`texture => texture`, `__popc => __popc`: counted, but nothing is rewritten."""
        return self.cuda == self.hip


@dataclass(frozen=True, slots=True)
class HipifyWarning:
    """One warning line. `kind` is one of KINDS; `name` is the identifier it names (None
    for a leftover launch or an unrecognised message); `text` is the source line as
    hipify printed it (the original line for device functions, the converted line for
    leftovers), `raw` the whole message line."""

    path: str
    line: int
    kind: str
    name: str | None
    raw: str
    scope: str = ""  # unsupported/experimental: "ROCm HIP", "HIP" or "ROC"
    since: str = ""  # deprecated/removed: "CUDA 12.0" or "CUDNN 8.0"; experimental: the HIP version
    text: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the warning is about: a leftover line may hold several cuda* names."""
        if self.kind == "leftover":
            return tuple(dict.fromkeys(LEFTOVER_NAME.findall(self.text)))
        return (self.name,) if self.name else ()


@dataclass(frozen=True, slots=True)
class Statistics:
    converted: int  # "CONVERTED refs count": includes device functions and identity renames
    lines: int
    warnings: int


@dataclass(frozen=True, slots=True)
class FileExamine:
    """What hipify-perl reported for one file (empty when it printed nothing for it)."""

    path: str
    conversions: tuple[Conversion, ...] = ()
    warnings: tuple[HipifyWarning, ...] = ()
    statistics: Statistics | None = None
    warned: bool = True  # False for a -quiet-warnings run: hipify's silence then means nothing

    def renamed(self) -> dict[str, str]:
        """CUDA name -> HIP name for every real rewrite (identity renames left out)."""
        return {c.cuda: c.hip for c in self.conversions if not c.identity}

    def warnings_on(self, line: int) -> tuple[HipifyWarning, ...]:
        return tuple(w for w in self.warnings if w.line == line)


@dataclass(frozen=True, slots=True)
class ExamineResult:
    """One hipify-perl run: a block per file, the GLOBAL block of a multi-file run, and
    lines that are none of these (`Unknown option: ...`, `Skipping the file ...`)."""

    files: tuple[FileExamine, ...]
    total: FileExamine | None = None
    notes: tuple[str, ...] = field(default=())

    def get(self, path: str) -> FileExamine:
        for item in self.files:
            if item.path == path:
                return item
        return FileExamine(path=path)


def parse_version(text: str) -> str | None:
    """`HIP version 6.3.0` (what `hipify-perl -version` prints on stderr) -> "6.3.0"."""
    m = VERSION.search(text)
    return m.group(1) if m else None


def parse_warning(line: str) -> HipifyWarning | None:
    m = LEFTOVER.match(line)
    if m:
        text = m.group("text")
        names = LEFTOVER_NAME.findall(text)
        kind = "leftover" if names or "<<<" not in text else "launch"
        return HipifyWarning(path=m.group("path"), line=int(m.group("line")), kind=kind,
                             name=names[0] if names else None, raw=line.strip(), text=text)
    m = TABLE.match(line)
    if not m:
        return None
    message, where = m.group("message"), (m.group("path"), int(m.group("line")))
    for kind, pattern in MESSAGES:
        found = pattern.match(message)
        if found:
            parts = found.groupdict()
            return HipifyWarning(path=where[0], line=where[1], kind=kind, name=parts["name"], raw=line.strip(),
                                 scope=parts.get("scope") or "", since=parts.get("since") or "",
                                 text=parts.get("source") or "")
    return HipifyWarning(path=where[0], line=where[1], kind="other", name=None, raw=line.strip(), text=message)


def parse_examine(stderr: str, files: tuple[str, ...] | list[str] = ()) -> ExamineResult:
    """Parse hipify-perl's stderr (`-examine` or `-print-stats`, one file or many).

    `files`, when given, are the paths as passed on the command line: every one gets an
    entry (empty if hipify printed nothing for it), and a block named GLOBAL is the
    multi-file total unless a file of that name was passed."""
    warnings: dict[str, list[HipifyWarning]] = {}
    blocks: list[tuple[str, Statistics | None, list[Conversion]]] = []
    notes: list[str] = []
    counts: dict[str, int] = {}
    in_names = False
    for raw in stderr.split("\n"):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip():
            continue
        warning = parse_warning(line)
        if warning is not None:
            warnings.setdefault(warning.path, []).append(warning)
            in_names = False
            continue
        stats = STATS.match(line)
        if stats:
            blocks.append((stats.group("path"), None, []))
            counts, in_names = {}, False
            continue
        count = COUNT.match(line)
        if count and blocks:
            counts[count.group("key")] = int(count.group("n"))
            if len(counts) == 3:
                path, _, names = blocks[-1]
                blocks[-1] = (path, Statistics(converted=counts["CONVERTED refs count"],
                                               lines=counts["TOTAL lines of code"], warnings=counts["WARNINGS"]), names)
            continue
        if line == BY_NAMES:
            in_names = bool(blocks)
            continue
        conversion = CONVERSION.match(line) if in_names else None
        if conversion:
            blocks[-1][2].append(Conversion(cuda=conversion.group("cuda"), hip=conversion.group("hip"),
                                            count=int(conversion.group("n"))))
            continue
        notes.append(line.strip())
    return _assemble(blocks, warnings, notes, tuple(files))


def _assemble(blocks: list[tuple[str, Statistics | None, list[Conversion]]],
              warnings: dict[str, list[HipifyWarning]], notes: list[str], files: tuple[str, ...]) -> ExamineResult:
    total = None
    if blocks and blocks[-1][0] == "GLOBAL" and "GLOBAL" not in files and (len(blocks) > 1 or files):
        path, stats, names = blocks.pop()
        total = FileExamine(path=path, conversions=tuple(names), statistics=stats,
                            warnings=tuple(w for ws in warnings.values() for w in ws))
    order = list(dict.fromkeys([*files, *(b[0] for b in blocks), *warnings]))
    by_path = {b[0]: b for b in blocks}
    out = []
    for path in order:
        _, stats, names = by_path.get(path, (path, None, []))
        out.append(FileExamine(path=path, conversions=tuple(names), warnings=tuple(warnings.get(path, ())),
                               statistics=stats))
    return ExamineResult(files=tuple(out), total=total, notes=tuple(notes))
