"""Required is what the default build reaches (issue 28): a part with a build of its own that the project's default
build does not reach is optional, with the root and what it reaches as evidence (workloads/reach.py). Each fixture is
cut from a real case (its README says where); each near miss puts the part back in the default build's reach, and it
is then required."""
from __future__ import annotations

from pathlib import Path

from migrate.extract.text import buildfiles
from migrate.extract.text.cargo import extract as cargo
from migrate.workloads.parts import words
from migrate.workloads.reach import default_features, unreached
from migrate.workloads.switches import never_set
from tests.conftest import copied_tree
from tests.test_optional_parts import CASES, optional_parts, report, scanned

CARGO = "cargo_member_not_default"
CMAKE = "cmake_folder_not_added"
KERNEL = "cuda/src/kernels/cu/binary.cu"


def statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def edited(case: str, tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """A copy of fixture case `case` under `tmp_path` with each {path: (old, new)} edit made."""
    return copied_tree(CASES / case, tmp_path, [(path, old, new) for path, (old, new) in edits.items()])


def test_a_workspace_member_no_default_member_reaches_is_optional(rulebase) -> None:
    """tract: `default-members` leaves out the CUDA crate; the Rust API depends on it only through a feature."""
    data = report(CARGO, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["cuda (not reached by the default build)"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0].startswith("Cargo.toml:")
    assert "default-members" in part["evidence"][0] and "cuda/Cargo.toml" in part["evidence"][0]
    for path in (KERNEL, "cuda/src/kernels/cu/common.cuh"):
        assert statuses(data, path) == {"optional"}, path


def test_a_member_a_default_feature_reaches_is_required(tmp_path: Path, rulebase) -> None:
    """tract itself: the C API's default features turn on the Rust API's `cuda-13000`, which turns on tract-cuda."""
    tree = edited(CARGO, tmp_path, {"api/ffi/Cargo.toml": ("default = []", 'default = ["cuda-13000"]')})
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}


def test_a_default_member_is_required(tmp_path: Path, rulebase) -> None:
    tail = '    "api/ffi",\n]\n\n[workspace.dep'
    tree = edited(CARGO, tmp_path, {"Cargo.toml": (tail, tail.replace('"api/ffi",', '"api/ffi",\n    "cuda",'))})
    assert statuses(scanned(tree, rulebase), KERNEL) == {""}


def test_a_virtual_workspace_without_default_members_builds_every_member(tmp_path: Path, rulebase) -> None:
    tree = edited(CARGO, tmp_path, {"Cargo.toml": ("default-members = [", "not-default-members = [")})
    assert statuses(scanned(tree, rulebase), KERNEL) == {""}


def test_cargo_facts_read_members_dependencies_and_features() -> None:
    facts = cargo((CASES / CARGO / "api/rs/Cargo.toml").read_bytes()).facts
    dep = next(f for f in facts if f.kind == "cargo_dependency" and f.name == "tract-cuda")
    assert (dep.text, dep.role.split(), dep.line) == ("workspace", ["optional", "no-default-features"], 11)
    feature = next(f for f in facts if f.kind == "cargo_feature" and f.name == "cuda-13000")
    assert feature.text.split("\n") == ["cuda", "dep:tract-cuda", "tract-cuda/cuda-13000"]
    root = cargo((CASES / CARGO / "Cargo.toml").read_bytes()).facts
    assert {(f.name, f.text, f.line) for f in root if f.kind == "cargo_member"} == {
        ("core", "default", 4), ("api/rs", "default", 5), ("api/ffi", "default", 6), ("cuda", "not-default", 7)}
    assert cargo(b"[workspace\nmembers = [").notes  # unreadable TOML: a note, no facts


def test_a_member_glob_naming_no_crate_says_nothing() -> None:
    facts = {"Cargo.toml": cargo(b'[workspace]\nmembers = ["crates/*", "cuda"]\ndefault-members = ["crates/*"]\n').facts,
             "cuda/Cargo.toml": cargo(b'[package]\nname = "x-cuda"\n').facts}
    kinds = dict.fromkeys([*facts, "cuda/k.cu"], "cargo")
    assert unreached(facts, kinds) == {}  # crates/* names no crate the scan sees: what the default builds is unknown


def test_a_folder_no_add_subdirectory_reaches_is_optional(rulebase) -> None:
    """A CMake template: `# add_subdirectory(cuda_sample)` is commented out; cuda_sample/ is a build of its own."""
    data = report(CMAKE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["cuda_sample (not reached by the default build)"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0].startswith("cuda_sample/CMakeLists.txt: a build of its own")
    assert statuses(data, "cuda_sample/vec_add.cu") == {"optional"}


def test_a_folder_add_subdirectory_reaches_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CMAKE, tmp_path, {"CMakeLists.txt": ("# add_subdirectory(cuda_sample)", "add_subdirectory(cuda_sample)")})
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "cuda_sample/vec_add.cu") == {""}


def test_a_makefile_below_a_folder_no_add_subdirectory_reaches_goes_with_it(tmp_path: Path, rulebase) -> None:
    """A Makefile's folder owns its files only for the make reading (session 35): CMake never runs cuda_sample/tools/
    Makefile, so its kernel is cuda_sample/'s, optional, as it was before that reading."""
    tree = edited(CMAKE, tmp_path, {})
    (tree / "cuda_sample/tools").mkdir()
    (tree / "cuda_sample/tools/Makefile").write_text("all: k\nk: k.cu\n\tnvcc -o k k.cu\n")
    (tree / "cuda_sample/tools/k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k() {}\n"
                                                 "int main() { cudaMalloc(0, 0); }\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, "cuda_sample/tools/k.cu") == {"optional"}


def test_a_header_reached_code_includes_stays_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CMAKE, tmp_path, {"src/main.cpp": ("#include <iostream>", '#include <iostream>\n#include "vec_add.h"')})
    (tree / "cuda_sample/vec_add.h").write_text("#pragma once\n#include <cuda_runtime.h>\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "cuda_sample/vec_add.h") == {""}
    assert statuses(data, "cuda_sample/vec_add.cu") == {"optional"}


def test_a_folder_named_through_a_variable_or_another_root_says_nothing(tmp_path: Path, rulebase) -> None:
    for name, edits in {"variable": {"CMakeLists.txt": ("add_subdirectory(src)", "add_subdirectory(${SUB})")},
                        "setup": {}}.items():
        tree = edited(CMAKE, tmp_path / name, edits)
        if name == "setup":  # a setup.py beside the top CMakeLists.txt may configure any folder itself
            (tree / "setup.py").write_text("from setuptools import setup\nsetup(name='x')\n")
        assert statuses(scanned(tree, rulebase), "cuda_sample/vec_add.cu") == {""}, name


def test_an_else_ifeq_chain_is_read_test_by_test() -> None:
    """lys (diku-dk/lys setup_flags.mk): `LYS_BACKEND?=opencl`, then `else ifeq ($(LYS_BACKEND),cuda)`."""
    text = (b"LYS_BACKEND?=opencl\nifeq ($(LYS_BACKEND),opencl)\nDEVICE_LDFLAGS=-lOpenCL\n"
            b"else ifeq ($(LYS_BACKEND),cuda)\nDEVICE_LDFLAGS=-lcuda -lnvrtc -lcudart\nelse\n$(error no)\nendif\n")
    facts = buildfiles.makefile(text).facts
    assert {(f.name, f.line, f.end_line) for f in facts if f.kind == "switch_branch"} == {
        ("LYS_BACKEND_OPENCL", 2, 4), ("LYS_BACKEND_CUDA", 4, 6)}
    assert {(f.name, f.text) for f in facts if f.kind == "build_switch"} == {
        ("LYS_BACKEND_OPENCL", "ON make"), ("LYS_BACKEND_CUDA", "OFF make")}


FILTER = "cmake_filter_out_cuda"


def test_sources_a_default_branch_filters_out_of_the_list_are_the_switchs(rulebase) -> None:
    """GraPaSim: `if(NOT CUDA) list(FILTER MY_SRC EXCLUDE REGEX ".*\\.cu")` after a glob of *.cpp and *.cu."""
    data = report(FILTER, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch CUDA"]
    assert part["class"] == "migration-required"
    assert "src/CMakeLists.txt:8 if(NOT CUDA) list(FILTER MY_SRC EXCLUDE REGEX .*\\.cu)" in part["evidence"]
    assert statuses(data, "src/Particles/LinkedCellsImpl.cu") == {"optional"}


def test_a_filter_under_another_switch_keeps_the_sources(tmp_path: Path, rulebase) -> None:
    tree = edited(FILTER, tmp_path, {"src/CMakeLists.txt": ("if(NOT CUDA)", "if(NOT ENABLE_VTK)")})
    data = scanned(tree, rulebase)
    assert statuses(data, "src/Particles/LinkedCellsImpl.cu") == {""}


def test_a_filter_fact_needs_a_negated_switch_at_the_top_level() -> None:
    def filters(text: bytes) -> list[tuple[str, str]]:
        return [(f.name, f.text) for f in buildfiles.cmake(text).facts if f.kind == "build_filter"]

    assert filters(b'if(NOT CUDA)\n  list(FILTER SRC EXCLUDE REGEX ".*\\\\.cu")\nendif()\n') == [(r".*\.cu", "SRC CUDA")]
    assert filters(b'if(NOT CUDA)\nelse()\n  list(FILTER SRC EXCLUDE REGEX ".*\\\\.cu")\nendif()\n') == []
    assert filters(b'list(FILTER SRC EXCLUDE REGEX ".*\\\\.cu")\n') == []
    assert filters(b'if(NOT CUDA)\n  list(FILTER SRC INCLUDE REGEX ".*\\\\.cu")\nendif()\n') == []


FOLDER_CUT = "cmake_folder_filtered_out"
GPU_INDEX = "engine/index/impl/gpu/gamma_index_ivfpq_gpu.cc"
CUT = ('if(NOT BUILD_WITH_GPU)\n    list(FILTER ALL_SOURCES EXCLUDE REGEX "${CMAKE_CURRENT_SOURCE_DIR}/index/impl/gpu/.*")'
       '\nendif()')


def test_a_folder_the_default_branch_filters_out_by_its_full_path_is_the_switchs(rulebase) -> None:
    """vearch: `if(NOT BUILD_WITH_GPU) list(FILTER ALL_SOURCES EXCLUDE REGEX "${CMAKE_CURRENT_SOURCE_DIR}/index/impl/
    gpu/.*")` after a glob of every .cc below the folder: the expression is written against the glob's absolute paths."""
    data = report(FOLDER_CUT, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch BUILD_WITH_GPU"]
    assert part["class"] == "minor-adaptation"
    assert ("engine/CMakeLists.txt:16 if(NOT BUILD_WITH_GPU) list(FILTER ALL_SOURCES EXCLUDE REGEX "
            "${CMAKE_CURRENT_SOURCE_DIR}/index/impl/gpu/.*)") in part["evidence"]
    assert statuses(data, GPU_INDEX) == statuses(data, "engine/index/impl/gpu/gamma_gpu_index_base.h") == {"optional"}


def test_an_item_the_else_branch_removes_is_the_switchs(tmp_path: Path, rulebase) -> None:
    """Graphitti: `if(ENABLE_CUDA) ... else() list(REMOVE_ITEM Vertices_Source "${CMAKE_CURRENT_SOURCE_DIR}/.../
    AllLIFNeurons_d.cpp") endif()`: the branch taken while the switch is off drops the item from the globbed list."""
    removed = ('if(BUILD_WITH_GPU)\nelse()\n    list(REMOVE_ITEM ALL_SOURCES "${CMAKE_CURRENT_SOURCE_DIR}/'
               'index/impl/gpu/gamma_index_ivfpq_gpu.cc")\nendif()')
    data = scanned(edited(FOLDER_CUT, tmp_path, {"engine/CMakeLists.txt": (CUT, removed)}), rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, GPU_INDEX) == {"optional"}


def test_a_cut_the_default_build_does_not_make_keeps_the_folder_required(tmp_path: Path, rulebase) -> None:
    """Near misses: the filter in the branch taken while the switch is on; an expression naming another folder; an item
    written without the folder, which matches none of the glob's absolute paths (CMake removes nothing)."""
    misses = {"on": CUT.replace("if(NOT BUILD_WITH_GPU)", "if(BUILD_WITH_GPU)"),
              "other": CUT.replace("impl/gpu/", "impl/diskann/"),
              "relative": 'if(NOT BUILD_WITH_GPU)\n    list(REMOVE_ITEM ALL_SOURCES index/impl/gpu/gamma_index_ivfpq_gpu.cc)'
                          '\nendif()'}
    for name, text in misses.items():
        data = scanned(edited(FOLDER_CUT, tmp_path / name, {"engine/CMakeLists.txt": (CUT, text)}), rulebase)
        assert data["summary"]["class"] == "minor-adaptation", name
        assert statuses(data, GPU_INDEX) == {""}, name


def test_a_filter_fact_is_read_in_the_branch_a_build_takes_while_the_switch_is_off() -> None:
    def filters(text: bytes) -> list[tuple[str, str]]:
        return [(f.name, f.text) for f in buildfiles.cmake(text).facts if f.kind == "build_filter"]

    assert filters(b"if(USE_GPU)\nelse()\n  list(REMOVE_ITEM SRC a.cu b.cu)\nendif()\n") == [
        ("a.cu", "SRC USE_GPU REMOVE_ITEM"), ("b.cu", "SRC USE_GPU REMOVE_ITEM")]
    assert filters(b'if(USE_GPU)\nelse()\n  list(FILTER SRC EXCLUDE REGEX "gpu/")\nendif()\n') == [("gpu/", "SRC USE_GPU")]
    assert filters(b"if(USE_GPU)\n  list(REMOVE_ITEM SRC a.cu)\nendif()\n") == []
    assert filters(b"if(USE_GPU)\nelseif(WIN32)\n  list(REMOVE_ITEM SRC a.cu)\nelse()\n  list(REMOVE_ITEM SRC b.cu)"
                   b"\nendif()\n") == []
    assert filters(b'if("USE_GPU")\nelse()\n  list(REMOVE_ITEM SRC a.cu)\nendif()\n') == []


def test_a_folder_another_cmakelists_includes_by_path_is_reached(tmp_path: Path, rulebase) -> None:
    """flashlight's shape: `include(${CMAKE_CURRENT_LIST_DIR}/backend/cudnn/CMakeLists.txt)` reads that folder's file."""
    tree = edited(CMAKE, tmp_path, {"CMakeLists.txt": ("# add_subdirectory(cuda_sample)",
                                                       "include(${CMAKE_CURRENT_LIST_DIR}/cuda_sample/CMakeLists.txt)")})
    assert statuses(scanned(tree, rulebase), "cuda_sample/vec_add.cu") == {""}


DEFINED = "cmake_defined_switch"
MATCHER = "src/featureMatching/featureMatchingCUDA.cpp"


def test_a_defined_test_of_a_variable_nothing_sets_is_an_optional_switch(rulebase) -> None:
    """slam-indoor-code: `if (DEFINED USE_CUDA)` adds the OpenCV CUDA matcher; only rebuild_and_run_cuda.sh, the CUDA
    variant of rebuild_and_run.sh, passes `-D USE_CUDA=YES`."""
    data = report(DEFINED, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch DEFINED USE_CUDA"]
    assert part["class"] == "migration-required"  # OpenCV's CUDA modules (HIP0044): AMD's HIP port, s29 record
    assert part["evidence"][0] == ("CMakeLists.txt:13 if(DEFINED USE_CUDA) (no build file sets USE_CUDA) default OFF")
    assert statuses(data, MATCHER) == {"optional"}


def test_a_defined_test_of_a_declared_or_default_passed_variable_is_required(tmp_path: Path, rulebase) -> None:
    """DEFINED is true wherever the variable is set: by an option() (ON here: an OFF one is read by the C macro's own
    `#ifdef USE_CUDA` as off), by a -D the default script passes; and a CUDA script with no plain sibling is the build."""
    declared = {"CMakeLists.txt": ("find_package( OpenCV REQUIRED )",
                                   'option(USE_CUDA "Use CUDA" ON)\nfind_package( OpenCV REQUIRED )')}
    passed = {"rebuild_and_run.sh": ("cmake . -B build", "cmake . -B build -D USE_CUDA=YES")}
    for number, edits in enumerate((declared, passed)):
        tree = edited(DEFINED, tmp_path / str(number), edits)
        assert statuses(scanned(tree, rulebase), MATCHER) == {""}, edits
    alone = edited(DEFINED, tmp_path / "alone", {})
    (alone / "rebuild_and_run.sh").unlink()
    assert statuses(scanned(alone, rulebase), MATCHER) == {""}


def test_a_defined_test_reads_no_plain_switch_and_no_parsed_argument() -> None:
    """`if(DEFINED X)` is the switch `DEFINED X`, not X's own branch; cmake_parse_arguments(arg ...) sets arg_<KEY>."""
    text = (b"cmake_parse_arguments(arg \"\" \"\" \"\" ${ARGN})\nif(DEFINED arg_USE_CUDA)\n  set(x y)\nendif()\n"
            b"if(NOT DEFINED USE_HIP)\nendif()\nif(DEFINED USE_CUDA)\nendif()\n")
    facts = buildfiles.cmake(text).facts
    assert [(f.name, f.line) for f in facts if f.kind == "switch_branch"] == [
        ("DEFINED arg_USE_CUDA", 2), ("DEFINED USE_CUDA", 7)]
    assert [f.text for f in facts if f.kind == "cmake" and f.name == "cmake_parse_arguments"] == ["arg"]
    assert set(never_set({"CMakeLists.txt": facts}, {"CMakeLists.txt": "cmake"}, words())) == {"DEFINED USE_CUDA"}



ENVIRONMENT = "cmake_defined_environment"
KERNEL_UNIT = "src/SortVertices/sort_vert_kernel.cu"


def test_a_defined_test_of_an_environment_variable_is_an_optional_switch(rulebase) -> None:
    """lantern: `if(DEFINED ENV{CUDA} ...)` enables CUDA and adds the kernel; nothing of the project sets ENV{CUDA}."""
    data = report(ENVIRONMENT, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, KERNEL_UNIT) == {"optional"}
    assert any(root.startswith("build switch DEFINED ") for root in optional_parts(data))


def test_a_defined_test_of_an_environment_variable_the_project_sets_is_required(tmp_path: Path, rulebase) -> None:
    """`set(ENV{CUDA} ...)` in the project's CMake defines the variable: the branch is the default build's."""
    tree = edited(ENVIRONMENT, tmp_path, {"CMakeLists.txt": ("set(CMAKE_CXX_STANDARD 17)",
                                                             'set(CMAKE_CXX_STANDARD 17)\nset(ENV{CUDA} "12.8")')})
    assert statuses(scanned(tree, rulebase), KERNEL_UNIT) == {""}


def test_a_defined_environment_test_is_read_as_its_own_switch() -> None:
    """`DEFINED ENV{X}` is the switch `DEFINED ENV{X}`; NOT DEFINED and a ROCm variable are no switch of this kind."""
    text = (b"if(DEFINED ENV{CUDA} AND NOT \"$ENV{CUDA}\" STREQUAL \"\")\nendif()\nif(NOT DEFINED ENV{TORCH_URL})\nendif()\n"
            b"if(DEFINED ENV{ROCM_PATH})\nendif()\n")
    facts = buildfiles.cmake(text).facts
    assert [(f.name, f.line) for f in facts if f.kind == "switch_branch"] == [("DEFINED ENV{CUDA}", 1)]
    assert set(never_set({"CMakeLists.txt": facts}, {"CMakeLists.txt": "cmake"}, words())) == {"DEFINED ENV{CUDA}"}


def test_an_excluded_member_asks_no_features_of_its_dependencies() -> None:
    """`exclude` takes a crate out of a workspace's default build (every member, no default-members): the features
    it asks of another crate are not asked by `cargo build` at the root (reach.default_features, as _cargo_unreached)."""
    facts = {"Cargo.toml": cargo(b'[workspace]\nmembers = ["crates/*"]\nexclude = ["crates/gpu"]\n').facts,
             "crates/gpu/Cargo.toml": cargo(b'[package]\nname = "gpu"\n[dependencies]\n'
                                            b'core = { path = "../core", features = ["cuda"] }\n').facts,
             "crates/core/Cargo.toml": cargo(b'[package]\nname = "core"\n[features]\ncuda = []\n').facts}
    assert default_features(facts)["crates/core"] == {"default"}
