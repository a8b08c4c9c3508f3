"""What an edited-file lint in its own process does not do (issue 33, lint of one file toward 60 ms): each
test names one piece of work a lint of one small file left out and fails when it comes back. The probe
runs `rocm-migrate lint` twice on a kernel edited before each run (the first run compiles the caches, the
second is the edited-file lint a pre-commit hook runs) with `python -S` (no site hook of this machine's
interpreter imports modules first) and reports, from an atexit callback, what the second run did."""
from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import ROOT

KERNEL = ("#include <cuda_runtime.h>\n__global__ void reduce(float* v, int n) {{\n  float x = v[threadIdx.x];\n"
          "  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffff, x, offset);\n"
          "  if (threadIdx.x == 0) v[{run}] = x;\n}}\n")
PROBE = """import atexit, json, os, sys
start = set(sys.modules)
def said():
    from migrate.cli import deferred
    seen = {"modules": sorted(n for n in sys.modules if n not in start and not deferred.pending(n)),
            "at_start": sorted(start)}
    os.write(2, ("PROBE " + json.dumps(seen) + "\\n").encode())
atexit.register(said)
from migrate.cli.entry import run
run()
"""


def _probe(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", ""),
                                                      *site.getsitepackages()) if p),
               ROCM_MIGRATE_CACHE_DIR=str(tmp_path / "cache"), PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"))
    source = tmp_path / "reduce.cu"
    for run in range(2):  # the first run compiles the caches; the second is an edited-file lint
        source.write_text(KERNEL.format(run=run))
        done = subprocess.run([sys.executable, "-S", "-c", PROBE, "lint", *args], capture_output=True, text=True,
                              env=env, cwd=tmp_path, check=False)
    line = [x for x in done.stderr.splitlines() if x.startswith("PROBE ")]
    assert line, done.stderr
    return done, json.loads(line[-1][len("PROBE "):])


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]:
    return _probe(tmp_path_factory.mktemp("lint20"), "reduce.cu")


def test_an_edited_file_lint_finds_what_it_found(edited: tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]) -> None:
    done, _ = edited
    assert done.returncode == 1 and "HIP4010" in done.stdout and "1 file checked" in done.stderr


def test_the_collector_s_threshold_is_raised_before_lint_s_modules_are_imported(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """migrate.cli.entry.lint_or_main raises the young generation's threshold before the start table is installed and
    lint's modules imported: with the interpreter's 700 the imports set off ~15 more collections, each over every
    young object (~8 M instructions of an edited-file lint's ~326 M)."""
    import gc

    from migrate.cli import entry, startcache
    from migrate.extract import budget

    source = tmp_path / "reduce.cu"
    source.write_text(KERNEL.format(run=0))
    seen: list[int] = []
    monkeypatch.setattr(startcache, "install", lambda: seen.append(gc.get_threshold()[0]))
    monkeypatch.setattr(budget, "_WHEN_MACHINE_DEPENDENT", [])
    before = gc.get_threshold()
    try:
        gc.set_threshold(700)
        entry.lint_or_main(["lint", str(source)])
        assert seen == [entry.LINT_GC_THRESHOLD] and gc.get_threshold()[0] == entry.LINT_GC_THRESHOLD
        # near miss: a lint command line cli/lint_args.py does not read runs click's command, which collects as before
        gc.set_threshold(700)
        entry.lint_or_main(["lint", str(source), "--fail-on", "nonsense"])
        assert seen == [entry.LINT_GC_THRESHOLD] * 2 and gc.get_threshold()[0] == 700
    finally:
        gc.set_threshold(*before)


def test_a_lint_of_a_file_in_the_working_folder_never_runs_inspect(
        edited: tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]) -> None:
    """A file inside the folder lint runs in brings the project's readings (migrate.workloads: ported evidence) on
    lint's way; a dataclass there without a docstring made dataclasses ask inspect for its signature (~30 M
    instructions with ast, dis and tokenize). tests/test_deferred.py checks a file outside the working folder."""
    _, seen = edited
    assert "migrate.workloads.ported" in seen["modules"]  # the readings of the project around the file ran
    assert not {"inspect", "ast", "dis", "tokenize"} & set(seen["modules"])


def test_a_lint_inside_a_git_project_reads_the_project_without_inspect_or_a_pool_s_modules(tmp_path: Path) -> None:
    """A file inside a checkout (a `.git` folder, a Makefile, another kernel) is linted with the project's parts
    (lint/project.py: every file analysed as a scan does, then the parts decided), the lint of a file in a repository
    a pre-commit hook runs. That way imported what it never uses: dataclasses without a docstring on it (the analysed
    file's outcome, the stat cache's entry, the workload spec ...) made dataclasses ask inspect for a signature
    (~38 M instructions with ast, dis and tokenize); the analysis imported multiprocessing and concurrent.futures (with
    logging, pickle, socket, tempfile) for a pool a lint of a few changed files never starts; and the table of what
    packages require, read on every project, imported packaging.tags (platform, sysconfig) for projects declaring no
    extra."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "Makefile").write_text("all: reduce\nreduce: reduce.cu other.cu\n\tnvcc -o $@ $^\n")
    (tmp_path / "other.cu").write_text("#include <cuda_runtime.h>\nvoid f(void* p) { cudaFree(p); }\n")
    done, seen = _probe(tmp_path, "reduce.cu")
    assert done.returncode == 1 and "HIP4010" in done.stdout and "1 file checked" in done.stderr
    assert {"migrate.workloads.parts", "migrate.scan.analyse"} <= set(seen["modules"])  # the project was read
    assert not {"inspect", "dis", "tokenize", "multiprocessing", "concurrent.futures", "logging", "tempfile",
                "packaging.tags", "platform"} & set(seen["modules"])


def test_ntpath_is_not_run_by_a_lint(edited: tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]) -> None:
    """pathlib names ntpath for its Windows paths; a lint on POSIX uses none, so entry defers it (migrate.cli.deferred:
    ~2 M instructions, most of them ntpath's five failed `import nt`)."""
    _, seen = edited
    assert "pathlib" in seen["modules"] and "ntpath" not in seen["modules"]


def test_a_windows_path_works_with_ntpath_deferred() -> None:
    """Near miss: code that does use a Windows path after the deferral gets ntpath run, in the same module object."""
    probe = ("from migrate.cli import deferred\ndeferred.defer('ntpath')\nimport sys, pathlib\n"
             "assert deferred.pending('ntpath')\n"
             "print(pathlib.PureWindowsPath('C:\\\\a\\\\b.cu').as_posix(), sys.modules['ntpath'].join('a', 'b'), "
             "deferred.pending('ntpath'), sys.modules['ntpath'] is pathlib.ntpath)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), *site.getsitepackages()) if p)}
    done = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert done.stdout.split() == ["C:/a/b.cu", "a\\b", "False", "True"], done.stderr


def test_datetime_py_and_signal_py_are_not_run_by_a_lint(
        edited: tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]) -> None:
    """orjson and sqlite3 are imported with the C module _datetime standing in for datetime (compat.import_with_c_datetime:
    ~4 M instructions); extract/budget.py sets its signal handlers through _signal, without signal.py's enums (~3 M)."""
    _, seen = edited
    assert {"orjson", "_datetime", "migrate.extract.budget", "_signal"} <= set(seen["modules"]) | set(seen["at_start"])
    assert "datetime" not in seen["modules"] and "signal" not in seen["modules"]


def test_sqlite3_is_not_run_by_a_lint_of_a_file_edited_since_the_cache_was_written(tmp_path: Path) -> None:
    """The extraction cache holds no row for an edited file's new bytes: a lint of a few small files looks up only
    files not modified since the cache file was last written (extract/run.py), so neither sqlite3 nor the extractor
    version it would key the lookup by is needed (~10.9 M instructions of an edited-file lint). The cache file here
    was written before the edit, as by an earlier scan or lint of the tree."""
    from migrate.scan.cache import Cache

    cache = Cache(tmp_path / "cache")
    cache.put_rows([("a scan's row", b"[]")])
    assert cache.path is not None and cache.written_ns() is not None
    os.utime(cache.path, ns=(cache.path.stat().st_atime_ns, cache.path.stat().st_mtime_ns - 10**10))
    done, seen = _probe(tmp_path, "reduce.cu")
    assert done.returncode == 1 and "HIP4010" in done.stdout
    assert not {"sqlite3", "sqlite3.dbapi2", "_sqlite3", "migrate.extract.versionmemo"} & set(seen["modules"])


def test_datetime_imported_after_the_stand_in_is_the_one_orjson_and_sqlite3_use(tmp_path: Path) -> None:
    """Near miss: code that imports datetime afterwards gets datetime.py, whose classes are those orjson writes and
    sqlite3's converters make."""
    probe = ("import sys\nfrom migrate import jsonio\nfrom migrate.scan import cache\ncache.sqlite3.connect\n"
             "print('datetime' in sys.modules)\nimport datetime, _datetime, sqlite3\n"
             "day = datetime.date(2026, 12, 7)\n"
             "db = sqlite3.connect(':memory:', detect_types=sqlite3.PARSE_DECLTYPES)\n"
             "db.execute('create table t (d date)')\n"
             "import warnings\nwarnings.simplefilter('ignore')\n"
             "db.execute('insert into t values (?)', (day,))\n"
             "back = db.execute('select d from t').fetchone()[0]\n"
             "print(datetime.datetime is _datetime.datetime, type(back) is datetime.date and back == day,"
             " jsonio.dumps([day, datetime.datetime(2026, 12, 7, 1, 2, tzinfo=datetime.timezone.utc)]).decode())\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), *site.getsitepackages()) if p)}
    done = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert done.stdout.split() == ["False", "True", "True", '["2026-12-07","2026-12-07T01:02:00+00:00"]'], done.stderr


def test_threading_is_not_run_by_a_lint(edited: tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]) -> None:
    """extract/budget.py asks threading for the main thread only where threading is imported (budget.on_main_thread),
    and extract/c/tree.py and ts.py take threading.local from _thread: a lint, which starts no thread, does not run
    threading.py (~1.4 M instructions of an edited-file lint)."""
    _, seen = edited
    assert {"migrate.extract.budget", "migrate.extract.c.ts", "migrate.extract.c.tree"} <= set(seen["modules"])
    assert "threading" not in seen["modules"]


def test_the_main_thread_is_threading_s_before_and_after_threading_is_imported() -> None:
    """Near miss for budget.on_main_thread: before any import of threading it answers True (threading, imported
    there, would make that thread its main thread); once imported, as threading does: True in the main thread,
    False in a thread started through it, where no time limit is set; the deep retry still runs in its thread."""
    probe = ("import sys\nfrom migrate.extract import budget\nfrom migrate.extract.c import tree, ts\n"
             "print('threading' in sys.modules, budget.on_main_thread())\n"
             "import threading, _thread\nseen = []\n"
             "worker = threading.Thread(target=lambda: seen.append(budget.on_main_thread()))\n"
             "worker.start()\nworker.join()\n"
             "print(budget.on_main_thread(), seen, threading.local is _thread._local,"
             " isinstance(tree._READING, threading.local), isinstance(ts._PARSERS, threading.local))\n"
             "from migrate.model import Extraction\n"
             "deep = budget._deep(lambda source: Extraction(facts=(), lines=len(source),"
             " error=str(budget.on_main_thread())), b'abc')\n"
             "print(deep.lines, deep.error)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), *site.getsitepackages()) if p)}
    done = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert done.stdout.split() == ["False", "True", "True", "[False]", "True", "True", "True", "3", "False"], done.stderr


def test_a_time_limit_puts_back_the_handlers_it_found() -> None:
    """Near miss for the budget's _signal: the handlers a time limit replaces are the ones set again after it."""
    import signal

    from migrate.extract import budget

    assert budget.signal.__name__ == "_signal" or sys.implementation.name != "cpython"  # CPython always has _signal
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGALRM)
    with budget.time_limit(30):
        assert signal.getsignal(signal.SIGALRM) is not before[1] and signal.getitimer(signal.ITIMER_REAL)[0] > 0
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGALRM)) == before
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="uuid imports no platform from 3.12 on: compat.import_uuid does nothing")
def test_platform_py_is_not_run_by_a_lint(edited: tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]) -> None:
    """orjson's start imports uuid, whose Python 3.10/3.11 module imports platform for `platform.system()` alone; on
    Linux a stand-in answers it (compat.import_uuid: ~3.7 M instructions)."""
    _, seen = edited
    assert "uuid" in seen["modules"] or "uuid" in seen["at_start"]
    if sys.platform == "linux" and "platform" not in seen["at_start"]:
        assert "platform" not in seen["modules"]


def test_uuid_imported_without_platform_is_uuid_and_platform_imports_as_before() -> None:
    """Near miss: uuid's flags are what platform would have set, orjson writes uuid.UUID as before, and `import
    platform` afterwards runs platform.py."""
    probe = ("import os, sys\nfrom migrate import jsonio\nimport uuid\nprint('platform' in sys.modules)\n"
             "value = uuid.UUID('12345678-1234-5678-1234-567812345678')\n"
             "import platform\n"
             "print(uuid._LINUX == (platform.system() == 'Linux'), uuid._AIX == (platform.system() == 'AIX'),"
             " hasattr(platform, 'machine'), jsonio.dumps([value]).decode())\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), *site.getsitepackages()) if p)}
    done = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, env=env, check=False)
    linux = sys.platform == "linux"
    assert done.stdout.split() == [str(not linux), "True", "True", "True",
                                   '["12345678-1234-5678-1234-567812345678"]'], done.stderr


def test_urllib_parse_is_not_run_by_a_lint(edited: tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]) -> None:
    """pathlib imports urllib.parse for `as_uri()` alone; a lint never calls it (compat.import_pathlib: ~3 M
    instructions of an edited-file lint)."""
    _, seen = edited
    assert "pathlib" in seen["modules"] or "pathlib" in seen["at_start"]
    if sys.version_info < (3, 13) and "urllib.parse" not in seen["at_start"]:
        assert "urllib.parse" not in seen["modules"]


def test_pathlib_imported_without_urllib_parse_makes_the_same_uris_and_urllib_parse_imports_as_before() -> None:
    """Near miss: as_uri() of POSIX and Windows paths (quoted) answers what urllib.parse's quote_from_bytes makes of
    them, urllib.parse runs on that first call, and `import urllib.parse` afterwards is urllib.parse itself."""
    probe = ("import sys\nfrom migrate import compat\ncompat.import_pathlib()\nimport pathlib\n"
             "print('urllib.parse' in sys.modules)\n"
             "uris = [pathlib.PurePosixPath('/a b/c%d\\u00e9').as_uri(), pathlib.PureWindowsPath('c:/a b/#x').as_uri()]\n"
             "print('urllib.parse' in sys.modules)\n"
             "import urllib.parse\n"
             "print(uris == ['file://' + urllib.parse.quote_from_bytes('/a b/c%d\\u00e9'.encode()),"
             " 'file:///c:/' + urllib.parse.quote_from_bytes(b'a b/#x')], urllib.parse.urlsplit('http://h/p').netloc,"
             " urllib.parse.__spec__.origin == urllib.parse.__file__)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), *site.getsitepackages()) if p)}
    done = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert done.stdout.split() == ["False", "True", "True", "h", "True"], done.stderr


def test_version_reads_the_rule_data_s_digest_by_stamps_and_imports_no_lint_module(tmp_path: Path) -> None:
    """`rocm-migrate --version` cost more than an edited-file lint (~395 M instructions against ~240 M): it imported
    lint's modules (cli/lint_args.py, extract/budget.py) without their start table and hashed every rule data file for
    the rules' digest. A second --version knows the digest from the stamps memo (rulebase/stamps), imports no lint
    module and no hashlib, and says what load.rules_version() says."""
    from migrate import __version__
    from migrate.rulebase.load import rules_version

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", ""),
                                                      *site.getsitepackages()) if p),
               ROCM_MIGRATE_CACHE_DIR=str(tmp_path / "cache"), PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"))
    outputs, seen = [], {}
    for _ in range(2):
        done = subprocess.run([sys.executable, "-S", "-c", PROBE, "--version"], capture_output=True, text=True,
                              env=env, cwd=tmp_path, check=False)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
        seen = json.loads([x for x in done.stderr.splitlines() if x.startswith("PROBE ")][-1][len("PROBE "):])
    assert outputs == [f"rocm-migrate {__version__} (rules {rules_version()})\n"] * 2
    assert (tmp_path / "cache" / "rules").is_dir()  # the memo the second run read
    modules = set(seen["modules"])
    assert not modules & {"migrate.cli.lint_args", "migrate.cli.lint_run", "migrate.extract.budget", "hashlib", "_hashlib"}
    assert "click" in modules  # the near miss: --version is still click's option
