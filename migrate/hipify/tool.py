"""The one place that runs hipify-perl: find it, read its version, run it, parse its output.

hipify-perl is AMD's regex-based CUDA -> HIP converter (ROCm's HIPIFY package, usually
/opt/rocm/bin/hipify-perl). It is always run with an argv list (never a shell), with
stdin closed, a timeout, and a fixed Perl hash seed so that the order of its warnings is
the same from run to run. Parsing lives in `migrate.hipify.parse`."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from migrate.hipify.parse import (
    Conversion,
    ExamineResult,
    FileExamine,
    HipifyWarning,
    Statistics,
    parse_examine,
    parse_version,
)
from migrate.hipify.where import NAME, candidates, installed

__all__ = [  # the records are re-exported: callers import everything hipify from here
    "Conversion", "Converted", "ExamineResult", "FileExamine", "HipifyError", "HipifyFailed", "HipifyNotFound",
    "HipifyWarning", "Statistics", "Tool", "budget", "candidates", "convert_file", "convert_many", "examine", "examine_many",
    "find", "installed", "load", "locate", "run",
]

HOW_TO_GET = ("install ROCm's HIPIFY package (it provides /opt/rocm/bin/hipify-perl), "
              "or pass --hipify PATH or set HIPIFY_PERL")
VERSION_TIMEOUT = 60.0
# The 2024 script spends about 16 ms per input line on its warning pass (up to 20 ms at p90);
# newer builds are far faster. A run may take BASE + PER_LINE seconds per line before it is stopped.
BASE_SECONDS = 60.0
PER_LINE_SECONDS = 0.06
SHOWN = 2000  # characters of each stream kept in an error message
MAX_FILES_PER_RUN = 400


class HipifyError(Exception):
    """Anything that went wrong finding or running hipify-perl."""


class HipifyNotFound(HipifyError):
    """No hipify-perl at the explicit path or in any of the usual places."""


class HipifyFailed(HipifyError):
    """hipify-perl exited non-zero or timed out; str() shows the command, exit code and both streams."""

    def __init__(self, command: Sequence[str], returncode: int | None, stdout: str, stderr: str,
                 reason: str = "") -> None:
        self.command, self.returncode, self.stdout, self.stderr = list(command), returncode, stdout, stderr
        status = reason or f"exit code {returncode}"
        super().__init__(f"{' '.join(self.command)}: {status}\n"
                         f"stdout: {_clip(stdout) or '(empty)'}\nstderr: {_clip(stderr) or '(empty)'}")


@dataclass(frozen=True, slots=True)
class Tool:
    """A located hipify-perl and the HIP version it prints (`-version`)."""

    path: Path
    version: str | None
    interpreter: tuple[str, ...] = ()  # ("perl",) when the script is not executable

    def argv(self, *args: str) -> list[str]:
        return [*self.interpreter, str(self.path), *args]

    @property
    def masks_comments(self) -> bool:
        """2026 builds (HIP 7.x) leave comments alone; the 2024 script converts inside them too."""
        return _major(self.version) >= 7


@dataclass(frozen=True, slots=True)
class Converted:
    """One file through hipify-perl's default mode: the converted bytes and its report."""

    path: str
    text: bytes
    examine: FileExamine


def locate(explicit: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The hipify-perl to use; an explicit path must exist (there is no falling back from it)."""
    looked = candidates(explicit, env)
    for path in looked:
        if path.is_file():
            return path
    where = ", ".join(str(p) for p in looked) or "PATH"
    raise HipifyNotFound(f"{NAME} not found (looked at {where}); {HOW_TO_GET}")


def load(explicit: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Tool:
    """Locate hipify-perl and read its version. Raises HipifyNotFound or HipifyFailed."""
    path = locate(explicit, env)
    interpreter = () if os.access(path, os.X_OK) else (shutil.which("perl") or "perl",)
    tool = Tool(path=path, version=None, interpreter=interpreter)
    done = run(tool, ["-version"], timeout=VERSION_TIMEOUT)
    return Tool(path=path, version=parse_version(done.stderr + done.stdout.decode(errors="replace")),
                interpreter=interpreter)


def find(explicit: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Tool | None:
    """Like load(), but None when hipify-perl is absent (a scan then works from the rule base)."""
    try:
        return load(explicit, env)
    except HipifyNotFound:
        return None


@dataclass(frozen=True, slots=True)
class Completed:
    stdout: bytes
    stderr: str


def run(tool: Tool, args: Sequence[str], *, cwd: str | os.PathLike[str] | None = None,
        timeout: float | None = None) -> Completed:
    """Run hipify-perl with `args` (no shell). Non-zero exit or a timeout raises HipifyFailed."""
    command = tool.argv(*args)
    env = dict(os.environ, PERL_HASH_SEED="0", PERL_PERTURB_KEYS="0", LC_ALL="C")
    try:
        done = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise HipifyFailed(command, None, _text(exc.stdout), _text(exc.stderr),
                           reason=f"timed out after {timeout:g} s") from None
    except OSError as exc:
        raise HipifyFailed(command, None, "", str(exc), reason=f"could not start: {exc.strerror or exc}") from None
    if done.returncode != 0:
        raise HipifyFailed(command, done.returncode, _text(done.stdout), _text(done.stderr))
    return Completed(stdout=done.stdout, stderr=_text(done.stderr))


def budget(lines: int) -> float:
    """A timeout for a run over this many input lines."""
    return BASE_SECONDS + PER_LINE_SECONDS * lines


def examine(tool: Tool, files: Sequence[str], *, cwd: str | os.PathLike[str], quiet: bool = False,
            timeout: float | None = None) -> ExamineResult:
    """`hipify-perl -examine FILE...` in one process; `files` are paths relative to `cwd`.

    Every file must exist: hipify-perl dies at the first missing one and skips the rest."""
    if not files:
        return ExamineResult(files=())
    args = _safe(files)
    options = ["-examine", *(["-quiet-warnings"] if quiet else [])]
    done = run(tool, [*options, *args], cwd=cwd, timeout=timeout if timeout is not None else budget(_lines(cwd, files)))
    result = parse_examine(done.stderr, args)
    rename = dict(zip(args, files, strict=False))
    items = tuple(replace(_renamed(f, rename), warned=not quiet) for f in result.files)
    return ExamineResult(files=items, total=result.total, notes=result.notes)


def examine_many(tool: Tool, files: Sequence[str], *, cwd: str | os.PathLike[str], jobs: int = 1,
                 quiet: bool = False) -> dict[str, FileExamine]:
    """Examine many files with `jobs` processes at a time, each given a share of similar size in
    lines (and at most about MAX_FILES_PER_RUN files, to keep command lines short)."""
    shares = _shares(Path(cwd), files, jobs)
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(shares)))) as pool:
        results = list(pool.map(lambda share: examine(tool, share, cwd=cwd, quiet=quiet), shares))
    return {item.path: item for result in results for item in result.files}


def convert_file(tool: Tool, file: str, *, cwd: str | os.PathLike[str], quiet: bool = False,
                 timeout: float | None = None) -> Converted:
    """`hipify-perl -print-stats FILE`: the converted source (stdout) and its report (stderr)."""
    (arg,) = _safe([file])
    options = ["-print-stats", *(["-quiet-warnings"] if quiet else [])]
    done = run(tool, [*options, arg], cwd=cwd, timeout=timeout if timeout is not None else budget(_lines(cwd, [file])))
    examined = replace(_renamed(parse_examine(done.stderr, [arg]).get(arg), {arg: file}), warned=not quiet)
    return Converted(path=file, text=done.stdout, examine=examined)


def convert_many(tool: Tool, files: Sequence[str], *, cwd: str | os.PathLike[str], jobs: int = 1,
                 quiet: bool = True, progress: Callable[[int, int], None] | None = None,
                 ) -> tuple[dict[str, Converted], list[tuple[str, str]]]:
    """Convert many files with one hipify-perl process per share (`jobs` at a time), so the
    script is compiled once per share, not once per file. Returns the converted files and the
    (file, error) pairs of shares that failed.

    hipify-perl writes one stream for all the files it is given on stdout, so each share works
    on copies in a private folder, under names of our own (`0.cu`, `1.cu` ...: `-inplace` hands
    them to a shell), and reads the converted copies back; the report names the real files."""
    shares = _shares(Path(cwd), files, jobs)
    done: dict[str, Converted] = {}
    failed: list[tuple[str, str]] = []
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(shares)))) as pool:
        for converted, errors in pool.map(lambda share: _convert_share(tool, Path(cwd), share, quiet), shares):
            done.update(converted)
            failed += errors
            if progress:
                progress(len(done) + len(failed), len(files))
    return done, failed


def _shares(cwd: Path, files: Sequence[str], jobs: int) -> list[list[str]]:
    """Shares of similar size in lines, at most about MAX_FILES_PER_RUN files each."""
    sizes = {f: _lines(cwd, [f]) for f in files}
    count = max(1, min(len(files), max(jobs, -(-len(files) // MAX_FILES_PER_RUN))))
    shares: list[list[str]] = [[] for _ in range(count)]
    loads = [0] * len(shares)
    for f in sorted(files, key=lambda f: -sizes[f]):
        i = loads.index(min(loads))
        shares[i].append(f)
        loads[i] += sizes[f] + 100  # about 0.1 s of start-up per process, in line terms
    return [share for share in shares if share]


def _convert_share(tool: Tool, cwd: Path, share: list[str], quiet: bool,
                   ) -> tuple[dict[str, Converted], list[tuple[str, str]]]:
    with tempfile.TemporaryDirectory(prefix="rocm-migrate-hipify-") as folder:
        names = {}
        for n, rel in enumerate(share):
            suffix = Path(rel).suffix
            name = f"{n}{suffix if suffix[1:].isalnum() else ''}"
            shutil.copyfile(cwd / rel, Path(folder) / name, follow_symlinks=False)
            names[name] = rel
        options = ["-inplace", "-print-stats", *(["-quiet-warnings"] if quiet else [])]
        try:
            done = run(tool, [*options, *names], cwd=folder, timeout=budget(_lines(cwd, share)))
        except HipifyError as exc:
            return {}, [(rel, str(exc)) for rel in share]
        report = parse_examine(done.stderr, list(names))
        out = {}
        for name, rel in names.items():
            examined = replace(_renamed(report.get(name), {name: rel}), warned=not quiet)
            out[rel] = Converted(path=rel, text=(Path(folder) / name).read_bytes(), examine=examined)
        return out, []


def _safe(files: Sequence[str]) -> list[str]:
    """A relative path starting with '-' would be read as an option."""
    return [f"./{f}" if f.startswith("-") else f for f in files]


def _renamed(item: FileExamine, rename: Mapping[str, str]) -> FileExamine:
    path = rename.get(item.path, item.path)
    if path == item.path:
        return item
    return replace(item, path=path, warnings=tuple(replace(w, path=path) for w in item.warnings))


def _lines(cwd: str | os.PathLike[str], files: Sequence[str]) -> int:
    total = 0
    for f in files:
        with contextlib.suppress(OSError):
            total += (Path(cwd) / f).read_bytes().count(b"\n") + 1
    return total


def _major(version: str | None) -> int:
    try:
        return int((version or "0").split(".")[0])
    except ValueError:
        return 0


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= SHOWN else text[:SHOWN] + f" ... ({len(text) - SHOWN} more characters)"
