"""A resident lint process, as mypy's dmypy or eslint_d: `rocm-migrate lint-server start` leaves a
server that has the lint modules imported and the rule base loaded, and the process entry's
client (cli/lint_client.py) hands it `rocm-migrate lint ...` command lines.

The server listens on a Unix socket in the user's cache directory (folder 0700, socket 0600, both
checked for owner and mode by the client; each connection's peer must be the same user: Linux's
SO_PEERCRED). Each connection is taken by a child forked ahead of it (a copy of the warm process
that no request changed; see Server), which answers `status` and `stop`, or for a lint takes the client's working folder,
environment, argv and stream setup, runs the command as the process entry would (cli/lint_args.py
or click), and sends back the bytes written to stdout and stderr, in order, and the exit code. The
child reads what a lint in the client's process would read, nothing else. A server whose code,
rule files or libraries changed since it started (any stamp of its package or rule folder, or of
a library module it imported) is stale: it
refuses the request (the client then runs the lint itself) and stops. It stops too after
`idle_seconds` without a lint request. No network port; Linux only (elsewhere the client never finds one)."""
from __future__ import annotations

import contextlib
import io
import mmap
import os
import select
import signal
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from migrate import __version__
from migrate.cli import lint_client as client

IDLE_SECONDS = 1800  # the default idle timeout
REQUEST_SECONDS = 10.0  # the longest the server waits for a request's bytes
STARTUP_SECONDS = 60.0  # the longest `start` waits for a new server to answer
# what a lint imports beyond its entry, loaded once by the server (a child imports the rest itself):
# these modules, and every module of these packages
WARM_MODULES = ("migrate.cli.entry", "migrate.scan.replay", "migrate.cli.lint_args", "migrate.cli.lint_run",
                "migrate.cli.main", "migrate.cli.lint", "migrate.settings", "click._textwrap",
                "migrate.render.sarif_report", "migrate.vcs")
WARM_PACKAGES = ("migrate.lint", "migrate.extract")

WARM_UP_FILES = {
    "src/kernel.cu": "#include <cuda_runtime.h>\n__global__ void k(float* v) {\n"
                     "  v[threadIdx.x] += __shfl_down_sync(0xffffffff, v[0], 1);\n}\n"
                     "void run(float* v) { cudaMalloc(&v, 4); k<<<1, 32>>>(v); }\n",
    "src/host.cpp": "#include <cuda_runtime.h>\nint main() { return cudaDeviceSynchronize(); }\n",
    "src/model.py": "import torch\nx = torch.cuda.is_available()\n",
    "CMakeLists.txt": "project(p LANGUAGES CXX CUDA)\nfind_package(CUDAToolkit)\nadd_library(k src/kernel.cu)\n",
    "requirements.txt": "torch==2.6.0\n",
}

ACCEPTED, LINTED, STOPPING = b"alq"  # what a spare child tells the server through its pipe

Stamps = dict[str, tuple[int, ...]]


class ServerError(Exception):
    """A server could not be started, reached or stopped (a message for the user)."""


def status(project: Path) -> dict[str, str] | None:
    """The running server's facts (pid, version, started, requests, idle timeout), or None."""
    path = client.socket_path(project)
    if path is None or not client.usable():
        return None
    try:
        fields = client.exchange(path, [client.PROTOCOL, b"status"], timeout=REQUEST_SECONDS)
    except (OSError, ValueError):
        return None
    if fields[:1] != [b"ok"] or len(fields) % 2 != 1:
        return None
    return {fields[i].decode(): fields[i + 1].decode() for i in range(1, len(fields), 2)}


def stop(project: Path) -> bool:
    """Stop the project's server; whether one was running."""
    path = client.socket_path(project)
    if path is None:
        return False
    try:
        client.exchange(path, [client.PROTOCOL, b"stop"], timeout=REQUEST_SECONDS)
    except (OSError, ValueError):
        return False
    return True


def start(project: Path, *, idle_seconds: int = IDLE_SECONDS) -> str:
    """Start a server for `project` (the working folder of the lints it serves) in the background
    and return its pid once it answers. Raises ServerError."""
    if not client.usable():
        raise ServerError("a lint server needs Linux (peer credentials of Unix sockets)")
    socket = client.socket_path(project)
    if socket is None:
        raise ServerError(f"the cache directory's path is too long for a socket: {client.folder()}")
    path = Path(socket)
    _private_folder(path.parent)
    running = status(project)
    if running:
        return running["pid"]
    pid = os.fork()
    if pid == 0:  # the first child: a session of its own, then the server in a grandchild
        try:
            os.setsid()
            if os.fork() == 0:
                _daemon(path, idle_seconds)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        running = status(project)
        if running:
            return running["pid"]
        time.sleep(0.05)
    raise ServerError("the lint server did not start")


def _private_folder(folder: Path) -> None:
    """Make the socket's folder (0700), or check one that is there: this user's, shut to others."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    if not client.private(os.lstat(folder), stat.S_IFDIR):
        raise ServerError(f"{folder} is not a folder of this user's, closed to others (mode 0700)")


def _daemon(path: Path, idle_seconds: int) -> None:
    """The server process: standard streams on /dev/null, warm, serve, never return."""
    code = 0
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        Server(path, idle_seconds).run()
    except BaseException:  # a daemon has no one to tell; the client falls back
        code = 1
    finally:
        os._exit(code)


class Server:
    """The server process. One spare child at a time waits in accept() on the listening socket,
    forked ahead (the fork is off the request's path): a client talks to it directly.
    As it accepts, it tells the server through a pipe, which forks the next spare; it then answers
    the connection (status, stop, a stale refusal or the lint) and exits."""

    def __init__(self, path: Path, idle_seconds: int) -> None:
        self.path, self.idle_seconds = path, idle_seconds
        self.started = time.time()
        self.requests = mmap.mmap(-1, 8)  # the count of lint requests, shared with the children (they read it)
        self.children: set[int] = set()
        self.stamps: Stamps = {}
        self.last = time.monotonic()  # of the last lint request
        self.spare = 0  # the pid of the child waiting in accept(), 0 when none
        self.alive = (-1, -1)

    def run(self) -> None:
        import gc
        import socket

        _warm()
        self.stamps = _stamps(_watched())
        gc.collect()
        gc.freeze()  # the warm objects stay out of every child's collections (and its pages shared)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            if os.path.lexists(self.path):  # a dead server's socket (a live one answered status)
                os.unlink(self.path)
            listener.bind(os.fsencode(self.path))
        finally:
            os.umask(old_umask)
        os.chmod(self.path, 0o600)
        identity = os.stat(self.path).st_ino
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        listener.listen(64)
        news, told = os.pipe()
        self.alive = os.pipe()  # held open by the server only: its children see the end of it when it dies
        try:
            self._loop(listener, news, told)
        finally:
            if self.spare:
                with contextlib.suppress(OSError):
                    os.kill(self.spare, signal.SIGTERM)
            listener.close()
            try:  # only this server's socket (a newer server may have taken the path)
                if os.stat(self.path).st_ino == identity:
                    os.unlink(self.path)
            except OSError:
                pass

    def _loop(self, listener: Any, news: int, told: int) -> None:
        self.last = time.monotonic()
        while True:
            self._reap()
            if not self.spare:
                self._fork_spare(listener, news, told)
            waited = self.idle_seconds - (time.monotonic() - self.last)
            if waited <= 0 and self.children <= {self.spare}:
                return
            ready, _, _ = select.select([news], [], [], max(min(waited, 1.0), 0.1))
            for event in os.read(news, 512) if ready else b"":
                if event == ACCEPTED:
                    self.spare = 0
                elif event == LINTED:
                    self.requests[:] = (int.from_bytes(self.requests[:], "little") + 1).to_bytes(8, "little")
                    self.last = time.monotonic()  # a lint request, not a status, keeps the server up
                elif event == STOPPING:
                    return

    def _fork_spare(self, listener: Any, news: int, told: int) -> None:
        pid = os.fork()
        if pid == 0:
            os.close(news)
            os.close(self.alive[1])
            self._spare(listener, told)
        self.children.add(pid)
        self.spare = pid

    def _spare(self, listener: Any, told: int) -> None:
        """The spare child: one connection (none when the server is gone first); never returns. It
        does no warm-up lint of its own: that measured 18 ms more CPU per request for no wall time
        seen on a loaded 2-core machine."""
        code = 0
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            ready, _, _ = select.select([listener, self.alive[0]], [], [])
            if self.alive[0] in ready:  # the server is gone (even killed)
                return
            connection, _ = listener.accept()
            os.write(told, bytes([ACCEPTED]))
            listener.close()
            self._answer(connection, told)
        except BaseException:  # the client, if any, runs the lint itself
            code = 1
        finally:
            os._exit(code)

    def _answer(self, connection: Any, told: int) -> None:
        """Answer one connection, in the spare child that took it."""
        if client.peer_uid(connection) != os.getuid():
            return
        connection.settimeout(REQUEST_SECONDS)
        fields = client.decode(client.receive(connection))
        if fields[:1] != [client.PROTOCOL] or len(fields) < 2:
            return
        kind = fields[1]
        if kind == b"stop":
            os.write(told, bytes([STOPPING]))
            connection.sendall(client.encode([b"ok"]))
        elif kind == b"status":
            facts = {"pid": os.getppid(), "version": __version__, "started": int(self.started),
                     "requests": int.from_bytes(self.requests[:], "little"), "idle_timeout": self.idle_seconds,
                     "socket": self.path}
            answer = [b"ok", *(os.fsencode(str(x)) for item in facts.items() for x in item)]
            connection.sendall(client.encode(answer))
        elif kind == b"lint":
            if fields[2:3] != [__version__.encode()] or _stamps(list(self.stamps)) != self.stamps:
                os.write(told, bytes([STOPPING]))
                connection.sendall(client.encode([b"stale"]))
                return
            os.write(told, bytes([LINTED]))
            _child(connection, fields)

    def _reap(self) -> None:
        for pid in list(self.children):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                self.children.discard(pid)
                if pid == self.spare:  # it died before taking a connection: fork another
                    self.spare = 0


def _warm() -> None:
    """Import what a lint imports and load the shipped rule base once; later loads of the same
    rules with the same cache folder are this one (a stale server is never asked)."""
    import importlib
    import pkgutil

    for module in WARM_MODULES:
        importlib.import_module(module)
    for name in WARM_PACKAGES:
        package = importlib.import_module(name)
        for found in pkgutil.walk_packages(package.__path__, f"{name}."):
            importlib.import_module(found.name)
    from migrate.rulebase import precompiled
    from migrate.scan import cache

    cache_dir = cache.default_dir()
    shipped = precompiled.load(None, cache_dir)
    loader = precompiled.load

    def load(directory: Path | None = None, cache_dir_: Path | None = None) -> Any:
        if directory is None and cache_dir_ == cache_dir:
            return shipped
        return loader(directory, cache_dir_)

    setattr(precompiled, "load", load)  # noqa: B010 (the server's own process; each child inherits it)
    _warm_up_lint()


def _warm_up_lint() -> None:
    """One lint of a few small files of common kinds in a private temporary project, its output
    dropped: what the first lint of a process pays once (lazy imports, the parsers, patterns
    compiled on first use) is paid here, before any child is forked. Its paths are its own, so
    nothing a lint keeps by path can be met by a request."""
    import shutil
    import tempfile

    from migrate.cli import lint_args, lint_run

    here, streams = os.getcwd(), (sys.stdout, sys.stderr)
    project = tempfile.mkdtemp(prefix="rocm-migrate-lint-server-")
    try:
        for rel, text in WARM_UP_FILES.items():
            path = Path(project, rel)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        os.chdir(project)
        sys.stdout = sys.stderr = io.StringIO()
        options = lint_args.read(["lint", *WARM_UP_FILES, "--no-cache", "-q"])
        if options is not None:
            with contextlib.suppress(SystemExit):
                lint_run.main(options)
    finally:
        sys.stdout, sys.stderr = streams
        os.chdir(here)
        shutil.rmtree(project, ignore_errors=True)


def _watched() -> list[str]:
    """The package's files and folders, and the rule base's: the server's code and data; and the
    file of every other module it imported beyond the interpreter's own (its libraries: an upgrade
    of tree-sitter or click makes it stale too)."""
    import migrate
    from migrate.rulebase.load import default_rules_dir

    found: list[str] = []
    for top in (os.path.dirname(os.path.realpath(migrate.__file__)), str(default_rules_dir())):
        for folder, folders, names in os.walk(top):
            folders[:] = [f for f in folders if f != "__pycache__"]
            found.append(folder)
            found += [os.path.join(folder, name) for name in names if not name.endswith(".pyc")]
    known = set(found)
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file not in known and not _interpreter_s(file):
            known.add(file)
            found.append(file)
    return found


def _interpreter_s(file: str) -> bool:
    """Whether a module is the interpreter's own (its version is in the server's key), not an installed one."""
    standard = os.path.join(os.path.dirname(os.__file__), "")
    return file.startswith(standard) and "-packages" not in file[len(standard):]


def _stamps(paths: list[str]) -> Stamps:
    from migrate.rulebase import filestamp

    stamps: Stamps = {}
    for path in paths:
        try:
            stamps[path] = tuple(filestamp.stamp_of(os.stat(path)))
        except OSError:
            stamps[path] = ()
    return stamps


def _child(connection: Any, fields: list[bytes]) -> None:
    """A forked child: run the request as the client's process would and answer; never returns."""
    code = 0
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        answer = _run(fields)
        connection.settimeout(None)
        connection.sendall(client.encode(answer))
    except BaseException:  # no answer: the client runs the lint itself
        code = 1
    finally:
        os._exit(code)


def _run(fields: list[bytes]) -> list[bytes]:
    """The answer to a lint request: b"ok", the exit code, and the chunks written."""
    rest = iter(fields[3:])
    cwd, argv0 = next(rest), next(rest)
    argv = [os.fsdecode(next(rest)) for _ in range(int(next(rest)))]
    environment = [(next(rest), next(rest)) for _ in range(int(next(rest)))]
    streams = [[next(rest) for _ in range(7)] for _ in (1, 2)]
    if next(rest, None) is not None:
        raise ValueError("a request of no shape")
    os.chdir(cwd)
    os.environb.clear()
    os.environb.update(environment)
    sys.argv = [os.fsdecode(argv0), *argv]
    chunks: list[tuple[int, bytes]] = []
    sizes = {}
    for fd, (encoding, errors, line_buffering, write_through, tty, columns, lines) in zip((1, 2), streams, strict=True):
        stream: TextIO = io.TextIOWrapper(io.BufferedWriter(_Chunks(fd, chunks, tty=tty == b"1")), encoding=encoding.decode(),
                                  errors=errors.decode(), line_buffering=line_buffering == b"1",
                                  write_through=write_through == b"1")
        setattr(sys, "stdout" if fd == 1 else "stderr", stream)
        if tty == b"1":
            sizes[fd] = os.terminal_size((int(columns), int(lines)))
    os.get_terminal_size = _terminal_size(sizes)
    code = _command(argv)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    return [b"ok", b"%d" % code, b"%d" % len(chunks), *(part for fd, data in chunks for part in (b"%d" % fd, data))]


def _command(argv: list[str]) -> int:
    """The command's exit code, run as cli/entry.py runs it (without the replay; sys.argv is the
    client's)."""
    from migrate.cli import entry

    try:
        return entry.lint_or_main(argv)()
    except SystemExit as exc:
        return _exit_code(exc.code)


def _exit_code(code: object) -> int:
    """The status the interpreter exits with for SystemExit(code) (a message goes to stderr)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _terminal_size(sizes: dict[int, os.terminal_size]) -> Callable[..., os.terminal_size]:
    """os.get_terminal_size as the client's terminals answer it."""
    def get_terminal_size(fd: int = 1) -> os.terminal_size:
        if fd not in sizes:
            raise OSError(25, "Inappropriate ioctl for device")
        return sizes[fd]

    return get_terminal_size


class _Chunks(io.RawIOBase):
    """A raw stream whose bytes are kept in order with the other stream's (as scan.replay's tee)."""

    def __init__(self, fd: int, chunks: list[tuple[int, bytes]], *, tty: bool) -> None:
        self.fd, self.chunks, self.tty = fd, chunks, tty

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.tty

    def write(self, data: Any) -> int:
        piece = bytes(data)
        if self.chunks and self.chunks[-1][0] == self.fd:
            self.chunks[-1] = (self.fd, self.chunks[-1][1] + piece)
        else:
            self.chunks.append((self.fd, piece))
        return len(piece)
