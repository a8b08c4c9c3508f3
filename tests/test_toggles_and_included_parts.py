"""Code the default build never compiles, from what the sources themselves say: a toggle whose only
#define is commented out (fixtures/workloads/optional/commented_toggle), and headers only optional files
include. Each is optional with its evidence; near misses stay required."""
from __future__ import annotations

import shutil
from pathlib import Path

from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

CASES = ROOT / "fixtures" / "workloads" / "optional"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def statuses(data: dict, symbol: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["symbol"] == symbol}


def test_a_toggle_whose_only_define_is_commented_out_is_off_by_default(rulebase) -> None:
    """VanitySearch: `//#define FULLCHECK` then `#ifdef FULLCHECK` debug kernels; no build passes it."""
    data = scanned(CASES / "commented_toggle", rulebase)
    assert statuses(data, "get_endianness") == {"optional"}
    assert statuses(data, "comp_keys") == {""}
    [part] = [p for w in data["workloads"] for p in w["optional_parts"] if p["root"] == "build switch FULLCHECK"]
    assert part["evidence"][0] == "GPU/GPUEngine.cu:11 commented-out-define(FULLCHECK) default 0"


def test_a_toggle_another_file_defines_is_compiled(tmp_path: Path, rulebase) -> None:
    """Near miss: a header of the project defines FULLCHECK, so the debug kernels are built."""
    tree = shutil.copytree(CASES / "commented_toggle", tmp_path / "vanity")
    header = tree / "GPU" / "GPUEngine.h"
    header.write_text("#pragma once\n#define FULLCHECK\n" + header.read_text().removeprefix("#pragma once\n"))
    data = scanned(tree, rulebase)
    assert statuses(data, "get_endianness") == {""}


def test_headers_only_a_benchmark_includes_are_optional_with_it(rulebase) -> None:
    """decoding_attention: tester.h, and the timer and tensor helpers it includes, serve only benchmarks/cpp."""
    data = scanned(CASES / "benchmark_headers", rulebase)
    by_path = {f["path"]: f["status"] for f in data["findings"] if f["path"].startswith("csrc/")}
    assert {by_path[p] for p in ("csrc/common/tester.h", "csrc/common/tensor.h", "csrc/common/cuda_timer.h")} \
        == {"optional"}
    assert by_path["csrc/ops/decode.cu"] == ""


def test_a_header_a_required_source_also_includes_stays_required(tmp_path: Path, rulebase) -> None:
    """Near miss: the extension's own source includes tensor.h; the timer stays the benchmark's."""
    tree = shutil.copytree(CASES / "benchmark_headers", tmp_path / "attn")
    source = tree / "csrc" / "ops" / "decode.cu"
    source.write_text('#include "../common/tensor.h"\n' + source.read_text())
    data = scanned(tree, rulebase)
    status = {f["path"]: f["status"] for f in data["findings"]}
    assert status["csrc/common/tensor.h"] == "" and status["csrc/common/cuda_timer.h"] == "optional"


def test_a_header_only_librarys_headers_are_not_optional_for_its_tests(tmp_path: Path, rulebase) -> None:
    """Near miss: with no compiled source outside tests/, the headers the tests include are the product."""
    tree = tmp_path / "hashlib"
    (tree / "include").mkdir(parents=True)
    (tree / "tests").mkdir()
    (tree / "include" / "table.cuh").write_text("#pragma once\n__global__ void fill(int *t) { t[threadIdx.x] = 0; }\n"
                                                "inline void clear(int *t) { cudaMemset(t, 0, 64); fill<<<1, 32>>>(t); }\n")
    (tree / "tests" / "test_table.cu").write_text('#include "../include/table.cuh"\nint main() { clear(nullptr); }\n')
    data = scanned(tree, rulebase)
    assert {f["status"] for f in data["findings"] if f["path"] == "include/table.cuh"} == {""}


def test_a_switch_left_commented_out_in_the_config_header_is_off_by_default(rulebase) -> None:
    """QuadriFlow: the CUDA lines of built sources sit under `#ifdef WITH_CUDA`, and the one definition of WITH_CUDA
    is commented out in the config header they include (src/config.hpp:7); CMake never passes it."""
    data = scanned(CASES / "config_header_toggle", rulebase)
    assert {f["status"] for f in data["findings"] if f["path"] == "src/hierarchy.cpp"} == {"optional"}
    [part] = [p for w in data["workloads"] for p in w["optional_parts"] if p["root"] == "build switch WITH_CUDA"]
    assert part["evidence"][0] == "src/config.hpp:7 commented-out-define(WITH_CUDA) default 0"
    assert {w["class"] for w in data["workloads"]} == {"native"}


def test_a_switch_the_build_defines_is_compiled_though_a_header_comments_it_out(tmp_path: Path, rulebase) -> None:
    """Near miss: CMake passes -DWITH_CUDA, so the commented-out line in the header turns nothing off."""
    tree = shutil.copytree(CASES / "config_header_toggle", tmp_path / "quadriflow")
    cmake = tree / "CMakeLists.txt"
    cmake.write_text(cmake.read_text() + "add_definitions(-DWITH_CUDA)\n")
    data = scanned(tree, rulebase)
    assert {f["status"] for f in data["findings"] if f["path"] == "src/hierarchy.cpp"} == {""}


def test_an_option_of_the_build_outranks_a_define_a_header_comments_out(tmp_path: Path, rulebase) -> None:
    """Near miss: CMake declares `option(WITH_CUDA ... ON)` and defines the macro under it; a header's
    `// #define WITH_CUDA` (sorted first by path) declares nothing."""
    tree = shutil.copytree(CASES / "config_header_toggle", tmp_path / "quadriflow")
    (tree / "APIConfig.h").write_text((tree / "src" / "config.hpp").read_text())
    cmake = tree / "CMakeLists.txt"
    cmake.write_text(cmake.read_text() + 'option(WITH_CUDA "CUDA" ON)\nif (WITH_CUDA)\n    add_definitions(-DWITH_CUDA)\n'
                     "endif()\n")
    data = scanned(tree, rulebase)
    assert {f["status"] for f in data["findings"] if f["path"] == "src/hierarchy.cpp"} == {""}
