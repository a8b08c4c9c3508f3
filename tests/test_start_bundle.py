"""The package's own modules served to a lint from one file beside the start table (migrate/cli/codebundle.py):
a second process imports them from it, and whatever would make the path search find something else (an edited
source, a new entry in a module's folder, another parent path) makes that module's import read its file as before.
Each process runs in a subprocess on a copy of the package, so that a test can edit the copy's files."""
from __future__ import annotations

import json
import marshal
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

KERNEL = ("#include <cuda_runtime.h>\n__global__ void reduce(float* v, int n) {{\n  float x = v[threadIdx.x];\n"
          "  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffff, x, offset);\n"
          "  if (threadIdx.x == 0) v[{run}] = x;\n}}\n")
# install the bundle, import some of the package's modules, store what is new; RACY_NS 0: the copy was just made
PROBE = """import json, sys
from migrate.rulebase import filestamp
filestamp.RACY_NS = int(sys.argv[1])
from migrate.cli import codebundle
codebundle.install("lint", ("test", 1))
import migrate.extract.names, migrate.lint.selection, migrate.settings
if len(sys.argv) > 2:
    __import__(sys.argv[2])
bundle = codebundle._Bundle.current
imported = sorted(n for n in sys.modules if n.startswith("migrate.") and n not in bundle.before)
codebundle.save()
names = sys.modules["migrate.extract.names"]
print(json.dumps({"served": sorted(bundle.served), "imported": imported, "edited": getattr(names, "EDITED", None),
                  "names_file": names.__file__, "loader": type(names.__loader__).__mro__[1].__name__
                  if names.__name__ in bundle.served else type(names.__loader__).__name__,
                  "cached": names.__cached__, "outside": [n for n in bundle.entries if not n.startswith("migrate.")],
                  "groups": sorted(bundle.loaded), "unmarshalled": sum(map(len, bundle.loaded.values()))}))
"""


def _copy(tmp_path: Path) -> Path:
    where = tmp_path / "code"
    shutil.copytree(ROOT / "migrate", where / "migrate", ignore=shutil.ignore_patterns("__pycache__"))
    (where / "rules").symlink_to(ROOT / "rules")  # the data the modules read as they are imported
    return where


def _probe(tmp_path: Path, code: Path, racy_ns: int = 0, *more: str, **extra: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=os.pathsep.join([str(code), *site.getsitepackages()]), PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"),
               **extra)
    done = subprocess.run([sys.executable, "-S", "-c", PROBE, str(racy_ns), *more], capture_output=True, text=True, env=env,
                          cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    said: dict[str, object] = json.loads(done.stdout)
    return said


def _bundle(tmp_path: Path) -> Path:
    return next((tmp_path / "pycache").rglob("codebundle.*.marshal"))


def test_a_second_process_imports_the_package_s_modules_from_the_bundle(tmp_path: Path) -> None:
    code = _copy(tmp_path)
    first, second = _probe(tmp_path, code), _probe(tmp_path, code)
    assert first["served"] == [] and len(first["imported"]) > 10  # type: ignore[arg-type]
    assert second["served"] == second["imported"] == first["imported"]  # every module imported after install
    assert second["loader"] == "SourceFileLoader" and second["names_file"] == first["names_file"]
    assert second["cached"] == first["cached"]  # the module's attributes are those the path search gives
    raw = _bundle(tmp_path).read_bytes()
    key, entries, groups = marshal.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])
    assert key == ("test", 1) and sorted(entries) == first["imported"] and second["outside"] == []
    assert len(groups) == 1 and second["groups"] == [0]


def test_modules_another_run_added_are_unmarshalled_only_by_a_run_that_imports_them(tmp_path: Path) -> None:
    """A run that imports modules the bundle lacks (a lint of another kind of file) adds them as a group of their
    own; a run that imports only the first run's modules does not unmarshal that group."""
    code = _copy(tmp_path)
    first = _probe(tmp_path, code)
    wider = _probe(tmp_path, code, 0, "migrate.extract.python.notebook")
    assert "migrate.extract.python.notebook" in wider["imported"] and "migrate.extract.python.notebook" not in wider["served"]  # type: ignore[operator]
    again = _probe(tmp_path, code, 0, "migrate.extract.python.notebook")
    assert again["served"] == again["imported"] and again["groups"] == [0, 1]
    narrow = _probe(tmp_path, code)
    assert narrow["served"] == narrow["imported"] == first["imported"] and narrow["groups"] == [0]


def test_a_group_holding_modules_a_run_did_not_import_is_split_for_the_next_such_run(tmp_path: Path) -> None:
    """A wide run stored first (a whole-project lint, a lint of a Python file): a narrower run unmarshals that group
    once, and splits it, so that the next narrow run unmarshals the modules it imports and no others."""
    code = _copy(tmp_path)
    _probe(tmp_path, code, 0, "migrate.extract.python.notebook")
    narrow = _probe(tmp_path, code)
    assert narrow["served"] == narrow["imported"]
    assert int(str(narrow["unmarshalled"])) > len(narrow["served"])  # type: ignore[arg-type]
    again = _probe(tmp_path, code)
    assert again["served"] == narrow["served"] and again["unmarshalled"] == len(again["served"])  # type: ignore[arg-type]
    wide = _probe(tmp_path, code, 0, "migrate.extract.python.notebook")
    assert wide["served"] == wide["imported"] and wide["unmarshalled"] == len(wide["served"])  # type: ignore[arg-type]


def test_an_edited_module_is_imported_from_its_file_and_stored_again(tmp_path: Path) -> None:
    code = _copy(tmp_path)
    _probe(tmp_path, code)
    names = code / "migrate" / "extract" / "names.py"
    names.write_text(names.read_text() + "\nEDITED = 1\n")
    edited = _probe(tmp_path, code)
    assert edited["edited"] == 1 and "migrate.extract.names" not in edited["served"]  # type: ignore[operator]
    assert len(edited["served"]) == len(edited["imported"]) - 1  # type: ignore[arg-type]
    again = _probe(tmp_path, code)
    assert again["edited"] == 1 and again["served"] == again["imported"]


def test_a_new_entry_in_a_module_s_folder_makes_the_search_run_again(tmp_path: Path) -> None:
    """Near miss: the source did not change, but a package of the same name now comes first in its folder (the
    path search tries a directory before a source file): the package is what is imported."""
    code = _copy(tmp_path)
    _probe(tmp_path, code)
    shadow = code / "migrate" / "extract" / "names"
    shadow.mkdir()
    (shadow / "__init__.py").write_text((code / "migrate" / "extract" / "names.py").read_text() + "\nEDITED = 2\n")
    said = _probe(tmp_path, code)
    assert said["edited"] == 2 and str(said["names_file"]).endswith(os.path.join("names", "__init__.py"))
    assert "migrate.extract.names" not in said["served"]  # type: ignore[operator]


def test_another_copy_of_the_package_is_not_served_the_first_one_s_code(tmp_path: Path) -> None:
    """The bundle belongs to the bytecode folder, which two copies of the package share under one
    PYTHONPYCACHEPREFIX: the second copy's parent path differs, so its modules are searched for."""
    first = _copy(tmp_path)
    _probe(tmp_path, first)
    second = tmp_path / "other"
    shutil.copytree(first, second)
    names = second / "migrate" / "extract" / "names.py"
    names.write_text(names.read_text() + "\nEDITED = 3\n")
    said = _probe(tmp_path, second)
    assert said["edited"] == 3 and said["names_file"] == str(names)


def test_files_changed_within_the_racy_margin_are_not_stored(tmp_path: Path) -> None:
    """A source or folder stamped within filestamp.RACY_NS of the run cannot be told apart from a later change in
    the same clock tick: nothing so recent is stored, and without bytecode writing nothing is."""
    code = _copy(tmp_path)
    _probe(tmp_path, code, racy_ns=10**12)
    assert not list((tmp_path / "pycache").rglob("codebundle.*.marshal"))
    _probe(tmp_path, code, PYTHONDONTWRITEBYTECODE="1")
    assert not list((tmp_path / "pycache").rglob("codebundle.*.marshal"))


def test_a_second_lint_process_imports_the_package_from_the_bundle_with_the_same_output(tmp_path: Path) -> None:
    probe = ("import atexit, json, sys\n"
             "def said():\n"
             "    from migrate.cli import codebundle as c\n"
             "    b = c._Bundle.current\n"
             "    print(json.dumps([len(b.served), sorted(n for n in sys.modules if n.startswith('migrate.')"
             " and n not in b.before and n not in b.served)]), file=sys.stderr)\n"
             "atexit.register(said)\nfrom migrate.cli.entry import run\nrun()\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), *site.getsitepackages()]), PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"),
               ROCM_MIGRATE_CACHE_DIR=str(tmp_path / "cache"))
    source = tmp_path / "reduce.cu"
    runs = []
    for run in range(2):
        source.write_text(KERNEL.format(run=run))  # edited: linted again, not replayed
        done = subprocess.run([sys.executable, "-S", "-c", probe, "lint", "reduce.cu"], capture_output=True,
                              text=True, env=env, cwd=tmp_path, check=False)
        err, _, said = done.stderr.rstrip("\n").rpartition("\n")
        runs.append((done.returncode, done.stdout, err, json.loads(said)))
    assert runs[0][3][0] == 0 and runs[1][3][0] > 50 and runs[1][3][1] == []
    assert runs[0][:3] == runs[1][:3] and "HIP4010" in runs[1][1]
