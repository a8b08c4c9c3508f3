"""The compiled forms a lint process keeps for the next one (migrate/cli/startcache.py): a second
process compiles no regular expression and no dataclass method, what it serves equals what re and
dataclasses make, the output is the same, and a table that does not fit is not used. Every process
that installs the hooks is a subprocess: the test process keeps re and dataclasses as they are."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from migrate.cli import startcache
from tests.conftest import ROOT

KERNEL = ("#include <cuda_runtime.h>\n__global__ void reduce(float* v, int n) {\n  float x = v[threadIdx.x];\n"
          "  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffff, x, offset);\n"
          "  if (threadIdx.x == 0) v[0] = x;\n}\n")
# the process entry, then what the start table did in this process (on stderr's last line, as JSON)
PROBE = """import atexit, json, sys
def said():
    from migrate.cli import startcache as s
    t = s._Table.current
    print(json.dumps(None if t is None else {"new_patterns": len(t.new_patterns), "new_sources": len(t.new_sources),
          "new_classes": len(t.new_classes), "served": len(t.used_patterns), "path": t.path}), file=sys.stderr)
atexit.register(said)
from migrate.cli.entry import run
run()
"""
# patterns of every shape re compiles: flags, bytes, named groups, look-behind, a Unicode class
PATTERNS = [(r"(?P<name>cuda\w+)\s*\(", 0), (r"^\s*#\s*include\s*[<\"]([^>\"]+)", re.M), (rb"\x00|\xff{2,}", 0),
            (r"(?<=\bwarp)Size", re.I), (r"[\u00e9\w]+ # comment", re.X), (r"a|b|(c(d)e)?", re.S | re.I)]
SERVE = """import json, re, sys
from migrate.cli import startcache
startcache.install()
cases = [(p.encode('latin-1') if b else p, f) for p, f, b in json.loads(sys.argv[1])]
compiled = []
for p, f in cases:  # a module body's patterns (composed at import time) are the code's own
    compiled.append(re.compile(p, f))
t = startcache._Table.current
served = [(p, f) in t.used_patterns for p, f in cases]
same = [c == t.original(p, f) and c.groupindex == t.original(p, f).groupindex for c, (p, f) in zip(compiled, cases)]
startcache.save()
print(json.dumps({"served": served, "same": same}))
"""


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
               PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"), ROCM_MIGRATE_CACHE_DIR=str(tmp_path / "cache"), **extra)
    return env


def _lint(tmp_path: Path, source: Path, env: dict[str, str]) -> tuple[int, str, str, dict[str, object] | None]:
    done = subprocess.run([sys.executable, "-c", PROBE, "lint", str(source)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, check=False)
    err, _, said = done.stderr.rstrip("\n").rpartition("\n")
    return done.returncode, done.stdout, err, json.loads(said)


def test_a_second_lint_process_compiles_no_pattern_and_no_dataclass_method(tmp_path: Path) -> None:
    source = tmp_path / "kernel.cu"
    source.write_text(KERNEL)
    env = _env(tmp_path)
    first = _lint(tmp_path, source, env)
    source.write_text(KERNEL.replace("v[0]", "v[1]"))  # edited: extracted again, not replayed
    second = _lint(tmp_path, source, env)
    assert first[3] is not None and second[3] is not None
    counts = [{k: int(str(v)) for k, v in said.items() if k != "path"} for said in (first[3], second[3])]
    # nothing stored yet: all compiled here (the dataclass methods' code kept in the class recipes: cli/classmemo.py)
    assert counts[0]["new_patterns"] > 50 and counts[0]["new_sources"] > 5 and counts[0]["new_classes"] > 30
    assert counts[1]["new_patterns"] == 0 and counts[1]["new_sources"] == 0 and counts[1]["new_classes"] == 0
    assert counts[1]["served"] > 50
    assert Path(str(second[3]["path"])).is_file() and str(second[3]["path"]).startswith(str(tmp_path / "pycache"))
    assert first[0] == second[0] == 1
    assert first[1] == second[1] and "HIP4010" in second[1]
    assert first[2] == second[2]



def _scan(tmp_path: Path, tree: Path, env: dict[str, str], cache: str) -> tuple[int, bytes, str, dict[str, object] | None]:
    report = tmp_path / f"{cache}.json"
    done = subprocess.run([sys.executable, "-c", PROBE, "scan", str(tree), "--no-hipify", "-f", "json", "-o", str(report),
                           "--jobs", "1"], capture_output=True, text=True, cwd=tmp_path, check=False,
                          env={**env, "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / cache)})
    err, _, said = done.stderr.rstrip("\n").rpartition("\n")
    return done.returncode, report.read_bytes(), err, json.loads(said)


# text compiled in the process while the start table is in place (dataclass methods, slot makers, namedtuple's
# __new__: file name "<string>"); a module's own source compiled by import is the bytecode cache's concern, and what
# runs before the table is installed is not the table's (in a fresh venv functools is first imported then, and its
# CacheInfo namedtuple compiled, in every process)
COMPILES = """import sys
compiled = []
def _table():
    return getattr(getattr(sys.modules.get("migrate.cli.startcache"), "_Table", None), "current", None)
sys.addaudithook(lambda event, args: compiled.append(1) if event == "compile" and isinstance(args[0], (str, bytes))
                 and not str(args[1]).endswith(".py") and _table() is not None else None)
"""


def test_a_second_lint_process_compiles_no_source_text(tmp_path: Path) -> None:
    """Nothing is compiled from text in a second lint process: not dataclass methods, not model's slot makers
    (compat.run_text), not namedtuple's __new__ (urllib.parse's, platform's); the first one compiled them."""
    source = tmp_path / "kernel.cu"
    source.write_text(KERNEL)
    env = _env(tmp_path)
    counted = COMPILES + PROBE.replace("said():", "said():\n    print(json.dumps(len(compiled)), file=sys.stderr)")
    runs = []
    for n in range(2):
        source.write_text(KERNEL.replace("v[0]", f"v[{n}]"))  # edited: extracted, not replayed
        done = subprocess.run([sys.executable, "-c", counted, "lint", str(source)], capture_output=True, text=True,
                              env=env, cwd=tmp_path, check=False)
        lines = done.stderr.rstrip("\n").split("\n")
        runs.append((done.returncode, done.stdout, int(lines[-2]), json.loads(lines[-1])))
    assert runs[0][2] > 0 and runs[0][3]["new_sources"] > 5  # the first compiles (bytecode and table are empty)
    assert runs[0][3]["new_classes"] > 30  # its dataclass methods' code kept in the class recipes (cli/classmemo.py)
    assert runs[1][2] == 0 and runs[1][3]["new_sources"] == 0 and runs[1][3]["new_classes"] == 0
    assert runs[0][0] == runs[1][0] == 1 and "HIP4010" in runs[1][1]


def test_a_lint_reads_a_table_of_its_own_beside_a_scan_s(tmp_path: Path) -> None:
    """A scan stores what it compiles in the scan table; a lint after it compiles its own (none served from the
    scan's table) into the lint table, which holds fewer patterns, and a second lint is served from it."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "kernel.cu").write_text(KERNEL)
    env = _env(tmp_path)
    scanned = _scan(tmp_path, tree, env, "scan")
    assert scanned[3] is not None and str(scanned[3]["path"]).endswith(".scan.marshal")
    source = tmp_path / "kernel.cu"
    source.write_text(KERNEL)
    first = _lint(tmp_path, source, env)[3]
    source.write_text(KERNEL.replace("v[0]", "v[1]"))
    second = _lint(tmp_path, source, env)[3]
    assert first is not None and second is not None and first["path"] == second["path"] != scanned[3]["path"]
    assert Path(str(first["path"])).name == f"startcache.{sys.implementation.cache_tag}.marshal"  # the name tables had
    assert first["served"] == 0 and int(str(first["new_patterns"])) > 50
    assert second["served"] == first["new_patterns"] and second["new_patterns"] == second["new_sources"] == 0
    import marshal

    def patterns(path: object) -> int:
        return len(marshal.loads(marshal.loads(Path(str(path)).read_bytes())[2])[0])

    assert patterns(first["path"]) < patterns(scanned[3]["path"])


def test_a_first_scan_serves_what_an_earlier_scan_compiled(tmp_path: Path) -> None:
    """A scan installs the table too: a first scan of a tree (an empty cache directory) after an earlier scan compiles
    no pattern and no dataclass method the earlier one stored, and its report is the same byte for byte."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "kernel.cu").write_text(KERNEL)
    env = _env(tmp_path)
    first = _scan(tmp_path, tree, env, "first")
    second = _scan(tmp_path, tree, env, "second")
    assert first[3] is not None and second[3] is not None
    counts = [{k: int(str(v)) for k, v in said.items() if k != "path"} for said in (first[3], second[3])]
    assert counts[0]["new_patterns"] > 50 and counts[0]["new_sources"] > 200  # nothing stored yet: all compiled here
    assert counts[1]["new_patterns"] == 0 and counts[1]["new_sources"] == 0  # all served from the table
    assert counts[1]["served"] > 50
    assert first[0] == second[0] == 0
    assert first[1] == second[1] and b"reduce" in second[1]
    assert first[2] == second[2]


def test_a_scan_without_a_table_where_python_writes_no_bytecode(tmp_path: Path) -> None:
    """The near miss: where Python keeps no bytecode a scan keeps nothing either, and compiles as before."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "kernel.cu").write_text(KERNEL)
    env = _env(tmp_path, PYTHONDONTWRITEBYTECODE="1")
    first, second = _scan(tmp_path, tree, env, "first"), _scan(tmp_path, tree, env, "second")
    assert first[3] is not None and second[3] is not None and second[3]["new_patterns"] and not second[3]["served"]
    assert not list(tmp_path.rglob("startcache.*.marshal"))
    assert first[1] == second[1]

def test_the_output_is_the_same_without_a_table_and_with_a_bad_one(tmp_path: Path) -> None:
    source = tmp_path / "kernel.cu"
    source.write_text(KERNEL)
    env = _env(tmp_path)
    outputs = [_lint(tmp_path, source, env)[:3]]
    path = _lint(tmp_path, source, env)[3]
    assert path is not None
    Path(str(path["path"])).write_bytes(b"\xe3not marshal")  # a corrupt table: not used, compiled as without one
    bad = _lint(tmp_path, source, env)
    assert bad[3] is not None and bad[3]["served"] == 0
    outputs.append(bad[:3])
    outputs.append(_lint(tmp_path, source, {**env, "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "other")})[:3])
    assert outputs[0] == outputs[1] == outputs[2]


def test_served_patterns_equal_what_re_compiles(tmp_path: Path) -> None:
    cases = json.dumps([(p.decode("latin-1") if isinstance(p, bytes) else p, int(f), isinstance(p, bytes))
                        for p, f in PATTERNS])
    command = [sys.executable, "-c", SERVE, cases]
    first = json.loads(subprocess.run(command, capture_output=True, text=True, env=_env(tmp_path), check=True).stdout)
    second = json.loads(subprocess.run(command, capture_output=True, text=True, env=_env(tmp_path), check=True).stdout)
    assert first["served"] == [False] * len(PATTERNS)
    assert second["served"] == [True] * len(PATTERNS)
    assert second["same"] == [True] * len(PATTERNS)


OWN = """import fnmatch, json, re, sys
from migrate.cli import startcache
startcache.install()
def literal():
    return re.compile(r"cuda(Malloc|Free)Async")
def composed(name):
    return re.compile(rf"\\b{re.escape(name)}\\s*<<<")
literal(); composed(sys.argv[1]); fnmatch.fnmatch("src/a.cu", sys.argv[2])
startcache.save()
"""


def test_only_the_code_s_own_patterns_are_stored(tmp_path: Path) -> None:
    """A scanned project's names and a configuration's globs, composed into patterns at run time,
    never reach the table beside the bytecode; a literal of the code does."""
    command = [sys.executable, "-c", OWN, "zzprojectKernel", "src/zzuniqueC*.cu"]
    subprocess.run(command, capture_output=True, text=True, env=_env(tmp_path), check=True)
    table = next((tmp_path / "pycache").rglob("startcache.*.marshal"))
    import marshal

    patterns = marshal.loads(marshal.loads(table.read_bytes())[2])[0]
    texts = [str(p) for p, _ in patterns]
    assert r"cuda(Malloc|Free)Async" in texts
    assert not [t for t in texts if "zzprojectKernel" in t or "zzuniqueC" in t]


def test_a_table_of_another_interpreter_is_not_used(tmp_path: Path) -> None:
    """The near miss: the same patterns, stored under another interpreter's key."""
    cases = json.dumps([(r"cuda\w+", 0, False)])
    command = [sys.executable, "-c", SERVE, cases]
    subprocess.run(command, capture_output=True, text=True, env=_env(tmp_path), check=True)
    table = next((tmp_path / "pycache").rglob("startcache.*.marshal"))
    import marshal

    header, digest, payload = marshal.loads(table.read_bytes())
    assert marshal.loads(payload)[0]
    table.write_bytes(marshal.dumps((("another", *header[1:]), digest, payload)))
    again = json.loads(subprocess.run(command, capture_output=True, text=True, env=_env(tmp_path), check=True).stdout)
    assert again["served"] == [False]


def test_nothing_is_written_where_python_writes_no_bytecode(tmp_path: Path) -> None:
    source = tmp_path / "kernel.cu"
    source.write_text(KERNEL)
    said = _lint(tmp_path, source, _env(tmp_path, PYTHONDONTWRITEBYTECODE="1"))[3]
    assert said is not None and said["new_patterns"]
    assert not list(tmp_path.rglob("startcache.*.marshal"))


def test_a_program_that_does_not_rebuild_the_same_pattern_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """save() keeps a program only when _sre builds from it the pattern re compiles."""
    from re import _compiler  # type: ignore[attr-defined]

    assert startcache._programs([(r"cuda(Malloc|Free)", 0)])  # the control: kept
    real = _compiler._code
    monkeypatch.setattr(_compiler, "_code", lambda tree, flags: [*real(_compiler._parser.parse("x", 0), flags)])
    assert startcache._programs([(r"cuda(Malloc|Free)", 0)]) == {}


def test_a_debug_pattern_is_never_served(tmp_path: Path) -> None:
    table = startcache._Table(str(tmp_path / "t.marshal"), {}, {})
    calls: list[object] = []
    def original(p: str, f: int = 0) -> str:
        calls.append((p, f))
        return "compiled"

    hook = table.compile_hook(original, lambda *a: "served")
    table.patterns[("x", int(re.DEBUG))] = (0, b"", 0, {}, ())
    table.patterns[("x", 0)] = (0, b"", 0, {}, ())
    assert hook("x", int(re.DEBUG)) == "compiled" and hook("x", 0) == "served"
    assert table.new_patterns == [] and calls == [("x", int(re.DEBUG))]


def test_a_damaged_table_is_not_used(tmp_path: Path) -> None:
    """A table that still loads after a bit of it flipped (a stored program's number, a pattern's
    text) would serve another pattern than re compiles: each such table reads as none, the
    undamaged one as what was stored (the near miss)."""
    cases = json.dumps([(r"cuda(Malloc|Free)\w*", 0, False), (r"^\s*#\s*include", int(re.M), False)])
    subprocess.run([sys.executable, "-c", SERVE, cases], capture_output=True, text=True, env=_env(tmp_path), check=True)
    table = next((tmp_path / "pycache").rglob("startcache.*.marshal"))
    data = table.read_bytes()
    stored = startcache._read(str(table))
    assert len(stored[0]) == 2
    damaged = tmp_path / "damaged.marshal"
    for at in range(len(data)):
        damaged.write_bytes(data[:at] + bytes([data[at] ^ 1]) + data[at + 1:])
        assert startcache._read(str(damaged)) in (({}, {}, {}), stored), at


def test_source_text_runs_the_same_with_and_without_a_table(tmp_path: Path) -> None:
    """compat.run_text compiles as exec of the text would (no future flags of the caller), with a table's
    compiler or without one; the near miss: a text the table holds under `exec` is not served for `eval`."""
    from migrate import compat

    text = "def made(a, *, b=b):\n    return (a, b)"
    plain: dict[str, object] = {"b": 2}
    compat.run_text(text, plain)
    table = startcache._Table(str(tmp_path / "t.marshal"), {}, {})
    served: dict[str, object] = {"b": 2}
    compiled = table.code_of("exec")
    try:
        compat.text_compiler = compiled
        compat.run_text(text, served)
        compat.run_text(text, served)
    finally:
        compat.text_compiler = None
    assert plain["made"](1) == served["made"](1) == (1, 2)  # type: ignore[operator]
    assert list(table.new_sources) == [text]  # compiled once, then served
    assert table.code_of("eval")("(1, 2)") is not table.new_sources[text] and len(table.new_sources) == 2
    assert table.eval_hook()("b + 1", {"b": 2}) == 3
