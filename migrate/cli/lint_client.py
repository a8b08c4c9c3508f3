"""The lint command's client of a resident lint server (cli/lint_server.py): what the process entry
tries after a replay miss and before importing anything of the lint itself. It looks for a server
of this user, this project (the working folder), this rocm-migrate (version, code folder) and this
interpreter, in the cache directory, sends the command line, the working folder, the environment
and how stdout and stderr are set up, and writes the bytes the server's run wrote, in their order;
the server's exit code is the command's. With no usable server (none, the wrong owner or
permissions, a dead socket, a stale server, any error) it returns None and writes nothing: the
command runs in this process as before. Standard library only, and only its C socket layer.

The wire format is length-prefixed fields (`<decimal length>\\n<bytes>`), both ways; each message is
one connection. Data only: nothing received is run or unpickled."""
from __future__ import annotations

import os
import stat
import sys

from migrate import __version__
from migrate.scan import storedfiles

try:  # as in scan.replay: blake2b without importing hashlib
    from _blake2 import blake2b as _blake2b
except ImportError:
    from hashlib import blake2b as _blake2b

TYPE_CHECKING = False  # as in scan.storedfiles: typing and pathlib are not imported on the way to a server
if TYPE_CHECKING:
    from collections.abc import Iterator

    Folder = str | os.PathLike[str]

PROTOCOL = b"rocm-migrate lint-server 1"
FOLDER = "lint-server"
SOCKET_PATH_MAX = 100  # sun_path holds 108 bytes on Linux, 104 on the BSDs
MESSAGE_MAX = 1 << 28  # a request or an answer larger than this is refused (argv is bounded by ARG_MAX anyway)
CONNECT_SECONDS = 2.0  # a server that does not take the request within this is not used
# variables the interpreter reads as it starts (encodings, paths, flags): a server is shared only by
# processes that agree on them; the rest of the environment goes with each request
INTERPRETER_VARIABLES = ("LANG", "LC_ALL", "LC_CTYPE")
INTERRUPTED = 130
PEERCRED = 17  # SO_PEERCRED on Linux (struct ucred: pid, uid, gid as 32-bit ints)


def serve(argv: list[str]) -> int | None:
    """Run `argv` (a lint command line) on the resident server and return its exit code, its output
    written; None when no usable server answered (nothing written)."""
    if not usable():
        return None
    try:
        path = socket_path(os.getcwd())
        if path is None or not _owned(path, stat.S_IFSOCK):
            return None
        answer = exchange(path, request(argv))
    except (OSError, ValueError):
        return None
    except KeyboardInterrupt:  # as the lint in this process answers ^C (cli.main.shown)
        sys.stderr.write("\n")
        sys.stderr.flush()
        return INTERRUPTED
    fields = iter(answer)
    if next(fields, None) != b"ok":
        return None
    try:
        code = int(next(fields))
        chunks = [(int(next(fields)), next(fields)) for _ in range(int(next(fields)))]
    except (StopIteration, ValueError):
        return None
    if any(fd not in (1, 2) for fd, _ in chunks):
        return None
    for fd, data in chunks:
        out = (sys.stdout if fd == 1 else sys.stderr).buffer
        out.write(data)
        out.flush()
    return code


def usable() -> bool:
    """Whether this process can use a server: Linux's peer credentials, the interpreter's own
    streams, no shell completion asked."""
    import io

    return (sys.platform.startswith("linux") and "_ROCM_MIGRATE_COMPLETE" not in os.environ
            and all(isinstance(s, io.TextIOWrapper) for s in (sys.stdout, sys.stderr)))


def key(project: Folder) -> str:
    """Who may share a server: the user, the project, this rocm-migrate and this interpreter."""
    import migrate

    digest = _blake2b(digest_size=10)
    parts = (PROTOCOL.decode(), __version__, os.path.dirname(os.path.realpath(migrate.__file__)), sys.executable,
             sys.version, repr(sys.flags), sys.getfilesystemencoding(), str(os.getuid()), os.fspath(project),
             repr(sorted((k, v) for k, v in os.environ.items() if k in INTERPRETER_VARIABLES or k.startswith("PYTHON"))))
    for part in parts:
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


def folder() -> str:
    return os.path.join(os.path.abspath(storedfiles.default_dir()), FOLDER)


def socket_path(project: Folder) -> str | None:
    """The socket of the server for `project`, or None where the path is too long for a socket."""
    path = os.path.join(folder(), f"{key(project)}.sock")
    return path if len(os.fsencode(path)) <= SOCKET_PATH_MAX else None


def _owned(path: str, kind: int) -> bool:
    """Whether `path` is a `kind` (not a link) owned by this user and shut to others, in a folder
    that is too (0700)."""
    try:
        parent, info = os.lstat(os.path.dirname(path)), os.lstat(path)
    except OSError:
        return False
    return private(parent, stat.S_IFDIR) and private(info, kind)


def private(info: os.stat_result, kind: int) -> bool:
    """Whether `info` (an lstat) is of a `kind` of file owned by this user and shut to others."""
    return stat.S_IFMT(info.st_mode) == kind and info.st_uid == os.getuid() and not info.st_mode & 0o077


def request(argv: list[str]) -> list[bytes]:
    """A lint request: this process's command line, working folder, environment and streams."""
    streams: list[bytes] = []
    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        tty = os.isatty(fd)
        size = os.get_terminal_size(fd) if tty else (0, 0)
        streams += [str(stream.encoding).encode(), str(stream.errors).encode(), b"%d" % stream.line_buffering,
                    b"%d" % getattr(stream, "write_through", False), b"%d" % tty, b"%d" % size[0], b"%d" % size[1]]
    environment = [part for item in sorted(os.environb.items()) for part in item]
    return [PROTOCOL, b"lint", __version__.encode(), os.fsencode(os.getcwd()), os.fsencode(sys.argv[0]),
            b"%d" % len(argv), *map(os.fsencode, argv), b"%d" % (len(environment) // 2), *environment, *streams]


def exchange(path: Folder, message: list[bytes], *, timeout: float | None = None) -> list[bytes]:
    """Send `message` to the server at `path` and return its answer's fields. Raises OSError (no
    server, not this user's, a dead socket) or ValueError (an answer of no shape)."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_SECONDS)
        sock.connect(os.fsencode(path))
        if peer_uid(sock) != os.getuid():
            raise ConnectionRefusedError("the server is another user's")
        sock.settimeout(timeout)
        sock.sendall(encode(message))
        sock.shutdown(_socket.SHUT_WR)
        return decode(receive(sock))
    finally:
        sock.close()


def peer_uid(sock: object) -> int:
    """The user id of the process at the other end of a Unix socket (SO_PEERCRED)."""
    import _socket

    raw: bytes = sock.getsockopt(_socket.SOL_SOCKET, PEERCRED, 12)  # type: ignore[attr-defined]
    return int.from_bytes(raw[4:8], sys.byteorder)


def receive(sock: object) -> bytes:
    """Everything the other end sends until it shuts its side, at most MESSAGE_MAX bytes."""
    parts: list[bytes] = []
    size = 0
    while True:
        part: bytes = sock.recv(1 << 20)  # type: ignore[attr-defined]
        if not part:
            return b"".join(parts)
        size += len(part)
        if size > MESSAGE_MAX:
            raise ValueError("message too large")
        parts.append(part)


def encode(fields: list[bytes]) -> bytes:
    return b"".join(b"%d\n%s" % (len(field), field) for field in fields)


def decode(data: bytes) -> list[bytes]:
    """The fields of a message; ValueError when it is not a whole number of fields."""
    return list(_fields(data))


def _fields(data: bytes) -> Iterator[bytes]:
    at = 0
    while at < len(data):
        end = data.find(b"\n", at, at + 12)
        length = data[at:end]
        if end < 0 or not length.isdigit():
            raise ValueError("a field of no shape")
        start = end + 1
        at = start + int(length)
        if at > len(data):
            raise ValueError("a field cut short")
        yield data[start:at]
