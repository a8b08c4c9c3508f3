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
