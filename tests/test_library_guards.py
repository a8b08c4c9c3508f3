"""Sections of a header compiled only after a CUDA library's header (fixtures/workloads/optional/library_guard, cut from
jhlee508/lu-decompn 5c92385e, with near misses; docs/decisions/2026-12-07-s31-library-guards.md)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.extract.c import guards
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

CASE = ROOT / "fixtures" / "workloads" / "optional" / "library_guard"
HELPER = "cublas/helper_cuda.h"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def statuses(data: dict) -> dict[str, str]:
    """The status of each of the helper's findings, by its symbol."""
    return {f["symbol"]: f["status"] for f in data["findings"] if f["path"] == HELPER}


def edited(tmp_path: Path, path: str, old: str, new: str) -> Path:
    tree = Path(shutil.copytree(CASE, tmp_path / "case"))
    file = tree / path
    text = file.read_text() if file.exists() else ""
    assert old in text, (path, old)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text.replace(old, new, 1))
    return tree


@pytest.mark.parametrize(("condition", "positive", "expected"), [
    ("_CUFFT_H_", True, "_CUFFT_H_"),
    ("defined(CUSOLVER_COMMON_H_)", True, "CUSOLVER_COMMON_H_"),
    ("_CUFFT_H_", False, None),  # #ifndef: taken without the library
    ("defined(_CUFFT_H_) && X", True, None),  # two terms
    ("COMMON_HELPER_CUDA_H_", True, None),  # the helper's own guard
])
def test_library_guard_branches(condition: str, positive: bool, expected: str | None) -> None:
    assert guards.library_guard(condition, positive) == expected


def test_sections_no_includer_compiles_are_optional(rulebase) -> None:
    """cublas_lu.cpp includes cublas_v2.h and cuda_runtime.h before helper_cuda.h: the cuBLAS section is compiled,
    the cuFFT and cuSOLVER ones are preprocessed out."""
    data = scanned(CASE, rulebase)
    assert statuses(data) == {"cublasStatus_t": "", "CUBLAS_STATUS_SUCCESS": "", "cufftResult": "optional",
                              "CUFFT_UNALIGNED_DATA": "optional", "cusolverStatus_t": "optional",
                              "CUSOLVER_STATUS_NOT_INITIALIZED": "optional", "CUresult": "optional",
                              "CUDA_ERROR_INVALID_CONTEXT": "optional"}
    parts = {p["root"]: p["evidence"] for w in data["workloads"] for p in w["optional_parts"]}
    assert parts[f"{HELPER}:16-25 (off in every build)"] == [
        f"{HELPER}:16 #ifdef _CUFFT_H_: compiled only after a header that defines _CUFFT_H_ (cufft*), and no file that "
        "includes helper_cuda.h (cublas/cublas_lu.cpp) includes one before it"]


@pytest.mark.parametrize(("path", "old", "new", "required"), [
    # an includer that includes cusolverDn.h first: the cuSOLVER section (and the cuBLAS one, cusolverDn.h includes
    # cublas_v2.h) is compiled
    ("cublas/cusolver_lu.cpp", "", "#include <cusolverDn.h>\n#include \"helper_cuda.h\"\nint f(void) { return 0; }\n",
     {"cusolverStatus_t", "CUSOLVER_STATUS_NOT_INITIALIZED"}),
    # the driver API's cuda.h (guard __cuda_cuda_h__; cuda_runtime.h does not include it): robertwgh/cuLDPC includes
    # cuda_runtime.h only and its CUresult section stays off (precision sample 29); an includer of cuda.h compiles it
    ("cublas/driver_lu.cpp", "", "#include <cuda.h>\n#include \"helper_cuda.h\"\nint f(void) { return 0; }\n",
     {"CUresult", "CUDA_ERROR_INVALID_CONTEXT"}),
    # ... or through a header of the project it includes first
    ("cublas/cublas_lu.cpp", "#include <helper_cuda.h>", "#include \"fft.h\"\n#include <helper_cuda.h>",
     {"cufftResult", "CUFFT_UNALIGNED_DATA"}),
])
def test_an_includer_that_includes_the_library_first_keeps_it(tmp_path: Path, rulebase, path: str, old: str,
                                                              new: str, required: set[str]) -> None:
    tree = edited(tmp_path, path, old, new)
    (tree / "cublas" / "fft.h").write_text("#include <cufft.h>\n")
    found = statuses(scanned(tree, rulebase))
    assert {symbol for symbol, status in found.items() if status == ""} == {"cublasStatus_t", "CUBLAS_STATUS_SUCCESS",
                                                                           *required}


def test_a_header_that_includes_the_helper_is_read_through_its_includers(tmp_path: Path, rulebase) -> None:
    """cublas_lu.cpp includes common.h, which includes the helper: the cuFFT section is compiled only where a file
    including common.h includes cufft.h first."""
    tree = edited(tmp_path, "cublas/cublas_lu.cpp", "#include <helper_cuda.h>", "#include \"common.h\"")
    (tree / "cublas" / "common.h").write_text("#include <helper_cuda.h>\n")
    assert statuses(scanned(tree, rulebase))["cufftResult"] == "optional"
    (tree / "cublas" / "fft_main.cpp").write_text("#include <cufftXt.h>\n#include \"common.h\"\nint main(void) { return 0; }\n")
    assert statuses(scanned(tree, rulebase))["cufftResult"] == ""


def test_a_header_reached_through_a_header_nothing_includes_is_left_as_it_is(tmp_path: Path, rulebase) -> None:
    """common.h, which includes the helper, is included by no file: its users' includes are not known."""
    tree = Path(shutil.copytree(CASE, tmp_path / "case"))
    (tree / "cublas" / "common.h").write_text("#include \"helper_cuda.h\"\n")
    assert statuses(scanned(tree, rulebase))["cufftResult"] == ""
