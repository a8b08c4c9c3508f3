"""The worked example in docs/effort.md is what the model computes, row by row."""
from __future__ import annotations

import json
import re

import pytest
from migrate.model import Finding
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from migrate.workloads.calibration import load as calibration_load
from migrate.workloads.estimate import EffortModel, kernel_groups, occurrence_weight
from tests.conftest import ROOT, write_tree

DOC = (ROOT / "docs" / "effort.md").read_text()
EXAMPLE = DOC[DOC.index("## Worked example"):DOC.index("## Known limits")]
ROW = re.compile(r"^\| ([^|]+?) \| [^|]* \| ([0-9.]+) \|$", re.MULTILINE)


def test_worked_example_matches_the_model(rulebase) -> None:
    report = scan.run([ROOT / "fixtures" / "workloads" / "effort_example"], Settings(jobs=1), rulebase)
    (workload,) = report.workloads
    (project,) = report.project_costs
    computed = {i.label: i.hours for i in workload.primary.breakdown} | {f"project: {i.label}": i.hours
                                                                         for i in project.breakdown}
    documented = {item: float(hours) for item, hours in ROW.findall(EXAMPLE)}
    assert documented.keys() == computed.keys()
    for item, hours in documented.items():
        assert computed[item] == pytest.approx(hours, abs=0.005), item
    totals = re.search(r"Total likely \*\*([0-9.]+) h\*\* \(workload ([0-9.]+) h, project ([0-9.]+) h\), "
                       r"low \*\*([0-9.]+) h\*\*, high\s+\*\*([0-9.]+) h\*\*", EXAMPLE)
    assert totals, "the totals line of the worked example"
    effort = report.effort
    assert (round(effort.likely, 2), round(workload.effort.likely, 2), round(project.effort.likely, 2),
            round(effort.low, 2), round(effort.high, 2)) == tuple(map(float, totals.groups()))


def test_breakdowns_add_up_to_their_totals(rulebase) -> None:
    report = scan.run([ROOT / "fixtures" / "repos" / "demo"], Settings(jobs=1), rulebase)
    for w in report.workloads:
        for v in w.verdicts:
            assert sum(i.hours for i in v.breakdown) == pytest.approx(v.effort.likely, abs=1e-6), w.name
    for p in report.project_costs:
        assert sum(i.hours for i in p.breakdown) == pytest.approx(p.effort.likely, abs=1e-6)
    assert report.effort.likely == pytest.approx(
        sum(w.effort.likely for w in report.workloads if not w.optional) + sum(p.effort.likely for p in report.project_costs))
    assert report.optional_effort.likely == pytest.approx(
        sum(w.effort.likely for w in report.workloads if w.optional)
        + sum(p.effort.likely for w in report.workloads if not w.optional for p in w.optional_parts))
    assert report.hand_effort.likely + report.validation_effort.likely == pytest.approx(report.effort.likely)


def test_kernel_variants_are_one_group() -> None:
    def kernel(path: str, name: str) -> Finding:
        return Finding(rule="HIP4002", path=path, line=1, column=1, end_line=1, end_column=2, symbol=name,
                       message="", hip=None, hipify="yes", confidence="high", migration_class="migration-required")

    kernels = [kernel("dev/cuda/softmax.cu", n) for n in ("softmax_kernel1", "softmax_kernel2", "softmax_kernel_v3")]
    assert len(kernel_groups([*kernels, kernel("dev/cuda/gelu.cu", "gelu_kernel2")])) == 2
    assert len(kernel_groups([*kernels, kernel("src/softmax.cu", "softmax_kernel1")])) == 2


def test_learning_curve_and_overrides() -> None:
    assert occurrence_weight(1, 0.8) == 1.0
    assert occurrence_weight(2, 0.8) == pytest.approx(0.8)
    assert occurrence_weight(4, 0.8) == pytest.approx(0.64)
    assert sum(occurrence_weight(k, 0.8) for k in range(1, 101)) == pytest.approx(32.65, abs=0.05)
    model = EffortModel().with_overrides({"learning-rate": 0.9, "fixed": {"native": {"smoke": 3.0}},
                                          "uncertainty": {"incompatible": [0.5, 4.0]}, "calibrated": False})
    assert model.learning_rate == 0.9 and model.fixed["native"] == {"smoke": 3.0} and not model.calibrated
    assert model.uncertainty["incompatible"] == (0.5, 4.0) and model.fixed["incompatible"]["CI on ROCm"] == 8.0


def test_effort_configuration_from_pyproject(tmp_path) -> None:
    from migrate import settings
    from migrate.rulebase.load import load_rules

    (tmp_path / "pyproject.toml").write_text(
        "[tool.rocm-migrate.effort]\nkernel-validation = 3.0\n[tool.rocm-migrate.workloads]\nkernels = ['*.cu']\n")
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "tool.py").write_text("import pynvml\n")
    config = settings.load(tmp_path, {})
    report = scan.run([tmp_path], config, load_rules())
    kernels = next(w for w in report.workloads if w.name == "kernels")
    assert kernels.kind == "declared" and kernels.files == ("k.cu",)
    assert {i.label: i.hours for i in kernels.primary.breakdown}[
        "validation, assumed: kernel numerics ×1 (learning curve)"] == 3.0
    (tmp_path / "pyproject.toml").write_text("[tool.rocm-migrate.effort]\ncalibrated = false\n")
    report = scan.run([tmp_path], settings.load(tmp_path, {}), load_rules())
    assert {i.label: i.hours for i in report.workloads[0].primary.breakdown}["kernel review and validation ×1"] == 1.5


def test_a_rewrite_component_is_costed_by_its_band_apart_from_the_effort_not_again_by_its_findings() -> None:
    """Measured first ports (AutoAWQ_kernels, pyg-lib, DeepEP, kaldi: 6 components) changed no line of a rewrite
    component's files: the first ROCm build leaves it out, so its band is a later milestone, not the headline."""
    from dataclasses import dataclass

    from migrate.workloads import calibration
    from migrate.workloads.estimate import estimate, rewrite_bands

    def finding(rule: str, line: int) -> Finding:
        return Finding(rule=rule, path="k.cu", line=line, column=1, end_line=line, end_column=2, symbol="mma",
                       message="", hip=None, hipify="no", confidence="high", migration_class="migration-required")

    @dataclass(frozen=True)
    class Lane:
        title: str
        band: str | None
        findings: tuple[Finding, ...]

    mma, malloc = finding("HIP5010", 3), finding("HIP1100", 9)
    args = ("migration-required", EffortModel(), lambda r: (0.5, 1.0), lambda r: r, calibration.load())
    plain = {i.label: i.hours for i in estimate([mma, malloc], *args).breakdown}
    assert any(label.startswith("asm:") for label in plain)
    lane = Lane(title="Tensor-core PTX (mma.sync)", band="large", findings=(mma,))
    result = estimate([mma, malloc], *args, rewrites=[lane])
    items = {i.label: i.hours for i in result.breakdown}
    later = {i.label: i.hours for i in result.rewrite_breakdown}
    assert later == {"rewrite, assumed band: Tensor-core PTX (mma.sync) (large)": rewrite_bands()["large"].likely}
    assert result.rewrite == rewrite_bands()["large"] and rewrite_bands()["large"].likely == 80.0
    assert not any(label.startswith(("asm:", "rewrite")) for label in items)
    assert any(label.startswith("runtime:") for label in items)
    assert result.effort.likely == pytest.approx(sum(items.values())) and result.effort.likely < 80.0


def _scan_tree(tmp_path, files: dict[str, str], rulebase):
    return scan.run([write_tree(tmp_path, files)], Settings(jobs=1), rulebase)


def test_a_per_backend_cuda_folder_is_costed_as_its_hip_twin(tmp_path, rulebase) -> None:
    kernel = "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\n" + "// body\n" * 98
    report = _scan_tree(tmp_path, {
        "CMakeLists.txt": "project(p LANGUAGES CXX CUDA)\nadd_library(p src/cuda/k.cu src/openmp/k.cpp)\n",
        "src/cuda/k.cu": kernel, "src/openmp/k.cpp": "void k(float* x) { x[0] = 1; }\n"}, rulebase)
    (project,) = report.project_costs
    twins = [(i.label, i.hours) for i in project.breakdown if i.label.startswith("HIP twins of 1 CUDA back-end files")]
    assert twins and "(101 lines" in twins[0][0] and twins[0][1] > 0
    assert not any(i.label.startswith("integration glue") for i in project.breakdown)  # its only C file is the twin


def test_a_cuda_back_end_is_written_once_its_files_on_the_learning_curve(tmp_path, rulebase) -> None:
    """A library's CUDA back end beside a generic one is a back end to write, not one twin per file at a rate
    per line (s12: rocThrust's 151 back-end files, 68,278 lines, had been priced 15,444 hand lines where its
    first step wrote 235): each further file costs less, and the line count does not set the figure."""
    kernel = "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\n"

    def twins(name: str, files: int, body_lines: int) -> float:
        sources = " ".join(f"src/cuda/k{i}.cu src/omp/k{i}.cpp" for i in range(files))
        cmake = f"project(p LANGUAGES CXX CUDA)\nadd_library(p {sources})\n"  # the build compiles every file
        tree = {"CMakeLists.txt": cmake, **{f"src/omp/k{i}.cpp": "void k() {}\n" for i in range(files)},
                **{f"src/cuda/k{i}.cu": kernel + "// body\n" * body_lines for i in range(files)}}
        (project,) = _scan_tree(tmp_path / name, tree, rulebase).project_costs
        (item,) = [i for i in project.breakdown if i.label.startswith(f"HIP twins of {files} CUDA back-end files")]
        assert "the first file, learning curve" in item.label
        return float(item.hours)

    one, four, long_four = twins("one", 1, 10), twins("four", 4, 10), twins("long", 4, 400)
    assert one < four < 4 * one and four == pytest.approx(one * (1 + 0.8 + 0.8 ** 1.585 + 0.8 ** 2), rel=1e-3)
    assert long_four == pytest.approx(four)


def test_a_rewrite_component_replaces_its_findings_in_the_scan(tmp_path, rulebase) -> None:
    report = _scan_tree(tmp_path, {
        "CMakeLists.txt": "project(p LANGUAGES CXX CUDA)\nadd_library(p gemm.cu)\n",
        "gemm.cu": "#include <cutlass/gemm/device/gemm.h>\n#include <cuda_runtime.h>\n"
                   "__global__ void k(float* x) { x[0] = 1; }\n"}, rulebase)
    verdict = report.workloads[0].primary
    breakdown = {i.label: i.hours for i in verdict.breakdown}
    assert [i.label for i in verdict.rewrite_breakdown] and all(
        i.label.startswith("rewrite, assumed band: ") for i in verdict.rewrite_breakdown)
    assert not any(item.startswith("rewrite") for item in breakdown)  # apart from the headline
    assert not any(item.startswith("headers: ") and "×2" in item for item in breakdown)  # cutlass not costed twice
    assert report.rewrite_effort.likely == sum(i.hours for i in verdict.rewrite_breakdown) > 0
    later = report.plan["milestones"][-1]
    assert later["title"].startswith("Later, after the first ROCm build") and later["steps"] == []
    assert later["effort_hours"] == report.rewrite_effort.to_json()
    assert report.effort.likely < report.effort.likely + report.rewrite_effort.likely
    assert verdict.effort.likely == pytest.approx(sum(breakdown.values()), abs=0.01)  # the band is not in the headline
    from migrate.render import json_report, markdown_report, terminal_report

    data = json.loads(json_report.render(report))
    assert data["effort"]["rewrite_hours"]["likely"] == report.rewrite_effort.likely
    assert [r["hours"] for r in data["effort"]["rewrites"]] == [i.hours for i in verdict.rewrite_breakdown]
    shown = f"{report.rewrite_effort.likely:.1f}"
    assert f"rewrite components {report.rewrite_effort.low:.1f}–{report.rewrite_effort.high:.1f} h (likely {shown} h" \
        in terminal_report.render(report, width=400)
    assert f"(likely {shown} h). Measured first ports left" in markdown_report.render(report)


def test_a_first_port_of_a_base_with_rewrite_lane_kernels_costs_the_measured_extra_per_lane(tmp_path, rulebase) -> None:
    """s18: the first ports whose base has findings of a rewrite lane (DeepEP, pyg-lib, laghos, lc0 ...) wrote more
    than their findings say; the project line prices that per lane, with its basis, next to the rewrite band that
    stays apart from the headline. A base that builds on ROCm already, or a native one, gets no such line."""
    from migrate.workloads.estimate import project_estimate

    report = _scan_tree(tmp_path, {
        "CMakeLists.txt": "project(p LANGUAGES CXX CUDA)\nadd_library(p gemm.cu)\n",
        "gemm.cu": "#include <cutlass/gemm/device/gemm.h>\n#include <cuda_runtime.h>\n"
                   "__global__ void k(float* x) { x[0] = 1; }\n"}, rulebase)
    calibration = calibration_load()
    (project,) = report.project_costs
    (line,) = [i for i in project.breakdown if i.kind == "rewrite-lane base"]
    assert line.label.startswith("first port of a base with rewrite-lane kernels (1 lane: CUTLASS / CuTe kernel; ")
    assert f"pooled over {calibration.lane_ports} measured such first ports" in line.label
    assert line.hours == pytest.approx(calibration.lane_lines_per_lane * calibration.hours_per_line, abs=0.005)
    assert report.rewrite_effort.likely > 0  # the rewrite itself, apart
    model = EffortModel()
    for cls, rocm_path in (("migration-required", True), ("native", False)):
        other = project_estimate(cls, c_files=1, build_findings=0, model=model, calibration=calibration,
                                 rocm_path=rocm_path, rewrite_lanes=("CUTLASS / CuTe kernel",))
        assert not any(i.kind == "rewrite-lane base" for i in other.breakdown)


def test_a_build_port_whose_findings_name_no_kind_is_the_build_system_alone_as_measured() -> None:
    """s18: 38 measured first ports whose build findings name no kind of CUDA build use (a setup.py, a plain Makefile)
    changed 6.5 build lines at the median, where one first unit fitted on all ports priced 12.8 (stable-fast-3d-76:
    2 build lines). Such a port costs that median; a port whose findings name kinds keeps the unit and its curve."""
    from migrate.workloads.estimate import project_estimate

    calibration = calibration_load()
    model = EffortModel()
    bare = project_estimate("migration-required", c_files=1, build_findings=0, model=model, calibration=calibration)
    (build,) = [i for i in bare.breakdown if i.kind == "build system port"]
    assert build.label.startswith("build system port (no build finding names a kind of CUDA build use: the build "
                                  f"system alone; {calibration.build_lines_no_kind:.1f} lines, the median of "
                                  f"{calibration.build_no_kind_ports} measured first ports with none)")
    assert build.hours == pytest.approx(calibration.build_lines_no_kind * calibration.hours_per_line, abs=0.005)
    kinds = project_estimate("migration-required", c_files=1, build_findings=3, build_files=1, build_kinds=1,
                             model=model, calibration=calibration)
    (port,) = [i for i in kinds.breakdown if i.kind == "build system port"]
    assert port.hours == pytest.approx(calibration.build_lines_first_unit * calibration.curve(2)
                                       * calibration.hours_per_line, abs=0.005)
    assert 0 < calibration.build_lines_no_kind < calibration.build_lines_first_unit


def test_the_build_port_counts_kinds_of_cuda_build_use_not_files_nor_findings(tmp_path, rulebase) -> None:
    """kaldi (s9): many small Makefiles that repeat the same nvcc flags are one change per kind (a shared .mk),
    not one unit per build file (880 files had cost 1,170 h against 101 build lines measured); llm.c: one
    Makefile with many nvcc-flag findings is not one unit per finding either."""
    makefile = ("NVCC = nvcc\nNVCC_FLAGS = -O3 --use_fast_math -arch=sm_80\n"
                "all: k.cu\n\t$(NVCC) $(NVCC_FLAGS) k.cu -o k -lcublas\n")
    kernel = "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\n"
    report = _scan_tree(tmp_path, {f"src/{d}/{name}": text for d in ("a", "b", "c")
                                   for name, text in (("Makefile", makefile), ("k.cu", kernel))}, rulebase)
    build = [f for f in report.findings if f.rule.startswith("HIP8") and not f.status]
    kinds = {f.rule for f in build}
    assert len({f.path for f in build}) == 3 and 1 < len(kinds) < len(build)
    counted = min(len(kinds), 3)  # a kind counted at most once per build file that carries build findings (s19)
    (project,) = report.project_costs
    (line,) = [i for i in project.breakdown if i.label.startswith("build system port")]
    assert line.label.startswith(f"build system port ({len(kinds)} kinds of CUDA build use ({len(build)} build "
                                 "findings in 3 files" + (f", counted once per build file: {counted}" if counted < len(kinds)
                                                          else "") + ") + the build system")
    calibration = calibration_load()
    expected = calibration.build_lines_first_unit * calibration.curve(counted + 1) * calibration.hours_per_line
    assert line.hours == pytest.approx(expected, abs=0.005)
    one = _scan_tree(tmp_path / "one", {"src/a/Makefile": makefile, "src/a/k.cu": kernel}, rulebase)
    (single,) = [i for i in one.project_costs[0].breakdown if i.label.startswith("build system port")]
    # the same kinds in one Makefile: one compiler line to change (s19: cuda-hip-comparison, 4 kinds in 1 file, 13
    # build lines measured; chapel-gpu, 3 kinds in 2 files, 15), counted once
    assert "in 1 file, counted once per build file: 1) + the build system" in single.label
    assert single.hours == pytest.approx(calibration.build_lines_first_unit * calibration.curve(2)
                                         * calibration.hours_per_line, abs=0.005)
    # ranking (Report.rule_hours): each build rule is one kind, its even share of the port beyond the build
    # system itself (not per finding: 3 files repeat each kind)
    share = calibration.build_lines_first_unit * (calibration.curve(counted + 1) - 1.0) \
        * calibration.hours_per_line / len(kinds)
    assert {r: report.rule_hours[r] for r in kinds} == {r: pytest.approx(share, abs=0.005) for r in kinds}


def test_a_cuda_backend_file_whose_hip_twin_is_there_gets_no_twin_line(tmp_path, rulebase) -> None:
    """ParRes Kernels (s9): nstream-cuda.cu beside nstream-hip.cc and nstream-openmp.cc; the HIP member
    exists, so no HIP twin is to be written (155 h of twins had been costed)."""
    kernel = "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\n" + "// body\n" * 98
    files = {"Makefile": "all:\n\tnvcc nstream-cuda.cu -o nstream-cuda\n\tnvcc dgemm-cublas.cu -o dgemm\n",
             "nstream-cuda.cu": kernel, "nstream-openmp.cc": "void k(float* x) { x[0] = 1; }\n",
             "dgemm-cublas.cu": "#include <cublas_v2.h>\nvoid g(cublasHandle_t h) { cublasCreate(&h); }\n"}
    alone = _scan_tree(tmp_path / "alone", files, rulebase)
    assert any(i.label.startswith("HIP twins of 1 CUDA back-end files") for i in alone.project_costs[0].breakdown)
    twinned = _scan_tree(tmp_path / "twinned", {**files, "nstream-hip.cc": "#include <hip/hip_runtime.h>\n"}, rulebase)
    (project,) = twinned.project_costs
    assert any(i.label.startswith("build system port") for i in project.breakdown)  # still a port, not a ROCm path
    assert not any(i.label.startswith("HIP twins") for i in project.breakdown)


def test_a_project_that_builds_on_rocm_costs_its_next_increment_and_stays_native(rulebase) -> None:
    """A base whose ROCm build covers its CUDA code: nothing to port, but the measured increments on such
    bases (a feature's HIP side, a roctx twin of NVTX) were 2 to 302 hand lines, not 0."""
    report = scan.run([ROOT / "fixtures" / "workloads" / "ported_refused_near"],
                      Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
    assert report.migration_class == "native"
    (project,) = report.project_costs
    calibration = calibration_load()
    (line,) = [i for i in project.breakdown if i.label.startswith("next increment of the existing ROCm build")]
    assert calibration.increments >= 5
    assert line.hours == pytest.approx(calibration.increment_lines * calibration.hours_per_line, abs=0.005)
    assert report.hand_effort.likely == pytest.approx(line.hours, abs=0.01)


def test_a_project_with_a_rocm_path_still_writes_the_hip_twins_of_its_cuda_back_end() -> None:
    """PLSSVM #16 and Morpheus #43 (s16): a ROCm path of another back end (PLSSVM's SYCL back end built with
    hipSYCL) gives the CUDA back end no HIP member; those ports wrote the twins (308 and 256 hand lines) where the
    increment alone priced 59 lines. Without CUDA back-end files lacking a HIP member, the increment alone."""
    from migrate.workloads.estimate import project_estimate

    calibration = calibration_load()
    model = EffortModel()
    result = project_estimate("native", c_files=0, build_findings=0, model=model, calibration=calibration,
                              backend_files=3, backend_lines=90, rocm_path=True)
    assert any(i.label.startswith("next increment of the existing ROCm build") for i in result.breakdown)
    (twins,) = [i for i in result.breakdown if i.label.startswith("HIP twins of 3 CUDA back-end files")]
    assert twins.hours == pytest.approx(calibration.twin_lines_first_file * calibration.curve(3)
                                        * calibration.hours_per_line, abs=0.005)
    alone = project_estimate("native", c_files=0, build_findings=0, model=model, calibration=calibration,
                             backend_files=0, backend_lines=0, rocm_path=True)
    assert not any(i.label.startswith("HIP twins") for i in alone.breakdown)


def test_a_minor_adaptation_project_has_its_build_port_costed(rulebase) -> None:
    """A torch extension whose CUDA torch's own hipify converts is minor-adaptation; its port still edits its
    build (setup.py's CUDAExtension, nvcc flags) and its glue, as the measured ports of that shape did
    (OpenSplat, AutoAWQ): the build port is a line of its project costs, not 0."""
    report = scan.run([ROOT / "fixtures" / "workloads" / "torch_ext_clean"], Settings(jobs=1, use_hipify=False),
                      rulebase)
    (project,) = report.project_costs
    assert project.migration_class == "minor-adaptation"
    port = [i for i in project.breakdown if i.kind == "build system port"]
    assert port and port[0].hours > 0
    assert report.hand_effort.likely >= port[0].hours


def test_a_project_that_builds_on_rocm_with_findings_left_is_an_increment_plus_those_findings(rulebase) -> None:
    """A ROCm-built base whose HIP build leaves files out: its ROCm build has the build system and the glue,
    so its project costs are the next increment (fit.py models it so since s9); the files left out are
    optional parts, each costed apart (the project itself is native: fixtures/workloads/ported_scoped)."""
    report = scan.run([ROOT / "fixtures" / "workloads" / "ported_scoped"],
                      Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
    assert report.migration_class == "native" and any(w.rocm_path for w in report.workloads)
    left_out = [p for w in report.workloads for p in w.optional_parts if "left out of the HIP build" in p.root]
    assert len(left_out) == 2 and all(p.effort.likely > 0 for p in left_out)
    (project,) = report.project_costs
    kinds = {i.kind for i in project.breakdown}
    assert "ROCm build increment" in kinds
    assert not kinds & {"build system port", "integration glue", "HIP twins"}


def test_no_estimate_line_is_a_per_kloc_constant_and_the_glue_names_its_basis(rulebase) -> None:
    """Issue 30: "glue code no finding explains" was a per-KLOC constant and the largest line of llm.c and AMGX.
    Every line now is a finding family, a kind of build use, a plan step, an assumed validation step, a rewrite
    band apart from the headline, or the glue with its basis (since s17 once per first port, the median measured
    first port's)."""
    for tree in (ROOT / "fixtures" / "repos" / "demo", ROOT / "fixtures" / "workloads" / "effort_example"):
        report = scan.run([tree], Settings(jobs=1), rulebase)
        items = [i for p in report.project_costs for i in p.breakdown]
        items += [i for w in report.workloads for v in w.verdicts for i in (*v.breakdown, *v.rewrite_breakdown)]
        assert items, tree
        assert not any("kloc" in i.label.lower() or "per line of code" in i.label.lower() for i in items), tree
        glue = [i for i in items if i.label.startswith("integration glue")]
        assert all("the median of" in i.label and "measured first ports with C/C++/CUDA findings" in i.label
                   for i in glue), tree


def test_a_code_generators_hip_back_end_is_costed_per_generator_line(rulebase) -> None:
    """A generator that writes CUDA as text (CUDA device code in one-line string literals of a Python, C or C++
    file: StarPlat, OPS, yaksa, arbor, ParRes in the measured ports) has its HIP back end to write by hand (s13:
    43.9 hand lines per such line, fitted on those ports). CUDA API names in messages, one stray device word, a
    CuPy kernel in a triple-quoted string and a generator in tests/ (an optional folder) are not counted."""
    from migrate.scan.layout import generator_lines

    root = ROOT / "fixtures" / "workloads" / "code_generator"
    assert generator_lines("tools/generate_stencil.py", (root / "tools" / "generate_stencil.py").read_text()) == 3
    assert generator_lines("tools/errors.py", (root / "tools" / "errors.py").read_text()) == 0
    assert generator_lines("stencil.cu", (root / "tools" / "generate_stencil.py").read_text()) == 0  # CUDA source
    assert generator_lines("gen.cpp", 'out << "k<<<grid, block>>>(x);";\nout << "__shared__ float t[32];";\n') == 2
    report = scan.run([root], Settings(jobs=1), rulebase)
    (project,) = report.project_costs
    (item,) = [i for i in project.breakdown if i.kind == "code generator"]
    assert item.label.startswith("HIP back end of a code generator (3 lines of CUDA device code in string literals "
                                 "in 1 generator file;")
    calibration = calibration_load()
    assert calibration.generator_lines_per_line > 0
    assert item.hours == pytest.approx(calibration.generator_lines_per_line * 3 * calibration.hours_per_line, abs=0.01)


def test_cuda_api_names_in_strings_make_no_generator(tmp_path, rulebase) -> None:
    kernel = "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\n"
    gen = "def emit(src):\n    src.write('__global__ void k() {\\n')\n    src.write('  int i = threadIdx.x;\\n')\n"
    plain = _scan_tree(tmp_path / "plain", {"Makefile": "k: k.cu\n\tnvcc -o k k.cu\n", "k.cu": kernel,
                                            "gen.py": "print('cudaMalloc failed')\n"}, rulebase)
    assert not [i for p in plain.project_costs for i in p.breakdown if i.kind == "code generator"]
    generated = _scan_tree(tmp_path / "gen", {"Makefile": "k: k.cu\n\tnvcc -o k k.cu\n", "k.cu": kernel, "gen.py": gen},
                           rulebase)
    assert [i for p in generated.project_costs for i in p.breakdown if i.kind == "code generator"]


def test_a_project_whose_only_cuda_is_a_generators_text_still_has_its_back_end_to_write(tmp_path, rulebase) -> None:
    """StarPlat's base (a DSL compiler whose CUDA back end is C++ writing CUDA as text) has no CUDA the scan
    sees, so it is native; its generator's HIP back end is hand work all the same (1,435 h measured, estimated
    0 h before s13)."""
    gen = ("def emit(src):\n    src.write('__global__ void k(int * out) {\\n')\n"
           "    src.write('  out[blockIdx.x * blockDim.x + threadIdx.x] = 0;\\n')\n")
    report = _scan_tree(tmp_path, {"Makefile": "all:\n\tpython gen.py\n", "gen.py": gen}, rulebase)
    (project,) = report.project_costs
    assert project.migration_class == "native"
    (item,) = [i for i in project.breakdown if i.kind == "code generator"]
    assert item.label.startswith("HIP back end of a code generator (2 lines") and report.hand_effort.likely > 0


def test_a_base_whose_findings_lie_in_no_c_file_costs_the_median_measured_port_of_that_shape(rulebase) -> None:
    """A Numba/Triton/Python or build-only base (findings in Python code or build files, none in a C/C++/CUDA
    file): the measured ports of that shape (gemlite's Triton, parameter-golf, mpi4jax, pixlstash ...: 14 to 571
    hand lines) were estimated from the build unit alone, 13-40 lines; since s15 the port is the median measured
    one, in place of the build port (fit.py --by-set, left out: 42 / 91 -> 45 / 92 of 118)."""
    calibration = calibration_load()
    report = scan.run([ROOT / "fixtures" / "trees" / "numba_project"], Settings(jobs=1, cache_dir=None, use_hipify=False),
                      rulebase)
    (project,) = report.project_costs
    (line,) = [i for i in project.breakdown if i.kind == "no C/C++/CUDA port"]
    assert calibration.no_c_code_ports >= 5 and calibration.no_c_code_lines > calibration.build_lines_first_unit
    assert line.hours == pytest.approx(calibration.no_c_code_lines * calibration.hours_per_line, abs=0.005)
    assert f"median of {calibration.no_c_code_ports} measured such ports" in line.label
    assert not {i.kind for i in project.breakdown} & {"build system port", "integration glue"}
    deploy = scan.run([ROOT / "fixtures" / "workloads" / "deploy_only"], Settings(jobs=1, cache_dir=None,
                      use_hipify=False), rulebase)  # containers only: no measured port of that shape
    assert not [i for p in deploy.project_costs for i in p.breakdown if i.kind == "no C/C++/CUDA port"]
