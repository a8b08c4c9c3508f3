"""Optional parts from how a project is built and loaded (fixtures/workloads/optional/, each cut from a real
case, with near misses): a build switch's code, a module only a picked loader imports, scratch space. Each
keeps its own class, is listed with what makes it optional, and never decides the workload's class."""
from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from migrate.workloads import parts
from tests.conftest import ROOT

CASES = ROOT / "fixtures" / "workloads" / "optional"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def report(case: str, rulebase) -> dict:
    return scanned(CASES / case, rulebase)


def statuses_of(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def optional_parts(data: dict) -> dict[str, dict]:
    return {p["root"]: p for w in data["workloads"] for p in w["optional_parts"]}


def test_cudnn_behind_a_switch_beside_the_projects_own_kernels_is_optional(rulebase) -> None:
    """Caffe: every cuDNN layer sits in `#ifdef USE_CUDNN`; Caffe's own CUDA layers build without it."""
    data = report("caffe_cudnn", rulebase)
    assert data["summary"]["class"] == "migration-required"
    part = optional_parts(data)["build switch USE_CUDNN"]
    assert part["class"] == "migration-required"  # cuDNN's classic calls have MIOpen routes (HIP3063)
    assert part["evidence"][:3] == ["CMakeLists.txt:5 caffe_option(USE_CUDNN) default ON",
                                    "the project's own GPU code builds without USE_CUDNN",
                                    "src/caffe/layers/cudnn_conv_layer.cu:1 #ifdef USE_CUDNN"]
    cudnn = [f for f in data["findings"] if f["symbol"].startswith("cudnn")]
    assert cudnn and {f["status"] for f in cudnn} == {"optional"}


def test_a_switch_that_gates_the_only_gpu_path_is_not_optional(rulebase) -> None:
    data = report("cudnn_only", rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert optional_parts(data) == {}
    cudnn = [f for f in data["findings"] if f["symbol"].startswith("cudnn")]
    assert cudnn and {f["status"] for f in cudnn} == {""}


def test_a_cmake_option_with_its_external_project_and_subdirectory_is_optional(rulebase) -> None:
    """option(BUILD_CUTLASS ON) + if(BUILD_CUTLASS) ExternalProject_Add(cutlass) add_subdirectory(grouped_gemm)."""
    data = report("cutlass_option", rulebase)
    assert data["summary"]["class"] == "migration-required"
    found = [p for w in data["workloads"] for p in w["optional_parts"] if p["root"] == "build switch BUILD_CUTLASS"]
    assert {p["class"] for p in found} == {"migration-required"}  # the GEMM (a rewrite lane); the fetch in CMake
    assert all("CMakeLists.txt:3 option(BUILD_CUTLASS) default ON" in p["evidence"] for p in found)
    fetched = [f for f in data["findings"] if "cutlass" in f["symbol"].lower() and f["path"] == "CMakeLists.txt"]
    assert fetched and {f["status"] for f in fetched} == {"optional"}


def test_a_module_only_a_picked_loader_imports_is_optional(rulebase) -> None:
    """text-generation-webui: modules/models.py imports modules.tensorrt_llm inside the loader a dispatch
    table picks (its `except` re-raises: it is the selection, not the try, that makes it optional)."""
    data = report("webui_loader", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["modules/tensorrt_llm.py"]
    assert part["class"] == "incompatible"
    assert part["evidence"][0].startswith("modules/models.py:24 imports it only in an optional scope")


def test_a_module_imported_under_a_reraising_try_is_required(rulebase) -> None:
    data = report("module_import_required", rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert optional_parts(data) == {}


def test_scratch_space_at_the_top_is_optional_and_a_dev_folder_deeper_is_not(rulebase) -> None:
    data = report("llmc_dev", rulebase)
    by_name = {w["name"]: w for w in data["workloads"]}
    assert by_name["cuda"]["optional"] is True
    assert by_name["llmc_dev"]["optional"] is False
    stats = [f for f in data["findings"] if f["path"] == "src/dev/stats.cu"]
    assert stats and {f["status"] for f in stats} == {""}


@pytest.mark.parametrize(("switch", "feature"), [
    ("USE_CUDNN", "CUDNN"), ("CAFFE_WITH_NCCL", "NCCL"), ("BUILD_CUTLASS", "CUTLASS"), ("ENABLE_FP8_KV", "FP8_KV"),
    ("GGML_USE_CUDA", "CUDA"), ("WITH_GPU", "GPU"), ("CUDNN_VERSION", None), ("USE", None),
    ("CMAKE_BUILD_TYPE", None), ("CMAKE_USE_CUDA", None),  # CMake's own variables: never a project's switch
])
def test_what_a_switch_turns_on(switch: str, feature: str | None) -> None:
    assert parts.feature(switch, parts.words()) == feature


def test_the_words_are_data_with_a_source(tmp_path: Path) -> None:
    (tmp_path / "workloads").mkdir()
    (tmp_path / "workloads" / "optional.yaml").write_text("folders: {names: [tests]}\n")
    with pytest.raises(parts.DataError, match="source URL"):
        parts.words(tmp_path)


def test_an_alternative_back_end_picked_on_the_command_line_is_optional(rulebase) -> None:
    """torch-ngp: `if opt.ff: from nerf.network_ff import NeRFNetwork ... else: from nerf.network import
    NeRFNetwork`; the fully fused MLP on CUTLASS (ffmlp/) is used only by nerf/network_ff.py."""
    data = report("ngp_ffmlp", rulebase)
    assert data["summary"]["class"] == "native"
    by_name = {w["name"]: w for w in data["workloads"]}
    # the extension backend.py loads (sources by a comprehension over names) is its own workload; the CUTLASS header
    # only its optional source includes is optional with it (session 23), so the CUTLASS GEMM is a rewrite in an
    # optional part (workloads/rewrite_project.whole_rewrites leaves optional findings as they are), not the
    # required code of a project of rewrite kernels
    assert by_name["_ffmlp"]["optional"] is True and by_name["_ffmlp"]["class"] == "migration-required"
    assert by_name["ngp_ffmlp"]["class"] == "native"


def test_only_a_chain_with_a_default_names_alternatives() -> None:
    from migrate.extract.python import extractor

    source = (b"if opt.ff:\n    from nerf.network_ff import Net\nelse:\n    from nerf.network import Net\n"
              b"if opt.x:\n    from a import b\nelse:\n    from c import d\n"
              b"if opt.y:\n    from e import Net\n")
    guards = {f.name: f.guard for f in extractor.extract(source).facts if f.kind == "python_import"}
    assert guards == {"nerf.network_ff": "optional", "nerf.network": None, "a": None, "c": None, "e": None}


def test_a_makefile_switch_left_commented_out_makes_its_sources_optional(rulebase) -> None:
    """Caffe's Makefile shape: `# USE_CUDNN := 1` in Makefile.config.example, the cuDNN source added
    under `ifeq ($(USE_CUDNN), 1)` (no #ifdef in the file)."""
    data = report("make_cudnn", rulebase)
    assert data["summary"]["class"] == "migration-required"
    part = optional_parts(data)["build switch USE_CUDNN"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0] == "Makefile.config.example:3 commented-out(USE_CUDNN) default 0"


def test_a_make_conditional_names_the_switch_of_its_true_branch_only() -> None:
    from migrate.extract.text import buildfiles

    source = (b"USE_NCCL ?= 0\nifeq ($(USE_NCCL), 1)\n\tSRCS += nccl.cu\nendif\n"
              b"ifneq ($(CPU_ONLY), 1)\n\tSRCS += gpu.cu\nelse\n\tSRCS += cpu.cpp\nendif\n")
    facts = buildfiles.makefile(source).facts
    assert [(f.name, f.line, f.end_line) for f in facts if f.kind == "switch_branch"] == [("USE_NCCL", 2, 4)]
    assert {f.name: f.text for f in facts if f.kind == "build_switch"} == {"USE_NCCL": "0 make"}
    assert [f.name for f in facts if f.kind == "build_source"] == ["nccl.cu", "gpu.cu", "cpu.cpp"]


def test_a_feature_switch_inside_the_platform_switch_is_optional_beside_the_projects_kernels() -> None:
    """`#ifdef WITH_CUDA` (the GPU path itself) holds both the project's kernels and `#ifdef USE_CUDNN`."""
    from migrate.model import Fact, Finding

    def branch(name: str, start: int, end: int) -> Fact:
        return Fact(kind="switch_branch", name=name, line=start, column=1, end_line=end, end_column=1,
                    text=f"#ifdef {name}")

    def finding(line: int, rule: str, cls: str) -> Finding:
        return Finding(rule=rule, path="a.cu", line=line, column=1, end_line=line, end_column=2, symbol="s",
                       message="", hip=None, hipify="no", confidence="high", migration_class=cls)

    facts = {"a.cu": (branch("WITH_CUDA", 1, 100), branch("USE_CUDNN", 50, 60))}
    kernel, cudnn = finding(10, "HIP4002", "migration-required"), finding(55, "HIP306021", "incompatible")
    project = parts.build(facts, {"a.cu": "cuda"}, [kernel, cudnn])
    assert list(project.switches) == ["USE_CUDNN"]
    assert (project.apply(cudnn).status, project.apply(kernel).status) == ("optional", "")
    alone = parts.build(facts, {"a.cu": "cuda"}, [cudnn])  # no kernel of its own: cuDNN is the GPU path
    assert alone.switches == {}


def test_a_hip_branch_that_only_refuses_hip_and_an_unused_rocm_home_are_no_rocm_path(rulebase) -> None:
    """MinkowskiEngine: `#if defined __HIP_PLATFORM_HCC__ TORCH_CHECK(false, "... not supported on HIP")` and a
    test setup.py that imports ROCM_HOME and never reads it: the project has no HIP build, nothing is ported."""
    data = scanned(ROOT / "fixtures" / "workloads" / "ported_refused", rulebase)
    assert data["workloads"] and all(w["rocm_path"] == [] for w in data["workloads"])
    assert data["summary"]["class"] == "minor-adaptation"
    assert "ported" not in {f["status"] for f in data["findings"]}


def test_a_hip_branch_with_code_and_a_rocm_home_the_build_reads_are_a_rocm_path(rulebase) -> None:
    """Near miss: the HIP branch calls hipSPARSE and setup.py builds with ROCM_HOME."""
    data = scanned(ROOT / "fixtures" / "workloads" / "ported_refused_near", rulebase)
    evidence = {e for w in data["workloads"] for e in w["rocm_path"]}
    assert "setup.py:4 from torch.utils.cpp_extension import ROCM_HOME" in evidence
    assert "src/spmm.cu:3 defined(__HIP_PLATFORM_AMD__)" in evidence
    assert data["summary"]["class"] == "native"


def test_a_cargo_feature_on_rocm_is_a_rocm_path_and_a_crate_named_like_rocm_is_not(rulebase) -> None:
    """supranational/sppark: its Rust build offers `rocm = []` beside `cuda = []` (build.rs runs hipcc)."""
    ported = scanned(ROOT / "fixtures" / "workloads" / "ported_cargo", rulebase)
    assert {e for w in ported["workloads"] for e in w["rocm_path"]} == {"rust/Cargo.toml:15 rocm = ["}
    assert ported["summary"]["class"] == "native"
    near = scanned(ROOT / "fixtures" / "workloads" / "ported_cargo_near", rulebase)
    assert near["workloads"] and all(w["rocm_path"] == [] for w in near["workloads"])
    assert near["summary"]["class"] == "migration-required"


def test_a_build_script_and_ci_that_turn_the_gpu_switch_on_belong_to_its_part(rulebase) -> None:
    """prismatic: `set(PRISMATIC_ENABLE_GPU 0 CACHE BOOL ...)`; its conda recipe configures with
    `-D PRISMATIC_ENABLE_GPU=$enable_gpu -D CUDA_TOOLKIT_ROOT_DIR=$CUDA_HOME` (beside the GUI switch), and a CI
    workflow builds with the switch on: both configure the optional GPU part, not the CPU project."""
    data = report("gpu_build_script", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch PRISMATIC_ENABLE_GPU"]
    assert "recipe/combined_build_install.sh:4 cmake -DPRISMATIC_ENABLE_GPU=$enable_gpu" in part["evidence"]
    assert "build switch PRISMATIC_ENABLE_GUI" not in optional_parts(data)  # the GPU platform's part, not the GUI's
    tied = [f for f in data["findings"] if f["path"].startswith(("recipe/", ".github/"))]
    assert tied and {f["status"] for f in tied} == {"optional"}


def test_a_cmake_command_is_a_branch_of_each_switch_it_does_not_turn_off() -> None:
    from migrate.extract.text import buildfiles

    source = b"cmake -DUSE_X=ON -D USE_Y=0 -DWITH_Z:BOOL=OFF \\\n  -DCMAKE_CUDA_ARCHITECTURES=80 ..\nmake\n"
    branches = {(f.name, f.line, f.end_line) for f in buildfiles.shell(source).facts if f.kind == "switch_branch"}
    assert ("USE_X", 1, 2) in branches and ("CMAKE_CUDA_ARCHITECTURES", 1, 2) in branches
    assert not {name for name, _, _ in branches} & {"USE_Y", "WITH_Z"}


def test_a_build_switchs_gpu_part_is_costed_apart_from_the_headline(rulebase) -> None:
    """spatter, whisper.cpp: the CUDA back end behind an off-by-default switch is the part a port writes. Its
    findings' cost is the report's optional effort (not 0, not in the headline)."""
    result = scan.run([CASES / "gpu_build_script"], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
    parts_cost = [p.effort for w in result.workloads if not w.optional for p in w.optional_parts]
    switch = [p for w in result.workloads for p in w.optional_parts if p.root == "build switch PRISMATIC_ENABLE_GPU"]
    assert switch and switch[0].effort.likely > 0
    assert result.optional_effort.likely == pytest.approx(
        sum(e.likely for e in parts_cost) + sum(w.effort.likely for w in result.workloads if w.optional))
    assert result.migration_class == "native" and result.hand_effort.likely == 0
    assert to_json(result)["effort"]["optional_hours"]["likely"] == pytest.approx(result.optional_effort.likely, abs=0.01)


def test_a_gpu_part_is_costed_as_a_port_of_its_own_and_shown_once_everywhere(rulebase) -> None:
    """The CUDA back end behind a switch, in a project whose required code has nothing to port: its findings,
    its glue, and the build system itself (no build port in the headline to share); a CI folder (no GPU code)
    keeps its findings' cost. One figure per part in JSON, terminal, Markdown and HTML."""
    from migrate.render import html_report, markdown_report, terminal_report

    result = scan.run([CASES / "gpu_build_script"], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
    parts_of = {p.root: p for w in result.workloads if not w.optional for p in w.optional_parts}
    switch = parts_of["build switch PRISMATIC_ENABLE_GPU"]
    kinds = {i.label.split(" (")[0] for i in switch.breakdown}
    assert {"build system port", "integration glue no finding explains"} <= kinds
    assert "+ the build system" in next(i.label for i in switch.breakdown if i.label.startswith("build system port"))
    assert switch.effort.likely == pytest.approx(sum(i.hours for i in switch.breakdown), abs=0.02)
    assert not any(i.kind == "build system port" for i in parts_of[".github"].breakdown)
    entry = next(p for w in to_json(result)["workloads"] for p in w["optional_parts"] if p["root"] == switch.root)
    shown = f"{switch.effort.likely:.1f}"
    assert entry["effort_hours"]["likely"] == pytest.approx(switch.effort.likely, abs=0.01)
    assert f"likely {shown} h, apart from the headline" in terminal_report.render(result, width=400)
    assert f"(likely {shown})" in markdown_report.render(result)
    assert f"({shown})</td>" in html_report.render(result)
    total = f"{result.optional_effort.likely:.1f}"
    assert f"(likely {total} h)" in terminal_report.render(result, width=400)
    assert f"(likely {total} h)" in markdown_report.render(result)
    assert f"(likely {total} h), not in the effort above" in html_report.render(result)


def test_a_base_with_no_cuda_to_port_names_its_gpu_parts_estimate_beside_the_headline(rulebase) -> None:
    """bricklib, covfie, pwdft (s17, s18): the required code has no CUDA, the CUDA back end sits behind a switch off by
    default, and the port wrote that back end. The headline says "no porting work" and, beside it in every format, the
    largest optional part's estimate (the same figures as its row): what a manager asking "what does the CUDA back end
    cost" looks for. The JSON names the part's files (what a port of it changes first; evaluate.py and fit.py compare
    a port of those files with the part, decision 2026-12-06-s19-effort-optional-part-ports)."""
    from migrate.render import html_report, markdown_report, terminal_report
    from migrate.render.summary import optional_gpu_line

    result = scan.run([CASES / "gpu_build_script"], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
    switch = next(p for w in result.workloads for p in w.optional_parts if p.root == "build switch PRISMATIC_ENABLE_GPU")
    line = optional_gpu_line(result)
    assert result.hand_effort.likely == 0 and switch.effort.likely == max(
        p.effort.likely for w in result.workloads for p in w.optional_parts)
    assert line.startswith("The default build has no CUDA to port; porting its optional part build switch "
                           "PRISMATIC_ENABLE_GPU")
    assert f"{switch.effort.low:.1f}–{switch.effort.high:.1f} h (likely {switch.effort.likely:.1f} h)" in line
    assert line in terminal_report.render(result, width=400)
    assert line in markdown_report.render(result).replace("\\", "")
    assert '<div id="optional-gpu-part">' in html_report.render(result)
    entry = next(p for w in to_json(result)["workloads"] for p in w["optional_parts"] if p["root"] == switch.root)
    assert entry["files"] == list(switch.files) and entry["files"]


def test_a_report_with_no_optional_part_with_hours_has_no_optional_part_line(rulebase) -> None:
    from migrate.render.summary import optional_gpu_line

    result = scan.run([CASES / "gpu_build_script"], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
    assert optional_gpu_line(replace(result, workloads=())) == ""  # no part with hours: no line


def _copy(case: str, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(CASES / case, tmp_path / case))


@pytest.mark.parametrize(("case", "switch", "evidence"), [
    ("cmake_module_sources", "ENABLE_CUDA", "cmake/Cuda.cmake:2 if(ENABLE_CUDA)"),
    ("cmake_included_module", "PPLNN_USE_CUDA", "CMakeLists.txt:11 if(PPLNN_USE_CUDA)"),
    ("cmake_included_backend", "FL_USE_CUDNN", "CMakeLists.txt:7 if(FL_USE_CUDNN)"),
    ("cmake_glob_branch", "SOLVER_CUDA_ENABLED", "CMakeLists.txt:6 if(SOLVER_CUDA_ENABLED)"),
    ("cmake_env_default", "USE_CUDA", "CMakeLists.txt:6 if(USE_CUDA)"),
    ("make_value_backend", "DEVICE_CUDA", "Makefile:4 make: DEVICE=CUDA"),
    ("cmake_guard_return", "BUILD_GPU", "gpu/CMakeLists.txt:10 if(BUILD_GPU)"),
    # the config file the user copies to the path the CMakeLists include()s (its template: the default)
    ("cmake_config_file_default", "ENABLE_CUDA",
     "cmake/config.cmake:4 set(ENABLE_CUDA OFF), include()d by CMakeLists.txt:6, default OFF"),
])
def test_gpu_sources_a_default_build_leaves_out_are_optional(case: str, switch: str, evidence: str, rulebase) -> None:
    """Sources named from an include()d CMake module (relative to the including folder), globbed in a switch's
    branch, behind an option whose default is an unset `$ENV{...}`, or picked by a make variable's value."""
    data = report(case, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)[f"build switch {switch}"]
    assert part["class"] == "migration-required" and evidence in part["evidence"]
    kernels = [f for f in data["findings"] if f["path"].endswith((".cu", ".cpp"))]
    assert kernels and {f["status"] for f in kernels} == {"optional"}


@pytest.mark.parametrize(("case", "path", "old", "new"), [
    ("cmake_module_sources", "CMakeLists.txt", '" OFF)', '" ON)'),
    ("cmake_included_module", "CMakeLists.txt", 'option(PPLNN_USE_CUDA "" OFF)', 'option(PPLNN_USE_CUDA "" ON)'),
    # included outside the switch's branch: built by default
    ("cmake_included_backend", "CMakeLists.txt", "if (FL_USE_CUDNN)\n  include", "if (TRUE)\n  include"),
    ("cmake_glob_branch", "CMakeLists.txt", '" OFF)', '" ON)'),
    ("cmake_env_default", "CMakeLists.txt", "$ENV{USE_CUDA})", "ON)"),
    ("make_value_backend", "Makefile", "DEVICE ?= OPENCL", "DEVICE ?= CUDA"),
    ("cmake_guard_return", "gpu/CMakeLists.txt", "(BUILD_GPU AND CUDA_FOUND)", "BUILD_GPU AND CUDA_FOUND"),
    # on by default, and the guard on the option alone (with `AND CUDA_FOUND` the subsystem still waits for a toolkit to
    # be found: tests/test_default_build_reach.py test_a_detection_around_an_option_on_by_default_keeps_it_optional)
    ("cmake_guard_return", "gpu/CMakeLists.txt", 'subsystems" OFF)\n\nif(NOT (BUILD_GPU AND CUDA_FOUND))',
     'subsystems" ON)\n\nif(NOT BUILD_GPU)'),
    ("cmake_config_file_default", "cmake/config.cmake", "set(ENABLE_CUDA OFF)", "set(ENABLE_CUDA ON)"),
    # the CMakeLists sets the variable too: which value a branch reads is not the config file's alone
    ("cmake_config_file_default", "CMakeLists.txt", "file(GLOB RUNTIME_SRCS", "set(ENABLE_CUDA ON)\nfile(GLOB RUNTIME_SRCS"),
    # a config file nothing include()s (the CMakeLists loads another name) gives no default: the switch's value is unknown
    ("cmake_config_file_default", "CMakeLists.txt", "/config.cmake)\nendif()", "/local.cmake)\nendif()"),
])
def test_the_same_sources_on_by_default_are_required(case: str, path: str, old: str, new: str, tmp_path: Path,
                                                     rulebase) -> None:
    tree = _copy(case, tmp_path)
    text = (tree / path).read_text()
    assert old in text
    (tree / path).write_text(text.replace(old, new))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert optional_parts(data) == {}


def test_a_guard_clause_that_returns_opens_a_branch_to_the_end_of_the_file() -> None:
    """PCL gpu/CMakeLists.txt: `if(NOT (BUILD_GPU AND CUDA_FOUND)) return() endif()` then the subsystem; without the
    parentheses (`NOT A AND B`) or with more than return() in the guard, nothing is read."""
    from migrate.extract.text import cmakelists

    def branches(text: bytes) -> list[tuple[str, int, int]]:
        return [(f.name, f.line, f.end_line) for f in cmakelists.extract(text).facts
                if f.kind == "switch_branch" and f.line > 3]

    body = b"add_library(g g.cu)\nadd_subdirectory(kernels)\n"
    assert branches(b"option(USE_X OFF)\nif(NOT (USE_X AND CUDA_FOUND))\n  return()\nendif()\n" + body) == [
        ("USE_X", 5, 6), ("CUDA_FOUND", 5, 6)]
    assert branches(b"option(USE_X OFF)\nif(NOT USE_X)\n  return()\nendif()\n" + body) == [("USE_X", 5, 6)]
    assert branches(b"option(USE_X OFF)\nif(NOT USE_X AND CUDA_FOUND)\n  return()\nendif()\n" + body) == []
    assert branches(b"option(USE_X OFF)\nif(NOT USE_X)\n  message(skip)\n  return()\nendif()\n" + body) == []
    assert branches(b"option(USE_X OFF)\nif(NOT (USE_X OR USE_Y))\n  return()\nendif()\n" + body) == []


def test_globs_and_value_selected_make_branches_are_read_as_build_sources() -> None:
    from migrate.extract.text import buildfiles, cmakelists

    facts = cmakelists.extract(b'file(GLOB_RECURSE K CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cu)\n'
                               b'option(USE_X "x" $ENV{USE_X})\n').facts
    assert [(f.name, f.text) for f in facts if f.kind == "build_source"] == [("src/*.cu", "GLOB_RECURSE K")]
    assert [f.text for f in facts if f.kind == "build_switch"] == ["OFF option"]
    facts = buildfiles.makefile(b"GPU=0\nifeq ($(GPU), 1)\nOBJ += $(wildcard src/*.cu)\nendif\n"
                                b"ifeq ($(BACKEND),cuda)\n\tnvcc -c k.cu\nendif\n").facts
    assert [(f.name, f.line, f.end_line) for f in facts if f.kind == "switch_branch"] == [("GPU", 2, 4),
                                                                                          ("BACKEND_CUDA", 5, 7)]
    assert {f.name: f.text for f in facts if f.kind == "build_switch"} == {"GPU": "0 make", "BACKEND_CUDA": "OFF make"}
    assert [f.name for f in facts if f.kind == "build_source"] == ["src/*.cu", "k.cu"]


def test_a_variable_set_to_the_files_folder_names_sources_like_the_folder_variable() -> None:
    """DeployAI/nndeploy CMakeLists.txt:89 `set(ROOT_PATH ${CMAKE_CURRENT_SOURCE_DIR})`, then the TensorRT back end's
    `file(GLOB_RECURSE ... "${ROOT_PATH}/source/nndeploy/inference/tensorrt/*.cc")` under its switch (kineto's
    LIBKINETO_DIR, flashlight's FL_PKG_DIR are the same idiom). Near miss: a variable set to anything else."""
    from migrate.extract.text import cmakelists

    text = (b'set(ROOT_PATH ${CMAKE_CURRENT_SOURCE_DIR})\nset(OTHER ${SOME_SDK_DIR})\n'
            b'if (ENABLE_NNDEPLOY_INFERENCE_TENSORRT)\n  file(GLOB_RECURSE S "${ROOT_PATH}/source/trt/*.cc")\nendif()\n'
            b'add_library(x ${OTHER}/y.cc ${ROOT_PATH}/z.cu)\n')
    facts = cmakelists.extract(text).facts
    assert [f.name for f in facts if f.kind == "build_source"] == ["source/trt/*.cc", "z.cu"]


def test_a_cuda_source_commented_out_of_an_explicit_list_is_built_by_nothing(rulebase) -> None:
    data = report("unbuilt_source", rulebase)
    parts_found = optional_parts(data)
    assert set(parts_found) == {"src/cuda/gl_buffer_map.cu (built by nothing)",
                                "src/cuda/gl_buffer_map.cuh (built by nothing)"}
    assert parts_found["src/cuda/gl_buffer_map.cu (built by nothing)"]["evidence"][0].startswith(
        "CMakeLists.txt:8 names src/cuda/kernels.cu beside it")
    statuses = {f["path"]: f["status"] for f in data["findings"] if f["path"].startswith("src/cuda/")}
    assert statuses == {"src/cuda/gl_buffer_map.cu": "optional", "src/cuda/gl_buffer_map.cuh": "optional",
                        "src/cuda/kernels.cu": ""}


@pytest.mark.parametrize("change", ["listed", "included"])
def test_a_listed_or_included_cuda_source_is_built(change: str, tmp_path: Path, rulebase) -> None:
    """Near misses: the same file named in the list, or #included by a built source (a unity build)."""
    tree = _copy("unbuilt_source", tmp_path)
    if change == "listed":
        cmake = tree / "CMakeLists.txt"
        cmake.write_text(cmake.read_text().replace("# src/cuda/gl_buffer_map.cu", "src/cuda/gl_buffer_map.cu"))
    else:
        kernels = tree / "src" / "cuda" / "kernels.cu"
        kernels.write_text('#include "gl_buffer_map.cu"\n' + kernels.read_text())
    data = scanned(tree, rulebase)
    assert optional_parts(data) == {}
    assert {f["status"] for f in data["findings"] if f["path"].startswith("src/cuda/")} == {""}


def test_a_source_an_extension_names_from_the_folder_above_its_loader_is_built(tmp_path: Path, rulebase) -> None:
    """Near miss of unbuilt_source: tools/jit.py loads `src/cuda/gl_buffer_map.cu`, a path relative to the folder
    the program runs in (the loader's parent), as assemble resolves an extension's sources (RWKV's train_temp/)."""
    tree = _copy("unbuilt_source", tmp_path)
    (tree / "tools").mkdir()
    (tree / "tools" / "jit.py").write_text("from torch.utils.cpp_extension import load\n"
                                           "m = load(name='m', sources=['src/cuda/gl_buffer_map.cu'])\n")
    data = to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))
    assert not [r for r in optional_parts(data) if "built by nothing" in r]


@pytest.mark.parametrize(("default", "expected"), [("0", "native"), ("1", "migration-required")])
def test_an_extension_behind_an_environment_helper_of_setup_py_is_opt_in(default: str, expected: str,
                                                                        tmp_path: Path) -> None:
    """`def enable_cuda_impl(): return os.environ.get("X", "0") == "1"` then `if enable_cuda_impl():` opts in
    as the direct test does; with the default "1" (near miss) the extension is built by default."""
    import json

    from tests.conftest import run_cli

    tree = _copy("env_helper_extension", tmp_path)
    setup_py = tree / "setup.py"
    setup_py.write_text(setup_py.read_text().replace('"ENABLE_FFPA_CUDA_IMPL", "0"', f'"ENABLE_FFPA_CUDA_IMPL", "{default}"'))
    result = run_cli("scan", str(tree), "--format", "json", "--no-cache", "--no-hipify")
    assert json.loads(result.stdout)["summary"]["class"] == expected


def test_a_source_a_makefile_rule_builds_or_an_unknown_extension_list_could_build_is_not_unbuilt(
        tmp_path: Path, rulebase) -> None:
    """Near misses of unbuilt_source: a Makefile rule names the file (`x.o: src/cuda/gl_buffer_map.cu`), or a
    setup.py extension's source list is not known (it could build any file)."""
    for extra, text in (("Makefile", "build/map.o: src/cuda/gl_buffer_map.cu\n\tnvcc -c $< -o $@\n"),
                        ("setup.py", "from torch.utils.cpp_extension import CUDAExtension\n"
                                     "ext = CUDAExtension('m', [p for p in found if p])\n")):
        tree = _copy("unbuilt_source", tmp_path / extra)
        (tree / extra).write_text(text)
        data = scanned(tree, rulebase)
        assert not [r for r in optional_parts(data) if "built by nothing" in r], extra


@pytest.mark.parametrize(("case", "switch", "evidence", "part_class"), [
    ("cmake_defined_in_function", "USE_CUDA",
     "cmake/Utils.cmake:2 boostlib_set_cuda_flags() is called only in cmake/Utils.cmake:9 if(USE_CUDA)",
     "migration-required"),
    ("cmake_loop_sources", "ENABLE_OPTIX", "tracer/CMakeLists.txt:2 if(ENABLE_OPTIX)", "incompatible"),
    ("cmake_unset_switch", "USE_CUDA", "cmake/linux.cmake:2 if(USE_CUDA) (no build file sets USE_CUDA) default OFF",
     "migration-required"),
])
def test_what_only_an_off_switch_builds_defines_or_names_through_a_variable_is_its_part(
        case: str, switch: str, evidence: str, part_class: str, rulebase) -> None:
    """A macro the build defines only in a function called under the switch (`#if defined(X_USE_CUDA)` in a .cc);
    PTX sources named through a foreach variable (`gpu/${ptx_file}.cu`) with `#ifdef __CUDACC__` branches in
    the headers the CPU build shares; a switch tested in an include()d module that no build file sets, with a
    macro only its branch defines (`add_definitions(-DRUN_ON_CUDA)`)."""
    data = report(case, rulebase)
    assert data["summary"]["class"] == "native"
    found = [p for w in data["workloads"] for p in w["optional_parts"] if p["root"] == f"build switch {switch}"]
    assert found and {p["class"] for p in found} >= {part_class}
    assert any(evidence in p["evidence"] for p in found)
    assert data["findings"] and {f["status"] for f in data["findings"]} == {"optional"}


@pytest.mark.parametrize(("case", "path", "old", "new", "required"), [
    # the helper called outside the switch: the macro is always defined
    ("cmake_defined_in_function", "cmake/Utils.cmake", "  if(USE_CUDA)\n    boostlib_set_cuda_flags(${target})\n  endif()",
     "  boostlib_set_cuda_flags(${target})", "src/device_info.cc"),
    # the CMake module loaded outside the switch too
    ("cmake_defined_in_function", "CMakeLists.txt", "include(cmake/Utils.cmake)",
     "include(cmake/Utils.cmake)\nfind_package(CudaCompiler)", "cmake/FindCudaCompiler.cmake"),
    # the unit-test helper module used by the library's own build too
    ("cmake_defined_in_function", "CMakeLists.txt", "include(cmake/Utils.cmake)",
     "include(cmake/Utils.cmake)\ninclude(boostlib_unit_test)", "cmake/boostlib_unit_test.cmake"),
    # a CUDA source the CPU build compiles: nvcc runs in the default build, so its __CUDACC__ branches are required
    ("cmake_loop_sources", "tracer/CMakeLists.txt", "add_library(_cpu cpu/Tracer.cc)",
     "add_library(_cpu cpu/Tracer.cc cpu/bvh.cu)", "tracer/common/VectorMath.h"),
    # the project sets the switch itself, or its build script passes it
    ("cmake_unset_switch", "CMakeLists.txt", "include(cmake/linux.cmake)", "set(USE_CUDA ON)\ninclude(cmake/linux.cmake)",
     "src/main.cpp"),
    ("cmake_unset_switch", "CMakeLists.txt", "include(cmake/linux.cmake)",
     "function(optional_language lang)\n  set(USE_${lang} ON)\nendfunction()\ninclude(cmake/linux.cmake)",
     "src/main.cpp"),
    ("cmake_unset_switch", "build.sh", "", "#!/bin/sh\nmkdir -p build && cd build && cmake -DUSE_CUDA=ON .. && make\n",
     "src/main.cpp"),
])
def test_the_same_code_on_in_the_default_build_is_required(case: str, path: str, old: str, new: str, required: str,
                                                           tmp_path: Path, rulebase) -> None:
    tree = _copy(case, tmp_path)
    text = (tree / path).read_text() if old else ""  # no `old`: a new file
    assert old in text
    (tree / path).write_text(text.replace(old, new) if old else new)
    if "cpu/bvh.cu" in new:
        (tree / "tracer" / "cpu" / "bvh.cu").write_text('#include "../common/VectorMath.h"\n'
                                                        "__global__ void build_bvh(vec3* p) { p[0] = p[0] + p[1]; }\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] != "native"
    assert "" in {f["status"] for f in data["findings"] if f["path"] == required}


def test_a_macro_also_defined_by_a_folder_only_an_off_switch_adds_is_that_switchs(tmp_path: Path, rulebase) -> None:
    """OriginDL's shape: WITH_CUDA is defined by `add_definitions(-DWITH_CUDA)` in `if(ENABLE_CUDA)` (OFF), inside
    a back-end branch, and again by the CUDA folder's own CMakeLists.txt, which only that switch adds: every
    `#ifdef WITH_CUDA` region of the CPU sources and headers is the switch's part. Near miss: the folder added
    outside the switch defines the macro in the default build, so the regions are required."""
    data = report("cmake_nested_define", rulebase)
    assert data["summary"]["class"] == "native"
    assert data["findings"] and {f["status"] for f in data["findings"]} == {"optional"}
    assert "build switch ENABLE_CUDA" in optional_parts(data)
    tree = _copy("cmake_nested_define", tmp_path)
    top = tree / "CMakeLists.txt"
    old = "    if(ENABLE_CUDA)\n        add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/src/cuda)\n    endif()"
    assert old in top.read_text()
    top.write_text(top.read_text().replace(old, "    add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/src/cuda)"))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "" in {f["status"] for f in data["findings"] if f["path"] == "src/memory/allocator.cpp"}


@pytest.mark.parametrize(("old", "new"), [
    # the flag set ON outside the detection's branch too: the CUDA sources build wherever the option is on
    ("set(RAWEDIT_CUDA_ENABLED OFF)", "set(RAWEDIT_CUDA_ENABLED ON)"),
    # the flag a user sets (a cache entry): its default is the user's, not the detection's
    ("set(RAWEDIT_CUDA_ENABLED OFF)", "option(RAWEDIT_CUDA_ENABLED \"CUDA back ends\" ON)"),
])
def test_a_variable_set_true_only_where_cuda_is_detected_is_off(old: str, new: str, tmp_path: Path, rulebase) -> None:
    """AlcedoStudio's shape: `set(X_CUDA_ENABLED OFF)`, then `set(X_CUDA_ENABLED ON)` only under
    `if(X_ENABLE_CUDA AND CUDAToolkit_FOUND)` (the option is ON, the detection is off on an AMD machine); the CUDA
    sources and the HAVE_CUDA macro come from `if(X_CUDA_ENABLED)` in a sub-folder: all of it is the detection's
    optional part. Near misses: the same variable set ON outside the branch, or declared an option."""
    data = report("cmake_set_chain", rulebase)
    assert data["summary"]["class"] == "native"
    assert data["findings"] and {f["status"] for f in data["findings"]} == {"optional"}
    assert any("RAWEDIT_CUDA_ENABLED is set true only in CMakeLists.txt:19" in e
               for w in data["workloads"] for p in w["optional_parts"] for e in p["evidence"])
    tree = _copy("cmake_set_chain", tmp_path)
    top = tree / "CMakeLists.txt"
    assert old in top.read_text()
    top.write_text(top.read_text().replace(old, new))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "" in {f["status"] for f in data["findings"] if f["path"] == "src/gpu/debayer.cu"}


def test_a_find_modules_own_found_flag_stays_a_detection(tmp_path: Path, rulebase) -> None:
    """decord's cmake/util/FindCUDA.cmake: a macro called under the ON switch sets `CUDA_FOUND TRUE` for a custom
    toolkit path. The result is still a detection (off without the toolkit), not the ON switch around the set()."""
    tree = _copy("cmake_set_chain", tmp_path)
    top = tree / "CMakeLists.txt"
    old = "    find_package(CUDAToolkit QUIET)"
    assert old in top.read_text()
    text = top.read_text().replace(old, "    if(IS_DIRECTORY ${RAWEDIT_CUDA_PATH})\n        set(CUDA_FOUND TRUE)\n"
                                        "    else()\n        find_package(CUDA QUIET)\n    endif()")
    top.write_text(text.replace("CUDAToolkit_FOUND", "CUDA_FOUND"))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "native"
    assert {f["status"] for f in data["findings"] if f["path"] == "src/gpu/debayer.cu"} == {"optional"}


def test_definitions_and_loop_named_sources_are_read_from_cmake() -> None:
    from migrate.extract.text import cmakelists

    facts = cmakelists.extract(b'function(f t)\n  target_compile_definitions(${t} PRIVATE A_USE_X B=2 -DC_ON)\n'
                               b'endfunction()\nforeach(n a b)\n  list(APPEND s "gpu/${n}.cu" "${DIR}/k.cu")\n'
                               b'endforeach()\nset(USE_Y ON)\n').facts
    assert sorted(f.name for f in facts if f.kind == "flag") == ["-DA_USE_X", "-DB", "-DC_ON"]
    assert [(f.name, f.text) for f in facts if f.kind == "build_source"] == [("gpu/*.cu", "GLOB variable")]
    assert {(f.name, f.text) for f in facts if f.kind == "cmake" and f.name in ("function", "set")} == {
        ("function", "f"), ("set", "USE_Y")}


def test_a_module_imported_only_in_a_comment_and_the_kernels_it_loads_are_optional(tmp_path: Path, rulebase) -> None:
    """The package's __init__ imports the pure-PyTorch ops; the import of the CUDA ops is commented out. Near miss:
    the same import live (the CUDA ops are what the package uses) makes them required."""
    data = report("commented_out_ops", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["models/op/fused_act.py"]
    assert part["evidence"][0].startswith("models/op/__init__.py:2 `#     from .fused_act import")
    kernels = [f for f in data["findings"] if f["path"].endswith(".cu")]
    assert kernels and {f["status"] for f in kernels} == {"optional"}

    tree = _copy("commented_out_ops", tmp_path)
    init = tree / "models" / "op" / "__init__.py"
    init.write_text("from .fused_act import FusedLeakyReLU, fused_leaky_relu\nfrom .native_ops import upfirdn2d\n")
    live = scanned(tree, rulebase)
    assert live["summary"]["class"] != "native"
    assert {f["status"] for f in live["findings"] if f["path"].endswith(".cu")} == {""}


def test_commented_out_imports_are_read_as_such() -> None:
    from migrate.extract.python.extractor import extract_text

    facts, _ = extract_text("# from .fused_act import A, b\n#import pkg.mod\n# from . import x, y\n"
                            "# this imports nothing: from here\nimport os\n")
    assert [(f.name, f.line) for f in facts if f.kind == "commented_import"] == [
        (".fused_act", 1), ("pkg.mod", 2), (".x", 3), (".y", 3)]


def test_a_template_a_generator_renders_is_built_by_nothing(tmp_path: Path, rulebase) -> None:
    """`FieldAccessors.tmpl.cu` is Jinja input (the generated copy is under the off GPU switch); near miss: the
    same file without the template word in its name is a CUDA source like any other: no template part; with the CUDA
    language enabled only under the off switch it goes with that switch (compiler_reach)."""
    data = report("code_templates", rulebase)
    assert data["summary"]["class"] == "native"
    template = "maintainer/kernels/templates/FieldAccessors.tmpl.cu"
    assert optional_parts(data)[f"{template} (built by nothing)"]["evidence"][0].startswith(
        f"{template} is a template a code generator renders")
    tree = _copy("code_templates", tmp_path)
    folder = tree / "maintainer" / "kernels" / "templates"
    (folder / "FieldAccessors.tmpl.cu").rename(folder / "FieldAccessors.cu")
    renamed = scanned(tree, rulebase)
    assert "maintainer/kernels/templates/FieldAccessors.cu (built by nothing)" not in optional_parts(renamed)
    assert statuses_of(renamed, "maintainer/kernels/templates/FieldAccessors.cu") == {"optional"}


@pytest.mark.parametrize(("path", "root"), [
    ("prototype/thrust_sort/buc.cu", "prototype"),
    ("src/prototype/kernels.cu", None),
    ("scratch/gpu_copy.py", "scratch"),  # a file right in the top-level folder (ska-sa/katgpucbf 1e38bdc5)
    ("src/scratch/gpu_copy.py", None),
    ("scratch.py", None),
    ("docker/tutorial/Dockerfile", "docker/tutorial"),
    ("maintainer/CI/build_cmake.sh", "maintainer/CI"),
])
def test_prototype_space_at_the_top_tutorial_and_ci_folders_are_optional(path: str, root: str | None) -> None:
    assert parts.optional_root(path) == root


def test_uses_of_a_module_imported_only_under_an_importerror_fallback_are_optional() -> None:
    """`try: import cupyx` / `except ImportError: return False`, then `cupyx.scipy.sparse...`: the use runs only
    where the import worked. Near miss: the same module imported outside a fallback too."""
    from migrate.extract.python.extractor import extract_text

    body = ("def is_cupy_csr(d):\n    try:\n        import cupyx\n    except ImportError:\n        return False\n"
            "    return isinstance(d, cupyx.scipy.sparse.csr_matrix)\n")
    for prefix, guard in (("", "optional"), ("import cupyx\n", None)):
        facts, _ = extract_text(prefix + body)
        assert {f.guard for f in facts if f.kind == "python_attr" and f.name.startswith("cupyx.")} == {guard}, prefix


def test_cmakes_own_variables_on_a_cmake_line_are_no_switch(tmp_path: Path, rulebase) -> None:
    """tsne-cuda: a Dockerfile's `cmake -DCMAKE_BUILD_TYPE=Release ... -DCMAKE_CUDA_ARCHITECTURES=80` (building a
    dependency) made "build switch CMAKE_BUILD_TYPE" an optional part. CMAKE_* variables are CMake's own."""
    data = report("cmake_builtin_variable", rulebase)
    assert not optional_parts(data)
    arch = [f for f in data["findings"] if f["path"] == "packaging/Dockerfile"]
    assert arch and {f["status"] for f in arch} == {""}
    # near miss: a project switch the same line turns on still makes its part
    tree = tmp_path / "tree"
    shutil.copytree(CASES / "cmake_builtin_variable", tree)
    docker = tree / "packaging" / "Dockerfile"
    docker.write_text(docker.read_text().replace("-DCMAKE_BUILD_TYPE=Release", "-DUSE_CUTLASS=ON"))
    assert "build switch USE_CUTLASS" in optional_parts(scanned(tree, rulebase))


def test_a_cuda_source_beside_a_torch_extensions_listed_one_is_built_by_nothing(rulebase) -> None:
    """eggfusion: `CUDAExtension(sources=["src/tracking.cu"])` lists its source by name; src/reduce.cu (32-lane
    shuffles) beside it is in no build's sources and nothing includes it: an optional part, not the class."""
    data = report("unbuilt_extension_source", rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    part = optional_parts(data)["src/reduce.cu (built by nothing)"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0].startswith("setup.py:6 names src/tracking.cu beside it")


@pytest.mark.parametrize(("old", "new"), [
    ('sources=["src/tracking.cu"]', 'sources=["src/tracking.cu", "src/reduce.cu"]'),  # listed
    ('sources=["src/tracking.cu"]', 'sources=glob.glob("src/*.cu")'),  # a glob builds every .cu there
])
def test_a_cuda_source_a_torch_extension_lists_or_globs_is_built(old: str, new: str, tmp_path: Path,
                                                                 rulebase) -> None:
    tree = _copy("unbuilt_extension_source", tmp_path)
    setup = tree / "setup.py"
    setup.write_text("import glob\n" + setup.read_text().replace(old, new))
    data = scanned(tree, rulebase)
    assert optional_parts(data) == {}
    assert data["summary"]["class"] == "migration-required"


def test_a_make_switch_given_on_the_command_line_only_is_off_by_default(rulebase) -> None:
    """Kangaroo: `ifdef gpu` adds the CUDA engine and -DWITHGPU; nothing assigns `gpu` (`make gpu=1` does)."""
    data = report("make_command_line_switch", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch gpu"]
    assert part["class"] == "migration-required" and part["evidence"][0] == "Makefile:2 make(gpu) default OFF"


@pytest.mark.parametrize(("old", "new"), [
    ("# CPU build by default; `make gpu=1` builds the CUDA engine", "gpu = 1"),  # assigned: on by default
    ("ifdef gpu", "ifdef CUDA_HOME"),  # an environment variable (uppercase) may well be set
])
def test_a_make_switch_the_makefile_or_the_environment_sets_is_not_off(old: str, new: str, tmp_path: Path,
                                                                      rulebase) -> None:
    tree = _copy("make_command_line_switch", tmp_path)
    (tree / "Makefile").write_text((tree / "Makefile").read_text().replace(old, new))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "build switch gpu" not in optional_parts(data)


def test_a_cuda_image_for_an_optional_cuda_build_is_optional(rulebase) -> None:
    """MNN: `option(MNN_CUDA OFF)` gates the CUDA back end; tools/script/Dockerfile's nvidia/cuda base image
    serves only that build, so it goes with the optional part instead of making the engine minor-adaptation."""
    data = report("cuda_image_for_optional_backend", rulebase)
    assert data["summary"]["class"] == "native"
    assert "tools/script/Dockerfile (an image for the optional CUDA build)" in optional_parts(data)


@pytest.mark.parametrize(("path", "old", "new"), [
    ("CMakeLists.txt", 'option(ENGINE_CUDA "Enable CUDA" OFF)', 'option(ENGINE_CUDA "Enable CUDA" ON)'),  # required
    ("requirements.txt", "", "torch==2.3.1+cu121\n"),  # the package needs a CUDA build of torch elsewhere
])
def test_a_cuda_image_stays_required_beside_required_cuda(path: str, old: str, new: str, tmp_path: Path,
                                                          rulebase) -> None:
    tree = _copy("cuda_image_for_optional_backend", tmp_path)
    target = tree / path
    target.write_text((target.read_text() if target.exists() else "").replace(old, new) if old else new)
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] != "native"
    image = [f for f in data["findings"] if f["path"] == "tools/script/Dockerfile"]
    assert image and {f["status"] for f in image} == {""}


def test_a_subdirectory_built_only_when_the_cuda_toolkit_is_found_is_optional(rulebase) -> None:
    """LuisaCompute: the CUDA back end's whole CMakeLists.txt sits in `if (CUDAToolkit_FOUND)` after a
    find_package(CUDAToolkit) without REQUIRED; a machine without CUDA builds the core and the CPU back end."""
    data = report("cmake_detected_backend", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch CUDAToolkit_FOUND"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0].startswith("src/backends/cuda/CMakeLists.txt:3 if(CUDAToolkit_FOUND) (a detection result")
    embedded = [f for f in data["findings"] if f["path"].startswith("src/backends/cuda/cuda_builtin/")]
    assert embedded and {f["status"] for f in embedded} == {"optional"}  # its folder is built only there


@pytest.mark.parametrize(("old", "new"), [
    # REQUIRED: the configuration stops without the toolkit, so the branch is always taken
    ("find_package(CUDAToolkit 11.7 COMPONENTS", "find_package(CUDAToolkit 11.7 REQUIRED COMPONENTS"),
    # a package found on any machine is no sign of an optional CUDA build
    ("if (CUDAToolkit_FOUND)", "if (Threads_FOUND)"),
    # WaveBlender: the else() only reports, so there is no build without CUDA
    ("endif ()", 'else ()\n    message(STATUS "Building for CPU (not implemented)")\nendif ()'),
])
def test_a_detection_that_holds_everywhere_is_not_optional(old: str, new: str, tmp_path: Path, rulebase) -> None:
    tree = _copy("cmake_detected_backend", tmp_path)
    build = tree / "src" / "backends" / "cuda" / "CMakeLists.txt"
    build.write_text(build.read_text().replace(old, new))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert not any(root.startswith("build switch") for root in optional_parts(data))


@pytest.mark.parametrize(("default", "optional"), [("${CUDA_FOUND}", True), ("${cuDNN_FOUND}", True),
                                                   ("ON", False), ("${OpenCL_FOUND}", False)])
def test_an_option_whose_default_is_a_cuda_detection_is_off_by_default(default: str, optional: bool, tmp_path: Path,
                                                                        rulebase) -> None:
    """ArrayFire: `option(AF_BUILD_CUDA "Build ArrayFire with a CUDA backend" ${CUDA_FOUND})` is false where no
    CUDA toolkit is found; a default found on any machine (OpenCL) or ON keeps the CUDA back end required."""
    tree = _copy("cmake_detected_backend", tmp_path)
    search = f"find_package({default.removeprefix('${').removesuffix('_FOUND}')})\n" if default != "ON" else ""
    (tree / "CMakeLists.txt").write_text((tree / "CMakeLists.txt").read_text().replace(
        'option(LUISA_COMPUTE_ENABLE_CUDA "Enable CUDA backend" ON)',
        f'{search}option(LUISA_COMPUTE_ENABLE_CUDA "Enable CUDA backend" {default})'))
    build = tree / "src" / "backends" / "cuda" / "CMakeLists.txt"
    build.write_text(build.read_text().replace("if (CUDAToolkit_FOUND)", "if (NOT LUISA_COMPUTE_NO_SOURCES)"))
    data = scanned(tree, rulebase)
    assert (data["summary"]["class"] == "native") == optional
    assert ("build switch LUISA_COMPUTE_ENABLE_CUDA" in optional_parts(data)) == optional


def test_an_extension_imported_only_in_an_import_fallback_is_optional(rulebase) -> None:
    """Swin Transformer: kernels/window_process/setup.py builds swin_window_process, which only window_process.py
    imports, and the model imports that in try/except (a plain PyTorch path otherwise); unit_test.py only tests it."""
    data = report("extension_imported_optionally", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["kernels/window_process/swin_window_process_kernel.cu"]
    assert part["class"] == "minor-adaptation"
    assert part["evidence"] == ["swin_window_process (built by kernels/window_process/setup.py:7) is imported only in "
                                "an optional scope or module (kernels/window_process/window_process.py:2)"]


@pytest.mark.parametrize(("path", "old", "new"), [
    # the model needs the kernel: imported outside the try
    ("models/swin_transformer.py", "import torch.nn as nn\n",
     "import torch.nn as nn\nfrom kernels.window_process.window_process import WindowProcess\n"),
    # the ImportError fallback builds the same sources at run time: the model gets the kernel either way
    ("models/swin_transformer.py", "import torch.nn as nn\n",
     "import torch.nn as nn\ntry:\n    import swin_window_process\nexcept ImportError:\n"
     "    from torch.utils.cpp_extension import load\n    swin_window_process = load('swin_window_process', "
     "sources=['kernels/window_process/swin_window_process.cpp',\n"
     "        'kernels/window_process/swin_window_process_kernel.cu'])\n"),
])
def test_an_extension_the_project_needs_is_not_optional(path: str, old: str, new: str, tmp_path: Path,
                                                         rulebase) -> None:
    tree = _copy("extension_imported_optionally", tmp_path)
    (tree / path).write_text((tree / path).read_text().replace(old, new))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert "kernels/window_process/swin_window_process_kernel.cu" not in optional_parts(data)


def test_an_extension_imported_in_a_try_whose_handler_binds_nothing_is_required(rulebase) -> None:
    """NSVF: the root setup.py always builds fairnr.clib._ext; clib/__init__.py imports it in `try:` with
    `except ImportError: pass` and calls `_ext.ball_intersect(...)` with no other path: no fallback, required."""
    data = report("extension_import_without_fallback", rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    kernels = [f for f in data["findings"] if f["path"] == "fairnr/clib/src/sample_gpu.cu"]
    assert kernels and {f["status"] for f in kernels} == {""}
    assert "fairnr/clib/src/sample_gpu.cu" not in optional_parts(data)


def test_an_extension_import_whose_handler_binds_a_fallback_stays_optional(tmp_path: Path, rulebase) -> None:
    """The near miss: the same handler binding `_ext = None` (Swin's `WindowProcess = None`) is a fallback."""
    tree = _copy("extension_import_without_fallback", tmp_path)
    init = tree / "fairnr" / "clib" / "__init__.py"
    text = init.read_text()
    assert "except ImportError:\n    pass\n" in text
    init.write_text(text.replace("except ImportError:\n    pass\n", "except ImportError:\n    _ext = None\n"))
    data = scanned(tree, rulebase)
    kernels = [f for f in data["findings"] if f["path"] == "fairnr/clib/src/sample_gpu.cu"]
    assert kernels and {f["status"] for f in kernels} == {"optional"}
    assert "fairnr/clib/src/sample_gpu.cu" in optional_parts(data)


def test_headers_only_optional_switches_code_includes_are_optional(rulebase) -> None:
    """decord: the NVDEC sources are globbed under `if(USE_CUDA)` (OFF); video_reader.cc includes the decoder's header
    under `#if DECORD_USE_CUDA`, defined only `if(CUDA_FOUND)`: two optional switches, no common one. The NVDEC SDK
    headers four includes down, and the project's own FindCUDA.cmake, go with them."""
    data = report("cmake_optional_headers", rulebase)
    assert data["summary"]["class"] == "native"
    sdk = [f for f in data["findings"] if f["path"].startswith("src/video/nvcodec/nvcuvid/")]
    assert sdk and {f["status"] for f in sdk} == {"optional"}
    find = [f for f in data["findings"] if f["path"] == "cmake/util/FindCUDA.cmake"]
    assert find and {f["status"] for f in find} == {"optional"}


def test_a_header_required_code_includes_stays_required(tmp_path: Path, rulebase) -> None:
    tree = _copy("cmake_optional_headers", tmp_path)
    reader = tree / "src" / "video" / "video_reader.cc"
    reader.write_text(reader.read_text().replace('#include "video_reader.h"\n',
                                                 '#include "video_reader.h"\n#include "nvcodec/cuda_threaded_decoder.h"\n'))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    sdk = [f for f in data["findings"] if f["path"].startswith("src/video/nvcodec/nvcuvid/")]
    assert sdk and {f["status"] for f in sdk} == {""}


def test_a_librarys_header_tree_that_only_examples_include_stays_its_product(tmp_path: Path, rulebase) -> None:
    """intra-kernel-profiler: include/ holds the library's headers, four includes deep, that only examples/ include;
    the project compiles a source of its own. The deeper levels of the tree are the library too (HEADER_DEPTH), not
    an optional part: only a switch's headers are followed further down (GATED_DEPTH)."""
    tree = tmp_path / "profiler"
    (tree / "include" / "ikp" / "trace").mkdir(parents=True)
    (tree / "examples").mkdir()
    (tree / "src").mkdir()
    (tree / "src" / "marker.cu").write_text("__global__ void marker() {}\n")
    (tree / "examples" / "demo.cu").write_text('#include "ikp/profiler.hpp"\nint main() { return 0; }\n')
    (tree / "include" / "ikp" / "profiler.hpp").write_text('#pragma once\n#include "ikp/trace/trace.cuh"\n')
    (tree / "include" / "ikp" / "trace" / "trace.cuh").write_text('#pragma once\n#include "ikp/trace/macros.cuh"\n')
    (tree / "include" / "ikp" / "trace" / "macros.cuh").write_text('#pragma once\n#include "ikp/trace/device_ctx.cuh"\n')
    (tree / "include" / "ikp" / "trace" / "device_ctx.cuh").write_text(
        "#pragma once\n__device__ inline unsigned lane() {\n  unsigned id;\n"
        '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));\n  return id;\n}\n')
    data = scanned(tree, rulebase)
    deep = [f for f in data["findings"] if f["path"] == "include/ikp/trace/device_ctx.cuh"]
    assert deep and {f["status"] for f in deep} == {""}
    assert data["summary"]["class"] == "migration-required"


def test_a_detection_around_every_target_is_the_build_itself(tmp_path: Path, rulebase) -> None:
    """LuisaCompute's CUDA back end scanned alone (its own workload): every target of the tree is built only
    `if (CUDAToolkit_FOUND)`, so there is no build without it and nothing of it is optional."""
    tree = Path(shutil.copytree(CASES / "cmake_detected_backend" / "src" / "backends" / "cuda", tmp_path / "cuda"))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "build switch CUDAToolkit_FOUND" not in optional_parts(data)


def test_a_source_the_default_target_builds_is_required_though_an_off_switchs_twin_builds_it_too(rulebase) -> None:
    """cuDSS's examples: `target_sources(x_example simple.cpp)` and, in `if(BUILD_STATIC)` (off), a static twin of
    the same source. The default build compiles it, so its cuDSS include decides the class (nothing but the
    solver: new development)."""
    data = report("cmake_static_twin", rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert optional_parts(data) == {}
    assert {f["status"] for f in data["findings"] if f["path"] == "simple.cpp"} == {""}


def _static_twin_with_a_host_default(tmp_path: Path, extra_cmake: str = "") -> Path:
    """cmake_static_twin whose default target builds host.cpp: the solver source is left to the off switch's twin."""
    tree = _copy("cmake_static_twin", tmp_path)
    text = (tree / "CMakeLists.txt").read_text()
    default = "target_sources(${EXAMPLE_NAME}_example\n    PUBLIC ${PROJECT_SOURCE_DIR}/${EXAMPLE_NAME}.cpp"
    assert text.count(default) == 1
    (tree / "CMakeLists.txt").write_text(text.replace(default, default.replace("${EXAMPLE_NAME}.cpp", "host.cpp"))
                                         + extra_cmake)
    (tree / "host.cpp").write_text("int main(void) { return 0; }\n")
    return tree


def test_a_source_only_the_off_switchs_target_builds_is_optional(tmp_path: Path, rulebase) -> None:
    tree = _static_twin_with_a_host_default(tmp_path)
    data = scanned(tree, rulebase)
    solver = [f for f in data["findings"] if f["rule"] == "HIP0042"]
    assert solver and {f["status"] for f in solver} == {"optional"}
    assert "BUILD_STATIC is off by default: the default build has none of its code" in \
        optional_parts(data)["build switch BUILD_STATIC"]["evidence"]


def test_a_source_beside_its_header_that_only_an_off_switchs_samples_include_goes_with_them(rulebase) -> None:
    """gvdb-voxels: sample_utils/optix_scene.cpp implements optix_scene.h, which only the OptiX samples (behind
    GVDB_BUILD_OPTIX_SAMPLES, off) include; a glob over a module's variable adds the .cpp, and no build file names
    it. The pair is the samples' code: the library's own kernels decide the class."""
    data = report("cmake_header_companion", rulebase)
    assert data["summary"]["class"] == "migration-required"
    optix = [f for f in data["findings"] if f["path"].startswith("source/sample_utils/optix_scene.")]
    assert {f["path"] for f in optix} == {"source/sample_utils/optix_scene.cpp", "source/sample_utils/optix_scene.h"}
    assert {f["status"] for f in optix} == {"optional"}


def test_a_source_beside_its_header_that_the_default_build_names_is_required(tmp_path: Path, rulebase) -> None:
    """Near miss: the library's target names optix_scene.cpp as well: built by default, the OptiX code decides."""
    tree = _copy("cmake_header_companion", tmp_path)
    build = tree / "source" / "gvdb_library" / "CMakeLists.txt"
    build.write_text(build.read_text().replace("kernels/cuda_gvdb_module.cu)",
                                               "kernels/cuda_gvdb_module.cu ../sample_utils/optix_scene.cpp)"))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert {f["status"] for f in data["findings"] if f["path"] == "source/sample_utils/optix_scene.cpp"} == {""}


def test_a_glob_outside_the_switch_does_not_build_the_off_switchs_source(tmp_path: Path, rulebase) -> None:
    """Near miss cut from dmlc/decord's CMakeLists.txt: `FILE(GLOB_RECURSE GROUP_SOURCE "src/*.cc" "src/*.cu")` for
    the IDE's source groups, outside every switch, names the switch's source too; a glob is no target of its own."""
    tree = _static_twin_with_a_host_default(tmp_path, 'FILE(GLOB_RECURSE GROUP_SOURCE "*.cpp")\n'
                                                      'source_group(TREE ${PROJECT_SOURCE_DIR} FILES ${GROUP_SOURCE})\n')
    data = scanned(tree, rulebase)
    solver = [f for f in data["findings"] if f["rule"] == "HIP0042"]
    assert solver and {f["status"] for f in solver} == {"optional"}


FP8_GATED = {
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(llm LANGUAGES CXX CUDA)\n"
                      "find_package(CUDAToolkit REQUIRED)\n"
                      "{gate}\n"
                      "add_library(kernels src/cast.cu src/gemm.cu)\n",
    "src/cast.cu": "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#ifdef ENABLE_FP8\n#include <cuda_fp8.h>\n"
                   "__global__ void cast(const float* in, __nv_fp8_e4m3* out) {\n"
                   "  out[threadIdx.x] = __nv_fp8_e4m3(in[threadIdx.x]);\n}\n"
                   "void run(const float* in, __nv_fp8_e4m3* out) { cast<<<1, 64>>>(in, out); cudaDeviceSynchronize(); }\n"
                   "#endif\n",
    "src/gemm.cu": "#include <cuda_runtime.h>\n__global__ void scale(float* x) { x[threadIdx.x] *= 2.f; }\n"
                   "void go(float* x) { scale<<<1, 64>>>(x); cudaDeviceSynchronize(); }\n",
}


@pytest.mark.parametrize(("gate", "optional"), [
    # TensorRT-LLM's cpp/CMakeLists.txt: defined whenever the CUDA toolkit is new enough, a version test, no switch
    ('if(${CUDA_VERSION} VERSION_GREATER_EQUAL "11.8")\n  add_definitions("-DENABLE_FP8")\nendif()', False),
    ("add_definitions(-DENABLE_FP8)", False),
    # near miss: an option off by default that defines it
    ('option(ENABLE_FP8 "FP8 kernels" OFF)\nif(ENABLE_FP8)\n  add_definitions(-DENABLE_FP8)\nendif()', True),
])
def test_a_macro_the_build_defines_outside_every_switch_is_not_optional(
        gate: str, optional: bool, tmp_path: Path, rulebase) -> None:
    """`#ifdef ENABLE_FP8` code is optional only when a switch off by default defines the macro: a version test
    (`if(${CUDA_VERSION} VERSION_GREATER_EQUAL "11.8")`) is no switch named VERSION_GREATER_EQUAL, and a macro
    the default build defines is on."""
    for name, text in FP8_GATED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text.replace("{gate}", gate))
    data = scanned(tmp_path, rulebase)
    fp8 = [f for f in data["findings"] if f["path"] == "src/cast.cu" and 3 <= f["line"] <= 9]
    assert fp8 and {f["status"] == "optional" for f in fp8} == {optional}, [(f["line"], f["status"]) for f in fp8]
    assert ("build switch ENABLE_FP8" in optional_parts(data)) == optional
    assert "build switch VERSION_GREATER_EQUAL" not in optional_parts(data)


@pytest.mark.parametrize(("name", "text", "package"), [
    # fjarri/reikna (8aad0ff): pycuda is one of two back-end extras beside pyopencl
    ("pyproject.toml", '[project]\nname = "reikna"\ndependencies = ["numpy>=2"]\n\n'
     '[project.optional-dependencies]\npyopencl = ["pyopencl>=2024"]\npycuda = ["pycuda>=2024"]\n', "pycuda"),
    # thu-pacman/chitu (6261b7a) setup.py: flashinfer-python in extras_require["flashinfer"]
    ("setup.py", 'from setuptools import setup\nsetup(name="chitu", install_requires=["torch"],\n'
     '      extras_require={"flashinfer": ["flashinfer-python"]})\n', "flashinfer-python"),
    ("setup.cfg", "[metadata]\nname = x\n[options]\ninstall_requires =\n    numpy\n"
     "[options.extras_require]\ngpu =\n    pycuda\n", "pycuda"),
])
def test_a_requirement_in_an_extra_is_optional_and_one_installed_is_required(
        name: str, text: str, package: str, tmp_path: Path, rulebase) -> None:
    """An extra (PEP 621 optional-dependencies, setup.py extras_require, setup.cfg options.extras_require) is not in a
    plain install: its CUDA-only pin is an optional finding; the same pin in the dependencies is required."""
    (tmp_path / name).write_text(text)
    found = [f for f in scanned(tmp_path, rulebase)["findings"] if f["symbol"] == package]
    assert found and {f["status"] for f in found} == {"optional"}, found
    (tmp_path / "required").mkdir()
    plain = text.replace("[project.optional-dependencies]\npyopencl", "[tool.other]\npyopencl") \
        .replace('dependencies = ["numpy>=2"]', 'dependencies = ["numpy>=2", "pycuda>=2024"]') \
        .replace('extras_require={"flashinfer": ["flashinfer-python"]}', 'install_requires=["flashinfer-python"]') \
        .replace('install_requires=["torch"],\n      install_requires', 'install_requires') \
        .replace("[options.extras_require]\ngpu =\n    pycuda\n", "").replace("    numpy\n", "    numpy\n    pycuda\n")
    (tmp_path / "required" / name).write_text(plain)
    found = [f for f in scanned(tmp_path / "required", rulebase)["findings"] if f["symbol"] == package]
    assert found and {f["status"] for f in found} == {""}, found


def test_a_package_its_body_imports_only_where_a_test_finds_it_is_optional(rulebase) -> None:
    """yolort: `if is_module_available("tensorrt"): import tensorrt as trt` in the TensorRT export helper of a
    PyTorch package that does not depend on TensorRT: the body runs only where the package is installed, like
    `try: import X` / `except ImportError` (the TensorRT part keeps its own class)."""
    data = report("presence_test", rulebase)
    assert data["summary"]["class"] == "native"
    assert {f["status"] for f in data["findings"] if f["rule"] == "HIP6010"} == {"optional"}


@pytest.mark.parametrize(("source", "guard"), [
    # yolort/runtime/trt_helper.py:18: a string naming the package
    ('if is_module_available("tensorrt"):\n    import tensorrt as trt\n', "optional"),
    ('if importlib.util.find_spec("cupy") is not None:\n    import cupy\n', "optional"),
    # scipy/interpolate/_bsplines.py: `if is_cupy(xp):` delegates to CuPy when the caller's arrays are CuPy's
    ("if is_cupy(xp):\n    import cupyx.scipy.interpolate as csi\n", "optional"),
    # quip-sharp model/llama.py:54 (transformers' helper)
    ("if is_flash_attn_2_available():\n    from flash_attn import flash_attn_func\n", "optional"),
    # near misses: a platform test, a switch over the project's own module, a test of another package
    ("if torch.cuda.is_available():\n    import tensorrt\n", None),
    ("if use_cuda():\n    from .cuda import kernels\n", None),
    ('if is_module_available("onnx"):\n    import tensorrt\n', None),
])
def test_a_test_for_the_package_an_if_imports_makes_its_body_optional(source: str, guard: str | None) -> None:
    from migrate.extract.python.extractor import extract_text

    facts, _ = extract_text(source)
    imports = [f for f in facts if f.kind == "python_import"]
    assert imports and {f.guard for f in imports} == {guard}


@pytest.mark.parametrize(("siblings", "optional"), [(("libtorch", "onnxruntime", "ncnn"), True), (("ppq",), False)])
def test_a_tensorrt_folder_beside_a_portable_runtimes_folder_is_an_alternative(siblings: tuple[str, ...],
                                                                               optional: bool, tmp_path: Path,
                                                                               rulebase) -> None:
    """zhiqwang/yolort deployment/: one C++ app per runtime (libtorch, ncnn, onnxruntime, tensorrt); the TensorRT one is
    one alternative among them. Near miss: beside a folder that is no runtime (ppq's quantisation scripts), the
    TensorRT app is the project's one way to deploy and stays required."""
    app = tmp_path / "deployment"
    (app / "tensorrt").mkdir(parents=True)
    (app / "tensorrt" / "CMakeLists.txt").write_text(
        "project(yolort_trt)\nadd_executable(yolort_trt main.cpp)\ntarget_link_libraries(yolort_trt nvinfer)\n")
    (app / "tensorrt" / "main.cpp").write_text('#include "NvInfer.h"\nint main() { nvinfer1::IRuntime* r = nullptr; }\n')
    for name in siblings:
        (app / name).mkdir()
        (app / name / "main.cpp").write_text("int main() { return 0; }\n")
    data = scanned(tmp_path, rulebase)
    assert (data["summary"]["class"] == "native") == optional
    assert ("deployment/tensorrt" in optional_parts(data)) == optional


@pytest.mark.parametrize(("case", "path", "old", "new", "expected"), [
    ("cmake_detected_default", "CMakeLists.txt", "", "", "native"),
    # the option's default variable set ON outside the detection's branch: the CUDA filters build by default
    ("cmake_detected_default", "CMakeLists.txt", "set(RTK_USE_CUDA_DEFAULT OFF)", "set(RTK_USE_CUDA_DEFAULT ON)",
     "migration-required"),
    # the default variable spelled in lower case (CMake's variable names are case-sensitive): still followed
    ("cmake_detected_default", "CMakeLists.txt", "RTK_USE_CUDA_DEFAULT", "rtk_use_cuda_default", "native"),
    ("cmake_python_module_detected", "CMakeLists.txt", "", "", "native"),
    # the CUDA sources added to the module outside the detection's branch: built by default
    ("cmake_python_module_detected", "cxx/CMakeLists.txt", "if (CMAKE_CUDA_COMPILER)", "if (TRUE)",
     "migration-required"),
    # an nvcc-only flag for every language, not in a CUDA-only generator expression: the default build's own
    ("cmake_python_module_detected", "CMakeLists.txt", "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/utf-8>",
     "-Xcompiler=/utf-8", "minor-adaptation"),
])
def test_cuda_a_detection_turns_on_is_optional_however_the_build_spells_it(
        case: str, path: str, old: str, new: str, expected: str, tmp_path: Path, rulebase) -> None:
    """RTK: `option(RTK_USE_CUDA ... ${RTK_USE_CUDA_DEFAULT})` whose default variable is set ON only under
    `if(CMAKE_CUDA_COMPILER)` after check_language(CUDA); torchmcubes: a module made by Python_add_library (a target
    outside the detection) whose .cu sources target_sources() adds only under it, and an nvcc flag inside
    `$<$<COMPILE_LANGUAGE:CUDA>:...>`. Near misses: the same code on by default, the flag for every language."""
    tree = _copy(case, tmp_path)
    text = (tree / path).read_text()
    assert old in text
    (tree / path).write_text(text.replace(old, new))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == expected
    kernels = {f["status"] for f in data["findings"] if f["path"].endswith(".cu")}
    assert kernels == ({""} if expected == "migration-required" else {"optional"})


@pytest.mark.parametrize(("line", "column", "inside"), [
    ('add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/utf-8>")', 49, True),
    ('add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:/utf-8>" "$<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>")', 85, True),
    ('add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Xcompiler>")', 48, False),
    ('add_compile_options(-Xcompiler=/utf-8)', 21, False),
    ('target_compile_options(t PRIVATE $<$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>:--use_fast_math>)', 71, True),
])
def test_a_cuda_only_generator_expression_holds_its_flags(line: str, column: int, inside: bool) -> None:
    from migrate.workloads.optional_words import in_cuda_genex

    assert in_cuda_genex(line, column, parts.words()) is inside


@pytest.mark.parametrize(("old", "new", "required"), [
    ("", "", set()),
    # the same switch on unless the user turns it off: every kernel is built by default
    ("os.environ.get('RWKV_CUDA_ON') == '1'", "os.environ.get('RWKV_CUDA_ON', '1') == '1'",
     {"operators.cu", "gemm_fp16_cublas.cpp", "rwkv5.cu"}),
    # an item of a variable the module never reads through a getter: no default to read, the load is required
    ('os.environ["RWKV_CUDA_ON"] == \'1\'', 'os.environ["RWKV_KERNELS"] == \'1\'', {"rwkv5.cu"}),
])
def test_kernels_a_run_time_load_compiles_only_on_an_environment_opt_in_are_optional(
        old: str, new: str, required: set[str], tmp_path: Path, rulebase) -> None:
    """ChatRWKV's rwkv package: `if os.environ.get('RWKV_CUDA_ON') == '1': load(sources=[f"{current_path}/cuda/..."])`
    (the f-string's folder is the loader's own), and later `os.environ["RWKV_CUDA_ON"] == '1'` (the module set "0"
    where it was unset). Near misses: a default of "1"; an item no getter reads first."""
    tree = _copy("env_opt_in_load", tmp_path)
    model = tree / "src" / "rwkv" / "model.py"
    assert old in model.read_text()
    model.write_text(model.read_text().replace(old, new))
    data = scanned(tree, rulebase)
    kernels = {f["path"].rpartition("/")[2] for f in data["findings"]
               if f["path"].startswith("src/rwkv/cuda/") and f["status"] != "optional"}
    assert kernels == required
    assert (data["summary"]["class"] == "native") is not required


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("", "", "native"),
    # ON in both branches: the platform builds by default
    ('SET(NN_BUILD_CUDA_LIB OFF CACHE BOOL', 'SET(NN_BUILD_CUDA_LIB ON CACHE BOOL', "migration-required"),
    # the toolkit required: the detection is always true where the project configures at all
    ("FIND_PACKAGE(CUDAToolkit QUIET)", "FIND_PACKAGE(CUDAToolkit REQUIRED)", "migration-required"),
])
def test_a_cache_entry_set_on_only_where_the_toolkit_is_found_is_off(old: str, new: str, expected: str,
                                                                     tmp_path: Path, rulebase) -> None:
    """OpenMM and its plugins (openmm-torch): `IF(CUDAToolkit_FOUND) SET(NN_BUILD_CUDA_LIB ON CACHE BOOL ...)
    ELSE SET(NN_BUILD_CUDA_LIB OFF CACHE BOOL ...)`, then `IF(NN_BUILD_CUDA_LIB) ADD_SUBDIRECTORY(platforms/cuda)`."""
    tree = _copy("cmake_cache_on_detection", tmp_path)
    top = tree / "CMakeLists.txt"
    assert old in top.read_text()
    top.write_text(top.read_text().replace(old, new))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == expected
    if expected == "native":
        part = optional_parts(data)["build switch NN_BUILD_CUDA_LIB"]
        assert part["class"] == "migration-required"
        assert any("true only where CUDAToolkit_FOUND is" in e for e in part["evidence"])


@pytest.mark.parametrize(("line", "cuda_only"), [
    ('    set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -Xcompiler=/bigobj")', True),  # pcl CMakeLists.txt:167
    ('string(APPEND CMAKE_CUDA_FLAGS " --expt-relaxed-constexpr")', True),
    ('    target_include_directories(${_name} PRIVATE ${CUDA_TOOLKIT_INCLUDE})', False),  # a use, not a setting
    ('set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -Xcompiler=/bigobj")', False),
    ('set(NVCC_FLAGS "-Xcompiler=/bigobj")', False),
])
def test_a_flag_set_into_a_cuda_only_variable_goes_with_the_cuda_build(line: str, cuda_only: bool) -> None:
    from migrate.workloads.optional_words import sets_cuda_setting

    assert sets_cuda_setting(line, parts.words()) is cuda_only


def test_a_back_end_module_imported_from_its_package_in_a_fallback_is_optional(rulebase) -> None:
    """InsightFace-REST: `from if_rest.core.model_zoo.exec_backends import trt_backend` in a try whose handler falls
    back to None imports the submodule trt_backend (Python's `from package import name`); what only it imports
    (trt_loader.py, `import tensorrt`) is optional with it."""
    data = report("backend_submodule_import", rulebase)
    assert data["summary"]["class"] == "native"
    found = optional_parts(data)
    assert found["if_rest/core/model_zoo/exec_backends/trt_loader.py"]["class"] == "incompatible"
    assert found["if_rest/core/model_zoo/exec_backends/trt_loader.py"]["evidence"][0].startswith(
        "if_rest/core/model_zoo/exec_backends/trt_backend.py:1 imports it only in an optional scope")


def test_a_back_end_module_imported_from_its_package_outside_a_fallback_is_required(tmp_path: Path, rulebase) -> None:
    """Near miss: the same `from <package> import trt_backend` at the top of the module, no try."""
    tree = tmp_path / "svc"
    shutil.copytree(CASES / "backend_submodule_import", tree)
    getter = tree / "if_rest" / "core" / "model_zoo" / "getter.py"
    text = getter.read_text()
    start, end = text.index("try:"), text.index("\n\n\ndef ")
    getter.write_text(text[:start] + "from if_rest.core.model_zoo.exec_backends import trt_backend" + text[end:])
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert "if_rest/core/model_zoo/exec_backends/trt_loader.py" not in optional_parts(data)


def test_an_nvidia_only_runtime_picked_per_format_beside_portable_ones_is_optional(rulebase) -> None:
    """yolov5: `elif engine:` imports tensorrt beside `elif onnx:` (onnxruntime), `elif xml:` (openvino) and
    `elif saved_model:` (tensorflow); export.py's export_engine beside export_openvino."""
    data = report("runtime_per_format", rulebase)
    assert data["summary"]["class"] == "native"
    found = optional_parts(data)
    branch = found["models/common.py:25-29 (an alternative runtime)"]
    assert branch["class"] == "incompatible"
    assert branch["evidence"][0].startswith("models/common.py:25 imports tensorrt only in this function or branch")
    assert found["export.py:14-24 (an alternative runtime)"]["class"] == "incompatible"
    trt = [f for f in data["findings"] if f["symbol"] == "tensorrt"]
    assert len(trt) == 3 and {f["status"] for f in trt} == {"optional"}


def test_an_nvidia_only_runtime_with_no_portable_alternative_is_required(tmp_path: Path, rulebase) -> None:
    """Near miss: the same branches and functions with no portable runtime imported beside TensorRT."""
    tree = tmp_path / "det"
    shutil.copytree(CASES / "runtime_per_format", tree)
    for name in ("models/common.py", "export.py"):
        text = (tree / name).read_text()
        for portable in ("import onnxruntime", "from openvino import Core", "import openvino as ov",
                         "import tensorflow as tf"):
            text = text.replace(portable, "import json")
        (tree / name).write_text(text)
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    # export.py:16 sits in a try whose handler carries on (optional before this rule); the handler's import does not
    required = {(f["path"], f["line"]) for f in data["findings"] if f["symbol"] == "tensorrt" and f["status"] == ""}
    assert required == {("models/common.py", 25), ("export.py", 20)}


def test_a_converter_that_imports_both_runtimes_in_one_function_is_required(tmp_path: Path, rulebase) -> None:
    """Near miss: export_engine also imports onnxruntime itself (an ONNX-to-TensorRT step needs TensorRT)."""
    tree = tmp_path / "det"
    shutil.copytree(CASES / "runtime_per_format", tree)
    export = tree / "export.py"
    export.write_text(export.read_text().replace("    try:\n        import tensorrt as trt\n",
                                                 "    import onnxruntime\n    try:\n        import tensorrt as trt\n"))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert [f["line"] for f in data["findings"] if f["path"] == "export.py" and f["symbol"] == "tensorrt"
            and f["status"] == ""] == [21]


def test_back_ends_picked_by_a_cache_strings_value_are_optional(rulebase) -> None:
    """KataGo: `set(USE_BACKEND CACHE STRING ...)` (empty by default) and one `if(USE_BACKEND STREQUAL "...")` branch per
    back end; TensorRT's macro, defined only in its branch, gates sandbox.cpp's NvInfer.h."""
    data = report("cmake_value_backend", rulebase)
    assert data["summary"]["class"] == "native"
    found = optional_parts(data)
    assert found["build switch USE_BACKEND_CUDA"]["class"] == "migration-required"
    trt = found["build switch USE_BACKEND_TENSORRT"]
    assert trt["class"] == "incompatible"
    assert trt["evidence"][:3] == ["cpp/CMakeLists.txt:4 set(USE_BACKEND_TENSORRT) default OFF",
                                   "USE_BACKEND_TENSORRT is off by default: the default build has none of its code",
                                   'cpp/CMakeLists.txt:46 if(USE_BACKEND STREQUAL "TENSORRT")']
    sandbox = [f for f in data["findings"] if f["path"] == "cpp/command/sandbox.cpp"]
    assert sandbox and {f["status"] for f in sandbox} == {"optional"}


@pytest.mark.parametrize(("old", "new", "expected"), [
    # the cache entry's default is TensorRT: its branch is the default build
    ('set(USE_BACKEND CACHE STRING "Neural net backend")', 'set(USE_BACKEND TENSORRT CACHE STRING "Neural net backend")',
     "incompatible"),
    # the variable is set in no file of the tree (a parent project may set it): no default is read, nothing optional
    ('set(USE_BACKEND CACHE STRING "Neural net backend")', "", "incompatible"),
])
def test_a_value_switch_on_by_default_or_set_elsewhere_is_required(tmp_path: Path, rulebase, old: str, new: str,
                                                                   expected: str) -> None:
    tree = tmp_path / "kg"
    shutil.copytree(CASES / "cmake_value_backend", tree)
    cmake = tree / "cpp" / "CMakeLists.txt"
    assert old in cmake.read_text()
    cmake.write_text(cmake.read_text().replace(old, new))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == expected
    assert "build switch USE_BACKEND_TENSORRT" not in optional_parts(data)


# NervanaSystems/ngraph f677a119: the top CMakeLists.txt:137 declares the GPU back end's option FALSE,
# src/runtime/CMakeLists.txt:17 adds gpu/ only under it, and contrib/docker/Makefile:86 hands `-DNGRAPH_GPU_ENABLE=TRUE`
# to the cmake of its GPU image (under a test for nvidia-smi)
GPU_BACKEND = {
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.4)\nproject(ngraph CXX)\n"
                      'option(NGRAPH_GPU_ENABLE "Control the building of the GPU backend" {default})\n'
                      "add_library(ngraph src/ngraph/node.cpp)\nadd_subdirectory(src/runtime)\n",
    "src/ngraph/node.cpp": "int node_count() {{ return 0; }}\n{ifdef}",
    "src/runtime/CMakeLists.txt": "if (NGRAPH_GPU_ENABLE)\n    add_subdirectory(gpu)\nendif()\n",
    "src/runtime/gpu/CMakeLists.txt": "set(SRC\n    cublas_emitter.cpp\n    )\n"
                                      "find_package(CUDA 8 REQUIRED)\nadd_library(gpu_backend SHARED ${{SRC}})\n"
                                      "target_link_libraries(gpu_backend PUBLIC ngraph ${{CUDA_CUBLAS_LIBRARIES}})\n",
    "src/runtime/gpu/cublas_emitter.cpp": "#include <cublas_v2.h>\n#include <cuda_runtime.h>\n"
                                          "void emit(cublasHandle_t h, float* x) {{\n"
                                          "  cublasSscal(h, 4, nullptr, x, 1);\n  cudaDeviceSynchronize();\n}}\n",
    "contrib/docker/Makefile": 'ifneq ("$(shell echo ${{NVIDIA_SMI}} | grep nvidia-smi)","")\n'
                               "    CMAKE_OPTIONS_EXTRA+=-DNGRAPH_GPU_ENABLE=TRUE\n{cxxflags}endif\n\n"
                               "build:\n\tcmake .. $(CMAKE_OPTIONS_EXTRA)\n",
}
NODE_GPU = "#ifdef NGRAPH_GPU_ENABLE\n#include <cuda_runtime.h>\nvoid sync() { cudaDeviceSynchronize(); }\n#endif\n"


@pytest.mark.parametrize(("default", "ifdef", "cxxflags", "backend", "node"), [
    ("FALSE", "", "", "optional", None),  # ngraph as it is: a cmake setting, no macro anything tests
    # near miss: the option on by default
    ("TRUE", "", "", "", None),
    # near miss: the Makefile defines the macro for its compiles, and always-built code tests it: that branch is on
    ("FALSE", NODE_GPU, "    CXXFLAGS+=-DNGRAPH_GPU_ENABLE\n", "", ""),
])
def test_a_define_flag_never_sets_the_cmake_variable_of_an_option(
        default: str, ifdef: str, cxxflags: str, backend: str, node: str | None, tmp_path: Path, rulebase) -> None:
    """A `-DX` flag defines X for the compiler: it keeps `#ifdef X` branches on, but CMake's `if(X)` reads CMake's
    own variable X, which keeps the option's default (FALSE) in a plain configure, whatever a Makefile hands to
    the cmake of a container image."""
    for name, text in GPU_BACKEND.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text.format(default=default, ifdef=ifdef, cxxflags=cxxflags))
    data = scanned(tmp_path, rulebase)
    assert statuses_of(data, "src/runtime/gpu/cublas_emitter.cpp") == {backend}
    assert ("build switch NGRAPH_GPU_ENABLE" in optional_parts(data)) == (backend == "optional")
    if node is not None:
        assert statuses_of(data, "src/ngraph/node.cpp") == {node}


# Xtra-Computing/FedTree b6028287: CMakeLists.txt:13 option(USE_CUDA ... OFF); both branches of `if (USE_CUDA)` make
# ThrustOMP (:36, :43), the library links it, and always-built sources call thrust::reduce(thrust::host, ...)
CPU_THRUST = {
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.15)\nproject(FedTree LANGUAGES C CXX)\n"
                      'option(USE_CUDA "Compile with CUDA for homomorphic encryption" OFF)\n'
                      "find_package(OpenMP REQUIRED)\n{thrust}\n"
                      "add_library(FedTree SHARED src/tree.cpp)\ntarget_link_libraries(FedTree ThrustOMP)\n",
    "src/tree.cpp": '#include "thrust/reduce.h"\n#include "thrust/execution_policy.h"\n'
                    "float sum(const float* g, int n) { return thrust::reduce(thrust::host, g, g + n); }\n",
}
FEDTREE_THRUST = ("if (USE_CUDA)\n    find_package(CUDA REQUIRED QUIET)\n    add_subdirectory(${PROJECT_SOURCE_DIR}/thrust/)\n"
                  "    find_package(Thrust REQUIRED)\n    thrust_create_target(ThrustOMP HOST CPP DEVICE OMP)\nelse ()\n"
                  "    add_subdirectory(${PROJECT_SOURCE_DIR}/thrust/)\n    find_package(Thrust REQUIRED)\n"
                  "    thrust_create_target(ThrustOMP HOST CPP DEVICE OMP)\nendif ()")


@pytest.mark.parametrize(("thrust", "status"), [
    (FEDTREE_THRUST, "optional"),
    # BachiLi/redner CMakeLists.txt:53-55: the build without its CUDA option defines Thrust's CPP system
    ('find_package(Thrust REQUIRED)\nif(NOT USE_CUDA)\n'
     '    add_compile_options("-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP")\nendif()', "optional"),
    # near misses: Thrust's default device system (CUDA), the CUDA system named, a CPU system only under an option
    ("find_package(Thrust REQUIRED)\nthrust_create_target(ThrustOMP)", ""),
    ("find_package(Thrust REQUIRED)\nthrust_create_target(ThrustOMP HOST CPP DEVICE CUDA)", ""),
    ('option(THRUST_ON_CPU "CPU Thrust" OFF)\nfind_package(Thrust REQUIRED)\nif(THRUST_ON_CPU)\n'
     "    thrust_create_target(ThrustOMP HOST CPP DEVICE OMP)\nendif()", ""),
])
def test_thrust_the_default_build_compiles_for_the_cpu_is_optional(
        thrust: str, status: str, tmp_path: Path, rulebase) -> None:
    """Thrust's device system is a compile-time choice (THRUST_DEVICE_SYSTEM): CPP, OMP and TBB run on the CPU.
    Where the default configure picks one, the project's Thrust code is CPU code; Thrust's default device system is
    CUDA, and one picked only under an option off by default is not the default build's."""
    for name, text in CPU_THRUST.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text.replace("{thrust}", thrust))
    data = scanned(tmp_path, rulebase)
    assert statuses_of(data, "src/tree.cpp") == {status}
    assert (". (Thrust on the CPU)" in optional_parts(data)) == (status == "optional")
    if status:
        assert data["summary"]["class"] == "native"


PLATFORM = "cmake_build_with_platform"
BACK_END = "Spike/Backend/CUDA/Memory.cu"


def test_switch_words_in_a_row_name_the_platform_switch(tmp_path: Path, rulebase) -> None:
    """Spike: BUILD_WITH_CUDA (ON) turns on CUDA, the platform, not a feature WITH_CUDA; off by default, or named for a
    library (BUILD_WITH_CUTLASS) beside the project's own kernels, it is an optional part."""
    assert parts.feature("BUILD_WITH_CUDA", parts.words()) == "CUDA"
    data = report(PLATFORM, rulebase)
    assert statuses_of(data, BACK_END) == {""}
    assert not optional_parts(data)
    for old, new in (('"Enable CUDA backend"\n  ON)', '"Enable CUDA backend"\n  OFF)'),
                     ("BUILD_WITH_CUDA", "BUILD_WITH_CUTLASS")):
        tree = tmp_path / new.split()[0].strip('"')
        shutil.copytree(CASES / PLATFORM, tree)
        text = (tree / "CMakeLists.txt").read_text()
        assert old in text
        (tree / "CMakeLists.txt").write_text(text.replace(old, new))
        assert statuses_of(scanned(tree, rulebase), BACK_END) == {"optional"}, new


SCRIPTED = "unbuilt_list_beside_compile_script"


def test_a_source_a_compile_script_beside_it_may_compile_is_not_built_by_nothing(rulebase) -> None:
    """LBM2: src/Makefile's list leaves kernels3.cu out, but src/simple_compile runs nvcc on each source by hand:
    kernels3.cu (the reduction streaming.cu calls) is required."""
    data = report(SCRIPTED, rulebase)
    assert optional_parts(data) == {}
    assert statuses_of(data, "src/kernels3.cu") == {""}


@pytest.mark.parametrize("script", [None, "tools/simple_compile", "nvcc --version",
                                    "nvcc -O3 main.cu streaming.cu -o LBM2"])
def test_a_source_no_list_names_and_no_script_beside_it_compiles_is_built_by_nothing(script: str | None,
                                                                                     tmp_path: Path, rulebase) -> None:
    """Without the script, with it in a folder of its own (it compiles what lies there), with a script that only asks
    nvcc its version (Jerry-Jinfeng-Guo/gap's setup.py) or one that writes a program, not kernels3.o
    (eliphatfs/cumesh2sdf's build.sh: `nvcc driver.cu ... -o bin/mesh2sdf`), kernels3.cu is in no build: the sources
    src/Makefile lists by name are beside it."""
    tree = _copy(SCRIPTED, tmp_path)
    if script is None:
        (tree / "src" / "simple_compile").unlink()
    elif " " in script:
        (tree / "src" / "simple_compile").write_text(f"#!/bin/bash\n\n{script}\n")
    else:
        (tree / script).parent.mkdir()
        (tree / "src" / "simple_compile").rename(tree / script)
    data = scanned(tree, rulebase)
    part = optional_parts(data)["src/kernels3.cu (built by nothing)"]
    # the sibling a list names, not the `.cu.o:` suffix rule's target (a pair of suffixes, no file)
    assert part["evidence"][0].startswith("src/Makefile:1 names src/main.cu beside it")
    assert statuses_of(data, "src/kernels3.cu") == {"optional"}


def test_a_torch_extension_nothing_builds_is_built_by_nothing(tmp_path: Path, rulebase) -> None:
    """wkv5_op.cpp (torch/extension.h) and wkv5_cuda.cu beside a model whose CUDA path is another package: no setup.py,
    load() or build file names them, so the kernels are built by nothing (rules/workloads/optional.yaml
    `torch_extensions`). Near misses: a load() naming the two files builds them (also where its path is joined from
    a variable the extractor resolves only in part); without the extension header the folder is plain CUDA source,
    which the project may compile by hand."""
    data = report("torch_extension_unbuilt", rulebase)
    assert data["summary"]["class"] == "native"
    cu = "rwkv5_model/wkv5_cuda.cu"
    assert optional_parts(data)[f"{cu} (built by nothing)"]["evidence"][0].startswith(
        "rwkv5_model/wkv5_op.cpp includes a PyTorch extension header")
    assert statuses_of(data, cu) == {"optional"}

    loaded = _copy("torch_extension_unbuilt", tmp_path / "loaded")
    model = loaded / "rwkv5_model" / "modeling_rwkv5.py"
    model.write_text(model.read_text() + "\nfrom torch.utils.cpp_extension import load\n"
                     "wkv5 = load(name='wkv5', sources=['rwkv5_model/wkv5_op.cpp', 'rwkv5_model/wkv5_cuda.cu'])\n")
    built = scanned(loaded, rulebase)
    assert f"{cu} (built by nothing)" not in optional_parts(built)
    assert statuses_of(built, cu) == {""}

    joined = _copy("torch_extension_unbuilt", tmp_path / "joined")  # axolotl's `os.path.join(_MOE, "ops.cu")`
    model = joined / "rwkv5_model" / "modeling_rwkv5.py"
    model.write_text(model.read_text() + "\nimport os\nfrom torch.utils.cpp_extension import load\n"
                     "_SRC = os.path.join(os.path.dirname(__file__), '_csrc', 'wkv5')\n"
                     "wkv5 = load(name='wkv5', sources=[os.path.join(_SRC, 'wkv5_cuda.cu')])\n")
    assert f"{cu} (built by nothing)" not in optional_parts(scanned(joined, rulebase))

    plain = _copy("torch_extension_unbuilt", tmp_path / "plain")
    binding = plain / "rwkv5_model" / "wkv5_op.cpp"
    binding.write_text(binding.read_text().replace("#include <torch/extension.h>\n", ""))
    assert statuses_of(scanned(plain, rulebase), cu) == {""}


def test_a_module_imported_again_from_the_scripts_folder_is_required(tmp_path: Path, rulebase) -> None:
    """`try: from .sepconv import sepconv` / `except: sys.path.insert(0, './sepconv'); import sepconv`: the handler
    reaches the same module when the file runs as a script, so the CuPy kernels are required (python/optional.py).
    Near miss: a handler that binds a stand-in instead is a fallback, and the kernels are optional."""
    data = report("import_path_alternative", rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert statuses_of(data, "sepconv/sepconv.py") == {""}

    tree = _copy("import_path_alternative", tmp_path)
    run = tree / "run.py"
    run.write_text(run.read_text().replace("sys.path.insert(0, './sepconv'); import sepconv", "sepconv = None"))
    fallback = scanned(tree, rulebase)
    assert fallback["summary"]["class"] == "native"
    assert statuses_of(fallback, "sepconv/sepconv.py") == {"optional"}


def test_an_import_fallback_to_another_module_stays_a_fallback() -> None:
    """Only a relative import found again by an absolute path is the same module: `import numpy as xp` after
    `import cupy as xp`, or a project module after a package's (`from mmcv.ops import nms` / `from .ops import
    nms`), is another module."""
    import ast

    from migrate.extract.python.optional import is_import_fallback

    def fallback(source: str) -> bool:
        node = ast.parse(source).body[0]
        assert isinstance(node, ast.Try)
        return is_import_fallback(node)

    assert not fallback("try:\n    from . import utils\nexcept ImportError:\n    import utils\n")
    assert fallback("try:\n    import cupy as xp\nexcept ImportError:\n    import numpy as xp\n")
    assert fallback("try:\n    from mmcv.ops import nms\nexcept ImportError:\n    from .ops import nms\n")


def test_a_make_switch_whose_default_a_comment_empties_is_optional(rulebase) -> None:
    """milc-qcd/milc_qcd Makefile: `WANTQUDA ?= #true` (the comment leaves the value empty) and
    `ifeq ($(strip ${WANTQUDA}),true)` around the CUDA link line: off by default, its link flags an optional part."""
    data = report("make_commented_default", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch WANTQUDA"]
    assert part["class"] == "minor-adaptation"
    assert "Makefile:7 make(WANTQUDA) default OFF" in part["evidence"]
    assert statuses_of(data, "Makefile") == {"optional"}


@pytest.mark.parametrize(("old", "new"), [
    ("WANTQUDA    ?= #true", "WANTQUDA    ?= true"),  # on by default
    # an empty default, then a value the file sets after it: not empty in every assignment, so not read as off
    ("WANT_FN_CG_GPU ?= #true\n", "WANT_FN_CG_GPU ?= #true\nWANTQUDA = true\n"),
])
def test_the_same_make_switch_set_on_is_required(old: str, new: str, tmp_path: Path, rulebase) -> None:
    tree = _copy("make_commented_default", tmp_path)
    text = (tree / "Makefile").read_text()
    assert old in text
    (tree / "Makefile").write_text(text.replace(old, new))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert optional_parts(data) == {}
    assert statuses_of(data, "Makefile") == {""}


@pytest.mark.parametrize(("test", "switch"), [
    ("ifeq ($(strip ${WANTQUDA}),true)", "WANTQUDA"),
    ("ifeq ($(strip $(WANTQUDA)), 1)", "WANTQUDA"),
    ("ifeq ($(strip $(WANTQUDA) x),true)", ""),  # strip of more than one variable: not a test of one switch
])
def test_a_stripped_variable_is_the_switch_of_its_test(test: str, switch: str) -> None:
    from migrate.extract.text import buildfiles

    facts = buildfiles.makefile(f"{test}\nLIBS += -lcudart\nendif\n".encode()).facts
    assert [f.name for f in facts if f.kind == "switch_branch"] == ([switch] if switch else [])
