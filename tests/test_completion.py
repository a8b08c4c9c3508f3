"""Shell completion through click, as the README documents it: the console script's source and a completion."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from tests.conftest import ROOT

AS_CONSOLE_SCRIPT = "import sys; sys.argv[0] = 'rocm-migrate'; from migrate.cli.main import main; raise SystemExit(main())"


def _complete(**env: str) -> str:
    done = subprocess.run([sys.executable, "-c", AS_CONSOLE_SCRIPT], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **env}, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(("shell", "marker"), [("bash", "complete -o nosort -F _rocm_migrate_completion rocm-migrate"),
                                               ("zsh", "#compdef rocm-migrate"),
                                               ("fish", "complete --no-files --command rocm-migrate")])
def test_source_is_produced(shell: str, marker: str) -> None:
    assert marker in _complete(_ROCM_MIGRATE_COMPLETE=f"{shell}_source")


def test_bash_completes_a_subcommand() -> None:
    out = _complete(_ROCM_MIGRATE_COMPLETE="bash_complete", COMP_WORDS="rocm-migrate sca", COMP_CWORD="1")
    assert "plain,scan" in out.splitlines()
