"""Ported credit and optional status scoped to what each build compiles (issue 28, precision samples 10 and 11):
ROCm evidence covers the build that holds it, not the repository; CUDA sources no build of the project can compile,
evaluation folders, folders of code no longer used and default-off features of a ported project are optional parts.
Each case is a fixture cut from the real code, with near misses."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from migrate.model import Fact
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from migrate.workloads import build_scopes
from tests.conftest import ROOT, run_cli

WORKLOADS = ROOT / "fixtures" / "workloads"
OPTIONAL = WORKLOADS / "optional"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def copy(tree: Path, tmp_path: Path) -> Path:
    target = tmp_path / tree.name
    shutil.copytree(tree, target)
    return target


def statuses(data: dict, prefix: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"].startswith(prefix)}


def workloads(data: dict) -> dict[str, dict]:
    return {w["name"]: w for w in data["workloads"]}


def part_roots(data: dict) -> set[str]:
    return {p["root"] for w in data["workloads"] for p in w["optional_parts"]}


# --- ported credit from the build that holds the evidence (glake) ---

def test_a_hip_build_in_one_folder_ports_nothing_of_the_projects_beside_it(rulebase) -> None:
    data = scanned(WORKLOADS / "ported_collection", rulebase)
    assert statuses(data, "GLakeServe/") == {"ported"}
    assert statuses(data, "MultiPath/") == {""}
    assert statuses(data, "GMLake/") == {""}
    by_name = workloads(data)
    assert by_name["vllm_extensions"]["class"] == "native" and by_name["vllm_extensions"]["rocm_path"]
    for name in ("src", "GMLake"):
        assert by_name[name]["class"] == "migration-required"
        assert by_name[name]["rocm_path"] == []


def test_a_build_file_at_the_top_makes_the_repository_one_scope(tmp_path: Path, rulebase) -> None:
    """Near miss: a top-level CMake project builds every folder; its ROCm path covers them all, as before."""
    tree = copy(WORKLOADS / "ported_collection", tmp_path)
    (tree / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\nproject(glake LANGUAGES CXX)\n"
                                         "add_subdirectory(GLakeServe)\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "MultiPath/") == {"ported"}
    assert statuses(data, "GMLake/") == {"ported"}


def test_a_build_that_names_sources_of_another_folder_shares_its_rocm_path(tmp_path: Path, rulebase) -> None:
    """Near miss: the Makefile compiles a source of the folder with the HIP build, so the two are one scope."""
    tree = copy(WORKLOADS / "ported_collection", tmp_path)
    makefile = tree / "MultiPath" / "src" / "Makefile"
    makefile.write_text(makefile.read_text() + "\nattn.o: ../../GLakeServe/csrc/attention/attention_kernels.cu\n"
                        "\tnvcc -c $< -o $@\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "MultiPath/") == {"ported"}
    assert statuses(data, "GMLake/") == {""}  # no build at all: nothing covers it


def test_scopes_are_the_top_build_folders() -> None:
    def cmake(name: str) -> tuple[Fact, ...]:
        return (Fact(kind="cmake_project", name=name, line=1, column=1, end_line=1, end_column=1),)

    facts: dict[str, tuple[Fact, ...]] = {"a/CMakeLists.txt": cmake("a"), "a/sub/CMakeLists.txt": cmake("sub"),
                                          "b/src/Makefile": (), "c/x.h": (), "README.md": ()}
    assert build_scopes.top_scopes(facts) == {"a": "a", "b/src": "b/src"}
    assert build_scopes.top_scopes({**facts, "setup.py": ()}) == {"": ""}
    assert build_scopes.inside("a/sub/x.cu", ("a",)) and not build_scopes.inside("ab/x.cu", ("a",))


def test_lint_of_a_folder_beside_the_hip_build_blocks_as_the_scan_says(tmp_path: Path) -> None:
    """lint reads the nearest project (MultiPath/src's Makefile), scan the repository: both grade the interposer
    as a port to do."""
    tree = copy(WORKLOADS / "ported_collection", tmp_path)
    env = {"ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    scanned_report = json.loads(run_cli("scan", ".", "-f", "json", "--no-hipify", cwd=tree, env=env).stdout)
    linted = run_cli("lint", "MultiPath/src", "-f", "json", "--fail-on", "migration-required", cwd=tree, env=env)
    key = ("path", "line", "column", "rule", "symbol")
    scan_classes = {tuple(f[k] for k in key): f["class"] for f in scanned_report["findings"]
                    if f["path"].startswith("MultiPath/src/")}
    lint_classes = {tuple(f[k] for k in key): f["class"] for f in json.loads(linted.stdout)["findings"]}
    assert scan_classes and scan_classes == lint_classes
    assert linted.returncode == 1


# --- CUDA sources in a project no build of which compiles CUDA (vkgs) ---

def test_cuda_interop_beside_a_build_without_cuda_is_built_by_nothing(rulebase) -> None:
    data = scanned(OPTIONAL / "unbuilt_no_cuda_build", rulebase)
    assert part_roots(data) == {"src/vkgs/engine/interop/cuda_image.cu (built by nothing)"}
    assert statuses(data, "src/") == {"optional"}
    assert {w["class"] for w in data["workloads"]} == {"native"}


@pytest.mark.parametrize("change", ["cuda_language", "glob"])
def test_a_build_that_can_compile_the_file_keeps_it_required(change: str, tmp_path: Path, rulebase) -> None:
    """Near misses: the project enables CUDA and a target lists the .cu file below a folder variable (since session 22
    a CUDA project whose build names every source it compiles, and names no such file, leaves it unreached:
    workloads/reached_files.py), or a glob names it."""
    tree = copy(OPTIONAL / "unbuilt_no_cuda_build", tmp_path)
    cmake = tree / "CMakeLists.txt"
    if change == "cuda_language":
        cmake.write_text(cmake.read_text().replace("LANGUAGES C CXX", "LANGUAGES C CXX CUDA")
                         + "set(INTEROP_DIR src/vkgs/engine/interop)\nadd_library(interop ${INTEROP_DIR}/cuda_image.cu)\n")
    else:
        cmake.write_text(cmake.read_text() + 'file(GLOB_RECURSE INTEROP "src/vkgs/engine/interop/*.cu")\n'
                                             "add_library(interop ${INTEROP})\n")
    data = scanned(tree, rulebase)
    assert not any("built by nothing" in r for r in part_roots(data))
    assert statuses(data, "src/vkgs/engine/interop/") == {""}


def test_a_cuda_source_beside_those_a_make_pattern_lists_is_built_by_nothing(rulebase) -> None:
    """libSTARK's algebra/FFT: the Makefile compiles `$(shell ls src/*.cpp)`; GPU_FFT.cu beside them (and the header
    only it includes) is compiled by no build of the project."""
    data = scanned(OPTIONAL / "make_shell_ls", rulebase)
    assert part_roots(data) == {"src/GPU_FFT.cu (built by nothing)", "src/GPU_FFT.cuh (built by nothing)"}
    assert statuses(data, "src/") == {"optional"}
    assert {w["class"] for w in data["workloads"]} == {"native"}


@pytest.mark.parametrize("line", ["SRCS:= $(shell ls src/*.cpp src/*.cu)",  # the pattern lists it
                                  "CU_SRCS:= $(shell ls src/*.cu)"])  # another list of the Makefile names it
def test_a_cuda_source_a_make_pattern_lists_is_built(line: str, tmp_path: Path, rulebase) -> None:
    tree = copy(OPTIONAL / "make_shell_ls", tmp_path)
    makefile = tree / "Makefile"
    makefile.write_text(makefile.read_text() + line + "\n")
    data = scanned(tree, rulebase)
    assert not any("built by nothing" in r for r in part_roots(data))
    assert statuses(data, "src/GPU_FFT.cu") == {""}


# --- evaluation and experiment folders (MInference) ---

def test_evaluation_servers_are_an_optional_part_not_the_package(rulebase) -> None:
    data = scanned(OPTIONAL / "eval_folder", rulebase)
    assert {"LeanK/eval", "experiments"} <= part_roots(data)
    assert statuses(data, "LeanK/") == {"optional"} and statuses(data, "experiments/") == {"optional"}
    assert workloads(data)["minference"]["class"] != "incompatible"


def test_the_same_import_in_the_package_is_required(tmp_path: Path, rulebase) -> None:
    tree = copy(OPTIONAL / "eval_folder", tmp_path)
    shutil.copy(tree / "LeanK" / "eval" / "RULER" / "pred" / "serve_trt.py", tree / "minference" / "serve_trt.py")
    data = scanned(tree, rulebase)
    assert statuses(data, "minference/") == {""}
    assert workloads(data)["minference"]["class"] == "incompatible"


# --- folders of code no longer used (fastflow, Heteroflow) ---

@pytest.mark.parametrize(("case", "root"), [("unused_cmake_module", "cmake.modules/unused (no longer used)"),
                                            ("legacy_header", "legacy (no longer used)"),
                                            ("old_sources", "old (no longer used)"),
                                            ("backup_sources", "backup (no longer used)")])
def test_a_folder_of_code_no_longer_used_that_nothing_references_is_optional(case: str, root: str,
                                                                             rulebase) -> None:
    data = scanned(OPTIONAL / case, rulebase)
    assert root in part_roots(data)
    assert statuses(data, root.split(" ", maxsplit=1)[0] + "/") == {"optional"}


@pytest.mark.parametrize(("case", "path", "line"), [
    ("unused_cmake_module", "CMakeLists.txt", "include(${PROJECT_SOURCE_DIR}/cmake.modules/unused/FindCUDA.cmake)\n"),
    ("legacy_header", "unittests/basics.cu", '#include "legacy/20190828/task.hpp"\n'),
    ("old_sources", "src/kudnn.cu", '#include "../old/kudnn4d.cu"\n'),
    ("old_sources", "src/Makefile", "SOURCES = kudnn.cu ../old/kudnn4d.cu\n"),
    ("backup_sources", "Makefile", "OLD = backup/src/propagate-toz-test_CUDA.cu\n")])
def test_a_referenced_legacy_folder_is_required(case: str, path: str, line: str, tmp_path: Path, rulebase) -> None:
    tree = copy(OPTIONAL / case, tmp_path)
    (tree / path).write_text((tree / path).read_text() + line)
    data = scanned(tree, rulebase)
    assert not any("no longer used" in r for r in part_roots(data))


# --- a default-off feature of a ported project (Legion's realm_cuhook) ---

def test_a_default_off_feature_without_a_hip_side_is_optional_in_a_ported_project(rulebase) -> None:
    data = scanned(OPTIONAL / "ported_default_off_feature", rulebase)
    assert statuses(data, "runtime/realm/cuda/cuda_hook.cc") == {"optional"}
    assert statuses(data, "runtime/realm/cuda/cuda_module.cc") == {"ported"}
    # its file is named only under `if(Legion_USE_CUDA)`, beside the HIP branch: left out of the HIP build too
    assert {"build switch REALM_BUILD_CUHOOK", "runtime/realm/cuda/cuda_hook.cc (left out of the HIP build)"} \
        & part_roots(data)
    assert {w["class"] for w in data["workloads"]} == {"native"}


def test_the_same_feature_on_by_default_is_ported(tmp_path: Path, rulebase) -> None:
    tree = copy(OPTIONAL / "ported_default_off_feature", tmp_path)
    cmake = tree / "runtime" / "CMakeLists.txt"
    cmake.write_text(cmake.read_text().replace('injection library" OFF)', 'injection library" ON)'))
    data = scanned(tree, rulebase)
    assert statuses(data, "runtime/realm/cuda/cuda_hook.cc") == {"ported"}


# --- ROCm evidence in a sibling folder does not reach a nested build (sedacs) ---

def test_a_sibling_folders_hip_script_does_not_port_the_nested_cuda_build(rulebase) -> None:
    data = scanned(WORKLOADS / "ported_sibling_folder", rulebase)
    assert statuses(data, "src/pkg/gpu/nvda/") == {""}
    assert statuses(data, "src/pkg/gpu/amd/") == {"ported"}
    by_name = workloads(data)
    assert by_name["libnvda"]["class"] == "migration-required" and by_name["libnvda"]["rocm_path"] == []


@pytest.mark.parametrize("move", ["script_at_top", "cmake_module"])
def test_evidence_above_the_nested_build_or_in_a_build_file_reaches_it(move: str, tmp_path: Path, rulebase) -> None:
    """Near misses: the hipcc build script sits in the top folder (the build that drives nvda/), or a CMake module of
    the project asks for HIP: the ROCm path reaches the nested build, as before."""
    tree = copy(WORKLOADS / "ported_sibling_folder", tmp_path)
    script = tree / "src/pkg/gpu/amd/darwin_shared-gpu-amd-mi250_build.sh"
    if move == "script_at_top":
        script.rename(tree / script.name)
    else:
        script.unlink()
        (tree / "cmake").mkdir()
        (tree / "cmake" / "hip.cmake").write_text("enable_language(HIP)\nfind_package(hip REQUIRED)\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "src/pkg/gpu/nvda/") == {"ported"}
    assert workloads(data)["libnvda"]["class"] == "native"


def test_unreached_lists_nested_builds_without_evidence_that_reaches_them() -> None:
    def cmake(name: str) -> tuple[Fact, ...]:
        return (Fact(kind="cmake_project", name=name, line=1, column=1, end_line=1, end_column=1),)

    facts: dict[str, tuple[Fact, ...]] = {"setup.py": (), "a/CMakeLists.txt": cmake("a"), "b/Makefile": (),
                                          "b/x.cu": (), "c/build.sh": ()}
    kinds = {"setup.py": "python", "a/CMakeLists.txt": "cmake", "b/Makefile": "makefile", "b/x.cu": "cuda",
             "c/build.sh": "shell"}
    sibling = [build_scopes.Evidence("c/build.sh", 3, "build", "hipcc")]
    assert build_scopes.unreached(facts, kinds, sibling, (build_scopes.WHOLE,)) == ("a", "b")
    inside_b = [*sibling, build_scopes.Evidence("b/x.cu", 1, "source", "#include <hip/hip_runtime.h>")]
    assert build_scopes.unreached(facts, kinds, inside_b, (build_scopes.WHOLE,)) == ("a",)
    ci = [*sibling, build_scopes.Evidence(".github/workflows/rocm.yml", 5, "ci", "rocm")]
    assert build_scopes.unreached(facts, kinds, ci, (build_scopes.WHOLE,)) == ()
    at_top = [build_scopes.Evidence("build.sh", 3, "build", "hipcc")]
    assert build_scopes.unreached(facts, kinds, at_top, (build_scopes.WHOLE,)) == ()


# --- a CUDA file with a HIP twin file of its own, in a default-off back end (Elemental, Traccc) ---

def test_a_cuda_file_with_its_own_hip_twin_is_ported_in_a_default_off_backend(rulebase) -> None:
    data = scanned(WORKLOADS / "hip_twin_members", rulebase)
    assert statuses(data, "device/cuBLAS.cpp") == {"ported"}
    assert statuses(data, "device/cuda/src/reify_cluster_data.cu") == {"ported"}
    # near misses: no twin of its own (cuFFT.cpp: no rocFFT/hipFFT file; greedy_ambiguity.cu: only its folder is)
    assert statuses(data, "device/cuFFT.cpp") == {"optional"}
    assert statuses(data, "device/cuda/src/greedy_ambiguity.cu") == {"optional"}


def test_hip_members_are_files_with_a_hip_twin_of_their_own() -> None:
    from migrate.scan.layout import hip_members, hip_twinned

    paths = ["d/cuBLAS.cpp", "d/rocBLAS.cpp", "d/cuFFT.cpp", "d/cuSOLVER_API.cpp", "d/hipSOLVER_API.cpp",
             "t/device/cuda/src/a.cu", "t/device/cuda/src/b.cu", "t/device/hip/src/a.hip",
             "t/tests/device/cuda/propagator_cuda_kernel.cu", "t/tests/device/hip/propagator_hip_kernel.hip"]
    assert hip_twinned(paths) >= {"d/cuBLAS.cpp", "d/cuSOLVER_API.cpp", "t/device/cuda/src/b.cu"}
    assert "d/cuFFT.cpp" not in hip_twinned(paths)
    assert hip_members(paths) == {"d/cuBLAS.cpp", "d/cuSOLVER_API.cpp", "t/device/cuda/src/a.cu",
                                  "t/tests/device/cuda/propagator_cuda_kernel.cu"}


# --- the HIP member of a per-back-end family, CUDA-spelled for torch's hipify (optimum-quanto) ---

def test_the_hip_member_of_a_backend_family_is_ported(rulebase) -> None:
    data = scanned(WORKLOADS / "hip_side_member", rulebase)
    assert statuses(data, "quant/extensions/hip/") == {"ported"}
    assert statuses(data, "quant/extensions/cuda/") == {"ported"}
    assert workloads(data)["quant_hip"]["class"] == "native"
    # near miss: a hip/ folder with no CUDA sibling is no family member; its CUDA spellings stay the project's own
    near = scanned(WORKLOADS / "hip_side_member_near", rulebase)
    assert statuses(near, "quant/extensions/hip/") == {""}
    assert workloads(near)["quant_hip"]["class"] == "minor-adaptation"


def test_hip_sides_are_files_under_a_hip_folder_beside_a_cuda_one() -> None:
    from migrate.scan.layout import hip_sides

    paths = ["e/cuda/unpack.cu", "e/hip/unpack.cu", "e/hip/sub/k.cuh", "e/mps/unpack.mm", "lone/hip/a.cu",
             "f/nvidia/x.cu", "f/rocm/x.cpp", "g/hipster/a.cu", "g/cuda/a.cu"]
    assert hip_sides(paths) == {"e/hip/unpack.cu", "e/hip/sub/k.cuh", "f/rocm/x.cpp"}


# --- sources a Makefile names only away from the branches where it builds with hipcc (p2z-tests) ---

def test_sources_make_names_only_outside_its_hipcc_branches_are_not_ported(rulebase) -> None:
    data = scanned(WORKLOADS / "ported_make_branches", rulebase)
    # MODE=cudav1 only, a branch off by default: an optional part, its name resolved by the recipe's ./src/
    assert statuses(data, "src/propagate-toz-test_CUDA_v1.cu") == {"optional"}
    assert statuses(data, "src/propagate-toz-test_Eigen.cu") == {""}  # the default nvcc build, via ./src/$(CSRCS)
    assert statuses(data, "src/kokkos_src/") == {"ported"}
    assert workloads(data)["ported_make_branches"]["class"] == "migration-required"
    # near miss: the hipcc branch names the CUDA source itself, so the HIP build compiles it
    near = scanned(WORKLOADS / "ported_make_branches_near", rulebase)
    assert statuses(near, "src/propagate-toz-test_CUDA_v1.cu") == {"ported"}
    assert statuses(near, "src/propagate-toz-test_Eigen.cu") == {""}


def test_a_makefile_with_an_unconditional_hipcc_scopes_nothing() -> None:
    from migrate.workloads.make_hip_branches import outside_hip_branches

    def fact(kind: str, name: str, line: int, end: int | None = None, text: str = "") -> Fact:
        return Fact(kind=kind, name=name, line=line, column=1, end_line=end or line, end_column=1, text=text)

    branch = fact("switch_branch", "MODE_CUDA", 4, 6, "make: MODE=cuda")
    kinds = {"Makefile": "makefile", "k.cu": "cuda"}
    inside = {"Makefile": [fact("rocm_path", "build", 2, text="hipcc"), branch, fact("build_source", "k.cu", 5)],
              "k.cu": []}
    assert outside_hip_branches(inside, kinds) == {}  # hipcc outside every branch: the whole Makefile is HIP's
    scoped = {"Makefile": [fact("switch_branch", "COMPILER_HIPCC", 1, 3, "make: COMPILER=hipcc"),
                           fact("rocm_path", "build", 2, text="hipcc"), branch, fact("build_source", "k.cu", 5)],
              "k.cu": []}
    assert set(outside_hip_branches(scoped, kinds)) == {"k.cu"}


def test_a_bare_name_make_compiles_resolves_through_its_recipes_folder() -> None:
    from migrate.workloads.build_sources import named_by_make, recipe_folders

    def fact(kind: str, name: str, line: int) -> Fact:
        return Fact(kind=kind, name=name, line=line, column=1, end_line=line, end_column=1, text="")

    files = frozenset({"Makefile", "src/k.cu", "backup/k.cu", "backup/src/k.cu", "src/only.cu", "a/two.cu", "b/two.cu"})
    items = [fact("make_source", "src/main.cpp", 9)]
    folders = recipe_folders("Makefile", items)
    assert folders == {"src"}
    assert named_by_make("Makefile", fact("build_source", "k.cu", 3), files, folders) == ["src/k.cu"]
    assert named_by_make("Makefile", fact("build_source", "only.cu", 3), files, frozenset()) == ["src/only.cu"]
    assert named_by_make("Makefile", fact("build_source", "two.cu", 3), files, folders) == []  # two as near


# --- a PyTorch extension built for an AMD target (makora-ai/kernels AMD_MI300X) ---

def test_an_extension_built_for_an_amd_target_is_ported(rulebase) -> None:
    data = scanned(WORKLOADS / "amd_extension_build", rulebase)
    assert statuses(data, "rmsnorm/custom/csrc/") == {"ported"}
    assert statuses(data, "rmsnorm/compile_ext.py") == {"ported"}  # the load() call itself
    assert workloads(data)["rmsnorm"]["class"] == "native"
    # near miss: the same load with an NVIDIA target (`sm_80`): nothing credited
    near = scanned(WORKLOADS / "amd_extension_build_near", rulebase)
    assert statuses(near, "rmsnorm/custom/csrc/") == {""}
    assert workloads(near)["rmsnorm"]["class"] == "migration-required"


def test_extension_targets_are_read_from_lists_names_and_dicts() -> None:
    from migrate.extract.python.extractor import extract

    text = ("from torch.utils.cpp_extension import CUDAExtension, load\n"
            "flags = ['-O3', '--offload-arch=gfx90a']\n"
            "load(name='a', sources=['a.cu'], extra_cuda_cflags=flags)\n"
            "CUDAExtension('b', ['b.cu'], extra_compile_args={'cxx': ['-O2'], 'nvcc': ['--amdgpu-target=gfx908']})\n"
            "load(name='c', sources=['c.cu'], extra_cuda_cflags=['-arch=sm_80'])\n")
    found = [(f.name, f.line, f.text) for f in extract(text.encode()).facts
             if f.kind == "extension_target"]
    assert found == [("--offload-arch=gfx90a", 3, "a.cu"), ("--amdgpu-target=gfx908", 4, "b.cu")]


def test_only_amd_targets_credit_an_extension_build() -> None:
    from migrate.workloads.amd_extensions import built_for_amd

    def target(flag: str) -> Fact:
        return Fact(kind="extension_target", name=flag, line=9, column=1, end_line=9, end_column=1,
                    text="csrc/k.cu\nmissing.cu")

    files = {"p/build.py": [target("--offload-arch=gfx942"), target("--offload-arch=sm_80")], "p/ext/csrc/k.cu": [],
             "q/csrc/k.cu": []}
    builds = built_for_amd(files)
    assert builds.sources == {"p/ext/csrc/k.cu"} and builds.calls == {("p/build.py", 9)}
    assert built_for_amd({"p/build.py": [target("--offload-arch=sm_80")], "p/ext/csrc/k.cu": []}).calls == frozenset()



def test_the_offload_flags_are_one_data_list_for_extraction_and_the_amd_reading() -> None:
    """rules/names/build.yaml `offload_arch_flags` is the only spelling of the flags: every flag of it is recorded
    and credited with an AMD value (backends.yaml `amd_offload_target`, quoted or not); a flag outside it is not."""
    from migrate.extract.names import name_list
    from migrate.extract.python.extractor import extract
    from migrate.workloads.amd_extensions import built_for_amd

    flags = sorted(name_list("build", "offload_arch_flags"))
    assert flags == ["--amdgpu-target=", "--offload-arch="]
    head = "from torch.utils.cpp_extension import load\nload(name='a', sources=['a.cu'], extra_cuda_cflags="
    for flag in flags:
        facts = [f for f in extract(f"{head}['{flag}\"gfx942\"'])\n".encode()).facts if f.kind == "extension_target"]
        assert [f.name for f in facts] == [f'{flag}"gfx942"']
        assert built_for_amd({"a.py": facts, "a.cu": []}).sources == {"a.cu"}
    near = f"{head}['--cuda-gpu-arch=gfx942'])\n"  # clang's CUDA spelling, no offload flag of the list
    assert not [f for f in extract(near.encode()).facts if f.kind == "extension_target"]

# --- copies of NVIDIA's CUDA Samples utilities built by nothing (precision sample 27, StiffMa's Utils/) ---

def test_cuda_samples_utilities_no_build_names_are_optional(rulebase) -> None:
    data = scanned(WORKLOADS / "sample_copies", rulebase)
    assert statuses(data, "Utils/") == {"optional"}
    assert statuses(data, "tbx/") == {""}  # the project's own kernel keeps its class
    assert workloads(data)["tbx"]["class"] == "migration-required"
    parts = workloads(data)["Utils"]["optional_parts"]
    assert any("CUDA Samples utility deviceQuery" in e for p in parts for e in p["evidence"])
    # near miss: a Makefile builds the same copies: required code
    near = scanned(WORKLOADS / "sample_copies_near", rulebase)
    assert statuses(near, "Utils/deviceQuery.cpp") == {""} and statuses(near, "Utils/bandwidthTest.cu") == {""}
    assert workloads(near)["Utils"]["class"] == "migration-required"


def test_a_tree_of_sample_copies_only_keeps_them(tmp_path) -> None:
    from migrate.workloads.optional_words import words
    from migrate.workloads.sample_copies import copied_samples

    kinds = {"Utils/deviceQuery.cpp": "cpp", "Utils/bandwidthTest.cu": "cuda"}
    facts: dict[str, list[Fact]] = {p: [] for p in kinds}
    assert copied_samples(facts, kinds, words()) == {}  # nothing of the project's own beside them
    kinds["src/k.cu"], facts["src/k.cu"] = "cuda", []
    assert set(copied_samples(facts, kinds, words())) == {"Utils/deviceQuery.cpp", "Utils/bandwidthTest.cu"}
    include = Fact(kind="include", name="deviceQuery.cpp", line=1, column=1, end_line=1, end_column=1)
    facts["src/k.cu"] = [include]  # a source that includes a copy makes it the project's
    assert set(copied_samples(facts, kinds, words())) == {"Utils/bandwidthTest.cu"}
