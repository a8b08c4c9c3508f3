"""Macros every build of the project defines, and the branches they switch off (fixtures/workloads/optional/
project_wide_define, cut from matt-42/cuimg e2d2b8bc, with near misses; docs/decisions/2026-12-06-s26-project-wide-defines.md)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.extract.c import guards
from migrate.extract.text import cmakelists
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

CASE = ROOT / "fixtures" / "workloads" / "optional" / "project_wide_define"
OFF = "cuimg/copy.h:9-16 (off in every build)"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def statuses(data: dict, path: str) -> set[str]:
    found = {f["status"] for f in data["findings"] if f["path"] == path}
    assert found, path
    return found


def parts(data: dict) -> dict[str, dict]:
    return {p["root"]: p for w in data["workloads"] for p in w["optional_parts"]}


def edited(tmp_path: Path, path: str, old: str, new: str) -> Path:
    tree = Path(shutil.copytree(CASE, tmp_path / "case"))
    file = tree / path
    text = file.read_text() if file.exists() else ""
    assert old in text, (path, old)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text.replace(old, new, 1))
    return tree


@pytest.mark.parametrize(("source", "expected"), [
    (b"#ifndef NO_CUDA\nint a;\n#endif\n", [("NO_CUDA", 0)]),
    (b"#if !defined(NO_CUDA)\nint a;\n#endif\n", [("NO_CUDA", 0)]),
    (b"#ifdef NO_CUDA\nint a;\n#else\nint b;\n#endif\n", [("NO_CUDA", 1)]),
    (b"#if defined(NO_CUDA)\nint a;\n#else\nint b;\n#endif\n", [("NO_CUDA", 1)]),
    (b"#ifndef GPU_H_\n#define GPU_H_\n#endif\n", []),  # an include guard: the file defines it
    (b"#ifndef BLOCK\n#define BLOCK 32\n#endif\n", []),  # a default the file gives
    (b"#if NO_CUDA\nint a;\n#else\nint b;\n#endif\n", []),  # a value test: -DNO_CUDA=0 takes the #else
    (b"#ifndef __CUDACC__\nint a;\n#endif\n", []),  # a compiler's own macro
    (b"#if !defined(NO_CUDA) && defined(X)\nint a;\n#endif\n", []),  # two terms
    (b"#ifdef NO_CUDA\nint a;\n#elif X\nint b;\n#else\nint c;\n#endif\n", []),  # an #elif before the #else
])
def test_branches_taken_only_while_a_macro_is_undefined(source: bytes, expected: list[tuple[str, int]]) -> None:
    chain = guards.text_chains(source)[0]
    found = guards.unless_branches(chain, source)
    assert [(name, [b[2] for b in chain].index(start)) for name, start, _ in found] == expected


def top_definitions(source: str) -> list[tuple[str, int]]:
    return [(f.name, f.line) for f in cmakelists.extract(source.encode()).facts if f.kind == "flag" and f.role == "top"]


def test_the_cmake_extractor_marks_the_definitions_every_configure_runs() -> None:
    """The fixture's CMakeLists.txt (cut from cuimg's): ADD_DEFINITIONS at the top level (:6, :8) is marked `top`, the
    one under `IF (NOT CUDA_FOUND)` (:11) is not; project_defines reads the mark instead of counting blocks again."""
    source = (CASE / "CMakeLists.txt").read_text()
    assert top_definitions(source) == [("-DNDEBUG", 6), ("-DWITH_OPENCV", 6), ("-DNO_CUDA", 8)]


@pytest.mark.parametrize(("source", "expected"), [
    ("add_compile_definitions(NO_CUDA)\n", [("-DNO_CUDA", 1)]),
    ("add_definitions(\n  -DNO_CUDA\n)\n", [("-DNO_CUDA", 2)]),
    ("if(WIN32)\nendif()\nadd_definitions(-DNO_CUDA)\n", [("-DNO_CUDA", 3)]),  # after a closed block
    # near misses: in a block, one target's definition, a compiler flag that only looks like one
    ("if(NOT CUDA_FOUND)\n  add_definitions(-DNO_CUDA)\nendif()\n", []),
    ("function(cpu_only)\n  add_compile_definitions(NO_CUDA)\nendfunction()\n", []),
    ("foreach(x a b)\n  add_definitions(-DNO_CUDA)\nendforeach()\n", []),
    ("add_library(cuimg a.cpp)\ntarget_compile_definitions(cuimg PRIVATE NO_CUDA)\n", []),
    ("set(CMAKE_CXX_FLAGS \"-DNO_CUDA\")\n", []),
])
def test_top_definitions_and_near_misses(source: str, expected: list[tuple[str, int]]) -> None:
    assert top_definitions(source) == expected


def test_gpu_code_under_ifndef_of_a_macro_every_build_defines_is_off(rulebase) -> None:
    """cuimg's top CMakeLists.txt adds -DNO_CUDA outside every block (and again under `IF (NOT CUDA_FOUND)`): the
    library it builds never compiles copy.h's `#ifndef NO_CUDA` cudaMemcpy2D."""
    data = scanned(CASE, rulebase)
    assert statuses(data, "cuimg/copy.h") == {"optional"}
    assert parts(data)[OFF]["evidence"] == [
        "cuimg/copy.h:9 #ifndef NO_CUDA: taken only while NO_CUDA is undefined, and every build of the project that "
        "compiles a file testing NO_CUDA defines it (CMakeLists.txt:8 add_definitions(-DNO_CUDA), in no block)"]
    assert data["summary"]["class"] == "minor-adaptation"  # find_package(CUDA) is all that is left


def test_ifdef_nvcc_is_a_switch_nothing_defines(rulebase) -> None:
    """device_image2d_math.h's kernels sit under `# ifdef NVCC`; nvcc defines __NVCC__, and no build passes -DNVCC."""
    data = scanned(CASE, rulebase)
    assert statuses(data, "cuimg/gpu/device_image2d_math.h") == {"optional"}
    assert parts(data)["build switch NVCC"]["evidence"][0] == \
        "cuimg/gpu/device_image2d_math.h:4 # ifdef NVCC (nothing in the project defines NVCC) default OFF"


@pytest.mark.parametrize(("path", "old", "new"), [
    # defined only where CUDA is not found: a build with CUDA compiles the branch
    ("CMakeLists.txt", "ADD_DEFINITIONS(-DNO_CUDA)\n", ""),
    # inside a function(): defined only where it is called
    ("CMakeLists.txt", "ADD_DEFINITIONS(-DNO_CUDA)\n", "function(cpu_only)\n  ADD_DEFINITIONS(-DNO_CUDA)\nendfunction()\n"),
    # a second CMake build compiling copy.h without the define
    ("tools/CMakeLists.txt", "", "project(tool)\nadd_executable(tool main.cpp)\n"),
    # ... or one whose sources the tool cannot place
    ("tools/CMakeLists.txt", "", "project(tool)\nadd_executable(tool ${TOOL_DIR}/main.cpp)\n"),
    # a Makefile beside the CMake build may compile anything
    ("Makefile", "", "all:\n\tg++ -c cuimg/load_image.cpp\n"),
    # a value test, not whether it is defined: not this reading's
    ("cuimg/copy.h", "#ifndef NO_CUDA", "#if NO_CUDA == 0"),
])
def test_near_misses_keep_the_branch_required(tmp_path: Path, path: str, old: str, new: str, rulebase) -> None:
    tree = edited(tmp_path, path, old, new)
    if path == "tools/CMakeLists.txt":
        (tree / "tools" / "main.cpp").write_text("#include <cuimg/copy.h>\nint main() { return 0; }\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "cuimg/copy.h") == {""}
    assert OFF not in parts(data)


def test_a_build_that_passes_dnvcc_turns_the_nvcc_branch_on(tmp_path: Path, rulebase) -> None:
    tree = edited(tmp_path, "CMakeLists.txt", "ADD_DEFINITIONS(-DNO_CUDA)\n",
                  "ADD_DEFINITIONS(-DNO_CUDA)\nSET(CUDA_NVCC_FLAGS -DNVCC)\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "cuimg/gpu/device_image2d_math.h") == {""}


def test_one_targets_definition_is_not_every_builds(tmp_path: Path, rulebase) -> None:
    """The same define given to the library target alone (target_compile_definitions), not to the folder: not read
    as every build's (another target may compile the file without it), so copy.h's branch stays required."""
    tree = edited(tmp_path, "CMakeLists.txt", "ADD_DEFINITIONS(-DNO_CUDA)\n", "")
    listing = tree / "CMakeLists.txt"
    listing.write_text(listing.read_text() + "target_compile_definitions(cuimg PRIVATE NO_CUDA)\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "cuimg/copy.h") == {""}
    assert OFF not in parts(data)
