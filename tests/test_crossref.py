"""The cross-file join of CUTLASS-only functions (migrate/scan/crossref.py, rule HIP3027): what links a
use to a definition, what makes a name available, and what scan and lint see."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from migrate.cli.lint import lint
from migrate.cli.scan import scan
from migrate.extract import extract
from migrate.scan import crossref
from tests.conftest import ROOT

FIXTURE = ROOT / "fixtures" / "rules" / "HIP3027"

KERNEL = b"""#include <cutlass/gemm/device/gemm.h>
at::Tensor gemm_impl(at::Tensor a) { cutlass::Status s; return a; }
at::Tensor f8_gemm(at::Tensor a) { return gemm_impl(a); }
"""
HEADER = b"at::Tensor f8_gemm(at::Tensor a);\n"
OPS = b"""#include "api.h"
at::Tensor twice(at::Tensor a) { return f8_gemm(a); }
TORCH_LIBRARY_IMPL(demo, CUDA, m) { m.impl("f8_gemm", f8_gemm); m.impl("twice", twice); }
TORCH_LIBRARY_FRAGMENT(demo, m) { m.def("f8_gemm(Tensor a) -> Tensor"); m.def("twice(Tensor a) -> Tensor"); }
"""


def uses(files: dict[str, bytes]) -> set[tuple[str, int, str]]:
    facts = [(path, extract("cuda" if path.endswith(".cu") else "cpp", data).facts) for path, data in files.items()]
    return {(u.path, u.fact.line, u.fact.text) for u in crossref.uses(facts)}


def test_uses_outside_the_cutlass_code_are_found_and_the_plain_caller_is_not_tainted() -> None:
    found = uses({"k/gemm.cu": KERNEL, "api/api.h": HEADER, "api/ops.cpp": OPS})
    # the call inside twice, its registration, the op's schema, the header declaration; twice itself is plain
    assert found == {("api/ops.cpp", 2, "f8_gemm"), ("api/ops.cpp", 3, "f8_gemm"), ("api/ops.cpp", 4, "f8_gemm"),
                     ("api/api.h", 1, "f8_gemm")}


def test_a_plain_definition_of_the_same_name_makes_it_available() -> None:
    fallback = b"at::Tensor f8_gemm(at::Tensor a) { return a * 2; }\n"
    assert uses({"k/gemm.cu": KERNEL, "api/api.h": HEADER, "api/ops.cpp": OPS, "cpu/f8.cpp": fallback}) == set()


def test_a_hip_guarded_definition_makes_it_available_and_a_throwing_stub_does_not() -> None:
    rocm = b"#ifdef USE_ROCM\nat::Tensor f8_gemm(at::Tensor a) { return ck_gemm(a); }\n#endif\n"
    stub = b'at::Tensor f8_gemm(at::Tensor a) {\n  throw std::runtime_error("needs CUDA 12");\n}\n'
    assert uses({"k/gemm.cu": KERNEL, "api/api.h": HEADER, "api/ops.cpp": OPS, "k/rocm.cpp": rocm}) == set()
    assert ("api/ops.cpp", 3, "f8_gemm") in uses({"k/gemm.cu": KERNEL, "api/api.h": HEADER, "api/ops.cpp": OPS,
                                                   "k/stub.cu": stub})


def test_a_name_alone_is_no_link() -> None:
    other = b"void run(int a) { f8_gemm(a); }\n"  # neither declares f8_gemm nor includes a header that does
    assert uses({"k/gemm.cu": KERNEL, "other/run.cpp": other}) == set()


def test_a_meta_shape_function_of_a_cutlass_only_op_is_a_use() -> None:
    meta = b'TORCH_LIBRARY_IMPL(demo, Meta, m) { m.impl("f8_gemm", f8_gemm_meta); }\n'
    assert ("api/meta.cpp", 1, "f8_gemm") in uses({"k/gemm.cu": KERNEL, "api/api.h": HEADER, "api/ops.cpp": OPS,
                                                    "api/meta.cpp": meta})


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "t")
    monkeypatch.chdir(tmp_path / "t")
    return tmp_path / "t"


def lint_rules(*args: str) -> set[str]:
    result = CliRunner().invoke(lint, [*args, "--select", "HIP3027", "-q"], catch_exceptions=False)
    return {":".join(line.split(":")[:2]) for line in result.stdout.splitlines() if " HIP3027 " in line}


def annotated(*paths: str) -> set[str]:
    """path:line of each line after a `ruleid: HIP3027` comment."""
    out = set()
    for path in paths:
        lines = (FIXTURE / path).read_text(encoding="utf-8").split("\n")
        out |= {f"{path}:{n + 2}" for n, line in enumerate(lines) if "ruleid: HIP3027" in line}
    return out


def test_lint_joins_only_the_files_it_is_given(tree: Path) -> None:
    assert lint_rules("ops/ops.cpp") == set()  # the CUTLASS definitions are not among its files
    everything = ["ops/ops.cpp", "ops/torch_ops.h", "ops/fallback.cpp", "cutlass/gemm.cu", "cutlass/f4_stub.cu"]
    assert lint_rules(*everything) == annotated("ops/ops.cpp", "ops/torch_ops.h")
    # without the CPU fallback, i8_gemm is CUTLASS-only too: lint says what the files it reads show
    assert {"ops/ops.cpp:14", "ops/torch_ops.h:12"} <= lint_rules(*everything[:2], *everything[3:])


def test_a_scan_reports_the_same_uses_from_a_cold_and_a_warm_cache(tree: Path, tmp_path: Path) -> None:
    def scanned() -> set[str]:
        out = tmp_path / "r.json"
        CliRunner().invoke(scan, [str(tree), "-f", "json", "-o", str(out), "--no-hipify", "-q"],
                           catch_exceptions=False, env={"ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")})
        report = json.loads(out.read_text(encoding="utf-8"))
        return {f"{f['path']}:{f['line']}" for f in report["findings"] if f["rule"] == "HIP3027"}

    assert scanned() == annotated("ops/ops.cpp", "ops/torch_ops.h") == scanned()


def test_the_message_names_the_definition_nearest_the_use() -> None:
    kernel = b"template <int N> void run_fwd(int p) { cute::Tensor t; }\n"
    api = b"template <int N> void run_fwd(int p);\n"
    user = b'#include "include/flash.h"\nvoid mha(int p) { run_fwd<1>(p); }\n'
    facts = [(path, extract("cuda", data).facts) for path, data in {
        "csrc/fwd.cu": kernel, "hopper/launch.h": kernel, "hopper/include/flash.h": api, "hopper/api.cpp": user}.items()]
    details = {(u.path, u.fact.line): u.detail for u in crossref.uses(facts)}
    assert details == {("hopper/include/flash.h", 1): "defined in hopper/launch.h:1; this declaration",
                       ("hopper/api.cpp", 2): "defined in hopper/launch.h:1; this call"}
