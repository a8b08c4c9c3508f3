"""Files of a project's own per-back-end family (match.backend_files) and the rules that leave them alone."""
from __future__ import annotations

from pathlib import Path

from migrate import pipeline
from migrate.match import backend_files
from migrate.settings import Settings


def test_backend_files_need_a_sibling_for_another_back_end() -> None:
    paths = ["cuda/test/base/memory.cpp", "dpcpp/base/executor.dp.cpp", "benchmark/utils/cuda_timer.cpp",
             "benchmark/utils/hip_timer.hip.cpp", "benchmark/utils/cuda_linops.cpp",
             "examples/minimal-cuda-solver/minimal-cuda-solver.cpp", "src/Cuda/kernels.cu", "src/OpenMP/kernels.cpp",
             "app/cuda/solver.cu", "app/main.cpp", "lib/kernel_cuda.cu", "lib/kernel_sycl.cpp"]
    assert backend_files(paths) == {"cuda/test/base/memory.cpp", "benchmark/utils/cuda_timer.cpp",
                                    "src/Cuda/kernels.cu", "lib/kernel_cuda.cu"}


def test_scan_leaves_ginkgo_cuda_executor_in_a_backend_tree(tmp_path: Path, rulebase) -> None:
    use = "#include <ginkgo/ginkgo.hpp>\nvoid f() { auto e = gko::CudaExecutor::create(0, nullptr); }\n"
    for rel in ("core/cuda/test/memory.cpp", "app/solver.cpp"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(use)
    (tmp_path / "core/hip/test").mkdir(parents=True)
    (tmp_path / "core/hip/test/memory.hip.cpp").write_text("#include <ginkgo/ginkgo.hpp>\n")
    report = pipeline.scan_project([tmp_path], Settings(jobs=1, cache_dir=None), rulebase)
    assert sorted(f.path for f in report.findings if f.rule == "HIP3062") == ["app/solver.cpp"]
