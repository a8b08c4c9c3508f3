"""The resident lint server (cli/lint_server.py) and the entry's client (cli/lint_client.py): the real
CLI in subprocesses, with and without a server, gives the same bytes and exit codes; a stale server,
a dead socket or a folder open to others is not used; the client path imports almost nothing."""
from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import ROOT, write_tree

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the lint server is Linux only")

KERNEL = ("#include <cuda_runtime.h>\n"
          "__global__ void k(float* v) { v[0] += __shfl_down_sync(0xffffffff, v[0], 1); }\n")
PROJECT = {"src/k.cu": KERNEL, "src/m.py": "import torch\nx = torch.cuda.is_available()\n",
           "src/CMakeLists.txt": "find_package(CUDA)\n", "src/plain.c": "int main(void) { return 0; }\n",
           "src/bad.cu": "__global__ void k(float* v) { cudaMalloc(&v, 4); \xe9 }\n"}
# command lines through lint_args (plain) and through click (the rest), with every format and error
LINES = [
    ["src/k.cu"],
    ["src/k.cu", "src/m.py", "src/CMakeLists.txt", "src/plain.c", "src/bad.cu"],
    ["src/k.cu", "-f", "json"],
    ["src/k.cu", "--format", "sarif"],
    ["src/k.cu", "src/m.py", "--statistics"],
    ["src/k.cu", "--statistics", "-f", "json"],
    ["src/k.cu", "--fail-on", "incompatible", "-v"],
    ["src/k.cu", "--select", "HIP4", "-q"],
    ["src/plain.c", "-v"],
    ["src/k.cu", "--fail-on", "native"],
    ["src/missing.cu"],
    ["src/k.cu", "--select", "NOPE"],
    ["--help"],
    ["src/k.cu", "--statistics", "-f", "sarif"],
    ["src"],
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project and a cache folder short enough for a socket path; the server stopped after."""
    cache = Path(tempfile.mkdtemp(prefix="rmls-"))
    monkeypatch.setenv("ROCM_MIGRATE_CACHE_DIR", str(cache))
    tree = write_tree(tmp_path / "p", PROJECT)
    yield tree
    cli(tree, "lint-server", "stop")
    shutil.rmtree(cache, ignore_errors=True)


def cli(cwd: Path, *args: str, env: dict[str, str] | None = None,
        merged: bool = False) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "migrate", *args], cwd=cwd, capture_output=not merged,
                          stdout=subprocess.PIPE if merged else None, stderr=subprocess.STDOUT if merged else None,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, timeout=300, check=False)


def requests(cwd: Path, env: dict[str, str] | None = None) -> int:
    """The running server's count of lint requests (fails when none runs)."""
    done = cli(cwd, "lint-server", "status", env=env)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split(b", ")[3].split()[0])


def start(cwd: Path, *extra: str, env: dict[str, str] | None = None) -> None:
    done = cli(cwd, "lint-server", "start", *extra, env=env)
    assert done.returncode == 0, done.stderr
    assert b"lint server running (pid " in done.stderr


def test_the_same_bytes_and_exit_code_with_and_without_a_server(project: Path) -> None:
    start(project)
    served = {tuple(line): cli(project, "lint", *line, "--no-cache") for line in LINES}
    merged = cli(project, "lint", *LINES[1], merged=True)  # stdout and stderr in one pipe: their order
    assert requests(project) == len(LINES) + 1  # every line went to the server
    assert cli(project, "lint-server", "stop").returncode == 0
    assert cli(project, "lint-server", "status").returncode == 1
    for line, with_server in served.items():
        alone = cli(project, "lint", *line, "--no-cache")
        assert (with_server.returncode, with_server.stdout, with_server.stderr) == \
            (alone.returncode, alone.stdout, alone.stderr), line
    alone = cli(project, "lint", *LINES[1], merged=True)
    assert (merged.returncode, merged.stdout) == (alone.returncode, alone.stdout)
    assert {done.returncode for done in served.values()} == {0, 1, 2}  # the lines cover every outcome
    assert b"HIP4010" in served[("src/k.cu",)].stdout


def test_configuration_working_folder_and_environment_are_the_client_s(project: Path) -> None:
    start(project)
    before = cli(project, "lint", "src/k.cu", "--no-cache")
    (project / ".rocm-migrate.toml").write_text('ignore = ["HIP4010"]\n')  # read anew by each request
    after = cli(project, "lint", "src/k.cu", "--no-cache")
    elsewhere = cli(project / "src", "lint", "k.cu", "--no-cache")  # another folder: no server of its own
    assert requests(project) == 2
    assert b"HIP4010" in before.stdout and b"HIP4010" not in after.stdout and b"HIP4002" in after.stdout
    other_cache = cli(project, "lint", "src/k.cu", "--no-cache",
                      env={"ROCM_MIGRATE_CACHE_DIR": os.environ["ROCM_MIGRATE_CACHE_DIR"] + "-other"})
    assert requests(project) == 2  # another cache directory is another user's setup: not this server
    cli(project, "lint-server", "stop")
    assert cli(project, "lint", "src/k.cu", "--no-cache").stdout == after.stdout == other_cache.stdout
    assert elsewhere.stdout == after.stdout.replace(b"src/k.cu", b"k.cu")


def test_a_stale_server_is_refused_and_stops(tmp_path: Path, project: Path) -> None:
    code = tmp_path / "code"  # a copy of rocm-migrate whose rule files can change
    shutil.copytree(ROOT / "migrate", code / "migrate", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "rules", code / "rules")
    env = {"PYTHONPATH": str(code)}
    start(project, env=env)
    first = cli(project, "lint", "src/k.cu", "--no-cache", env=env)
    assert requests(project, env) == 1
    rule_file = next((code / "rules").rglob("*.yaml"))
    os.utime(rule_file, ns=(time.time_ns(), time.time_ns()))  # same text, a new stamp: stale all the same
    again = cli(project, "lint", "src/k.cu", "--no-cache", env=env)
    assert (again.returncode, again.stdout, again.stderr) == (first.returncode, first.stdout, first.stderr)
    assert cli(project, "lint-server", "status", env=env).returncode == 1  # it stopped
    assert not list((Path(os.environ["ROCM_MIGRATE_CACHE_DIR"]) / "lint-server").glob("*.sock"))


def _socket_of(project: Path) -> Path:
    found = list((Path(os.environ["ROCM_MIGRATE_CACHE_DIR"]) / "lint-server").glob("*.sock"))
    assert len(found) == 1
    return found[0]


def _processes_of(cache: Path) -> list[int]:
    """The processes running with this cache directory (a server and its children)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"ROCM_MIGRATE_CACHE_DIR={cache}".encode() in environment and entry.name != str(os.getpid()):
            found.append(int(entry.name))
    return found


def test_a_dead_socket_falls_back_and_start_replaces_it(project: Path) -> None:
    start(project)
    assert len(_processes_of(Path(os.environ["ROCM_MIGRATE_CACHE_DIR"]))) >= 2  # the server and its spare child
    path = _socket_of(project)
    pid = int(cli(project, "lint-server", "status").stdout.split(b",")[0].split()[1])
    os.kill(pid, 9)
    time.sleep(0.2)
    assert path.exists()  # killed: its socket is left behind, and nothing listens
    deadline = time.monotonic() + 10
    while _processes_of(Path(os.environ["ROCM_MIGRATE_CACHE_DIR"])):  # its spare child sees it gone and exits
        assert time.monotonic() < deadline
        time.sleep(0.1)
    dead = cli(project, "lint", "src/k.cu", "--no-cache")
    assert dead.returncode == 1 and b"HIP4010" in dead.stdout and dead.stderr.startswith(b"rocm-migrate: 1 file")
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # a socket file bound by no live process
    path.unlink()
    stale.bind(str(path))
    stale.close()
    os.chmod(path, 0o600)
    assert cli(project, "lint", "src/k.cu", "--no-cache").stdout == dead.stdout
    start(project)
    assert requests(project) == 0
    cli(project, "lint-server", "stop")
    deadline = time.monotonic() + 10
    while _processes_of(Path(os.environ["ROCM_MIGRATE_CACHE_DIR"])):  # stopped: no child left behind
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_permissions_and_owner_are_checked(project: Path) -> None:
    start(project)
    path = _socket_of(project)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    cli(project, "lint", "src/k.cu", "--no-cache")
    assert requests(project) == 1
    path.parent.chmod(0o755)  # a folder others can enter is not trusted: the lint runs in its own process
    try:
        assert cli(project, "lint", "src/k.cu", "--no-cache").returncode == 1
        assert b"not a folder of this user's" in cli(project, "lint-server", "start").stderr
    finally:
        path.parent.chmod(0o700)
    assert requests(project) == 1
    path.chmod(0o666)
    cli(project, "lint", "src/k.cu", "--no-cache")
    path.chmod(0o600)
    assert requests(project) == 1


def test_the_idle_timeout_stops_the_server(project: Path) -> None:
    start(project, "--idle-timeout", "1")
    deadline = time.monotonic() + 20
    while cli(project, "lint-server", "status").returncode == 0:
        assert time.monotonic() < deadline
        time.sleep(0.5)
    assert cli(project, "lint", "src/k.cu").returncode == 1


def test_the_client_path_imports_only_the_socket_layer(project: Path) -> None:
    """A lint that asks for a server (none runs) imports, before its fallback, only the client
    and the C socket module beyond what the replay check imports."""
    script = ("import sys\nfrom migrate.scan import replay\nbefore = set(sys.modules)\n"
              "from migrate.cli import lint_client\nassert lint_client.serve(['lint', 'src/k.cu']) is None\n"
              "print(' '.join(sorted(set(sys.modules) - before)))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=project, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert set(done.stdout.split()) <= {"migrate.cli", "migrate.cli.lint_client", "_socket"}
    start(project)
    served = subprocess.run([sys.executable, "-c", script.replace("is None", "== 1")], cwd=project,
                            capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert set(served.stdout.split("\n")[-2].split()) <= {"migrate.cli", "migrate.cli.lint_client", "_socket"}


def _on_a_terminal(cwd: Path, *args: str) -> tuple[int, bytes]:
    """The CLI with stdout and stderr on one pseudo-terminal of 132x40: its exit code and bytes."""
    import fcntl
    import pty
    import struct
    import termios

    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 132, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "migrate", *args], cwd=cwd, stdout=side, stderr=side,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    os.close(side)
    out = b""
    while True:
        try:
            data = os.read(main, 1 << 16)
        except OSError:  # the terminal's other side closed
            break
        if not data:
            break
        out += data
    os.close(main)
    return process.wait(timeout=300), out


def test_the_same_bytes_on_a_terminal_and_side_by_side(project: Path) -> None:
    lines = [["src/k.cu", "src/m.py", "--no-cache"], ["src/k.cu", "-f", "json", "--no-cache"],
             ["src/k.cu", "--statistics", "--no-cache"], ["src/k.cu", "--select", "NOPE"]]
    start(project)
    served = [_on_a_terminal(project, "lint", *line) for line in lines]
    together = [subprocess.Popen([sys.executable, "-m", "migrate", "lint", f"src/{name}", "--no-cache"], cwd=project,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
                for name in ("k.cu", "m.py", "CMakeLists.txt", "bad.cu")]  # as pre-commit's parallel batches
    outputs = [p.communicate(timeout=300) for p in together]
    side_by_side = [(p.returncode, *out) for p, out in zip(together, outputs, strict=True)]
    assert requests(project) == len(lines) + len(together)
    cli(project, "lint-server", "stop")
    assert served == [_on_a_terminal(project, "lint", *line) for line in lines]
    assert b"\r\n" in served[0][1] and b"HIP4010" in served[0][1]
    for name, done in zip(("k.cu", "m.py", "CMakeLists.txt", "bad.cu"), side_by_side, strict=True):
        alone = cli(project, "lint", f"src/{name}", "--no-cache")
        assert done == (alone.returncode, alone.stdout, alone.stderr), name
