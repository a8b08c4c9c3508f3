"""A hostile repository cannot hurt the user (issue 12): every case of tests/hostile.py, built in a
temporary folder (FIFOs and symlinks cannot be committed) and run through the real CLI in a
subprocess with a wall-clock and an address-space limit. Each case must finish with its
documented exit code, no traceback, nothing from outside the tree in any output, the ordinary
file beside it still reported, the bad file under `skipped` or `notes` with a reason, and (for
convert) the source and every outside file byte-identical.

The file-level cases share one scan (each in a folder of its own); cases that need a root of
their own (configuration, .git, another command) run alone. The big inputs run at a quarter of
their size; `python benchmarks/hostile.py` runs them at full size and measures time and memory."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from tests.conftest import ROOT

os.environ.setdefault("HOSTILE_SCALE", "0.25")
from tests import hostile

TOGETHER = [c for c in hostile.CASES if c.combinable]
ALONE = [c for c in hostile.CASES if not c.combinable]
PYTHONPATH = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the hostile cases need Linux (FIFOs, /proc, /dev/zero)")


@pytest.fixture(scope="module")
def together(tmp_path_factory: pytest.TempPathFactory) -> hostile.Result:
    return hostile.run_together(TOGETHER, tmp_path_factory.mktemp("hostile"), pythonpath=PYTHONPATH, timeout=300)


@pytest.mark.parametrize("case", TOGETHER, ids=[c.name for c in TOGETHER])
def test_file_level_case(case: hostile.Case, together: hostile.Result) -> None:
    assert hostile.problems(together, budget=240, case=case, prefix=case.name + "/") == [], together.stderr[-2000:]


@pytest.mark.parametrize("case", ALONE, ids=[c.name for c in ALONE])
def test_case_with_a_root_of_its_own(case: hostile.Case, tmp_path: Path) -> None:
    if case.fake_hipify and not shutil.which("perl"):
        pytest.skip("perl is not installed (the stand-in hipify-perl is a Perl script)")
    result = hostile.run_case(case, tmp_path, pythonpath=PYTHONPATH, timeout=120)
    assert hostile.problems(result, budget=90) == [], result.stderr[-2000:]


def test_every_case_is_run() -> None:
    assert len(TOGETHER) + len(ALONE) == len(hostile.CASES) and len(TOGETHER) >= 20
