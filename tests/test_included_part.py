"""What an #include of another workload's file carries (workloads/graph.py IncludedPart): the findings of the
included file and of what it includes, not the other workload's whole class (fixture cut from cerati/p2z-tests)."""
from __future__ import annotations

from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

TREE = ROOT / "fixtures" / "trees" / "included_header_part"


def test_a_plain_header_carries_its_own_findings_only(rulebase) -> None:
    report = scan.run([TREE], Settings(jobs=1, cache_dir=None), rulebase)
    by_name = {w.name: w.verdicts[0] for w in report.workloads}
    assert by_name["included_header_part"].migration_class == "migration-required"
    assert by_name["kokkos_src_v1"].migration_class == "native"  # input_track.h: data only
    assert by_name["kokkos_src_v1"].chain == ()
    nested = by_name["cuda_src_v2"]  # track_cuda.h includes cuda_check.h: both come with the include
    assert (nested.own_class, nested.migration_class) == ("minor-adaptation", "migration-required")
    assert nested.chain == ("src/cuda_src_v2/propagate-host.cpp includes track_cuda.h",
                            "src/cuda_check.h:1 HIP0001 cuda_runtime.h")


def test_a_cmake_link_beside_the_include_still_carries_the_whole_library(rulebase, tmp_path) -> None:
    """fangq/mmc's src/CMakeLists.txt: mmc-exe includes mmc_const.h (plain) and links the mmc library (CUDA)."""
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(mmc LANGUAGES C CXX CUDA)\n"
        "add_library(mmc STATIC mmc_tictoc.cu mmc_const.h)\nadd_executable(mmc-exe mmc.c)\n"
        "target_link_libraries(mmc-exe mmc)\n")
    (tmp_path / "mmc_const.h").write_text("#define MMC_VERSION 2\n")
    (tmp_path / "mmc_tictoc.cu").write_text('#include <cuda_runtime_api.h>\n#include "mmc_const.h"\n'
                                            "void start(cudaEvent_t e) { cudaEventRecord(e, 0); }\n")
    (tmp_path / "mmc.c").write_text('#include "mmc_const.h"\nint main(void) { return MMC_VERSION; }\n')
    report = scan.run([tmp_path], Settings(jobs=1, cache_dir=None), rulebase)
    by_name = {w.name: w.verdicts[0] for w in report.workloads}
    assert by_name["mmc"].migration_class == "migration-required"
    assert by_name["mmc-exe"].migration_class == "migration-required"
    assert by_name["mmc-exe"].chain[0].endswith("mmc-exe links mmc")


def test_a_link_to_a_library_declared_in_the_included_workload_carries_it_whole(rulebase, tmp_path) -> None:
    """Apra-Labs/ApraPipes base/CMakeLists.txt: `aprapipes` (its sources a glob, no workload of its own) is declared
    in the project's CMakeLists.txt; aprapipes_cli includes one of its plain headers and links it."""
    (tmp_path / "src").mkdir()
    (tmp_path / "include").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(APRAPIPES LANGUAGES CXX CUDA)\n"
        "file(GLOB SOURCE src/*.cu)\nadd_library(aprapipes STATIC ${SOURCE})\n"
        "add_executable(aprapipes_cli tools/aprapipes_cli.cpp)\n"
        "target_link_libraries(aprapipes_cli PRIVATE -Wl,--whole-archive aprapipes -Wl,--no-whole-archive)\n")
    (tmp_path / "include" / "JsonParser.h").write_text("#pragma once\nint parse(const char* text);\n")
    (tmp_path / "src" / "CudaDriverLoader.cu").write_text(
        '#include <cuda.h>\n#include "../include/JsonParser.h"\nint parse(const char* t) { return cuInit(0); }\n')
    (tmp_path / "tools" / "aprapipes_cli.cpp").write_text(
        '#include "../include/JsonParser.h"\nint main() { return parse("{}"); }\n')
    report = scan.run([tmp_path], Settings(jobs=1, cache_dir=None), rulebase)
    by_name = {w.name: w for w in report.workloads}
    cli = by_name["aprapipes_cli"].verdicts[0]
    owner = next(w for w in report.workloads if "src/CudaDriverLoader.cu" in w.files)
    assert "include/JsonParser.h" in owner.files and owner.verdicts[0].migration_class == "migration-required"
    assert (cli.own_class, cli.migration_class) == ("native", "migration-required")
