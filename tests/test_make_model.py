"""One Makefile model, read once per file (issue 28; extract/text/make_model.py, docs/decisions/
2026-12-07-s28-one-makefile-model.md): the readings of a Makefile (its goals, the sources it names, its assignments)
read the same rules, assignments and recipes, as make reads them. Each case is cut from a real Makefile (named in its
test); each near miss is the shape the reading must leave alone."""
from __future__ import annotations

import shutil
from pathlib import Path

from migrate.extract.text import buildfiles, make_model
from migrate.extract.text.lines import logical_lines
from tests.test_optional_parts import CASES, optional_parts, report, scanned
from tests.test_reach import statuses

FAILS = "make_default_goal_fails"


def _model(text: str) -> make_model.Makefile:
    return make_model.parse(logical_lines(text))


def _goals(text: str) -> list[tuple[str, int, int]]:
    return [(f.name, f.line, f.end_line) for f in buildfiles.makefile(text.encode()).facts if f.kind == "make_goal_only"]


def test_a_function_call_with_a_colon_is_no_rule() -> None:
    """llm-d/llm-d-kv-cache Makefile:25: `$(error Neither docker nor podman is installed. Try: ...)` at the start of a
    line is a function call; the default goal is the first rule's target, `help`."""
    model = _model("$(error Neither docker nor podman is installed. Try: sudo apt install docker.io)\n"
                   ".PHONY: help\nhelp:\n\t@awk 'BEGIN {FS = \":\"}' $(MAKEFILE_LIST)\nbuild:\n\tgo build ./...\n")
    assert [r.targets for r in model.rules] == [[".PHONY"], ["help"], ["build"]]
    assert (model.default_goal, model.default_from) == ("help", "line 3")


def test_make_reads_rules_recipes_and_assignments_as_make_does() -> None:
    """Theano/libgpuarray Makefile:14-20: a conditional inside a recipe does not end it; a define block's body is a
    value, not rules; a tab-indented assignment outside a rule is an assignment (Caffe's inside `ifeq`);
    `a.o b.o: %.o: %.cu` is a static pattern rule; `cuda29: NVCC += -G` a target-specific variable."""
    model = _model("ifeq ($(USE_CUDA),1)\n\tNVCC := nvcc\nendif\nDebug/Makefile: Makefile.conf\n\tmkdir -p Debug\n"
                   "ifndef INSTALL_PREFIX\n\tcmake ..\nelse\n\tcmake .. -DX=1\nendif\n"
                   "define RULE\nall: $(1).o\nendef\na.o b.o: %.o: %.cu ; nvcc -c $<\ncuda29: NVCC += -G\n")
    assert [(a.name, a.how, a.value) for a in model.assignments] == [("NVCC", ":", "nvcc"), ("RULE", "define", "all: $(1).o")]
    debug, static = model.rules
    assert (debug.targets, debug.line, debug.last, len(debug.recipe)) == (["Debug/Makefile"], 4, 9, 3)
    assert (static.targets, static.static, static.prerequisites, static.inline.strip()) == (["a.o", "b.o"], "%.o",
                                                                                              ["%.cu"], "nvcc -c $<")
    assert model.roles.count("target-variable") == 1 and model.default_goal == "Debug/Makefile"
    assert [(c.directive, c.line, c.end) for c in model.conditionals] == [("ifeq", 1, 3), ("ifndef", 6, 10)]


def test_targets_are_expanded_with_the_values_above_them_and_sources_with_every_value() -> None:
    """make expands a rule's targets and prerequisites as it reads them; the sources any configuration names are
    every value any assignment gives (both branches of an `ifeq`)."""
    text = ("ifeq ($(GPU),1)\nSRC = k.cu\nelse\nSRC = k.cpp\nendif\nOBJ = $(patsubst %.cu,%.o,$(SRC))\n"
            "prog: $(OBJ)\n\t$(CXX) -o prog $(OBJ)\n%.o: %.cu\n\tnvcc -c $<\n%.o: %.cpp\n\tg++ -c $<\n")
    model = _model(text)
    assert model.rules[0].prerequisites == ["k.cpp"]  # the last value above it, as make reads it with GPU unset
    named = sorted(f.name for f in buildfiles.makefile(text.encode()).facts if f.kind == "make_source")
    assert named == ["k.cpp", "k.cu"]


def test_the_next_step_of_the_default_build_is_not_an_alternative() -> None:
    """czimaginginstitute/AreTomo3 makefile:255-280: the default goal `cuda: $(CUCPPS)` makes `.cpp` files of the
    `.cu` ones (`%.cpp: %.cu`); `compile: $(OBJS)` and `exe: $(OBJS)` compile those `.cpp` files and link: later
    steps of the one build, not goals outside it (only `clean` is)."""
    text = ("CUSRCS = ./MaUtil/GAddFrames.cu ./AreTomo/Recon/GBackProjWbp.cu\n"
            "CUCPPS = $(patsubst %.cu, %.cpp, $(CUSRCS))\nSRCS = ./MaUtil/CParseArgs.cpp ./CAreTomo3.cpp $(CUCPPS)\n"
            "OBJS = $(patsubst %.cpp, %.o, $(SRCS))\nNVCC = nvcc -std=c++11\ncuda: $(CUCPPS)\n\ncompile: $(OBJS)\n\n"
            "exe: $(OBJS)\n\t@$(NVCC) -g -G -m64 $(OBJS) -lcufft -lcudart -o AreTomo3\n\n%.cpp: %.cu\n"
            "\t@$(NVCC) -cuda -cudart shared $< -o $@\n\n%.o: %.cpp\n\t@$(CC) $(CFLAG) $< -o $@\n\n"
            "clean:\n\t@rm -f $(OBJS) $(CUCPPS) AreTomo3\n")
    assert _goals(text) == [("clean", 19, 20)]


def test_a_goal_that_shares_part_of_the_default_build_is_another_build() -> None:
    """Theano/libgpuarray Makefile:1-10 (near miss): `debug: install-debugc py` beside the default `rel: install-relc
    py` shares `py` only: it stays a goal outside the default."""
    text = ("rel: install-relc py\n\ndebug: install-debugc py\n\ninstall-relc:\n\tcd Release && make install\n\n"
            "install-debugc:\n\tcd Debug && make install\n\npy:\n\tpython setup.py build_ext --inplace\n")
    assert [g for g, _, _ in _goals(text)] == ["debug", "install-debugc"]


def test_a_default_goal_that_needs_a_missing_target_fails_and_leaves_no_goal_optional(rulebase) -> None:
    """eliazonta/SpMV: `all: sequential cuda`, and no rule makes `cuda`: make stops ("No rule to make target"), so
    the CUDA program `make parallel` builds is no part outside the default build (precision sample 23)."""
    data = report(FAILS, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert not [p for p in optional_parts(data) if p.startswith("make goal")]
    for path in ("src/parallel/main.cu", "src/parallel/parallel.cu"):
        assert statuses(data, path) == {""}, path


def _edited(tmp_path: Path, old: str, new: str) -> Path:
    tree = tmp_path / FAILS
    shutil.copytree(CASES / FAILS, tree)
    text = (tree / "Makefile").read_text()
    assert old in text
    (tree / "Makefile").write_text(text.replace(old, new))
    return tree


def test_a_default_goal_that_builds_leaves_the_other_goal_optional(tmp_path: Path, rulebase) -> None:
    """Near miss: `all: sequential` builds; `make parallel` is a goal outside it, as before."""
    data = scanned(_edited(tmp_path, "all: sequential cuda", "all: sequential"), rulebase)
    assert "make goal parallel of Makefile" in optional_parts(data)
    assert statuses(data, "src/parallel/parallel.cu") == {"optional"}


def test_a_prerequisite_a_folder_or_source_stands_for_is_no_missing_target(tmp_path: Path, rulebase) -> None:
    """Near miss: a folder `cuda/` (make finds it: nothing to do), or `cuda.c` that make's built-in `%: %.c` rule
    compiles, is there: the default goal does not fail."""
    tree = _edited(tmp_path, "all: sequential cuda", "all: sequential cuda")
    (tree / "cuda.c").write_text("int main(void) { return 0; }\n")
    assert statuses(scanned(tree, rulebase), "src/parallel/parallel.cu") == {"optional"}


def test_a_prerequisite_outside_the_project_is_not_known_missing(tmp_path: Path, rulebase) -> None:
    """Near miss, solana-labs/solana-perf-libs src/sgx/signing/Makefile: a default goal needing an installed SDK's
    tool (`/opt/sgxsdk/bin/x64/sgx_edger8r`) may find it on the user's machine: the default goal is not known to fail."""
    tree = _edited(tmp_path, "all: sequential cuda", "all: sequential /opt/sdk/bin/tool")
    assert statuses(scanned(tree, rulebase), "src/parallel/parallel.cu") == {"optional"}


def test_a_substitution_reference_is_a_use_of_its_variable() -> None:
    """GNU make manual 6.3.1: `$(CU_SOURCES:.cu=.cu.o)` uses CU_SOURCES. In the makedepend idiom the default goal
    links `$(CU_OBJECTS)` made from `$(CU_SOURCES)` and only `depend:`'s recipe names `$(CU_SOURCES)` plainly: the
    sources' assignment belongs to the default build, not to `depend` (before this, every `.cu` file of such a
    Makefile was read as built only by `make depend`)."""
    text = ("CU_SOURCES=force.cu timestep.cu\nCU_OBJECTS=$(CU_SOURCES:.cu=.cu.o)\nDEFAULT: prog\n%.cu.o: %.cu\n"
            "\tnvcc -c $< -o $@\nprog: main.c $(CU_OBJECTS)\n\t$(CC) -o prog $(CU_OBJECTS) -lcudart\n"
            "depend:\n\tmakedepend -a -f .depend -o.cu.o $(CU_SOURCES)\n")
    assert _goals(text) == [("depend", 8, 9)]
    only_depend = text.replace("CU_OBJECTS=$(CU_SOURCES:.cu=.cu.o)", "CU_OBJECTS=k.cu.o")  # near miss
    assert _goals(only_depend) == [("depend", 1, 1), ("depend", 8, 9)]


def test_a_variable_named_only_in_a_comment_beside_a_goal_goes_with_that_goal() -> None:
    """ablimit/hadoopgis gpu/greiner/thrust/Makefile (4e0fe84c): CUDALIBS is used by the `polytest` goal and by a
    commented-out `gpu_lib` rule; a comment is no use, so its `-lcudart` assignment is `polytest`'s alone. Near
    miss: the same rule not commented out uses it outside the goal."""
    text = ("all: thrustVersion\nCUDALIBS = -L/opt/local/cuda/lib64 -lcudart\nthrustVersion: thrustversion.cu\n"
            "\tnvcc $^ -o $@\n#gpu_lib: gpu-api.o\n#\t$(CC) -o gpu_spatial.so gpu-api.o $(CUDALIBS)\n"
            "polytest: driver.c spatial.o\n\t$(CC) $< -o $@ spatial.o $(CUDALIBS)\n")
    assert _goals(text) == [("polytest", 2, 2), ("polytest", 7, 8)]
    uncommented = text.replace("#gpu_lib", "gpu_lib").replace("#\t$(CC)", "\t$(CC)")
    assert ("polytest", 2, 2) not in _goals(uncommented)
