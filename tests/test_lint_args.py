"""The lint command lines read without click (cli/lint_args.py): the same options as click reads
from them, or nothing (click reads the line); through the process entry, the same bytes on stdout
and stderr and the same exit code as the command run through click."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from migrate.cli.lint import lint
from migrate.cli.lint_args import read
from migrate.cli.lint_run import LintOptions
from tests.conftest import ROOT

KERNEL = """#include <cuda_runtime.h>
__global__ void reduce(float* v) {
  float x = v[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffff, x, offset);
  v[0] = x;  // rocm-migrate: ignore[HIP4002]
}
"""
READ = [
    [], ["-f", "json"], ["--format=sarif"], ["--output-format", "terminal"], ["-q", "-v", "-q"],
    ["--select", "HIP4", "--select=HIP0001", "--ignore", "kernel-definition"], ["--fail-on", "incompatible"],
    ["--fail-on", "minor-adaptation", "--fail-on=incompatible"], ["--target-arch", "gfx90a,gfx1100", "--rocm", "6.4"],
    ["--statistics", "--no-cache"], ["--per-file-ignores", "*.cu:HIP4010", "--exclude", "vendor/"], ["--select="],
]
CLICK = [  # left to click: None
    ["-h"], ["--help"], ["--", "kernel.cu"], ["-qv"], ["-fjson"], ["-f=json"], ["--form", "json"], ["-f", "xml"],
    ["--fail-on", "never"], ["--select", "-x"], ["--select"], ["-o", "out.txt"], ["--json-output", "x.json"],
    ["--baseline", "b.json"], ["--write-baseline", "b.json"], ["--rules-dir", "."], ["--quiet=1"], ["-"],
]


def _click_options(args: list[str]) -> LintOptions:
    context = lint.make_context("lint", list(args))
    return LintOptions(**context.params)


@pytest.mark.parametrize("args", READ)
def test_read_as_click_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kernel.cu").write_text(KERNEL)
    for where in (["kernel.cu", *args], [*args, "kernel.cu"], args):
        assert read(["lint", *where]) == _click_options(where)


@pytest.mark.parametrize("args", CLICK)
def test_other_lines_are_left_to_click(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kernel.cu").write_text(KERNEL)
    assert read(["lint", "kernel.cu", *args]) is None


def test_missing_or_unreadable_files_and_other_commands_are_left_to_click(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kernel.cu").write_text(KERNEL)
    assert read(["lint", "missing.cu"]) is None
    assert read(["scan", "kernel.cu"]) is None and read([]) is None
    monkeypatch.setenv("_ROCM_MIGRATE_COMPLETE", "bash_complete")
    assert read(["lint", "kernel.cu"]) is None
    monkeypatch.delenv("_ROCM_MIGRATE_COMPLETE")
    assert read(["lint", "kernel.cu"]) == LintOptions(files=(Path("kernel.cu"),))


SAME = [[], ["-f", "json"], ["-f", "sarif"], ["--statistics"], ["-f", "json", "--statistics"], ["-q"], ["-v"],
        ["--fail-on", "incompatible", "-v"], ["--select", "HIP4", "--ignore", "HIP4002"], ["--select", "NOPE"],
        ["--target-arch", "gfx90a,gfx1100", "--rocm", "6.4"], ["-f", "sarif", "--statistics"], ["--target-arch", "x"],
        ["clean.cpp", "-v"], ["missing.cu"], ["--format", "xml"]]


@pytest.mark.parametrize("args", SAME)
def test_the_same_bytes_and_exit_code_as_through_click(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      args: list[str]) -> None:
    """The process entry (python -m migrate: read here when it can) against cli.main.run (click
    always), each with a cache folder of its own, stdout and stderr merged to keep their order."""
    (tmp_path / "kernel.cu").write_text(KERNEL)
    (tmp_path / "clean.cpp").write_text("int add(int a, int b) { return a + b; }\n")
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    argv = ["lint", *([] if any(a.endswith((".cu", ".cpp")) for a in args) else ["kernel.cu"]), *args]
    monkeypatch.chdir(tmp_path)
    assert (read(argv) is None) == ("missing.cu" in args or "xml" in args)  # the entry's way is the plain one
    probe = f"import sys; sys.argv = ['rocm-migrate', *{argv!r}]; from migrate.cli.main import run; run()"
    runs = []
    for name, command in (("entry", [sys.executable, "-m", "migrate", *argv]), ("click", [sys.executable, "-c", probe])):
        env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / f"cache-{name}"), "PYTHONPATH": path}
        done = subprocess.run(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              check=False)
        runs.append((done.returncode, done.stdout))
    assert runs[0] == runs[1]
    assert runs[0][1], "nothing was compared"


# options that lint_args never reads: a line holding one is always left to click
LEFT_TO_CLICK = frozenset({"output", "text_output", "json_output", "sarif_output", "baseline", "write_baseline",
                           "rules_dir", "help"})


def test_every_click_option_of_lint_is_read_the_same_way_or_left_to_click() -> None:
    """A new lint option must be added to lint_args' tables (under click's own name for it, as a flag
    when click's is a flag) or to LEFT_TO_CLICK; otherwise a changed option could be read differently."""
    from migrate.cli import lint_args

    tables = {**lint_args.VALUES, **lint_args.FLAGS}
    for param in lint.params:
        if not isinstance(param, click.Option) or param.name in LEFT_TO_CLICK:
            continue
        for spelling in (*param.opts, *param.secondary_opts):
            assert tables.get(spelling) == param.name, f"{spelling} ({param.name}) is not in lint_args' tables"
            assert (spelling in lint_args.FLAGS) == param.is_flag, f"{spelling}: flag in one reader only"
        assert (param.name in lint_args.MULTIPLE) == param.multiple, f"{param.name}: repeatable in one reader only"
    for spelling, name in tables.items():
        assert any(spelling in p.opts for p in lint.params), f"lint_args reads {spelling} ({name}), click has none"


def test_a_closed_pipe_on_stdout_exits_1_quietly_as_through_click(tmp_path: Path) -> None:
    """stdout is a pipe whose reader is gone: both ways exit 1 and say nothing on stderr (no traceback,
    no 'Exception ignored' at interpreter exit)."""
    (tmp_path / "kernel.cu").write_text(KERNEL)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    argv = ["lint", "kernel.cu", "-f", "json"]
    probe = f"import sys; sys.argv = ['rocm-migrate', *{argv!r}]; from migrate.cli.main import run; run()"
    runs = []
    for name, command in (("entry", [sys.executable, "-m", "migrate", *argv]), ("click", [sys.executable, "-c", probe])):
        env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / f"cache-{name}"), "PYTHONPATH": path}
        reader, writer = os.pipe()
        os.close(reader)
        try:
            done = subprocess.run(command, cwd=tmp_path, env=env, stdout=writer, stderr=subprocess.PIPE, check=False)
        finally:
            os.close(writer)
        runs.append((done.returncode, done.stderr))
    assert runs[0] == runs[1] == (1, b"")
