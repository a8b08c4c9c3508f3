#!/usr/bin/env python3
"""Wall time of `rocm-migrate lint` on one small file, each run a new process.

    python benchmarks/lint_startup.py [--repeat 7] [--importtime] [--instructions] [--before CHECKOUT]
                                      [--project TREE] [--server] [--python PYTHON] [--script ROCM_MIGRATE]

Rows: the interpreter alone, the CLI's --version, lint with an empty cache (rules parsed,
validated and precompiled), lint of a file EDITED before each run (the pre-commit case after an
edit: the rule cache warm, the file extracted every time, nothing replayed), the same with no start
table (migrate/cli/startcache.py: the patterns and dataclass methods compiled again, as by the first
lint after an install; only for code that has it), lint of an UNCHANGED
file (served from its last run: migrate.scan.replay), lint --no-cache, and a scan of the same file
for comparison. --importtime adds the slowest imports of an edited-file run (`python -X importtime`).
--instructions adds the instructions each run executes (valgrind's cachegrind, where installed) and
their ratio to `python -c pass`'s: counts that do not depend on the machine's load, for comparing
two versions of the code on a busy machine (`--before`: an older checkout, alternated with this one).
--project TREE: also a file inside a copy of TREE, linted from the copy's top (lint then reads the
project around the file, as a pre-commit hook in a repository does), edited and unchanged.
--server: also the edited-file lint served by a resident server (`rocm-migrate lint-server start`,
cli/lint_server.py), alternated with the same lint in its own process: the wall time is the whole
command's (the client and the server's forked child); the CPU time and, with --instructions, the
instruction count are the client process's alone (the server's work shows in the wall time only).
--python PYTHON: the interpreter every row runs (default: the one running this script). The start of
an interpreter whose site-packages hold .pth files that run code (an editable install's finder, a
sandbox's certificate hook) includes that code, which a user's virtual environment does not run:
the script names those files, and the row `python -S -c pass` shows the start without site.
--script ROCM_MIGRATE: also the edited-file lint through a console script (a wheel installed in a
clean virtual environment, as a pre-commit hook runs it), alternated with this code's `-m` lint; the
script runs its own installed copy of the code, not the checkout's.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import instructions as cachegrind

KERNEL = """#include <cuda_runtime.h>
__global__ void reduce(float* v, int n) {{
  float x = v[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffff, x, offset);
  if (threadIdx.x == 0) v[{run}] = x;
}}
"""


class Interpreter:
    """The interpreter every row runs (--python)."""

    path = sys.executable

RACY_SECONDS = 3.5  # migrate.scan.replay.RACY_NS and a margin


def timed(args: list[str], env: dict[str, str]) -> float:
    return timed_cpu(args, env)[0]


def timed_cpu(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the process and its children)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # `python -m` puts the working directory first on sys.path: run in the folder of the code timed
    subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   cwd=_folder(env))
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime


def _folder(env: dict[str, str]) -> str:
    """Where a row runs: the folder of the code timed (`python -m` puts the working folder first on
    sys.path), or, for a console script's installed code (no PYTHONPATH), the temporary folder."""
    path = env.get("PYTHONPATH", "")
    return path.split(os.pathsep)[0] if path else tempfile.gettempdir()


def site_code(python: str) -> list[str]:
    """The .pth files in `python`'s site folders with lines that run code: work every start of that
    interpreter pays (a sandbox's hook, setuptools' distutils shim) that a clean virtual environment
    with the wheel installed pays only in part or not at all."""
    probe = "import site; print('\\n'.join([*site.getsitepackages(), site.getusersitepackages()]))"
    done = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=False)
    return pth_with_code([Path(line) for line in done.stdout.splitlines() if line])


def pth_with_code(folders: list[Path]) -> list[str]:
    """The .pth files in `folders` with a line site.py executes (one that starts with `import` and a
    space or a tab); lines naming folders only extend sys.path."""
    found = []
    for folder in folders:
        for pth in sorted(folder.glob("*.pth")) if folder.is_dir() else ():
            lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
            if any(line.startswith(("import ", "import\t")) for line in lines):
                found.append(str(pth))
    return found


def measure(name: str, repeat: int, make_args, env: dict[str, str], before=None) -> None:  # type: ignore[no-untyped-def]
    times, cpu = [], []
    for run in range(repeat):
        if before:
            before(run)
        wall, used = timed_cpu(make_args(), env)
        times.append(wall)
        cpu.append(used)
    print(f"{name:<44} min {min(times) * 1000:7.1f} ms   median {statistics.median(times) * 1000:7.1f} ms   "
          f"CPU median {statistics.median(cpu) * 1000:7.1f} ms")


def alternated(envs: dict[str, dict[str, str]], repeat: int, args: list[str],
               before: Callable[[int], None]) -> None:
    """The same command under each environment, one run of each in turn (load drifts alike for all)."""
    alternated_commands({name: (args, env) for name, env in envs.items()}, repeat, before)


def alternated_commands(commands: dict[str, tuple[list[str], dict[str, str]]], repeat: int,
                        before: Callable[[int], None]) -> None:
    """Each command in turn, one run of each (load drifts alike for all)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for run in range(repeat):
        for name, (args, env) in commands.items():
            before(run)
            wall, used = timed_cpu(args, env)
            times[name].append(wall)
            cpu[name].append(used)
    for name in commands:
        print(f"{name:<44} min {min(times[name]) * 1000:7.1f} ms   median "
              f"{statistics.median(times[name]) * 1000:7.1f} ms   CPU median {statistics.median(cpu[name]) * 1000:7.1f} ms"
              f"   (alternated)")


def instructions(args: list[str], env: dict[str, str]) -> int | None:
    """Instructions executed by one run of `args`, in the folder of the code measured (see timed_cpu)."""
    return cachegrind(args, env=env, cwd=_folder(env))


def importtime(source: Path, env: dict[str, str], top: int = 15) -> None:
    out = subprocess.run([Interpreter.path, "-X", "importtime", "-m", "migrate", "lint", str(source)],
                         env=env, capture_output=True, text=True, check=False,
                         cwd=_folder(env)).stderr
    rows = []
    for line in out.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            rows.append((int(cumulative), name.rstrip()))
    print(f"\nslowest imports of a warm lint run (cumulative, top {top}):")
    for cumulative, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative / 1000:7.1f} ms  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--importtime", action="store_true")
    parser.add_argument("--instructions", action="store_true", help="instructions per run (valgrind)")
    parser.add_argument("--before", type=Path, help="a checkout of other code (an older commit): its edited-file lint too")
    parser.add_argument("--project", type=Path, help="a source tree: also lint one of its .cu files from its top")
    parser.add_argument("--server", action="store_true", help="also the edited-file lint served by a lint server")
    parser.add_argument("--python", type=Path, help="the interpreter every row runs (default: this one)")
    parser.add_argument("--script", type=Path, help="a console script (a wheel's, in a clean venv): its edited-file lint too")
    args = parser.parse_args()
    if args.python:
        Interpreter.path = str(args.python)
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "src" / "reduce.cu"  # a folder of its own: lint lists the file's folder
        source.parent.mkdir()
        source.write_text(KERNEL.format(run=0))
        cache = Path(tmp) / "cache"

        def path(code: Path) -> str:  # the code measured first, then the caller's PYTHONPATH (its dependencies)
            return os.pathsep.join(p for p in (str(code), os.environ.get("PYTHONPATH", "")) if p)

        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: bytecode cached
        env.update(ROCM_MIGRATE_CACHE_DIR=str(cache), PYTHONPATH=path(root),
                   PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / "rocm-migrate-bench-pycache"))
        lint = [Interpreter.path, "-m", "migrate", "lint", str(source)]

        def fresh_cache(run: int) -> None:
            subprocess.run(["rm", "-rf", str(cache)], check=True)

        def new_text(run: int) -> None:
            source.write_text(KERNEL.format(run=run + 1))

        version = subprocess.run([Interpreter.path, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True,
                                 text=True, check=False).stdout.strip()
        print(f"python {version} ({Interpreter.path}), {args.repeat} runs each, one {len(KERNEL)}-byte .cu file; "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for pth in site_code(Interpreter.path):
            print(f"  note: site runs code from {pth} at every start of this interpreter: in every row")
        measure("python -c pass", args.repeat, lambda: [Interpreter.path, "-c", "pass"], env)
        measure("python -S -c pass (no site, no .pth files)", args.repeat, lambda: [Interpreter.path, "-S", "-c", "pass"], env)
        measure("rocm-migrate --version", args.repeat, lambda: [Interpreter.path, "-m", "migrate", "--version"], env)
        measure("lint, empty cache (rules validated)", args.repeat, lambda: lint, env, fresh_cache)
        timed(lint, env)
        measure("lint, edited file (pre-commit after an edit)", args.repeat, lambda: lint, env, new_text)
        table = _start_table(env)
        if table is not None:  # the patterns and dataclass methods compiled as by a first run after an install

            def no_table(run: int) -> None:
                new_text(run)
                Path(table).unlink(missing_ok=True)

            measure("lint, edited file, no start table", args.repeat, lambda: lint, env, no_table)
            timed(lint, env)  # the table written again for the rows below
        if args.before:
            before = {**env, "PYTHONPATH": path(args.before.resolve()), "ROCM_MIGRATE_CACHE_DIR": str(cache) + "-before"}
            timed(lint, before)
            alternated({"this code: lint, edited file": env, "--before's code: lint, edited file": before},
                       args.repeat, lint, new_text)
        if args.script:  # the installed copy's own code: no PYTHONPATH, no bytecode prefix
            script = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "PYTHONPYCACHEPREFIX")}
            script["ROCM_MIGRATE_CACHE_DIR"] = str(cache) + "-script"
            script_lint = [str(args.script), "lint", str(source)]
            timed(script_lint, script)
            timed(script_lint, script)
            alternated_commands({"this code: python -m migrate lint, edited": (lint, env),
                                 "console script (its install): lint, edited": (script_lint, script)},
                                args.repeat, new_text)
        # the same file again, nothing changed: served from the last run (migrate.scan.replay), once the
        # file and its folder are older than the racy-stamp margin
        source.write_text(KERNEL.format(run=0))
        time.sleep(RACY_SECONDS)
        timed(lint, env)
        measure("lint, unchanged file (replayed)", args.repeat, lambda: lint, env)
        measure("lint --no-cache", args.repeat, lambda: [*lint, "--no-cache"], env)
        measure("scan -f json --no-cache (for comparison)", args.repeat,
                lambda: [Interpreter.path, "-m", "migrate", "scan", str(source), "-f", "json", "--no-cache"], env)
        project = _project(args.project, Path(tmp), env, args.repeat) if args.project else None
        if args.server:
            _start_server(env)
            off = {**env, "ROCM_MIGRATE_CACHE_DIR": str(cache) + "-no-server"}  # no server for this cache folder
            timed(lint, off)
            alternated({"lint, edited file, server on": env, "lint, edited file, server off": off},
                       args.repeat, lint, new_text)
            _server_cpu(env, args.repeat, lint, new_text)
        if args.instructions:
            print("\ninstructions executed (cachegrind; independent of the load), and their ratio to python -c pass:")
            bare = instructions([Interpreter.path, "-c", "pass"], env)
            edited = "lint, edited file, server on (the client)" if args.server else "lint, edited file"
            rows: dict[str, Row] = {edited: (lint, env, lambda: new_text(args.repeat + 1), None)}
            if args.script:
                rows["console script (its install): lint, edited"] = (script_lint, script,
                                                                       lambda: new_text(args.repeat + 5), None)
            if args.before:
                rows["--before's code: lint, edited file"] = (lint, before, lambda: new_text(args.repeat + 2), None)
            if project:
                rows["lint in the project, edited file"] = project
            if args.server:
                rows["lint, edited file, server off"] = (lint, off, lambda: new_text(args.repeat + 4), None)
            _counts(bare, rows)
            # valgrind's own variables are in the environment the key covers: its first run stores
            source.write_text(KERNEL.format(run=0))
            time.sleep(RACY_SECONDS)
            instructions(lint, env)
            _counts(bare, {"lint, unchanged file (replayed)": (lint, env, lambda: None, None)}, header=False)
        if args.importtime:
            new_text(args.repeat + 3)
            importtime(source, env)
        if args.server:
            _server(env, "stop")
    return 0


def _start_table(env: dict[str, str]) -> str | None:
    """Where a lint process keeps the compiled patterns and dataclass methods (migrate/cli/startcache.py)
    for the next one, as the code measured names it; None for code without it."""
    done = subprocess.run([Interpreter.path, "-c", "from migrate.cli import startcache; print(startcache.table_path())"],
                          env=env, capture_output=True, text=True, check=False, cwd=_folder(env))
    path = done.stdout.strip()
    return path if done.returncode == 0 and path not in ("", "None") else None


def _server(env: dict[str, str], action: str) -> str:
    """`rocm-migrate lint-server ACTION` in the folder the lints run in (a server serves one folder)."""
    done = subprocess.run([Interpreter.path, "-m", "migrate", "lint-server", action], env=env, capture_output=True,
                          text=True, check=False, cwd=_folder(env))
    return (done.stdout + done.stderr).strip()


def _start_server(env: dict[str, str]) -> None:
    print(_server(env, "start"))
    print(_server(env, "status"))


def _server_cpu(env: dict[str, str], repeat: int, lint: list[str], before: Callable[[int], None]) -> None:
    """The CPU time the server's children spend per served lint (each request's spare
    child, forked ahead with no warm-up lint of its own, and the request's work in it),
    from the server's reaped-children times."""
    pid = int(_server(env, "status").split(",")[0].split()[1])

    def children_cpu() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime, cstime

    time.sleep(1.5)  # the server reaps its children within a second
    used = children_cpu()
    for run in range(repeat):
        before(run)
        timed(lint, env)
    time.sleep(1.5)
    print(f"{'server CPU per served lint (its children)':<44} {(children_cpu() - used) / repeat * 1000:7.1f} ms")


Row = tuple[list[str], dict[str, str], Callable[[], None], Path | None]  # command, environment, edit, folder


def _counts(bare: int | None, rows: dict[str, Row], *, header: bool = True) -> None:
    if header:
        print(f"  {'python -c pass':<42} {'valgrind not found' if bare is None else f'{bare / 1e6:8.1f} M    1.00x'}")
    for name, (command, where, before, folder) in rows.items():
        before()
        count = instructions(command, where) if folder is None else cachegrind(command, env=where, cwd=str(folder))
        shown = "valgrind not found" if count is None or bare is None else f"{count / 1e6:8.1f} M   {count / bare:5.2f}x"
        print(f"  {name:<42} {shown}")


def _project(tree: Path, tmp: Path, env: dict[str, str], repeat: int) -> Row:
    """Wall times of a lint of one .cu file of a copy of `tree`, run from the copy's top (edited before
    each run, then unchanged); the edited run's command, environment and edit, for its instructions."""
    import shutil

    copy = tmp / "project"
    shutil.copytree(tree, copy, symlinks=True)
    target = min(copy.rglob("*.cu"))
    text = target.read_text(errors="surrogateescape")
    rel = str(target.relative_to(copy))
    command = [Interpreter.path, "-m", "migrate", "lint", rel]
    here = env  # the code measured is on PYTHONPATH; the project's top is the working folder
    runs = iter(range(10**6))

    def edit() -> None:
        target.write_text(f"{text}// edit {next(runs)}\n", errors="surrogateescape")

    def project_times(name: str, before: Callable[[], None]) -> None:
        times = []
        for _ in range(repeat):
            before()
            started = time.perf_counter()
            subprocess.run(command, env=here, cwd=copy, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times.append(time.perf_counter() - started)
        print(f"{name:<44} min {min(times) * 1000:7.1f} ms   median {statistics.median(times) * 1000:7.1f} ms")

    print(f"project {tree.name} ({rel}), linted from its top; load average {os.getloadavg()[0]:.2f}")
    edit()
    subprocess.run(command, env=here, cwd=copy, capture_output=True, check=False)  # the project's rows cached
    project_times("lint in the project, edited file", edit)
    time.sleep(RACY_SECONDS)
    subprocess.run(command, env=here, cwd=copy, capture_output=True, check=False)
    project_times("lint in the project, unchanged file (replayed)", lambda: None)
    return (command, here, edit, copy)


if __name__ == "__main__":
    sys.exit(main())
