"""How a lint process ends (migrate/cli/entry.leave): when the interpreter's way out would only free what
is alive (no atexit callback, no other thread), a lint flushes its streams and ends there, without tearing
its objects down; its output and exit status are those of the way out it skips. With an atexit callback
registered (a coverage tool's, logging's) the interpreter ends as before and the callback runs."""
from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest
from migrate.cli import entry
from tests.conftest import ROOT

KERNEL = ("#include <cuda_runtime.h>\n__global__ void reduce(float* v, int n) {{\n  float x = v[threadIdx.x];\n"
          "  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffff, x, offset);\n"
          "  if (threadIdx.x == 0) v[{run}] = x;\n}}\n")
# run with `python -v`, whose "# cleanup" lines on stderr tell the interpreter's tear-down; PROBE_ATEXIT
# registers an atexit callback
PROBE = """import os, sys
if os.environ.get("PROBE_ATEXIT"):
    import atexit
    atexit.register(lambda: os.write(2, b"at exit\\n"))
from migrate.cli.entry import run
run()
"""


def _lint(tmp_path: Path, *args: str, at_exit: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PROBE_ATEXIT")}
    # -S: no site hooks of this machine's interpreter (one registers an atexit callback); its packages named instead
    env.update(PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", ""),
                                                      *site.getsitepackages()) if p),
               ROCM_MIGRATE_CACHE_DIR=str(tmp_path / "cache"), PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"))
    if at_exit:
        env["PROBE_ATEXIT"] = "1"
    return subprocess.run([sys.executable, "-S", "-v", "-c", PROBE, "lint", *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, check=False)


def _torn_down(done: subprocess.CompletedProcess[str]) -> bool:
    return "\n# cleanup" in done.stderr


def _said(done: subprocess.CompletedProcess[str]) -> list[str]:
    """stderr without python -v's lines."""
    return [line for line in done.stderr.splitlines() if not line.startswith(("#", "import ", "code object "))]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_an_edited_file_lint_ends_without_tearing_down_and_says_the_same(tmp_path: Path, fmt: str) -> None:
    source = tmp_path / "reduce.cu"
    for run in range(2):  # the first run compiles the caches; the second is an edited-file lint
        source.write_text(KERNEL.format(run=run))
        fast = _lint(tmp_path, "reduce.cu", "-f", fmt)
        slow = _lint(tmp_path, "reduce.cu", "-f", fmt, at_exit=True)
    assert fast.returncode == slow.returncode == 1
    assert not _torn_down(fast) and "at exit" not in _said(fast)
    # near miss: an atexit callback keeps the interpreter's way out, which runs it and tears the modules down
    assert _torn_down(slow) and _said(slow)[-1] == "at exit"
    assert fast.stdout == slow.stdout and "HIP4010" in fast.stdout
    assert _said(fast) == _said(slow)[:-1] and "rocm-migrate: 1 file checked" in fast.stderr
    if fmt != "text":
        assert json.loads(fast.stdout)


def test_a_clean_lint_ends_with_status_0_and_a_usage_error_with_click_s(tmp_path: Path) -> None:
    (tmp_path / "plain.cu").write_text("int main() { return 0; }\n")
    clean = _lint(tmp_path, "plain.cu")
    assert clean.returncode == 0 and clean.stdout == "" and not _torn_down(clean)
    usage = _lint(tmp_path, "plain.cu", "--fail-on", "nonsense")  # click reads it: its message and status 2
    assert usage.returncode == 2 and "nonsense" in usage.stderr and not _torn_down(usage)


def test_leave_keeps_the_interpreter_s_way_out_when_something_is_left_to_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """In this test process (pytest's threads or atexit callbacks, a status that is text) `leave` is sys.exit."""
    import io

    ended: list[int] = []
    monkeypatch.setattr(os, "_exit", ended.append)
    for stream in ("stdout", "stderr", "__stdout__", "__stderr__"):
        monkeypatch.setattr(sys, stream, io.StringIO())
    monkeypatch.setattr(entry, "_nothing_left_to_run", lambda: False)
    with pytest.raises(SystemExit) as left:
        entry.leave(1, at_once=True)
    assert left.value.code == 1 and not ended
    monkeypatch.setattr(entry, "_nothing_left_to_run", lambda: True)
    with pytest.raises(SystemExit) as left:
        entry.leave("a message", at_once=True)  # a text status: sys.exit prints it
    assert left.value.code == "a message" and not ended
    with pytest.raises(SystemExit):
        entry.leave(1, at_once=False)  # not a lint
    assert not ended
    for code in (1, None):
        with pytest.raises(SystemExit):  # os._exit replaced: it returns, and sys.exit follows
            entry.leave(code, at_once=True)
    assert ended == [1, 0]
