"""pre-commit for real: this checkout's hook, installed into a new repository, guards its commits."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

KERNEL = """#include <hip/hip_runtime.h>
__device__ float warp_sum(float v) {
  for (int offset = 1; offset < 64; offset *= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}
"""
HELPER = "float scale(float x, float factor) { return x * factor; }\n"


def test_manifest_is_valid() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib", reason="pre-commit is a test dependency: pip install -e '.[test]'")
    (hook,) = clientlib.load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    assert (hook["id"], hook["entry"], hook["language"]) == ("rocm-migrate", "rocm-migrate lint", "python")
    assert {"c", "c++", "cuda", "python", "cmake", "dockerfile"} <= set(hook["types_or"])


def local_hook() -> dict:
    """The hook of .pre-commit-hooks.yaml as a local-repo entry that runs this checkout's code."""
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return {**hook, "language": "system", "entry": f"{shlex.quote(sys.executable)} -m migrate lint"}


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    pytest.importorskip("pre_commit", reason="pre-commit is a test dependency: pip install -e '.[test]'")
    path = tmp_path / "repo"
    path.mkdir()
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    for args in (["git", "init", "-q"], ["git", "config", "user.name", "Test"],
                 ["git", "config", "user.email", "test@example.com"], ["git", "config", "commit.gpgsign", "false"]):
        subprocess.run(args, cwd=path, env=env, check=True)
    config = {"repos": [{"repo": "local", "hooks": [local_hook()]}]}
    (path / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    installed = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=path, env=env,
                               capture_output=True, text=True, check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return path, env


def commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    return subprocess.run(["git", "commit", "-m", message], cwd=repo, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300, check=False)  # git runs hooks with stdout on stderr


def test_a_32bit_mask_is_rejected_and_a_clean_file_passes(repo: tuple[Path, dict[str, str]]) -> None:
    path, env = repo
    (path / "reduce.cu").write_text(KERNEL)
    rejected = commit(path, env, "warp sum")
    assert rejected.returncode != 0
    assert "reduce.cu:3:72: HIP4010 __shfl_down_sync: the lane mask is 32 bits wide" in rejected.stdout
    assert subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=path, env=env, check=False).returncode != 0

    subprocess.run(["git", "rm", "-q", "--cached", "reduce.cu"], cwd=path, env=env, check=True)
    (path / "reduce.cu").unlink()
    (path / "scale.cpp").write_text(HELPER)
    accepted = commit(path, env, "portable helper")
    assert accepted.returncode == 0, accepted.stdout
    assert "rocm-migrate lint" in accepted.stdout and "Passed" in accepted.stdout
    log = subprocess.run(["git", "log", "--format=%s"], cwd=path, env=env, capture_output=True, text=True, check=False)
    assert log.stdout == "portable helper\n"
