"""rocm-migrate check: the flag allow-list, clang's output parsed, lines mapped back through hipify's
edit, toolchain discovery (a faked $ROCM_PATH around Debian's hipcc), and the real CLI on
fixtures/check/kernels with the pip-only toolchain and with hipcc. Tests that need a compiler or
hipify-perl skip naming what is missing."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import jsonschema
import pytest
from migrate.hipclang import compiler, explain, units
from migrate.hipclang import toolchain as hip
from migrate.precise.safe_flags import filter_flags
from tests.check_toolchain import debian_hipcc, hipify_perl, pip_only
from tests.conftest import ROOT, run_cli

KERNELS = ROOT / "fixtures" / "check" / "kernels"


def test_allow_list_keeps_macros_standard_warnings_and_include_paths_inside_the_tree(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    flags, notes = filter_flags(
        ["-DN=4", "-U", "X", "-std=c++17", "-Wall", "-fno-exceptions", "-I", str(tmp_path / "inc"), "-Iinc",
         "-isystem", "/usr/include", "-I../outside", "-o", "/etc/owned", "-fplugin=/tmp/p.so", "@/etc/args",
         "-include", "/etc/shadow", "-Wl,-rpath,/x", "--serialize-diagnostics", "-Werror", "-MF", "deps.d",
         "-fprofile-instr-use=/tmp/prof"], root=tmp_path)
    inc = str(tmp_path / "inc")
    assert flags == ["-DN=4", "-UX", "-std=c++17", "-Wall", "-fno-exceptions", "-I", inc, "-I", inc]
    dropped = " ".join(notes)
    for word in ("/usr/include", "../outside", "-o", "-fplugin=/tmp/p.so", "@/etc/args", "-include", "-Wl,-rpath",
                 "--serialize-diagnostics", "-Werror", "-MF", "-fprofile-instr-use"):
        assert word in dropped, word


def test_clang_errors_are_parsed_with_their_side(tmp_path: Path) -> None:
    stderr = ("a.cu:12:19: error: missing 'template' keyword prior to dependent template name 'at'\n"
              "a.cu:13:1: warning: unused variable 'x' [-Wunused-variable]\n"
              "1 error generated when compiling for host.\n"
              "/opt/x/hip/amd_detail/h.h:5:2: fatal error: 'hipblas.h' file not found\n"
              "1 error generated when compiling for gfx942.\n")
    found = compiler.parse(stderr, cwd=tmp_path)
    assert [(d.file, d.line, d.column, d.severity, d.side) for d in found] == [
        (str(tmp_path / "a.cu"), 12, 19, "error", "host"), ("/opt/x/hip/amd_detail/h.h", 5, 2, "fatal error", "gfx942")]


def test_converted_lines_map_back_over_the_include_hipify_adds() -> None:
    original = b"#include <cuda_runtime.h>\n\n__global__ void k() {}\nint x;\n"
    converted = b'#include "hip/hip_runtime.h"\n#include <hip/hip_runtime.h>\n\n__global__ void k() {}\nint x;\n'
    back = explain.original_lines(original, converted)
    assert [back(n) for n in (1, 2, 3, 4, 5)] == [1, 1, 2, 3, 4]


def test_without_a_database_each_cu_file_is_a_unit_with_its_folder_and_the_root(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    found, origin = units.units(tmp_path, tmp_path, ["src/a.cu", "src/b.cpp", "c.cuh"])
    assert [u.rel for u in found] == ["src/a.cu"] and "no build flags" in origin
    assert found[0].flags == ("-std=c++17", "-I", str(tmp_path / "src"), "-I", str(tmp_path))


def test_database_flags_are_moved_into_the_copy_and_filtered(tmp_path: Path) -> None:
    source, copy = tmp_path / "src", tmp_path / "copy"
    for root in (source, copy):
        (root / "include").mkdir(parents=True)
    (source / "compile_commands.json").write_text(json.dumps([{
        "directory": str(source), "file": "k.cu",
        "command": "nvcc -Iinclude -DUSE_FAST=1 -arch=sm_80 --expt-relaxed-constexpr -Xcompiler -fplugin=/x.so "
                   "-o /etc/k.o -c k.cu"}]))
    found, origin = units.units(source, copy, ["k.cu"])
    assert origin == "compile_commands.json"
    assert found[0].flags == ("-I", str(copy / "include"), "-DUSE_FAST=1")


def test_rocm_path_is_taken_before_the_pip_only_toolchain(tmp_path: Path) -> None:
    """A faked ROCm installation: $ROCM_PATH/bin/hipcc runs Debian's hipcc (ROCm 5.2, clang 15)."""
    hipcc = debian_hipcc()
    wrapper = tmp_path / "rocm" / "bin" / "hipcc"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(f'#!/bin/sh\nunset ROCM_PATH\nexec {hipcc} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    found = hip.find(env={"ROCM_PATH": str(tmp_path / "rocm"), "PATH": os.environ.get("PATH", "")})
    assert not isinstance(found, str), found
    assert found.source == "rocm-path" and found.command == (str(wrapper),) and found.device_code
    assert found.hip_version == "5.2" and found.clang_version.startswith("15.")
    assert compiler.knows_arch(found, "gfx90a") and not compiler.knows_arch(found, "gfx942")


def test_an_explicit_compiler_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    assert hip.find(tmp_path / "nope") == f"--hip-compiler {tmp_path / 'nope'}: no such file"


def _check(tmp_path: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    tool = hipify_perl()
    out = tmp_path / "out.json"
    done = run_cli("check", str(KERNELS), "--out", str(tmp_path / "ported"), "-f", "json", "-o", str(out),
                   "--markdown-output", str(tmp_path / "r.md"), "--sarif-output", str(tmp_path / "r.sarif"),
                   "--csv-output", str(tmp_path / "r.csv"), "--html-output", str(tmp_path / "r.html"),
                   "--hipify", str(tool.path), "-j", "2", *extra)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    schema = json.loads((ROOT / "docs" / "report.schema.json").read_text())
    jsonschema.validate(report, schema)
    return report


def _status(report: dict) -> dict[tuple[str, str], str]:  # type: ignore[type-arg]
    return {(u["path"], u["arch"]): u["status"] for u in report["compile"]["unit_results"]}


def test_check_with_the_pip_only_toolchain(tmp_path: Path) -> None:
    pip_only()
    report = _check(tmp_path, "--hip-compiler", "pip", "--target-arch", "gfx942")
    block = report["compile"]
    assert block["toolchain"].startswith("pip-only") and block["hip_version"] == "6.1" and not block["device_code"]
    assert _status(report) == {("plain.cu", "gfx942"): "passed", ("template_call.cu", "gfx942"): "failed",
                               ("blas.cu", "gfx942"): "not-checked", ("mask.cu", "gfx942"): "not-checked"}
    meanings = {(e["path"], e["line"]): (e["meaning"], e["rules"]) for e in block["errors"]}
    assert meanings[("template_call.cu", 12)] == ("confirmed", ["HIP4081"])
    assert meanings[("blas.cu", 2)][0] == "not-checked"  # no hipBLAS headers: never a porting error
    assert meanings[("mask.cu", 6)][0] == "newer-rocm"  # __shfl_down_sync: HIP 6.1 is older than the target
    confirmed = [(f["rule"], f["path"], f["line"]) for f in report["findings"] if f["compiler"] == "confirmed"]
    assert confirmed == [("HIP4081", "template_call.cu", 12)]
    assert not [f for f in report["findings"] if f["rule"] == "HIP0960"]
    assert "compiler-confirmed" in (tmp_path / "r.sarif").read_text()
    assert "1 of 4 translation unit compiles" in (tmp_path / "r.md").read_text()
    assert "compile-errors" in (tmp_path / "r.html").read_text()
    assert (tmp_path / "r.csv").read_text().splitlines()[0].endswith(',"compiler"')  # every CSV field quoted
    assert not (KERNELS / "rocm-migrate.diff").exists()  # only the copy was written


def test_check_with_hipcc_says_which_target_it_could_not_check(tmp_path: Path) -> None:
    hipcc = debian_hipcc()
    report = _check(tmp_path, "--hip-compiler", str(hipcc), "--target-arch", "gfx90a,gfx942")
    block = report["compile"]
    assert block["hip_version"] == "5.2" and block["device_code"]
    assert any("not checked for gfx942" in line for line in block["not_checked"])
    assert _status(report)[("plain.cu", "gfx90a")] == "passed"
    assert ("plain.cu", "gfx942") not in _status(report)
    assert not [e for e in block["errors"] if e["meaning"] == "miss"]


def test_check_refuses_an_output_folder_inside_the_source(tmp_path: Path) -> None:
    done = run_cli("check", str(KERNELS), "--out", str(KERNELS / "out"))
    assert done.returncode == 2 and "inside" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["plain.cu", "template_call.cu"])
def test_fixture_lines_are_unchanged_by_hipify_but_for_the_include(name: str, tmp_path: Path) -> None:
    """hipify keeps lines: the converted file is the original with at most the runtime include added."""
    from migrate.hipify import tool as hipify

    tool = hipify_perl()
    converted = hipify.convert_file(tool, name, cwd=KERNELS, quiet=True).text.decode()
    original = (KERNELS / name).read_text()
    added = len(converted.split("\n")) - len(original.split("\n"))
    assert added in (0, 1)
    back = explain.original_lines(original.encode(), converted.encode())
    assert [back(n) for n in range(1 + added, len(converted.split("\n")) + 1)] == \
        list(range(1, len(original.split("\n")) + 1))


def test_the_plan_says_what_the_compiler_found(tmp_path: Path) -> None:
    pip_only()
    report = _check(tmp_path, "--hip-compiler", "pip", "--target-arch", "gfx942")
    evidence = [s["compiler"] for s in report["plan"]["steps"]]
    assert evidence and all(e for e in evidence)
    assert any("1 of 2 checked unit compiles pass after hipify alone" in e for e in evidence), evidence


def test_without_a_database_the_cmakelists_include_folders_inside_the_tree_are_used(tmp_path: Path) -> None:
    """cuda-samples' layout: Samples/x/CMakeLists.txt has include_directories(../../Common)."""
    (tmp_path / "Common").mkdir()
    sample = tmp_path / "Samples" / "x"
    sample.mkdir(parents=True)
    (sample / "CMakeLists.txt").write_text("include_directories(../../Common)\ninclude_directories(/usr/local/include)\n"
                                           "target_include_directories(x PRIVATE ${CUDA_INCLUDE} ../../../outside)\n")
    found, _ = units.units(tmp_path, tmp_path, ["Samples/x/x.cu"])
    assert found[0].flags == ("-std=c++17", "-I", str(sample), "-I", str(tmp_path), "-I", str(tmp_path / "Common"))


def test_an_undeclared_helper_is_traced_to_the_include_hipify_replaced(tmp_path: Path) -> None:
    """cuda-samples: hipify-perl turns <helper_cuda.h> into <hip/hip_runtime_api.h>; the helpers it declared
    are undeclared at every use, which the finding on the include line (HIP0036) explains."""
    original = b"#include <assert.h>\n#include <helper_cuda.h>\nvoid f() {\n  getLastCudaError(\"x\");\n}\n"
    converted = b"#include <assert.h>\n#include <hip/hip_runtime_api.h>\nvoid f() {\n  getLastCudaError(\"x\");\n}\n"
    headers = {"Common/helper_cuda.h": "#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)\n"}
    replaced = explain.replaced_includes(original, converted, headers)
    assert [(r.line, r.header) for r in replaced] == [(2, "helper_cuda.h")]
    from migrate.model import Finding

    finding = Finding(rule="HIP0036", path="a.cu", line=2, column=1, end_line=2, end_column=24, symbol="helper_cuda.h",
                      message="", hip=None, hipify="partial", confidence="high", migration_class="migration-required")
    context = explain.Context(copy=tmp_path, maps={}, findings=explain.findings_by_line([finding]), since={}, until={},
                              hip_version="6.1", replaced={"a.cu": replaced})
    error = compiler.Diagnostic(file=str(tmp_path / "a.cu"), line=4, column=3, severity="error",
                                message="use of undeclared identifier 'getLastCudaError'")
    explained = explain.explain(error, context, arch="gfx942", unit="a.cu")
    assert (explained.meaning, explained.rules) == ("confirmed", ("HIP0036",))
    assert "replaced the include of helper_cuda.h (a.cu:2)" in explained.why
    bare = explain.Context(copy=tmp_path, maps={}, findings={}, since={}, until={}, hip_version="6.1",
                           replaced={"a.cu": replaced})
    assert explain.explain(error, bare, arch="gfx942", unit="a.cu").meaning == "miss"
