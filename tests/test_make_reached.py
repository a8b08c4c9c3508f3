"""What a project's Makefiles compile, file by file (issue 28; extract/text/make_reach.py, workloads/make_reached.py):
in a project whose only builds are its Makefiles, and where they compile CUDA, a C/C++/CUDA file in a Makefile's
folder or below that no Makefile names (its own variables expanded) and no named file includes is a part the default
build does not reach. Each fixture is cut from a real case (its README says where); each near miss puts the file back
in reach, or takes away what the tool needs to tell, and today's reading stands."""
from __future__ import annotations

from pathlib import Path

from migrate.extract.text import buildfiles
from migrate.workloads.make_reached import unbuilt_by_make
from tests.test_optional_parts import optional_parts, report, scanned
from tests.test_reach import edited, statuses

BACKUPS = "make_backup_copies"
LEFT_OUT = "make_left_out_sources"


def _made(text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.name) for f in buildfiles.makefile(text.encode()).facts
            if f.kind in ("make_source", "make_unplaced")]


def test_dated_backups_of_the_source_folder_are_not_reached(rulebase) -> None:
    """lgan/elastic: the Makefile compiles $S/rtmlib-modC-gpu.cu with S = ${SRCDIR} = ./Src_working; the dated
    copies beside it (and a Src_working/ inside one) are built by nothing."""
    data = report(BACKUPS, rulebase)
    assert data["summary"]["class"] == "migration-required"
    parts = optional_parts(data)
    assert parts["Src_cuda_801_shared-02 (not reached by the default build)"]["evidence"][0].startswith(
        "Src_cuda_801_shared-02/: no Makefile of the project names it")
    for path in ("Src_cuda727-1/gpu_funcs_3d.cu", "Src_cuda727-1/rtmlib-modC-gpu.cu",
                 "Src_cuda729-3/Src_working/rtmlib-modC-gpu.cu", "Src_cuda_801_shared-02/gpu_funcs_3d.cu"):
        assert statuses(data, path) == {"optional"}, path
    assert statuses(data, "Src_working/rtmlib-modC-gpu.cu") == {""}


def test_a_source_folder_the_tool_cannot_place_names_every_copy(tmp_path: Path, rulebase) -> None:
    """SRCDIR assigned in an included file the tool does not read: `$S/rtmlib-modC-gpu.cu` names the file by its
    name, and any copy may be the one built; no CUDA source is then placed, and the reading says nothing at all."""
    tree = edited(BACKUPS, tmp_path, {"Makefile": ("SRCDIR = ./Src_working\n", "")})
    data = scanned(tree, rulebase)
    for path in ("Src_cuda727-1/rtmlib-modC-gpu.cu", "Src_cuda729-3/Src_working/rtmlib-modC-gpu.cu",
                 "Src_working/rtmlib-modC-gpu.cu", "Src_cuda_801_shared-02/gpu_funcs_3d.cu"):
        assert statuses(data, path) == {""}, path


def test_a_script_that_runs_nvcc_on_a_backup_says_nothing(tmp_path: Path, rulebase) -> None:
    tree = edited(BACKUPS, tmp_path, {})
    (tree / "run.sh").write_text("#!/bin/bash\nnvcc -c Src_cuda727-1/gpu_funcs_3d.cu -o gpu_funcs_3d.o\n")
    data = scanned(tree, rulebase)
    for path in ("Src_cuda727-1/gpu_funcs_3d.cu", "Src_cuda_801_shared-02/gpu_funcs_3d.cu"):
        assert statuses(data, path) == {""}, path


def test_sources_an_nvcc_line_leaves_out_are_not_reached(rulebase) -> None:
    """tekdogan/gsuite: cusparse.c and sort/cuda_sort.cu are not on cuda/Makefile's nvcc line and nothing includes
    them; NVIDIA's helper_cuda.h beside them is included only by cuda_sort.cu. cuda_sort.h, which a built file
    includes, and the named kernels stay required."""
    data = report(LEFT_OUT, rulebase)
    assert data["summary"]["class"] == "migration-required"
    parts = optional_parts(data)
    assert "cuda/cusparse.c (not reached by the default build)" in parts
    for path in ("cuda/cusparse.c", "cuda/sort/cuda_sort.cu", "cuda/sort/helper_cuda.h"):
        assert statuses(data, path) == {"optional"}, path
    for path in ("cuda/cuBlasUtil.cu", "cuda/scatter_cuda.cu", "cuda/cudaDataLoader.cu", "cuda/cuBlasUtil.h"):
        assert statuses(data, path) == {""}, path


def test_a_source_list_the_tool_cannot_expand_says_nothing(tmp_path: Path, rulebase) -> None:
    tree = edited(LEFT_OUT, tmp_path, {"cuda/Makefile": ("cuBlasUtil.cu cudaDataLoader.cu scatter_cuda.cu",
                                                         "$(shell find . -name '*.cu')")})
    data = scanned(tree, rulebase)
    for path in ("cuda/cusparse.c", "cuda/sort/cuda_sort.cu"):
        assert statuses(data, path) == {""}, path
    # the helper is reached; only its `#ifdef CURAND_H_` section is off, by the library include-guard reading
    # (cuda_sort.cu includes no cuRAND header), not by the make reading
    assert statuses(data, "cuda/sort/helper_cuda.h") == {"", "optional"}
    assert [root for root in optional_parts(data) if "helper_cuda.h" in root] == [
        "cuda/sort/helper_cuda.h:7-15 (off in every build)"]


def test_a_header_nothing_includes_keeps_its_reading(tmp_path: Path, rulebase) -> None:
    """A header no file includes is read by the project's users (a header-only library), not built by it."""
    tree = edited(LEFT_OUT, tmp_path, {})
    (tree / "cuda" / "gcn_api.cuh").write_text("#pragma once\n#include <cuda_runtime.h>\n"
                                               "inline void gcn_sync() { cudaDeviceSynchronize(); }\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "cuda/gcn_api.cuh") == {""}
    assert statuses(data, "cuda/cusparse.c") == {"optional"}


def test_a_folder_outside_every_makefile_says_nothing(tmp_path: Path, rulebase) -> None:
    """A folder of .cu files no Makefile sits above is compiled by hand, as a README says: today's reading."""
    tree = edited(LEFT_OUT, tmp_path, {})
    (tree / "cpu" / "spmm.cu").write_text("__global__ void spmm(float *y) { y[threadIdx.x] = 0; }\n"
                                          "void run(float *y) { spmm<<<1, 32>>>(y); cudaDeviceSynchronize(); }\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "cpu/spmm.cu") == {""}
    assert statuses(data, "cuda/cusparse.c") == {"optional"}


def test_cuda_beside_a_makefile_that_compiles_none_says_nothing(tmp_path: Path, rulebase) -> None:
    """rwx788/HackWeek_CUDA simple_cuda/: its Makefile compiles src/*.cpp with g++; the .cu study programs beside them
    are compiled by hand (sample 21, judged right as required), whatever another folder's Makefile compiles."""
    tree = edited(LEFT_OUT, tmp_path, {})
    (tree / "cpu" / "Makefile").write_text("main: *.cpp\n\tg++ $^ -o $@\n")
    (tree / "cpu" / "add.cu").write_text("__global__ void add(float *y) { y[threadIdx.x] += 1; }\n"
                                         "int main() { float *y; cudaMallocManaged(&y, 128); add<<<1, 32>>>(y); }\n")
    data = scanned(tree, rulebase)
    assert statuses(data, "cpu/add.cu") == {""}
    assert statuses(data, "cuda/cusparse.c") == {"optional"}


def test_makefiles_that_compile_no_cuda_say_nothing() -> None:
    makefile = "all:\n\tg++ -O2 main.cpp -o main\n"
    facts = {"Makefile": buildfiles.makefile(makefile.encode()).facts, "main.cpp": (), "k.cu": ()}
    kinds = {"Makefile": "makefile", "main.cpp": "cpp", "k.cu": "cuda"}
    assert unbuilt_by_make(facts, kinds) == {}
    facts["Makefile"] = buildfiles.makefile(b"all:\n\tnvcc -O2 main.cpp k.cu -o main\n").facts
    facts["old.cu"] = ()
    kinds["old.cu"] = "cuda"
    assert set(unbuilt_by_make(facts, kinds)) == {"old.cu"}
    kinds["CMakeLists.txt"] = "cmake"  # another build beside the Makefiles: not this reading's
    facts["CMakeLists.txt"] = ()
    assert unbuilt_by_make(facts, kinds) == {}


def test_the_makefile_reading_expands_the_files_own_variables() -> None:
    assert _made("SRCDIR = ./src\nS = ${SRCDIR}\n$O/k.o: $S/k.cu\n\tnvcc -c $S/k.cu\n") == [("make_source", "src/k.cu")]
    assert _made("SRCS := a.cu b.cu\nOBJS = $(SRCS:.cu=.o)\nprog: $(OBJS)\n%.o: %.cu\n\tnvcc -c $<\n") == [
        ("make_source", "a.cu"), ("make_source", "b.cu")]
    assert _made("OBJ = $(patsubst %.cu,build/%.o,x.cu)\nall: $(OBJ)\nbuild/%.o: kernels/%.cu\n\tnvcc $<\n") == [
        ("make_source", "kernels/x.cu")]
    two = "objects = Solver.o\nall: $(objects)\n%.o: %.cu\n\tnvcc -dc $<\n%.o: %.cpp\n\tnvcc -dc $<\n"  # SPH_3D_CUDA
    assert _made(two) == [("make_source", "Solver.cu"), ("make_source", "Solver.cpp")]  # the one that exists is built
    assert _made("all: $(addprefix obj/,k.o)\n") == [("make_unplaced", "k.*")]  # an implicit or included rule
    assert _made("all:\n\tnvcc -c $(SRC_DIR)/k.cu\n") == [("make_unplaced", "k.cu")]  # SRC_DIR assigned nowhere here
    assert _made("SRCS = $(shell find . -name '*.cu')\nall:\n\tnvcc $(SRCS)\n") == [("make_unplaced", "*")]
    assert _made("ARCH = $(shell uname -m)\nall:\n\tnvcc -c k.cu -o k.o\n") == [("make_source", "k.cu")]
    assert _made("all:\n\tnvcc -c k.cu\n#\tnvcc -c old.cu\n") == [("make_source", "k.cu")]  # a comment names nothing
    assert _made("CU = $(wildcard src/*.cu)\n") == [("make_source", "src/*.cu")]
    flags = "".join(f"F := $(F) -DX{i}\n" for i in range(40))  # cellular-automata: each value refers to the earlier one
    assert _made(flags + "all:\n\tnvcc $(F) -c k.cu\n") == [("make_source", "k.cu")]
