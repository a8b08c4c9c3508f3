"""What the `check` tests need from the machine: hipify-perl and a HIP toolchain. Each helper skips
the calling test visibly, naming what is missing."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.hipclang import toolchain as hip
from migrate.hipify import tool as hipify
from tests.conftest import SHARED

HIPIFY_2026 = SHARED / "reference" / "hipify-perl-2026" / "hipify-perl"
DEBIAN_HIPCC = Path("/usr/bin/hipcc")


def hipify_perl() -> hipify.Tool:
    found = hipify.find()
    if found is not None:
        return found
    if HIPIFY_2026.is_file():
        return hipify.load(HIPIFY_2026)
    pytest.skip(f"no hipify-perl (set HIPIFY_PERL, install ROCm's HIPIFY, or provide {HIPIFY_2026})")


def pip_only() -> hip.HipToolchain:
    found = hip.find(Path(hip.PIP_ONLY))
    if isinstance(found, str):
        pytest.skip(f"pip-only HIP toolchain absent: {found}")
    return found


def debian_hipcc() -> Path:
    if not DEBIAN_HIPCC.is_file() or shutil.which("perl") is None:
        pytest.skip("Debian's hipcc is not installed (apt-get install hipcc libamdhip64-dev)")
    return DEBIAN_HIPCC


def any_toolchain() -> hip.HipToolchain:
    found = hip.find()
    if isinstance(found, str):
        pytest.skip(f"no HIP toolchain: {found}")
    return found


def checked_findings(path: Path, rulebase):
    """`check` on a one-file tree holding `path` (the pip-only toolchain where installed, else any)."""
    import tempfile

    from migrate.hipclang import check
    from migrate.settings import Settings

    tool = hipify_perl()
    found = hip.find(Path(hip.PIP_ONLY))
    compiler = found if not isinstance(found, str) else any_toolchain()
    with tempfile.TemporaryDirectory() as scratch:
        tree, out = Path(scratch) / "tree", Path(scratch) / "out"
        tree.mkdir()
        shutil.copyfile(path, tree / path.name)
        settings = Settings(jobs=1, cache_dir=None, arch=("gfx90a",))
        return check.run(tree, out, tool=tool, compiler=compiler, settings=settings, rules=rulebase).report.findings
