"""What `./configure && make` builds by default (issue 28): automake conditionals read at the defaults configure.ac
gives them, Makefile.am `if` blocks and Makefile.in `@X_TRUE@` lines as their branches, make's quoted `ifeq`, and
request-word make variables no build file assigns. Each fixture is cut from a real case (its README says where); each
near miss turns the default on, and the CUDA part is then required."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.text import autoconf, buildfiles
from migrate.model import Fact
from migrate.workloads.build_sources import named_files
from tests.test_opt_in_build_graph import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned

AUTOCONF = "autoconf_with_cuda"
AUTOMAKE = "automake_nvcc_found"
MAKE = "make_quoted_opt_in"


def switches(source: str) -> dict[str, str]:
    return {f.name: f.text for f in autoconf.extract(source.encode()).facts if f.kind == "build_switch"}


@pytest.mark.parametrize(("source", "expected"), [
    ('AC_ARG_WITH([cuda], [help], [want_cuda="$withval"], [want_cuda=no])\n'
     'AM_CONDITIONAL([COND_CUDA], [test x"$want_cuda" != xno])', {"COND_CUDA": "OFF AM_CONDITIONAL"}),
    ('AC_ARG_WITH([cuda], [help], [want_cuda="$withval"], [want_cuda=yes])\n'
     'AM_CONDITIONAL([COND_CUDA], [test x"$want_cuda" != xno])', {"COND_CUDA": "ON AM_CONDITIONAL"}),
    # no action-if-not-given: enable_cuda (and what the given action sets) is unset
    ('AC_ARG_ENABLE([cuda], [AS_HELP_STRING([--enable-cuda], [x])], [use_cuda=$enableval])\n'
     'AM_CONDITIONAL([USE_CUDA], [test "x$use_cuda" = "xyes"])', {"USE_CUDA": "OFF AM_CONDITIONAL"}),
    ('AC_ARG_ENABLE([cuda-dxt])\nAM_CONDITIONAL([DXT], [test "$enable_cuda_dxt" = yes -o "$x" = 1])', {}),
    ("AC_PATH_PROG([NVCC], [nvcc], [], [$PATH])\nAM_CONDITIONAL([HAVE_CUDA], [test -n \"$NVCC\"])",
     {"HAVE_CUDA": "OFF AM_CONDITIONAL"}),
    ("AC_CHECK_PROG([NVCC], [nvcc], [nvcc], [no])\nAM_CONDITIONAL([HAVE_CUDA], [test \"$NVCC\" != no])",
     {"HAVE_CUDA": "OFF AM_CONDITIONAL"}),
    # a variable without a known default, or a command: nothing said
    ('AM_CONDITIONAL([GPU], [test "$want_gpu" = yes])', {}),
    ('AM_CONDITIONAL([LINUX], [test "`uname`" = Linux])', {}),
    ("dnl AM_CONDITIONAL([X], [test a = a])\n", {}),
])
def test_an_automake_conditional_is_read_at_configures_defaults(source: str, expected: dict[str, str]) -> None:
    assert switches(source) == expected


def test_automake_branches_and_conditional_lines() -> None:
    source = ("app_SOURCES = main.c\nif USE_CUDA\napp_SOURCES += k.cu\nendif\nif !HAVE_X\nA = 1\nelse\n"
              "B = 2\nendif\n@COND_CUDA_TRUE@CUDA = yes\n@COND_CUDA_FALSE@CUDA = no\nall:\n\tif true; then :; fi\n")
    facts = buildfiles.makefile(source.encode()).facts
    branches = {(f.name, f.line, f.end_line) for f in facts if f.kind == "switch_branch"}
    assert branches == {("USE_CUDA", 2, 4), ("HAVE_X", 7, 9), ("COND_CUDA", 10, 10)}
    assert [(f.name, f.text) for f in facts if f.kind == "switch_value"] == [("CUDA", "YES")]
    # a value an automake line sets follows its conditional: no plain default of CUDA
    assert not [f for f in facts if f.kind == "build_switch" and f.name == "CUDA"]


def test_makes_quoted_conditional_is_a_test() -> None:
    facts = buildfiles.makefile(b'ifeq "$(ENABLE_CUDA)" "1"\nX = k.cu.o\nendif\nifeq \'$(USE_GPU)\' \'0\'\nendif\n').facts
    assert [(f.name, f.line, f.end_line) for f in facts if f.kind == "switch_branch"] == [("ENABLE_CUDA", 1, 3)]
    assert [f.name for f in facts if f.kind == "build_source"] == ["k.cu"]
    assert [(f.name, f.text) for f in facts if f.kind == "build_switch"] == [("ENABLE_CUDA", "OFF make-unset")]


def test_cuda_built_only_with_configure_with_cuda_is_optional(rulebase) -> None:
    """specfem2d: `--with-cuda` defaults to no; Makefile.in sets CUDA = yes only on @COND_CUDA_TRUE@ lines."""
    data = report(AUTOCONF, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch COND_CUDA"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0] == "configure.ac:21 AM_CONDITIONAL(COND_CUDA) default OFF"
    assert "CUDA is set true only in Makefile.in:7" in part["evidence"][-1]
    assert statuses(data, "src/gpu/update_cuda.cu") == {"optional"}


def test_cuda_configure_builds_by_default_is_required(tmp_path: Path, rulebase) -> None:
    """The near miss: `--with-cuda` on by default (a project that stops configure without nvcc)."""
    tree = edited(AUTOCONF, tmp_path, "configure.ac", "[want_cuda=no])", "[want_cuda=yes])")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/gpu/update_cuda.cu") == {""}


def test_cuda_sources_compiled_when_configure_finds_nvcc_are_optional(rulebase) -> None:
    data = report(AUTOMAKE, rulebase)
    assert data["summary"]["class"] == "native"
    assert optional_parts(data)["build switch HAVE_CUDA"]["evidence"][0] == \
        "configure.ac:6 AM_CONDITIONAL(HAVE_CUDA) default OFF"
    assert statuses(data, "src/cuda/convert_cuda.cu") == {"optional"}


def test_cuda_sources_outside_the_automake_conditional_are_required(tmp_path: Path, rulebase) -> None:
    tree = edited(AUTOMAKE, tmp_path, "Makefile.am", "vtool_SOURCES = src/main.c src/convert.c",
                  "vtool_SOURCES = src/main.c src/convert.c src/cuda/convert_cuda.cu")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/cuda/convert_cuda.cu") == {""}


def test_cuda_codecs_only_make_enable_cuda_builds_are_optional(rulebase) -> None:
    """lzbench: `ifeq "$(ENABLE_CUDA)" "1"` adds lz/gpucompact/kernels.cu.o; no file assigns ENABLE_CUDA."""
    data = report(MAKE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch ENABLE_CUDA"]
    assert part["evidence"][0] == "Makefile:11 make(ENABLE_CUDA), which no build file of the project assigns, default OFF"
    assert statuses(data, "lz/gpucompact/kernels.cu") == {"optional"}


@pytest.mark.parametrize(("old", "new"), [
    ("CXXFLAGS = -O2 -Ibench", "CXXFLAGS = -O2 -Ibench\nENABLE_CUDA ?= 1"),  # assigned on: the default build has it
    ('ifeq "$(ENABLE_CUDA)" "1"', 'ifeq "$(CUDA_FOUND)" "1"'),  # no request word: the environment may set it
])
def test_cuda_codecs_a_default_make_may_build_are_required(old: str, new: str, tmp_path: Path, rulebase) -> None:
    data = scanned(edited(MAKE, tmp_path, "Makefile", old, new), rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "lz/gpucompact/kernels.cu") == {""}


def test_a_make_fragment_names_sources_from_the_folder_make_runs_in() -> None:
    """specfem2d's src/gpu/rules.mk, included by the top Makefile: `src/gpu/x.cu` is the top folder's path; a
    Makefile's own names stay its folder's (test_default_build_reach's near miss)."""
    fact = Fact(kind="build_source", name="src/gpu/x.cu", line=1, column=1, end_line=1, end_column=1)
    files = frozenset({"src/gpu/x.cu"})
    assert named_files("src/gpu/rules.mk", fact, files) == ["src/gpu/x.cu"]
    assert named_files("src/gpu/Makefile", fact, files) == ["src/gpu/src/gpu/x.cu"]


HARD_OFF = "cmake_hard_off"
DEFINED = "cmake_defined_opt_in"
HAS_CUDA = ("    target_link_libraries ( GraphBLAS PRIVATE GraphBLAS_CUDA )\nendif ( )",
            "    target_link_libraries ( GraphBLAS PRIVATE GraphBLAS_CUDA )\nendif ( )\n"
            "if ( SUITESPARSE_HAS_CUDA AND GRAPHBLAS_USE_CUDA )\n"
            "    target_compile_definitions ( GraphBLAS PRIVATE \"GRAPHBLAS_HAS_CUDA\" )\nendif ( )")


def test_a_macro_cmake_defines_is_not_the_variable_set_true_only_under_a_switch_off(tmp_path: Path, rulebase) -> None:
    """GraphBLAS e3f309cc CMakeLists.txt:298 defines the C macro GRAPHBLAS_HAS_CUDA under the test that sets the CMake
    variable of that name true (:66): the variable still follows GRAPHBLAS_USE_CUDA, hard-coded OFF."""
    data = scanned(edited(HARD_OFF, tmp_path, "CMakeLists.txt", *HAS_CUDA), rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, "CUDA/GB_cuda_colscale.cu") == {"optional"}


def test_a_variable_a_script_passes_is_the_users(tmp_path: Path, rulebase) -> None:
    tree = edited(HARD_OFF, tmp_path, "CMakeLists.txt", *HAS_CUDA)
    (tree / "build.sh").write_text("#!/bin/sh\ncmake -B build -DGRAPHBLAS_HAS_CUDA=ON .\n")
    assert statuses(scanned(tree, rulebase), "CUDA/GB_cuda_colscale.cu") == {""}


def test_cuda_enabled_only_where_the_user_defines_a_variable_is_optional(rulebase) -> None:
    """cunqa: `if (DEFINED AER_GPU)` around enable_language(CUDA); nothing sets AER_GPU (no request word in it)."""
    data = report(DEFINED, rulebase)
    assert data["summary"]["class"] == "native"
    assert optional_parts(data)["build switch DEFINED AER_GPU"]["evidence"][0] == \
        "CMakeLists.txt:7 if(DEFINED AER_GPU) (no build file sets AER_GPU) default OFF"


@pytest.mark.parametrize(("old", "new"), [
    ("set(COMPILATION_FOR_GPU FALSE)", "set(COMPILATION_FOR_GPU FALSE)\nset(AER_GPU TRUE)"),  # the project sets it
    ("find_package(Threads REQUIRED)\n\nif (DEFINED AER_GPU)",  # a result find_package() sets
     "find_package(Threads REQUIRED)\nfind_package(AER)\n\nif (DEFINED AER_GPU)"),
])
def test_a_defined_test_of_a_variable_the_project_or_a_package_sets_is_not_off(old: str, new: str, tmp_path: Path,
                                                                              rulebase) -> None:
    data = scanned(edited(DEFINED, tmp_path, "CMakeLists.txt", old, new), rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert "build switch DEFINED AER_GPU" not in optional_parts(data)


def test_a_flag_passed_to_cmake_does_not_turn_on_a_hard_off_switch(tmp_path: Path, rulebase) -> None:
    """GraphBLAS's Makefile runs `cmake -DGRAPHBLAS_USE_CUDA=1`; the plain `set(GRAPHBLAS_USE_CUDA OFF)` hides it."""
    tree = edited(HARD_OFF, tmp_path, "CMakeLists.txt", *HAS_CUDA)
    (tree / "Makefile").write_text("JOBS ?= 8\ndefault: library\n\nlibrary:\n\t( cd build && cmake $(CMAKE_OPTIONS) .. )\n\n"
                                   "cuda:\n\t( cd build && cmake $(CMAKE_OPTIONS) -DGRAPHBLAS_USE_CUDA=1 .. && "
                                   "cmake --build . --config Release -j$(JOBS) )\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, "CUDA/GB_cuda_colscale.cu") == {"optional"}


def test_hostile_configure_ac_and_makefile_am_read_in_bounded_time() -> None:
    """Unclosed macro calls (each read the rest of the file), deep `[...]` quotes (a copy per level) and `if` with long
    runs of spaces (`\\s+!?\\s*` tried every split) were quadratic: 100 KB took 27 s, 1.2 MB 10 s, 16 KB 8 s. The limits
    are on CPU time (3.8 s alone; a loaded machine passed 10 s of wall time)."""
    import time

    started = time.process_time()
    assert switches("AC_ARG_WITH(\n" * 20000) == {}
    deep = "AC_ARG_WITH([cuda], [h], [], [" + "[" * 600000 + "want_cuda=yes" + "]" * 600000 + "])\n"
    assert switches(deep + 'AM_CONDITIONAL([C], [test "$want_cuda" = yes])') == {"C": "ON AM_CONDITIONAL"}
    assert switches("AC_ARG_WITH(((((\n" * 40000 + "AM_CONDITIONAL([X], [test a = a])") == {}  # past the budget
    assert time.process_time() - started < 10
    started = time.process_time()  # the regular expression alone: other readings of such a line are older (review22 notes)
    assert buildfiles.AUTOMAKE_IF.match("if" + " " * 30000 + "X" + " " * 30000 + "y") is None
    assert time.process_time() - started < 1
    stopped = autoconf.extract(b"AC_ARG_WITH([a])\n" + b"AC_ARG_WITH(((((\n" * 40000)
    assert [n.split(":")[0] for n in stopped.notes] == ["macro calls from line 6 on not read"]  # said, not silent
    assert autoconf.extract(b"AC_ARG_WITH([a])\n" * 3).notes == ()
    # the line of a fact after many macros is still counted right
    assert [f.line for f in autoconf.extract(b"AC_ARG_WITH([a])\n" * 3 + b"AM_CONDITIONAL([X], [test a = a])").facts
            if f.kind == "build_switch"] == [4]


@pytest.mark.parametrize(("source", "expected"), [
    # hashclash's shape: have_cuda is "yes" only where nvcc was found (AND with a false comparison is false, whatever
    # the unknown ones read)
    ('have_nvcc="no"\nAC_PATH_PROG([NVCC], [nvcc], [], [$PATH])\nif test -n "$NVCC"\nthen\n\thave_nvcc="yes"\nfi\n'
     'AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [if (x) return 1;])], [have_h="yes"], [have_h="no"])\n'
     'have_cuda="no"\nif test "$have_h" = "yes" -a "$have_nvcc" = "yes"\nthen\n\thave_cuda="yes"\nelse\n'
     '\thave_cuda="no"\nfi\nAM_CONDITIONAL(HAVE_CUDA, test "x${have_cuda}" = xyes)', {"HAVE_CUDA": "OFF AM_CONDITIONAL"}),
    # a value set only inside another macro's arguments may or may not be set: nothing said
    ('have_h=no\nAC_CHECK_HEADER([cuda.h], [have_h=yes])\nAM_CONDITIONAL([CUDA], [test "$have_h" = yes])', {}),
    # an `or` with an unknown comparison and a false one is unknown; with a true one, true
    ('AC_CHECK_HEADER([x.h], [h=yes])\nAM_CONDITIONAL([A], [test "$h" = yes -o no = yes])\n'
     'AM_CONDITIONAL([B], [test "$h" = yes || yes = yes])', {"B": "ON AM_CONDITIONAL"}),
    # the last AM_CONDITIONAL of a name is the one configure leaves; an unknown last one says nothing
    ('w=maybe\nAM_CONDITIONAL(C, test "$w" = yes)\nif test "$w" != no; then w=yes; fi\nAM_CONDITIONAL(C, test "$w" = yes)',
     {"C": "ON AM_CONDITIONAL"}),
    ('w=maybe\nAM_CONDITIONAL(C, test "$w" = yes)\ncase $host in *linux*) w=yes ;; esac\n'
     'AM_CONDITIONAL(C, test "$w" = yes)', {}),
    # a branch not taken sets nothing; m4's quotes are off before the shell reads the line
    ('u=no\nif test a = b; then\n  [u=yes]\nfi\nAM_CONDITIONAL([U], [test "$u" = yes])', {"U": "OFF AM_CONDITIONAL"}),
    # a macro file's AC_DEFUN body is read in place
    ('AC_DEFUN([AX_GPU], [\ng=no\nAM_CONDITIONAL([G], [test "$g" = yes])\n])', {"G": "OFF AM_CONDITIONAL"}),
    # configure stops at its defaults: no default build, so no conditional is said off
    ('AC_ARG_WITH([cuda], [h], [], [want_cuda=yes])\nAC_PATH_PROG([NVCC], [nvcc])\n'
     'if test "$want_cuda" = yes -a -z "$NVCC"; then\n  AC_MSG_ERROR([CUDA requested but not found])\nfi\n'
     'AM_CONDITIONAL([HAVE_CUDA], [test -n "$NVCC"])', {}),
    # `test ... || x=y` runs the assignment where the test is false (netcdf-fortran's benchmarks are on by default)
    ('AC_ARG_ENABLE([benchmarks])\ntest "x$enable_benchmarks" = xno || enable_benchmarks=yes\n'
     'AM_CONDITIONAL(BUILD_BENCHMARKS, [test x$enable_benchmarks = xyes])', {"BUILD_BENCHMARKS": "ON AM_CONDITIONAL"}),
    # an error after `||` stops configure only where the command before it fails (specfem2d's flags.guess)
    ('AC_ARG_WITH([cuda], [h], [], [want_cuda=no])\nflags=`$flags_guess` ||\n    AC_MSG_ERROR([failed])\n'
     'AM_CONDITIONAL([COND_CUDA], [test x"$want_cuda" != xno])', {"COND_CUDA": "OFF AM_CONDITIONAL"}),
])
def test_configures_shell_is_followed_at_its_defaults(source: str, expected: dict[str, str]) -> None:
    assert switches(source) == expected


def test_macro_files_are_read_as_configure_code() -> None:
    from migrate.scan.discover import file_kind

    assert file_kind(Path("m4/ax_cuda.m4"), sniff=False) == "m4"
    assert file_kind(Path("acinclude.m4"), sniff=False) == "m4"


def test_cuda_found_by_a_projects_own_macro_is_optional(rulebase) -> None:
    """hashclash (batch t): configure.ac calls AX_CUDA of m4/ax_cuda.m4, whose HAVE_CUDA is on only where nvcc, the
    headers and the libraries are found; Makefile.am adds the one .cu source `if HAVE_CUDA`, and its nvcc flags and
    `.cu.o` rule take effect only for that source."""
    data = report("autoconf_macro_found", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch HAVE_CUDA"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0] == "m4/ax_cuda.m4:139 AM_CONDITIONAL(HAVE_CUDA) default OFF"
    assert statuses(data, "src/md5birthdaysearch/cuda_md5.cu") == {"optional"}
    assert statuses(data, "Makefile.am") == {"optional"}


def test_cuda_a_projects_macro_requires_by_default_is_required(rulebase) -> None:
    """The near miss: `want_cuda="yes"` by default, so configure stops without CUDA (AC_MSG_ERROR)."""
    data = report("autoconf_macro_found_near", rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "optional" not in statuses(data, "src/md5birthdaysearch/cuda_md5.cu")


SUBSTITUTED = "autoconf_substituted_opt_in"


def configured_values(source: str) -> dict[str, str]:
    return {f.name: f.text for f in autoconf.extract(source.encode()).facts if f.kind == "configured_value"}


@pytest.mark.parametrize(("source", "expected"), [
    # optiflop's shape: no action-if-not-given, so enable_cuda is empty without --enable-cuda
    ('AC_ARG_ENABLE([cuda], [AS_HELP_STRING([--enable-cuda], [x])])\nAC_SUBST(enable_cuda, "$enable_cuda")',
     {"enable_cuda": ""}),
    ("AC_ARG_ENABLE([cuda], [h], [], [enable_cuda=yes])\nAC_SUBST(enable_cuda)", {"enable_cuda": "yes"}),
    # a value set inside another macro's arguments, or a command: not known, nothing said
    ('AC_CHECK_HEADER([cuda.h], [have=yes])\nAC_SUBST(have)', {}),
    ('AC_SUBST(host, "`uname`")', {}),
    ('AC_SUBST(gpu, "$want_gpu")', {}),
])
def test_a_substituted_variable_is_read_at_configures_defaults(source: str, expected: dict[str, str]) -> None:
    assert configured_values(source) == expected


def test_a_tested_make_variable_that_is_one_substitution_is_configured() -> None:
    source = b"ENABLE_CUDA = @enable_cuda@\nCC = @CC@\nX = @a@ @b@\nifdef ENABLE_CUDA\nY = k.cu\nendif\nifdef X\nendif\n"
    facts = buildfiles.makefile(source).facts
    assert [(f.name, f.text) for f in facts if f.kind == "configured"] == [("ENABLE_CUDA", "enable_cuda")]


def test_cuda_tests_only_configure_enable_cuda_substitutes_on_are_optional(rulebase) -> None:
    """optiflop: `ENABLE_CUDA = @enable_cuda@` in Makefile.in, empty unless `./configure --enable-cuda`; the
    `ifdef ENABLE_CUDA` rule compiles the .cu file, its `else` a C stub."""
    data = report(SUBSTITUTED, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch ENABLE_CUDA"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0] == ("Makefile.in:2 ENABLE_CUDA = @enable_cuda@, empty at configure's defaults "
                                   "(configure.ac:20 AC_SUBST(enable_cuda)) default OFF")
    assert statuses(data, "src/cuda/gpu_roof.cu") == {"optional"}


@pytest.mark.parametrize(("path", "old", "new"), [
    # the option on by default: configure substitutes yes
    ("configure.ac", "[Enable CUDA tests])\n])", "[Enable CUDA tests])\n], [], [enable_cuda=yes])"),
    # a value configure cannot be read for (set in another macro's arguments)
    ("configure.ac", 'AC_SUBST(enable_cuda, "$enable_cuda")',
     'AC_CHECK_HEADER([cuda.h], [enable_cuda=yes])\nAC_SUBST(enable_cuda, "$enable_cuda")'),
])
def test_cuda_tests_configure_may_substitute_on_are_required(path: str, old: str, new: str, tmp_path: Path,
                                                             rulebase) -> None:
    data = scanned(edited(SUBSTITUTED, tmp_path, path, old, new), rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/cuda/gpu_roof.cu") == {""}
