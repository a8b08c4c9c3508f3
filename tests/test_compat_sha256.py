"""migrate/compat.py's sha256_hex: SHA-256 without importing hashlib while little is hashed, the same digest as
hashlib's; and a lint of one edited file whose memos are warm hashes without importing hashlib."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from migrate import compat
from tests.conftest import ROOT
from tests.test_deferred import KERNEL


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 1000, 70_000])
def test_the_digest_is_hashlibs(size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    monkeypatch.setattr(compat, "_SHA256_USED", [0])
    assert compat.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_past_its_budget_or_beside_hashlib_the_builtin_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    if compat._builtin_sha256 is None:
        pytest.skip("this Python has no builtin SHA-256")
    calls: list[int] = []
    builtin = compat._builtin_sha256
    monkeypatch.setattr(compat, "_builtin_sha256", lambda data: calls.append(len(data)) or builtin(data))
    monkeypatch.setattr(compat, "_SHA256_USED", [0])
    modules = {k: v for k, v in sys.modules.items() if k != "hashlib"}
    monkeypatch.setattr(sys, "modules", modules)
    small, large = b"x" * 1000, b"y" * compat.SHA256_BUDGET
    assert compat.sha256_hex(small) == hashlib.sha256(small).hexdigest() and calls == [1000]
    assert compat.sha256_hex(large) == hashlib.sha256(large).hexdigest() and calls == [1000]  # over the budget
    modules["hashlib"] = hashlib
    assert compat.sha256_hex(small) == hashlib.sha256(small).hexdigest() and calls == [1000]  # imported anyway


def test_an_edited_file_lint_with_warm_memos_does_not_import_hashlib(tmp_path: Path) -> None:
    """Fails when a module on lint's way imports hashlib (use migrate.compat.sha256_hex, or import it where a
    miss of a memo needs it)."""
    source = tmp_path / "kernel.cu"
    probe = ("import atexit, sys\n"
             "if 'hashlib' in sys.modules: print('hashlib-at-start', file=sys.stderr)\n"
             "atexit.register(lambda: print('hashlib', 'hashlib' in sys.modules, file=sys.stderr))\n"
             "from migrate.extract import versionmemo\nfrom migrate.rulebase import stamps\n"
             "versionmemo.RACY_NS = stamps.RACY_NS = 0\n"  # a source edited just before the test is not racy here
             f"sys.argv = ['rocm-migrate', 'lint', {str(source)!r}]\n"
             "from migrate.cli.entry import run\nrun()\n")
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": path}
    for run in range(2):  # the first run writes the memos (rule data, extractor version); the second is an edited-file lint's
        source.write_text(KERNEL.replace("v[0]", f"v[{run}]"))
        result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False)
        assert result.returncode == 1 and "HIP4010" in result.stdout, result.stderr
        if "hashlib-at-start" in result.stderr:
            pytest.skip("this interpreter imports hashlib as it starts")
    assert result.stderr.rsplit("hashlib ", 1)[1].split()[0] == "False", result.stderr


def test_tomllib_is_imported_when_first_asked_for() -> None:
    """compat's tomllib is the standard library's (tomli before 3.11), imported on first use."""
    from migrate.compat import tomllib

    assert tomllib.loads('a = 1\n') == {"a": 1} and compat.tomllib is tomllib
    with pytest.raises(AttributeError):
        compat.not_there  # noqa: B018
