"""A lint or stack served whole from its last run (migrate.scan.replay), through the real CLI in a
subprocess: the same bytes, streams and exit code as a run that computes them; served without
importing click or the extractors; never served after anything it read changed; a bad entry is
a miss."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from migrate.scan import replay
from tests.conftest import ROOT

# The CLI's process entry, noting at exit which modules the run imported (in the file named first).
PROBE = """import atexit, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write("\\n".join(sorted(sys.modules))))
from migrate.cli.entry import run
run()
"""
BARE_PROBE = PROBE.partition("from migrate")[0]  # the interpreter's own start, noted the same way
KERNEL = "#include <cuda_runtime.h>\n__global__ void k(float* v) { v[threadIdx.x] = 0; }\n" \
         "void f(float** p) { cudaMalloc(p, 4); }\n"
TREES = ("hit", "edit", "folder", "config", "rule", "stack", "env", "corrupt", "output", "merged", "git", "index")


@dataclass(frozen=True)
class Run:
    code: int
    out: bytes
    err: bytes
    modules: frozenset[str]

    @property
    def computed(self) -> bool:
        """Whether the run imported the command (click, or lint's click-free work): not served from its last run."""
        return "click" in self.modules or "migrate.cli.lint_run" in self.modules


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder per test, all made at once and then left alone past the racy-stamp margin, so that
    a first run can be stored (an input changed within the margin of a run is never trusted)."""
    top = tmp_path_factory.mktemp("replay")
    for name in TREES:
        (top / name).mkdir()
        (top / name / "kernel.cu").write_text(KERNEL)
    (top / "stack" / "requirements.txt").write_text("torch==2.6.0\n")
    (top / "env" / "requirements.txt").write_text("torch==2.6.0\n")
    for checkout in (top / "git", top / "index") if shutil.which("git") else ():
        subprocess.run(["git", "init", "-q", str(checkout)], check=True)
        (checkout / "other.cu").write_text("void g(void* p) { cudaFree(p); }\n")
        (checkout / "tracked.cu").write_text("void h(void* p) { cudaFree(p); }\n")
        (checkout / ".gitignore").write_text("tracked.cu\n")
        subprocess.run(["git", "-C", str(checkout), "add", "-f", "tracked.cu"], check=True)  # tracked, so listed
    shutil.copytree(ROOT / "rules", top / "rule" / "own-rules", ignore=shutil.ignore_patterns("compiled.json"))
    time.sleep(replay.RACY_NS / 1e9 + 0.3)
    return top


def cli(cwd: Path, *args: str, cache: Path, env: dict[str, str] | None = None, merged: bool = False) -> Run:
    modules = cwd.parent / f"modules-{cwd.name}"
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "ROCM_MIGRATE_CACHE_DIR": str(cache), **(env or {})}
    done = subprocess.run([sys.executable, "-c", PROBE, str(modules), *args], cwd=cwd, env=full_env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                          timeout=300, check=False)
    return Run(done.returncode, done.stdout, done.stderr or b"", frozenset(modules.read_text().split()))


def fresh(cwd: Path, *args: str, tmp_path: Path, **kw: object) -> Run:
    """The run computed from nothing stored (a cache folder of its own)."""
    return cli(cwd, *args, cache=tmp_path / f"fresh-{time.monotonic_ns()}", **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(("command", "args"), [
    ("lint", ("kernel.cu",)), ("lint", ("kernel.cu", "-f", "json")), ("lint", ("kernel.cu", "-f", "sarif")),
    ("lint", ("--statistics",)), ("lint", ("kernel.cu", "--fail-on", "minor-adaptation", "-v")),
    ("stack", ()), ("stack", ("-f", "json")), ("stack", ("-f", "markdown")),
])
def test_a_hit_gives_the_same_bytes_without_importing_the_command(trees: Path, tmp_path: Path, command: str,
                                                                   args: tuple[str, ...]) -> None:
    cwd = trees / ("stack" if command == "stack" else "hit")
    first = cli(cwd, command, *args, cache=tmp_path / "cache")
    second = cli(cwd, command, *args, cache=tmp_path / "cache")
    assert first.computed and not second.computed
    assert not {m for m in second.modules if m.startswith(("migrate.extract", "migrate.model", "migrate.lint"))}
    assert (second.code, second.out, second.err) == (first.code, first.out, first.err)
    assert first.out or first.err


def test_a_hit_imports_nothing_beyond_the_os_layer(trees: Path, tmp_path: Path) -> None:
    """typing, pathlib, re and collections cost a replayed lint ~20 ms of its ~50: a hit imports none.
    Run without site hooks (-S, the libraries on PYTHONPATH instead), whose .pth files may import
    them in the interpreter's own start on some machines and hide what the hit adds."""
    import site

    cwd = trees / "hit"
    libraries = [*site.getsitepackages(), site.getusersitepackages()]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *libraries]),
           "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}

    def imported(*args: str) -> set[str]:
        out = tmp_path / f"modules-{len(args)}"
        subprocess.run([sys.executable, "-S", "-c", PROBE if args else BARE_PROBE, str(out), *args],
                       cwd=cwd, env=env, capture_output=True, check=False, timeout=300)
        return set(out.read_text().split())

    first, hit = imported("lint", "kernel.cu", "-q"), imported("lint", "kernel.cu", "-q")
    bare = imported()
    client = tmp_path / "modules-client"  # the way to a lint server (cli/lint_client.py), tried after a miss
    subprocess.run([sys.executable, "-S", "-c", BARE_PROBE + "import migrate.cli.lint_client\n",
                    str(client)], cwd=cwd, env=env, check=True, timeout=60)
    heavy = {"typing", "pathlib", "re", "collections", "contextlib", "functools", "hashlib", "dataclasses"}
    assert "migrate.cli.lint_run" in first and "migrate.scan.replay" in hit - bare and "migrate.cli.lint_run" not in hit
    assert not (hit - bare) & heavy
    assert not (set(client.read_text().split()) - bare) & heavy


def test_stdout_and_stderr_keep_their_order_in_one_stream(trees: Path, tmp_path: Path) -> None:
    cwd = trees / "merged"
    (cwd / "binary.cu").write_bytes(b"\xff\xfe\x00 not text")  # a warning on stderr before the findings
    time.sleep(replay.RACY_NS / 1e9 + 0.3)
    first = cli(cwd, "lint", ".", "-v", cache=tmp_path / "cache", merged=True)
    second = cli(cwd, "lint", ".", "-v", cache=tmp_path / "cache", merged=True)
    assert first.computed and not second.computed
    assert second.out == first.out and b"rocm-migrate:" in first.out.splitlines()[0]


def test_an_edited_file_is_read_again(trees: Path, tmp_path: Path) -> None:
    """Same size, mtime put back: the ctime still tells."""
    cwd = trees / "edit"
    source = cwd / "kernel.cu"
    first = cli(cwd, "lint", "kernel.cu", cache=tmp_path / "cache")
    assert not cli(cwd, "lint", "kernel.cu", cache=tmp_path / "cache").computed
    info = source.stat()
    source.write_text(KERNEL.replace("cudaMalloc(p, 4)", "cudaFree(*p)    "))
    os.utime(source, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert source.stat().st_size == info.st_size
    edited = cli(cwd, "lint", "kernel.cu", cache=tmp_path / "cache")
    assert edited.computed and edited.out != first.out and b"cudaFree" in edited.out
    assert edited.out == fresh(cwd, "lint", "kernel.cu", tmp_path=tmp_path).out


def test_a_file_added_to_the_folder_is_linted(trees: Path, tmp_path: Path) -> None:
    cwd = trees / "folder"
    first = cli(cwd, "lint", cache=tmp_path / "cache")
    assert not cli(cwd, "lint", cache=tmp_path / "cache").computed
    (cwd / "more.cu").write_text("void g(void* p) { cudaFree(p); }\n")
    added = cli(cwd, "lint", cache=tmp_path / "cache")
    assert added.computed and b"more.cu" in added.out and added.out != first.out
    computed = fresh(cwd, "lint", tmp_path=tmp_path)
    assert (added.code, added.out, added.err) == (computed.code, computed.out, computed.err)


def test_a_new_configuration_file_is_read(trees: Path, tmp_path: Path) -> None:
    """A file that was absent when the run was stored is an input too."""
    cwd = trees / "config"
    first = cli(cwd, "lint", "kernel.cu", cache=tmp_path / "cache")
    assert b"HIP1100" in first.out and not cli(cwd, "lint", "kernel.cu", cache=tmp_path / "cache").computed
    (cwd / ".rocm-migrate.toml").write_text('ignore = ["HIP1100"]\n')
    configured = cli(cwd, "lint", "kernel.cu", cache=tmp_path / "cache")
    assert configured.computed and b"HIP1100" not in configured.out and b"HIP4002" in configured.out


def test_an_edited_user_rule_is_read(trees: Path, tmp_path: Path) -> None:
    cwd = trees / "rule"
    args = ("lint", "kernel.cu", "--rules-dir", "own-rules")
    first = cli(cwd, *args, cache=tmp_path / "cache")
    assert b"has a HIP runtime equivalent" in first.out and not cli(cwd, *args, cache=tmp_path / "cache").computed
    rules = cwd / "own-rules" / "hipify-runtime.yaml"
    rules.write_text(rules.read_text().replace("Memory Management: has a HIP runtime equivalent",
                                               "Memory Management: edited by its user"))
    edited = cli(cwd, *args, cache=tmp_path / "cache")
    assert edited.computed and b"edited by its user" in edited.out


def test_a_changed_requirement_is_read_by_stack(trees: Path, tmp_path: Path) -> None:
    cwd = trees / "env"
    first = cli(cwd, "stack", "-f", "json", cache=tmp_path / "cache")
    assert not cli(cwd, "stack", "-f", "json", cache=tmp_path / "cache").computed
    (cwd / "requirements.txt").write_text("torch==2.5.1\n")
    changed = cli(cwd, "stack", "-f", "json", cache=tmp_path / "cache")
    assert changed.computed and changed.out != first.out and b"2.5.1" in changed.out


def test_options_and_environment_are_part_of_the_key(trees: Path, tmp_path: Path) -> None:
    cwd = trees / "hit"
    cache = tmp_path / "cache"
    cli(cwd, "lint", "kernel.cu", cache=cache)
    assert not cli(cwd, "lint", "kernel.cu", cache=cache).computed
    ignored = cli(cwd, "lint", "kernel.cu", "--ignore", "HIP1100", cache=cache)
    assert ignored.computed and b"HIP1100" not in ignored.out
    other_env = cli(cwd, "lint", "kernel.cu", cache=cache, env={"ROCM_MIGRATE_SOMETHING_NEW": "1"})
    assert other_env.computed
    assert not cli(cwd, "lint", "kernel.cu", cache=cache).computed
    assert cli(cwd, "lint", "kernel.cu", "--no-cache", cache=cache).computed


def _rewritten(data: bytes, *, code: int | None = None, extra_input: tuple[str, str, list[int]] | None = None,
               stream: int | None = None, query: tuple[str, ...] = ()) -> bytes:
    """The stored entry with one field changed, written as a well-formed entry (lengths right)."""
    entry = replay._read(data)
    assert entry is not None
    inputs = [*entry.inputs, *([extra_input] if extra_input else [])]
    chunks = [(stream, chunk) for _, chunk in entry.chunks] if stream else entry.chunks
    queries = [*entry.queries, *([(query, (), (), 30, "0" * 64)] if query else [])]
    return b"".join(replay._encode(entry.started, entry.code if code is None else code, inputs, chunks, queries))


PWNED = Path(os.environ.get("TMPDIR", "/tmp")) / f"rocm-migrate-replay-ran-{os.getpid()}"
GIT_PINNED = ("--git-dir", ".git", "--work-tree", ".", "-C", ".")


@pytest.mark.parametrize("spoil", [
    lambda data: data[:len(data) // 2],                                        # cut short
    lambda data: b"garbage",
    lambda data: data + b"trailing",
    lambda data: data[:len(replay.MAGIC)] + b"9" * 16 + data[len(replay.MAGIC) + 16:],  # a header too long
    lambda data: data.replace(b"\x001\x00", b"\x00x\x00", 1),                   # a word where a number belongs
    lambda data: _rewritten(data, code=3),                                     # an internal error is never stored
    lambda data: _rewritten(data, stream=3),
    lambda data: _rewritten(data, extra_input=("/etc/hostname", "f", [1, 2, 3, 4])),  # a view of no shape
    lambda data: _rewritten(data, extra_input=("/etc/hostname", "x", [1])),            # no such way
    lambda data: _rewritten(data, extra_input=("/etc/hostname", "f", [32768, 0, 0, 0, 0, 0])),  # not as it is
    lambda data: _rewritten(data, query=("sh", "-c", f"touch {PWNED}")),            # a cache must not run a program
    lambda data: _rewritten(data, query=("git", *GIT_PINNED, "ls-files", "-z", "--cached", "--others",
                                         "--exclude-per-directory=.gitignore")),  # without the fsmonitor pins
    lambda data: _rewritten(data, query=("git", *replay.GIT_SAFE_CONFIG, *GIT_PINNED, "-c",
                                         f"alias.x=!touch {PWNED}", "x")),
], ids=["short", "garbage", "trailing", "length", "word", "code", "stream", "shape", "way", "stale", "program",
        "unpinned", "alias"])
def test_a_bad_entry_is_a_miss_not_a_crash(trees: Path, tmp_path: Path, spoil) -> None:  # type: ignore[no-untyped-def]
    cwd = trees / "corrupt"
    cache = tmp_path / "cache"
    first = cli(cwd, "lint", "kernel.cu", cache=cache)
    (entry,) = (cache / replay.FOLDER).iterdir()
    stored = entry.read_bytes()
    assert replay._read(stored) is not None and spoil(stored) != stored
    entry.write_bytes(spoil(stored))
    again = cli(cwd, "lint", "kernel.cu", cache=cache)
    assert again.computed and (again.code, again.out, again.err) == (first.code, first.out, first.err)
    assert not PWNED.exists()


def test_the_git_shapes_a_hit_may_ask_are_those_vcs_asks() -> None:
    from migrate import vcs

    assert replay.GIT_SAFE_CONFIG == vcs.SAFE_CONFIG and set(vcs.ENV.items()) == replay.GIT_ENV


def test_an_entry_that_is_a_link_is_not_followed(trees: Path, tmp_path: Path) -> None:
    cwd = trees / "corrupt"
    cache = tmp_path / "cache"
    cli(cwd, "lint", "kernel.cu", cache=cache)
    (entry,) = (cache / replay.FOLDER).iterdir()
    moved = tmp_path / "elsewhere"
    entry.rename(moved)
    entry.symlink_to(moved)
    assert cli(cwd, "lint", "kernel.cu", cache=cache).computed


def test_a_run_that_writes_a_file_is_not_stored(trees: Path, tmp_path: Path) -> None:
    cwd = trees / "output"
    out = tmp_path / "lint.json"
    for _ in range(2):
        run = cli(cwd, "lint", "kernel.cu", "-f", "json", "-o", str(out), cache=tmp_path / "cache")
        assert run.computed and b"HIP1100" in out.read_bytes()
        out.unlink()
    assert not (tmp_path / "cache" / replay.FOLDER).exists()


def test_an_input_changed_just_before_the_run_is_never_trusted(tmp_path: Path) -> None:
    """statcache's racy-stamp rule: a file changed within RACY_NS of the run that recorded it could
    change again in the same tick without a new stamp, so its entry is not stored."""
    for _ in range(2):  # written again before each run: a slow first run (a loaded machine) does not settle it
        (tmp_path / "kernel.cu").write_text(KERNEL)
        assert cli(tmp_path, "lint", "kernel.cu", cache=tmp_path / "cache").computed
    assert not (tmp_path / "cache" / replay.FOLDER).exists()


def test_the_inputs_are_not_stat_ed_past_one_changed_too_late(tmp_path: Path) -> None:
    """A run whose input changed within RACY_NS of its start cannot be stored: the recorder stops at that input
    (the edited file a pre-commit lint reads comes before the ~300 modules) and stats none after it; with every
    input settled, each is stat'ed once and kept in the order met, the modules after (the near miss)."""
    files = [tmp_path / f"{n}.cu" for n in range(4)]
    for path in files:
        path.write_text(KERNEL)
        time.sleep(0.05)  # each file changed after the one before (the file system's timestamps are coarser than 1 ns)
    recorder = replay._Recorder(str(tmp_path / "cache"))
    asked: list[str] = []

    def counted(path: str, *args: object, **kwargs: object) -> os.stat_result:
        asked.append(os.fspath(path))
        return os.stat(path, *args, **kwargs)  # type: ignore[arg-type]

    recorder.real = (counted, os.lstat, os.access)
    recorder.met = {(str(path), "f"): None for path in files}
    written = max(files[1].stat().st_mtime_ns, files[1].stat().st_ctime_ns)
    assert recorder.inputs(settled_before=written) is None  # files[1] changed at the limit: not settled
    assert asked == [str(files[0]), str(files[1])]
    asked.clear()
    found = recorder.inputs(settled_before=time.time_ns() + replay.RACY_NS)
    assert found is not None and [path for path, _, _ in found][:4] == asked[:4] == [str(path) for path in files]
    assert len(asked) == len(found)  # the modules the run imported follow the files, each stat'ed once too


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_in_a_git_checkout_what_git_answers_is_an_input(trees: Path, tmp_path: Path) -> None:
    """lint asks git which files it would not ignore: a hit asks again and compares the answer."""
    cwd = trees / "git"
    first = cli(cwd, "lint", cache=tmp_path / "cache")
    assert b"other.cu" in first.out and not cli(cwd, "lint", cache=tmp_path / "cache").computed
    exclude = cwd / ".git" / "info" / "exclude"
    exclude.write_text(exclude.read_text() + "other.cu\n")
    ignored = cli(cwd, "lint", cache=tmp_path / "cache")
    assert ignored.computed and b"other.cu" not in ignored.out and b"kernel.cu" in ignored.out


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_change_only_git_sees_is_a_miss(trees: Path, tmp_path: Path) -> None:
    """An ignored file leaves the index: no file the run read changed, only git's answer."""
    cwd = trees / "index"
    first = cli(cwd, "lint", "-f", "json", cache=tmp_path / "cache")
    assert b"tracked.cu" in first.out and not cli(cwd, "lint", "-f", "json", cache=tmp_path / "cache").computed
    subprocess.run(["git", "-C", str(cwd), "rm", "-q", "--cached", "tracked.cu"], check=True)
    untracked = cli(cwd, "lint", "-f", "json", cache=tmp_path / "cache")
    assert untracked.computed and b"tracked.cu" not in untracked.out


def test_a_result_that_depends_on_the_machine_is_not_stored(tmp_path: Path) -> None:
    """A file's analysis stopped by a time or memory budget (extract.budget's TRANSIENT reasons)."""
    script = ("import sys\nimport migrate.cli.main\nfrom migrate.cli import entry\nfrom migrate.extract import budget\n"
              "def run():\n"
              "    if sys.argv[2] == 'stopped':\n"
              "        budget.failed(b'', budget.TRANSIENT + ' over the time limit')\n"
              "    return 0\n"
              "migrate.cli.main.main = run\n"  # the process entry as it is, with a command that reports a budget
              "sys.argv = ['rocm-migrate', 'lint', sys.argv[1]]\n"
              "entry.run()\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    for case in ("done", "stopped"):
        subprocess.run([sys.executable, "-c", script, case], cwd="/", env=env, check=True, timeout=120)
    assert len(list((tmp_path / "cache" / replay.FOLDER).iterdir())) == 1  # the first only


def test_the_racy_window_is_statcaches() -> None:
    """One racy-clean rule for every memo trusted by stamps: replay's window is statcache's."""
    from migrate.rulebase import filestamp
    from migrate.scan import statcache

    assert replay.RACY_NS == statcache.RACY_NS == filestamp.RACY_NS > 0


def test_a_memo_write_that_fails_leaves_nothing_behind(tmp_path: Path) -> None:
    """filestamp.write_memo, shared by the rule-data and extractor-version memos (review23: a failed rename left
    `memo.<pid>.tmp` in the cache directory)."""
    from migrate.rulebase import filestamp

    filestamp.write_memo(tmp_path / "memo.json", b"{}")
    assert (tmp_path / "memo.json").read_bytes() == b"{}"
    (tmp_path / "taken").mkdir()  # a folder where the memo should go: the rename fails
    (tmp_path / "taken" / "x").write_text("x")
    filestamp.write_memo(tmp_path / "taken", b"{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memo.json", "taken"]
