"""A command served whole from its last run: the bytes it wrote on stdout and stderr, in their
order, and its exit code, kept with what that run read, and given again while none of it changed.

The key is what the process is started with: the arguments, the working folder, the environment,
which streams are terminals and their sizes, the interpreter. On a miss the command runs as usual
while a recorder notes what it reads, seen where the process sees it, not where the code says it:
Python's audit hooks give every file opened and every folder listed, `os.stat`, `os.lstat` and
`os.access` are wrapped for what is only looked at (an absent configuration file too), and every
module the run imported is an input (the tool's own code, its libraries). On a hit each input is
stat'ed again (statcache's racy-stamp rule: an input changed within RACY_NS of the recorded run's
start is never trusted) and the stored bytes are written. A run is not stored when it did what the
recorder cannot see through: started a process (git, workers), wrote or changed a file outside the
cache directory (`-o FILE`), changed folder, or ended in an internal error. Only commands whose
output holds no time of day or duration are served (COMMANDS; `scan` has its report cache, which
writes its time lines anew). An entry is a file of the cache directory (a prefix, a JSON header,
the bytes: data only); one of the wrong shape is a miss. Nothing here imports beyond the standard
library's os layer: a hit costs the interpreter's start, the stats and the copy."""
from __future__ import annotations

import io
import os
import stat
import sys
import time

from migrate.rulebase import filestamp
from migrate.scan import storedfiles

try:  # hashlib's blake2b itself, without the ~2 ms of importing hashlib (OpenSSL's binding)
    from _blake2 import blake2b as _blake2b
except ImportError:  # an interpreter built without it
    from hashlib import blake2b as _blake2b

TYPE_CHECKING = False  # as in scan.storedfiles: typing is not imported on the way to a hit
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any, TextIO

COMMANDS = frozenset({"lint", "stack"})  # their output is a function of what they read, and has no time in it
FOLDER = "commands"
KEPT = 32
FORMAT = "1"
MAGIC = b"rocm-migrate replay 1 "
PREFIX = len(MAGIC) + 17  # the magic, the header's length in 16 digits, a newline
HEADER_MAX = 1 << 26
RACY_NS = filestamp.RACY_NS  # a change within this of a run's start keeps its stamp
STORED_CODES = frozenset({0, 1, 2})  # done, --fail-on reached, usage or input error (not 3: an internal error)
# set by the shell at each command, not read by the tool
VOLATILE_ENVIRONMENT = frozenset({"_", "OLDPWD", "SHLVL"})
# audit events after which the run's output may depend on what the recorder does not see, or the
# run changed something besides its output
STARTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                    "os.forkpty", "os.startfile", "socket.connect", "socket.bind", "os.chdir", "os.fchdir",
                    "ctypes.dlopen", "urllib.Request",
                    "_winapi.CreateProcess"})  # multiprocessing's spawn on Windows (on POSIX the pool forks: os.fork)
CHANGES = frozenset({"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.symlink", "os.link", "os.truncate",
                     "os.chmod", "os.chown", "os.utime", "os.chflags", "os.lchflags", "os.mkfifo", "os.mknod",
                     "shutil.rmtree", "shutil.move", "shutil.copyfile", "tempfile.mkstemp", "tempfile.mkdtemp",
                     "sqlite3.connect"})
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

View = list[int]  # what a stat of an input shows (see _view)
# how an input was met: "f" opened or listed (its whole stamp), "s" stat'ed, "l" lstat'ed (a folder's identity only)
HOW = frozenset({"f", "s", "l"})


def serve(argv: list[str]) -> int | None:
    """Write the stored output of this command line and return its exit code, when an entry for
    it exists and nothing it read changed; else None (nothing written)."""
    folder = _folder(argv)
    if folder is None or not _plain_streams():
        return None
    stored = storedfiles.open_file(folder, _key(argv))
    if stored is None:
        return None
    with stored:
        entry = _read(stored.read())
        if entry is None or not _unchanged(entry.started, entry.inputs) or not _same_answers(entry.queries):
            return None
        storedfiles.used(folder, stored, KEPT)
    for stream, data in entry.chunks:
        out = (sys.stdout if stream == 1 else sys.stderr).buffer
        out.write(data)
        out.flush()
    return entry.code


def record(argv: list[str], run: Callable[[], int]) -> int:
    """Run the command (`run` returns its exit code) and store what it wrote with what it read,
    when it can be replayed; without a cache folder for it, just run it."""
    folder = _folder(argv)
    if folder is None or not _plain_streams():
        return run()
    key = _key(argv)  # as the process started: the run may change its own environment
    recorder = _Recorder(os.path.dirname(folder))
    started = time.time_ns()
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (_tee(1, sys.stdout, recorder), _tee(2, sys.stderr, recorder))
    recorder.start()
    code: object = 3
    try:
        code = run()
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code
        raise
    except BaseException:
        recorder.spoiled = True
        raise
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            recorder.spoiled = True
        sys.stdout, sys.stderr = streams
        recorder.stop()
        if type(code) is int and code in STORED_CODES and not recorder.spoiled:
            inputs = recorder.inputs(settled_before=started - RACY_NS)
            if inputs is not None:
                storedfiles.put(folder, key, _encode(started, code, inputs, recorder.chunks, recorder.queries), kept=KEPT)
    return code


def unrepeatable() -> None:
    """The running command's result depends on the machine, not only on what it read (a file's
    analysis stopped by a time or memory budget): it is not stored."""
    if _Recorder.current is not None:
        _Recorder.current.spoiled = True


Query = tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...], int, str]  # argv, dropped, set, timeout, digest


def query(argv: list[str], *, env: dict[str, str], timeout: int) -> tuple[int, bytes, bytes]:
    """Run a program that only reads and answers (`git ls-files`, `git config --get`): its exit
    code, stdout and stderr. In a recorded run its answer is an input: the command line, the
    environment it got (as names dropped from this process's and values set over it) and a digest
    of the answer are kept, and a hit runs it again and compares. Raises subprocess.TimeoutExpired."""
    import subprocess

    recorder = _Recorder.current
    if recorder is not None:
        recorder.querying = True
    try:
        done = subprocess.run(argv, env=env, capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout, check=False)
    finally:
        if recorder is not None:
            recorder.querying = False
    if recorder is not None and recorder.active:
        dropped = tuple(sorted(k for k in os.environ if k not in env))
        given = tuple(sorted((k, v) for k, v in env.items() if os.environ.get(k) != v))
        recorder.queries.append((tuple(argv), dropped, given, timeout, _answer(done.returncode, done.stdout, done.stderr)))
    return done.returncode, done.stdout, done.stderr


def _answer(code: int, out: bytes, err: bytes) -> str:
    digest = _blake2b(digest_size=32)
    for part in (str(code).encode(), out, err):
        digest.update(b"%d\0" % len(part) + part)
    return digest.hexdigest()


# What may be asked again on a hit. The entry is data from the cache folder, which must not be a
# way to run a program: only git, only in the shapes vcs.py asks (its SAFE_CONFIG pins before any
# command that could start core.fsmonitor; paths only where git takes a path), only vcs.py's ENV set.
QUERY_SECONDS = 120  # the longest a hit waits for an answer
GIT_SAFE_CONFIG = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.untrackedCache=false")
GIT_ENV = frozenset({("GIT_TERMINAL_PROMPT", "0"), ("GIT_ASKPASS", "true")})
GIT_ASKED = {("config", "--get", "core.worktree"): False, ("rev-parse", "HEAD"): False,  # words: needs GIT_SAFE_CONFIG
             ("config", "--path", "--get", "core.excludesFile"): False,
             ("ls-files", "-z", "--cached", "--others", "--exclude-per-directory=.gitignore"): True}


def _askable(argv: tuple[str, ...], given: tuple[tuple[str, str], ...]) -> bool:
    """Whether a recorded query has a shape vcs.py asks (see GIT_ASKED)."""
    if argv[:1] != ("git",) or not set(given) <= GIT_ENV:
        return False
    rest = argv[1:]
    safe = rest[:len(GIT_SAFE_CONFIG)] == GIT_SAFE_CONFIG
    rest = rest[len(GIT_SAFE_CONFIG):] if safe else rest
    if len(rest) < 6 or rest[0::2][:3] != ("--git-dir", "--work-tree", "-C"):
        return False
    asked = rest[6:]
    for words, needs_safe in GIT_ASKED.items():
        if asked[:len(words)] == words and (safe or not needs_safe):
            extra = asked[len(words):]
            return not extra or (words[0] == "ls-files" and all(e.startswith("--exclude-from=") for e in extra))
    return False


def _same_answers(queries: list[Query]) -> bool:
    """Whether each program asked in the recorded run answers the same now."""
    if not queries:
        return True
    if not all(_askable(argv, given) for argv, _, given, _, _ in queries):
        return False
    import subprocess

    for argv, dropped, given, timeout, answer in queries:
        env = {**{k: v for k, v in os.environ.items() if k not in dropped}, **dict(given)}
        try:
            done = subprocess.run(list(argv), env=env, capture_output=True, stdin=subprocess.DEVNULL,
                                  timeout=min(timeout, QUERY_SECONDS), check=False)
        except (OSError, subprocess.SubprocessError):
            return False
        if _answer(done.returncode, done.stdout, done.stderr) != answer:
            return False
    return True


def _plain_streams() -> bool:
    """Whether stdout and stderr are the interpreter's own kind of stream (not closed, not replaced)."""
    return all(isinstance(s, io.TextIOWrapper) for s in (sys.stdout, sys.stderr))


def _folder(argv: list[str]) -> str | None:
    """The folder of stored commands, for a command line that may be served; else None."""
    if not argv or argv[0] not in COMMANDS or "--no-cache" in argv:
        return None
    return os.path.join(os.path.abspath(storedfiles.default_dir()), FOLDER)


def _key(argv: list[str]) -> str:
    ttys = [os.isatty(fd) for fd in (0, 1, 2)]
    sizes = [tuple(os.get_terminal_size(fd)) if ttys[fd] else None for fd in (1, 2)]
    environment = sorted((k, v) for k, v in os.environ.items() if k not in VOLATILE_ENVIRONMENT)
    digest = _blake2b(digest_size=32)
    for part in (FORMAT, sys.version, sys.executable, repr(sys.flags), os.getcwd(), repr(argv), repr(ttys), repr(sizes),
                 repr(environment)):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


def _view(path: str, how: str, real_stat: Callable[..., os.stat_result] = os.stat) -> View:
    """What a stat of the input shows: a folder only stat'ed, its identity (kind, inode, device);
    anything else, its kind and stamp (filestamp.Stamp: size, mtime, ctime, inode, device); an error,
    its number negated."""
    try:
        info = real_stat(path, follow_symlinks=how != "l")
    except OSError as exc:
        return [-(exc.errno or 1)]
    kind = stat.S_IFMT(info.st_mode)
    if how != "f" and stat.S_ISDIR(info.st_mode):
        return [kind, info.st_ino, info.st_dev]
    return [kind, *filestamp.stamp_of(info)]


def _settled(inputs: list[tuple[str, str, View]], started: int) -> bool:
    """Whether every input was last changed well before the run started (else a change in the
    same tick as the run's read could keep its stamp: the entry could never be trusted)."""
    return all(_settled_view(view, started - RACY_NS) for _, _, view in inputs)


def _settled_view(view: View, before: int) -> bool:
    """Whether one input's view shows no change at or after `before` (a folder's identity or an error: no stamp)."""
    return len(view) < 6 or max(view[2], view[3]) < before


def _unchanged(started: int, inputs: list[tuple[str, str, View]]) -> bool:
    return _settled(inputs, started) and all(_view(path, how) == view for path, how, view in inputs)


class _Recorder:
    """What a run reads, and whether it did anything that keeps it from being stored."""

    def __init__(self, cache_dir: str) -> None:
        self.cwd = os.getcwd()
        self.cache_dir = cache_dir
        self.ignored = (*(os.path.join(p, "") for p in {cache_dir, os.path.realpath(cache_dir)}), "/proc/", "/dev/")
        self.met: dict[tuple[str, str], None] = {}
        self.chunks: list[tuple[int, bytes]] = []
        self.spoiled = False
        self.active = False
        self.querying = False  # a program started by `query` (its answer is an input)
        self.queries: list[Query] = []
        self.real = os.stat, os.lstat, os.access

    def start(self) -> None:
        real_stat, real_lstat, real_access = self.real

        def stat_(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
            self._met(path, "s" if kwargs.get("follow_symlinks", True) else "l")
            return real_stat(path, *args, **kwargs)

        def lstat_(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
            self._met(path, "l")
            return real_lstat(path, *args, **kwargs)

        def access_(path: Any, *args: Any, **kwargs: Any) -> bool:
            self._met(path, "s")
            return real_access(path, *args, **kwargs)

        setattr(os, "stat", stat_)  # noqa: B010 (assigned for the recorded run only, put back by stop)
        setattr(os, "lstat", lstat_)  # noqa: B010
        setattr(os, "access", access_)  # noqa: B010
        self.active = True
        if not _Recorder.hooked:
            sys.addaudithook(_Recorder._event)
            _Recorder.hooked = True
        _Recorder.current = self

    def stop(self) -> None:
        self.active = False
        _Recorder.current = None
        for name, function in zip(("stat", "lstat", "access"), self.real, strict=True):
            setattr(os, name, function)

    hooked = False
    current: _Recorder | None = None

    @staticmethod
    def _event(name: str, args: tuple[Any, ...]) -> None:
        recorder = _Recorder.current
        if recorder is None or not recorder.active:
            return
        if name == "open":
            path, mode, flags = args
            if isinstance(path, int):
                return
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) \
                or (isinstance(flags, int) and flags & WRITE_FLAGS)
            if writes:
                recorder._changed(path)
            elif not os.fsdecode(path).endswith(".pyc"):  # the module's source is the input
                recorder._met(path, "f")
        elif name in ("os.listdir", "os.scandir"):
            recorder._met("." if args[0] is None else args[0], "f")
        elif name in CHANGES:
            recorder._changed(args[0])
        elif name in STARTS and not (name == "subprocess.Popen" and recorder.querying):
            recorder.spoiled = True

    def _met(self, path: Any, how: str) -> None:
        if not self.active:
            return
        if isinstance(path, int):  # a descriptor: a folder listed through it is not known by name
            self.spoiled = self.spoiled or how == "f"
            return
        try:
            name = os.fsdecode(os.fspath(path))
        except TypeError:
            self.spoiled = True
            return
        if not self._ignored(name):
            self.met[(name, how)] = None

    def _changed(self, path: Any) -> None:
        try:
            name = os.fsdecode(os.fspath(path))
        except TypeError:
            name = ""
        if not name or not (self._ignored(name) or os.path.join(self.cache_dir, "").startswith(os.path.join(name, ""))):
            self.spoiled = True  # (the cache folder's own ancestors are made when missing)

    def _ignored(self, name: str) -> bool:
        """Whether `name` is in the cache folder (or the system's pseudo-files), not an input."""
        return os.path.join(self.cwd, name, "").startswith(self.ignored)

    def inputs(self, *, settled_before: int) -> list[tuple[str, str, View]] | None:
        """Each input with what a stat of it shows now, the modules the run imported among them; None as soon as one
        was changed at or after `settled_before` (the run's start less RACY_NS: `_settled`'s rule), when the run cannot
        be stored. The file a pre-commit lint checks right after its edit is among the first inputs met: the ~300
        after it (the modules) are then not stat'ed (~1.5 M instructions of such a lint's ~235 M)."""
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and not self._ignored(file) and not _standard_library(file):
                self.met[(file, "f")] = None
        met, real_stat = self.met, self.real[0]
        found = []
        for path, how in met:
            if how == "s" and (path, "f") in met:
                continue  # a path opened or listed needs no stat of its own: its whole stamp is kept
            view = _view(path, how, real_stat)
            if not _settled_view(view, settled_before):
                return None
            found.append((path, how, view))
        return found


STANDARD_LIBRARY = os.path.join(os.path.dirname(os.__file__), "")


def _standard_library(file: str) -> bool:
    """Whether a module is the interpreter's own (its release, in the key, stands for it), not an installed one."""
    return file.startswith(STANDARD_LIBRARY) and "-packages" not in file[len(STANDARD_LIBRARY):]


def _tee(fd: int, stream: TextIO, recorder: _Recorder) -> TextIO:
    """A text stream like `stream` (encoding, errors, buffering, isatty) whose bytes go to it and
    are kept, in order with the other stream's, in `recorder.chunks`."""
    assert isinstance(stream, io.TextIOWrapper)
    raw = _Tee(fd, stream, recorder)
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding, errors=stream.errors,
                            line_buffering=stream.line_buffering, write_through=stream.write_through)


class _Tee(io.RawIOBase):
    def __init__(self, fd: int, stream: io.TextIOWrapper, recorder: _Recorder) -> None:
        self.fd, self.stream, self.recorder = fd, stream, recorder

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def write(self, data: Any) -> int:
        piece = bytes(data)
        chunks = self.recorder.chunks
        if chunks and chunks[-1][0] == self.fd:
            chunks[-1] = (self.fd, chunks[-1][1] + piece)
        else:
            chunks.append((self.fd, piece))
        self.stream.buffer.write(piece)
        self.stream.buffer.flush()
        return len(piece)


class _Entry:
    def __init__(self, started: int, code: int, inputs: list[tuple[str, str, View]],
                 chunks: list[tuple[int, bytes]], queries: list[Query]) -> None:
        self.started, self.code, self.inputs, self.chunks, self.queries = started, code, inputs, chunks, queries


def _encode(started: int, code: int, inputs: list[tuple[str, str, View]], chunks: list[tuple[int, bytes]],
            queries: Sequence[Query] = ()) -> list[bytes]:
    """The prefix (magic, header length), the header (fields separated by NUL, which no path holds:
    the run's start, its exit code, each chunk's stream and size, each input's way, name and view),
    then the chunks' bytes."""
    fields = [str(started), str(code), str(len(chunks)), *(f"{stream}\0{len(data)}" for stream, data in chunks),
              str(len(inputs)), *(f"{how}\0{path}\0{','.join(map(str, view))}" for path, how, view in inputs),
              str(len(queries)), *("\0".join(_query_fields(q)) for q in queries)]
    header = "\0".join(fields).encode("utf-8", "surrogateescape")
    return [MAGIC + b"%016d\n" % len(header) + header, *(data for _, data in chunks)]


def _read(data: bytes) -> _Entry | None:
    """The entry stored in `data`; None unless every field has its type and the sizes add up."""
    prefix = data[:PREFIX]
    if len(prefix) != PREFIX or not prefix.startswith(MAGIC) or not prefix[len(MAGIC):-1].isdigit():
        return None
    length = int(prefix[len(MAGIC):-1])
    if length > HEADER_MAX or PREFIX + length > len(data):
        return None
    try:
        fields = iter(data[PREFIX:PREFIX + length].decode("utf-8", "surrogateescape").split("\0"))
        started, code = _number(next(fields)), _number(next(fields))
        chunks, at = [], PREFIX + length
        for _ in range(_number(next(fields))):
            stream, size = _number(next(fields)), _number(next(fields))
            if stream not in (1, 2):
                return None
            chunks.append((stream, data[at:at + size]))
            at += size
        inputs = []
        for _ in range(_number(next(fields))):
            how, path, view = next(fields), next(fields), [int(n) for n in next(fields).split(",")]
            if how not in HOW or len(view) not in (1, 3, 6):
                return None
            inputs.append((path, how, view))
        queries = [_query(fields) for _ in range(_number(next(fields)))]
        if next(fields, None) is not None or at != len(data) or code not in STORED_CODES:
            return None
    except (ValueError, StopIteration):
        return None
    return _Entry(started, code, inputs, chunks, queries)


def _query_fields(query: Query) -> list[str]:
    argv, dropped, given, timeout, answer = query
    return [str(len(argv)), *argv, str(len(dropped)), *dropped, str(len(given)), *(f for item in given for f in item),
            str(timeout), answer]


def _query(fields: Iterator[str]) -> Query:
    argv = tuple(next(fields) for _ in range(_number(next(fields))))
    dropped = tuple(next(fields) for _ in range(_number(next(fields))))
    given = tuple((next(fields), next(fields)) for _ in range(_number(next(fields))))
    timeout, answer = _number(next(fields)), next(fields)
    if not argv or len(answer) != 64:
        raise ValueError("a query of no shape")
    return argv, dropped, given, timeout, answer


def _number(field: str) -> int:
    """A non-negative decimal number, else ValueError."""
    if not field.isdigit() or not field.isascii():
        raise ValueError(field)
    return int(field)
