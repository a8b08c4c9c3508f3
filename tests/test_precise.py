"""Precise mode (libclang) against the fast scan (tree-sitter) on fixtures/precise/."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from migrate.extract import extract
from migrate.model import Target
from migrate.precise import analyse as precise
from migrate.precise import compile_commands
from migrate.scan.match import RuleIndex, defined_names, match_file

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "precise"
FILES = ("app.cu", "include/wrap.cuh")


# -- compile commands: pure Python, always run ---------------------------------------

def test_nvcc_flags_become_clang_flags() -> None:
    argv = ["-Iinclude", "-DNDEBUG", "-gencode", "arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=[sm_90,compute_90]",
            "--expt-relaxed-constexpr", "-Xcompiler", "-Wall,-fPIC", "-rdc=true", "-lineinfo", "-ccbin", "g++", "-std=c++17",
            "-c", "app.cu", "-o", "app.o"]
    args, notes = compile_commands.translate(argv, source=Path("app.cu"))
    assert args == ["-Iinclude", "-DNDEBUG", "-Wall", "-fPIC", "-fgpu-rdc", "-std=c++17",
                    "--cuda-gpu-arch=sm_80"]
    assert any("--expt-relaxed-constexpr" in n for n in notes)
    assert any("-lineinfo" in n for n in notes) and any("-ccbin" in n for n in notes)
    assert compile_commands.translate(["-arch=sm_86", "-dc"])[0] == ["-fgpu-rdc", "--cuda-gpu-arch=sm_86"]
    assert compile_commands.translate(["-arch", "native"])[0] == []


def test_database_is_read_with_absolute_paths(tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "compile_commands.json").write_text(json.dumps([
        {"directory": str(tmp_path / "build"), "file": "../k.cu",
         "arguments": ["nvcc", "-I../inc", "-arch=sm_80", "-c", "../k.cu"]},
        {"directory": str(tmp_path / "build"), "file": "../h.cpp", "command": "g++ -I ../inc -c ../h.cpp"}]))
    database = compile_commands.find(tmp_path)
    assert database == tmp_path / "build" / "compile_commands.json"
    cu, cpp = compile_commands.load(database, tmp_path)  # type: ignore[misc]
    assert cu.file == tmp_path / "k.cu" and cu.cuda and cu.args == (f"-I{tmp_path}/build/../inc", "--cuda-gpu-arch=sm_80")
    assert not cpp.cuda and cpp.args == ("-I", f"{tmp_path}/build/../inc")
    assert isinstance(precise.commands_for(tmp_path / "nowhere"), str)


# -- libclang: skipped, with the reason, where the toolchain is missing ----------------

def _toolchain():
    chain = precise.toolchain()
    if isinstance(chain, str):
        pytest.skip(f"precise mode unavailable: {chain}")
    return chain


@pytest.fixture(scope="module")
def index() -> RuleIndex:
    from migrate.rulebase.load import load_rules

    return RuleIndex(load_rules(), Target(rocm="7.2", arch=("gfx942",)))


@pytest.fixture(scope="module")
def result() -> precise.PreciseResult:
    chain = _toolchain()
    commands = precise.commands_for(FIXTURE)
    assert not isinstance(commands, str)
    (command,) = commands
    out = precise.analyse_command(command, FIXTURE, tc=chain)
    assert not isinstance(out, str), out
    return out


def _fast(index: RuleIndex):
    extractions = {rel: extract("cuda", (FIXTURE / rel).read_bytes()) for rel in FILES}
    defined = defined_names(extractions.values())
    return [f for rel, e in extractions.items() for f in match_file(rel, e, index, defined=defined)]


def _seen(facts, name: str) -> set[tuple[str, int]]:
    return {(pf.path, pf.fact.line) for pf in facts if pf.symbol == name}


def test_precise_mode_gets_every_case_right(result: precise.PreciseResult) -> None:
    assert result.ok and result.errors == ()
    assert result.files == ("app.cu", "include/wrap.cuh")
    assert any("--expt-relaxed-constexpr" in n for n in result.notes)
    facts = result.facts
    # token pasting: cuda##fn is a call, at the user's line, with the macro that produced it
    (memset,) = [pf for pf in facts if pf.symbol == "cudaMemset"]
    assert (memset.path, memset.fact.line, memset.fact.column) == ("app.cu", 21, 3)
    assert memset.macro == "CALL" and memset.macro_definition == "app.cu:6" and memset.fact.role == "call"
    assert _seen(facts, "cudaDeviceSynchronize") == {("app.cu", 23)}
    # error-check macro: the wrapped call and the macro body's API uses, at each use site
    assert _seen(facts, "cudaFree") == {("app.cu", 30)}
    assert _seen(facts, "cudaGetErrorString") == {("app.cu", 20), ("app.cu", 30)}
    # template wrapper in a header: reported in the header
    assert _seen(facts, "cudaMalloc") == {("include/wrap.cuh", 7)}
    # look-alikes: the project's own functions are never facts; the real API next to them is
    assert not _seen(facts, "cudaMallocHelper")
    assert _seen(facts, "cudaMallocHost") == {("app.cu", 29)}
    # a branch the compile command leaves out (LEGACY_SYMBOLS undefined): nothing
    assert not _seen(facts, "cudaMemcpyToSymbol")
    # kernels and includes
    assert ("app.cu", 16) in _seen(facts, "scale") and ("app.cu", 22) in _seen(facts, "scale")
    assert _seen(facts, "cuda_runtime.h") == {("app.cu", 2), ("include/wrap.cuh", 3)}


def test_fast_mode_misses_and_over_reports(result: precise.PreciseResult, index: RuleIndex) -> None:
    from migrate.rulebase.load import load_rules

    fast = _fast(index)
    comparison = precise.compare(fast, [result], rules=load_rules(), index=index)
    labels = {(f.path, f.line, f.symbol): label for f, label in comparison.labels.items()}
    hidden = {(pf.path, pf.fact.line, pf.symbol) for pf in comparison.precise_only}
    # over-reported by the fast scan: the call in the branch the build leaves out, and the user's look-alike mock::cudaMallocHost
    assert labels[("app.cu", 25, "cudaMemcpyToSymbol")] == "fast-only"
    # the look-alike mock::cudaMallocHost is in a namespace the project opens: the fast scan no longer reports it
    assert ("app.cu", 28, "cudaMallocHost") not in labels
    # missed by the fast scan: token-pasted calls
    assert {("app.cu", 21, "cudaMemset"), ("app.cu", 23, "cudaDeviceSynchronize")} <= hidden
    # a real call next to a look-alike in the user's namespace: both modes see it
    assert labels[("app.cu", 29, "cudaMallocHost")] == "confirmed"
    # both right: the error-check macro (fast reads its body where it is defined), the wrapper, launches
    assert labels[("app.cu", 9, "cudaGetErrorString")] == "confirmed"
    assert labels[("app.cu", 30, "cudaFree")] == "confirmed"
    assert labels[("include/wrap.cuh", 7, "cudaMalloc")] == "confirmed"
    assert labels[("app.cu", 22, "scale")] == "confirmed"
    assert not any(s == "cudaMallocHelper" for _, _, s in labels) and not any(s == "cudaMallocHelper" for *_, s in hidden)
    assert set(labels.values()) == {"confirmed", "fast-only"}
    assert comparison.counts["fast-only"] == 1 and comparison.counts["precise-only"] == len(hidden)
    # precise facts become findings through the same rule base
    findings = {(f.path, f.line, f.symbol) for f in precise.to_findings([result], index)}
    assert ("app.cu", 21, "cudaMemset") in findings and ("app.cu", 25, "cudaMemcpyToSymbol") not in findings


def test_broken_unit_reports_errors_not_exceptions(tmp_path: Path) -> None:
    chain = _toolchain()
    bad = tmp_path / "bad.cu"
    bad.write_text('#include "missing.h"\nint main() { cudaFree(0) }\n')
    out = precise.analyse(bad, [], root=tmp_path, tc=chain)
    assert not isinstance(out, str)
    assert not out.ok and out.errors and "missing.h" in out.errors[0]


def test_missing_pieces_are_one_line_reasons(tmp_path: Path) -> None:
    reason = precise.analyse(tmp_path / "x.cu", [], cuda_path=str(tmp_path / "no-cuda"))
    assert isinstance(reason, str) and "\n" not in reason
    assert isinstance(precise.analyse(tmp_path / "x.cu", [], tc="libclang is not installed"), str)


def test_scan_precise_labels_findings_or_says_what_is_missing(tmp_path) -> None:
    import json

    from tests.conftest import run_cli

    (tmp_path / "a.cu").write_text("void f() { cudaFree(0); }\n")
    result = run_cli("scan", str(tmp_path), "-f", "json", "--no-cache", "--precise")
    assert result.returncode == 0, result.stderr
    notes = json.loads(result.stdout)["notes"]
    assert any(n.startswith("precise mode off: ") for n in notes)  # no compile_commands.json: one line, fast scan
    done = run_cli("scan", "fixtures/precise", "-f", "json", "--no-cache", "--precise")
    report = json.loads(done.stdout)
    if any(n.startswith("precise mode off: ") for n in report["notes"]):
        pytest.skip(next(n for n in report["notes"] if n.startswith("precise mode off: ")))
    labels = {(f["line"], f["symbol"]): f["precise"] for f in report["findings"] if f["path"] == "app.cu"}
    assert labels[(21, "cudaMemset")] == "precise-only" and labels[(25, "cudaMemcpyToSymbol")] == "fast-only"
    assert labels[(30, "cudaFree")] == "confirmed"


def test_an_options_file_that_includes_itself_stops_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "loop.rsp").write_text("-I include --options-file loop.rsp\n")
    args, notes = compile_commands.translate(["--options-file", "loop.rsp", "-arch=sm_80"], directory=tmp_path)
    assert args.count("-I") == 4 and args[-1] == "--cuda-gpu-arch=sm_80"
    assert any("nested deeper than 4 levels" in n for n in notes)


def test_scan_precise_reports_what_clang_rejects(tmp_path) -> None:
    """clang's errors in the user's CUDA become HIP4050 findings labelled precise-only, even when the unit fails."""
    import json
    import shutil

    from tests.conftest import run_cli

    _toolchain()
    shutil.copy(ROOT / "fixtures" / "rules" / "HIP4050" / "bad.cu", tmp_path / "k.cu")
    (tmp_path / "compile_commands.json").write_text(json.dumps([
        {"directory": str(tmp_path), "file": "k.cu", "arguments": ["nvcc", "-std=c++17", "-arch=sm_80", "-c", "k.cu"]}]))
    report = json.loads(run_cli("scan", str(tmp_path), "-f", "json", "--no-cache", "--precise").stdout)
    rejected = {(f["line"], f["precise"]) for f in report["findings"] if f["rule"] == "HIP4050"}
    assert rejected == {(12, "precise-only"), (19, "precise-only")}
    assert any("k.cu did not parse" in n for n in report["notes"])  # the fast results stay for the rest


def test_scan_precise_parses_no_source_outside_the_tree(tmp_path) -> None:
    """A database may name any file on the machine: only sources inside the scanned tree are parsed."""
    import json
    import shutil

    from tests.conftest import run_cli

    _toolchain()
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    shutil.copy(ROOT / "fixtures" / "rules" / "HIP4050" / "bad.cu", outside / "k.cu")
    (tree / "a.cu").write_text("void f() { cudaFree(0); }\n")
    (tree / "compile_commands.json").write_text(json.dumps([
        {"directory": str(outside), "file": "k.cu", "arguments": ["nvcc", "-arch=sm_80", "-c", "k.cu"]},
        {"directory": str(tree), "file": "../outside/k.cu", "arguments": ["nvcc", "-c", "../outside/k.cu"]}]))
    result = run_cli("scan", str(tree), "-f", "json", "--no-cache", "--precise")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert not [f for f in report["findings"] if f["rule"] == "HIP4050"]  # k.cu was never parsed
    assert {f["path"] for f in report["findings"]} == {"a.cu"}
    assert any("2 compile command(s) name a source file outside the scanned tree" in n for n in report["notes"])


# -- the compilation database and the sources are untrusted --------------------------------

def test_only_allowed_flags_reach_clang(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "pre.h").write_text("#define PRE 1\n")
    args = ["-DA=1", "-U", "B", "-I", str(tmp_path / "inc"), f"-I{tmp_path}/inc", "-include", str(tmp_path / "pre.h"),
            "-std=c++17", "--cuda-gpu-arch=sm_80", "-fgpu-rdc",
            "-Wp,-MD,/tmp/x.d", "-MD", "-MF", "/tmp/y.d", "-Xclang", "-header-include-file", "-Xclang", "/tmp/z",
            "-include", "/etc/passwd", "-I/etc", "-isystem", str(tmp_path.parent), "-fplugin=/tmp/p.so",
            "-DX\nY", "-Wp,-MT,\"x\nrm -rf /\""]
    kept, notes = compile_commands.allowed(args, tmp_path)
    assert kept == ["-DA=1", "-UB", "-I", str(tmp_path / "inc"), f"-I{tmp_path}/inc", "-include",
                    str(tmp_path / "pre.h"), "-std=c++17", "--cuda-gpu-arch=sm_80", "-fgpu-rdc"]
    assert len(notes) == 2 and "-Wp" in notes[0] and "-Xclang" in notes[0] and "-fplugin" in notes[0]
    assert "3 include folder(s) or file(s) outside" in notes[1]
    assert not any("/tmp" in n or "passwd" in n for n in notes)


SECRET = "OUTSIDE_SECRET_precise"


def test_a_hostile_database_writes_nothing_and_reads_nothing_outside(tmp_path: Path) -> None:
    """-Wp,-MD / -Xcompiler -MD,-MF / -Xclang -header-include-file wrote files outside the tree;
    #include "/outside", -include and -I to an outside folder put outside text in the notes; an
    #include of a FIFO in the tree hung. With the real libclang: nothing written, nothing read."""
    import os
    import time

    from tests.conftest import run_cli

    _toolchain()
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (outside / "secret.h").write_text(f"{SECRET} {SECRET};\n")
    (outside / "victim.sh").write_text("echo victim\n")
    os.mkfifo(tree / "fifo.h")
    (tree / "a.cu").write_text('#include "../outside/secret.h"\nvoid f() { cudaFree(0); }\n')
    (tree / "b.cu").write_text('#include "fifo.h"\nvoid g() { cudaFree(0); }\n')
    (tree / "c.cu").write_text('#include "secret.h"\nvoid h() { cudaFree(0); }\n')
    o = str(outside)
    hostile = ["nvcc", f"-Wp,-MD,{o}/wp.d", "-Xcompiler", f"-MD,-MF,{o}/xc.d", "-Xclang", "-header-include-file",
               "-Xclang", f"{o}/hi.txt", f"-Wp,-MT,\"x\nrm -rf /\",-MD,{o}/victim.sh", "-include", f"{o}/secret.h",
               f"-I{o}", "-arch=sm_80", "-c"]
    (tree / "compile_commands.json").write_text(json.dumps([
        {"directory": str(tree), "file": name, "arguments": [*hostile, name]} for name in ("a.cu", "b.cu", "c.cu")]))
    started = time.monotonic()
    result = run_cli("scan", str(tree), "-f", "json", "--no-cache", "--precise", "--html-output",
                     str(tmp_path / "r.html"))
    assert time.monotonic() - started < 120 and result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    if any(n.startswith("precise mode off: ") for n in report["notes"]):
        pytest.skip(next(n for n in report["notes"] if n.startswith("precise mode off: ")))
    assert sorted(p.name for p in outside.iterdir()) == ["secret.h", "victim.sh"]
    assert (outside / "victim.sh").read_text() == "echo victim\n"
    for text in (result.stdout, result.stderr, (tmp_path / "r.html").read_text()):
        assert SECRET not in text and str(outside) not in text and str(tree) not in text
    assert any("precise mode: 3 translation units" in n for n in report["notes"])
