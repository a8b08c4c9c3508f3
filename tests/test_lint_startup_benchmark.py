"""benchmarks/lint_startup.py's reading of an interpreter's start (issue 33): the .pth files whose code every
start of the interpreter runs, which a user's clean virtual environment does not (this machine's pyenv
interpreter ran a sandbox's certificate hook of ~113 M instructions at each start, inside `python -c pass`)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "lint_startup.py"


def _module():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(BENCHMARK.parent))  # the script imports benchmarks/measure.py
    try:
        spec = importlib.util.spec_from_file_location("lint_startup_bench", BENCHMARK)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARK.parent))
    return module


def test_a_pth_file_that_runs_code_is_named_and_one_that_names_folders_is_not(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    site.mkdir()
    # the sandbox's hook and setuptools' shim, as they are written: code on an `import` line
    (site / "_sandboxing_egress_ca.pth").write_text("# written by ...\nimport os;exec('pass')\n")
    (site / "distutils-precedence.pth").write_text("import os; var = 'SETUPTOOLS_USE_DISTUTILS'\n")
    # near misses: an editable install's folder line, a tab-less word that only starts like import, another suffix
    (site / "_editable_impl_rocm_migrate.pth").write_text("/work/main\n")
    (site / "importer.pth").write_text("importlib_folder\n")
    (site / "notes.txt").write_text("import os\n")
    found = _module().pth_with_code([site, tmp_path / "missing"])
    assert found == [str(site / "_sandboxing_egress_ca.pth"), str(site / "distutils-precedence.pth")]

