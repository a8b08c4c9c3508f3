"""A module a lint process names but may not use, run when first used (migrate/cli/deferred.py): its
code does not run until an attribute it lacks is asked, then runs once in the same object; an `import`
meanwhile does not run it; a failure leaves no module behind; and a lint of one file never runs
`inspect`, which `dataclasses` uses only for a class without a docstring."""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from migrate.cli import deferred
from tests.conftest import ROOT

KERNEL = ("#include <cuda_runtime.h>\n__global__ void reduce(float* v, int n) {\n  float x = v[threadIdx.x];\n"
          "  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffff, x, offset);\n"
          "  if (threadIdx.x == 0) v[0] = x;\n}\n")


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.startswith("lint15_probe")]:
            del sys.modules[name]


def _module(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(f"import builtins\nbuiltins.RUNS = getattr(builtins, 'RUNS', 0) + 1\n{body}")
    import builtins

    builtins.RUNS = 0  # type: ignore[attr-defined]


def _runs() -> int:
    import builtins

    return int(getattr(builtins, "RUNS", 0))


def test_a_deferred_module_runs_once_when_first_asked_in_the_same_object(folder: Path) -> None:
    _module(folder, "lint15_probe_a", "VALUE = 42\ndef twice(x):\n    return 2 * x\n")
    deferred.defer("lint15_probe_a")
    module = sys.modules["lint15_probe_a"]
    import lint15_probe_a  # type: ignore[import-not-found]

    assert lint15_probe_a is module and _runs() == 0 and deferred.pending("lint15_probe_a")
    assert module.__spec__ is not None and module.__name__ == "lint15_probe_a" and _runs() == 0
    assert lint15_probe_a.twice(lint15_probe_a.VALUE) == 84
    assert _runs() == 1 and not deferred.pending("lint15_probe_a") and type(module) is type(sys)
    from lint15_probe_a import VALUE  # type: ignore[import-not-found]

    assert VALUE == 42 and _runs() == 1 and sys.modules["lint15_probe_a"] is module
    with pytest.raises(AttributeError):
        _ = module.missing


def test_a_module_imported_already_is_left_as_it_is(folder: Path) -> None:
    _module(folder, "lint15_probe_b", "VALUE = 1\n")
    import lint15_probe_b  # type: ignore[import-not-found]

    deferred.defer("lint15_probe_b")
    assert sys.modules["lint15_probe_b"] is lint15_probe_b and not deferred.pending("lint15_probe_b")
    deferred.defer("lint15_probe_no_such_module")
    assert "lint15_probe_no_such_module" not in sys.modules


def test_a_deferred_module_that_fails_leaves_no_module_behind(folder: Path) -> None:
    _module(folder, "lint15_probe_c", "raise ValueError('broken')\n")
    deferred.defer("lint15_probe_c")
    module = sys.modules["lint15_probe_c"]
    with pytest.raises(ValueError, match="broken"):
        _ = module.anything
    assert "lint15_probe_c" not in sys.modules


def test_a_lint_of_one_file_never_runs_inspect(tmp_path: Path) -> None:
    """Fails when a dataclass without a docstring comes on lint's way (dataclasses then asks inspect
    for its signature): give it a docstring."""
    source = tmp_path / "kernel.cu"
    source.write_text(KERNEL)
    probe = ("import atexit, sys\n"
             "early = 'ipaddress' in sys.modules\n"  # imported by the interpreter's start (a site hook): not lint's
             "if 'inspect' in sys.modules: print('pending inspect-at-start', file=sys.stderr)\n"
             "def said():\n"
             "    from migrate.cli import deferred\n"
             "    print('pending', deferred.pending('inspect'), 'ast' in sys.modules, deferred.pending('ipaddress') or early,\n"
             "          file=sys.stderr)\n"
             "atexit.register(said)\n"
             f"sys.argv = ['rocm-migrate', 'lint', {str(source)!r}]\n"
             "from migrate.cli.entry import run\nrun()\n")
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": path}
    for _ in range(2):  # the first run compiles the rule cache; the second is an edited-file lint's
        source.write_text(KERNEL.replace("v[0]", f"v[{_}]"))
        result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False)
        assert result.returncode == 1 and "HIP4010" in result.stdout, result.stderr
        if "pending inspect-at-start" in result.stderr:
            pytest.skip("this interpreter imports inspect as it starts")
        assert result.stderr.rsplit("pending ", 1)[1].split()[:3] == ["True", "False", "True"], result.stderr
