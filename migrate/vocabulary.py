"""The words extractors and rules share: fact kinds, identifier roles and construct names.

Written once here; the rule schema's enums are filled from it when rules are loaded
(rulebase.load), and the tables in docs/rules-format.md are generated from it
(scripts/generate_docs.py; a test fails when they drift). An extractor that emits a new
construct, or a rule that matches one, needs its name added here first."""
from __future__ import annotations

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Literal

    PinKind = Literal["exact", "locked", "range", "unpinned", "variable"]  # PIN_KINDS, in this order
    Extra = Literal["check", "cluster", "precise", "validate"]  # EXTRAS, in this order
else:  # at run time the types are text (modules import the names for their annotations)
    PinKind = Extra = str


# kind -> (produced from, what the fact's name is)
UNKNOWN_DEFAULT = "?"  # a `cli_option`'s default that is no constant (`default=os.cpu_count()`)
UNUSED_IMPORT = "unused"  # a `branch_use` text: the module imports the name and never reads it

FACT_KINDS: dict[str, tuple[str, str]] = {
    "identifier": ("C/C++/CUDA code outside comments and strings", "the identifier (`cudaMalloc`)"),
    "include": ("`#include`", "the header as written (`cuda_runtime.h`)"),
    "asm": ("inline `asm(...)`", "the assembly text (the matcher's `regex` is searched in it)"),
    "construct": ("a pattern an extractor recognises", "the construct's name (see below)"),
    "python_import": ("`import x.y`, `from x import y`", "the module (`pynvml`)"),
    "python_attr": ("attribute chains and calls, resolved through import aliases", "the dotted name (`torch.version.cuda`)"),
    "requirement": ("requirements files, setup.py/pyproject dependencies, conda files; source repositories "
                    "(`.gitmodules`, CMake FetchContent/ExternalProject/CPM, `git clone`) as `index:URL`",
                    "the normalised package name"),
    "base_image": ("Dockerfile `FROM`", "the image reference"),
    "cmake": ("CMake commands and variables, build variables in Makefiles, shell and Dockerfiles",
              "the command or variable name"),
    "flag": ("every compiler or linker flag in build files, nvcc invocations and setup.py nvcc arguments",
             "the flag (`-arch`); its value is the fact's text after the flag"),
    "manifest": ("Dockerfile ENV, compose files, Kubernetes manifests, shell and Slurm scripts; NVIDIA tools a "
                 "command runs (`tool:nsys`)", "the key or option"),
    "stack": ("no extractor: `migrate/stack` judges the pins against `rules/stack/matrix.yaml` per target "
              "(HIP71xx, see `docs/stack.md`)",
              "the problem (`pin-no-rocm-build`, `pin-other-release`, `locked-pin-no-rocm-build`, `gpu-not-in-release`, "
              "`gpu-unsupported`, `floating-pin`, `binary-missing-target`)"),
}

# Facts no rule matches: the workload stage and the matcher read them (kind -> what it records).
# The kinds scan/discover.py gives a project's build files (CMakeLists and .cmake, Makefiles, pyproject/Pipfile,
# setup.cfg, Cargo.toml): lint finds a project's root by them, the parts read which build may compile CUDA.
BUILD_FILE_KINDS = frozenset({"cmake", "makefile", "pyproject", "setupcfg", "cargo"})
# CMake commands that open and close a block: a command between them runs only in some configurations or calls
# (the extractor's `top` set() values, workloads/project_defines.py's definitions in no block).
CMAKE_BLOCK_STARTS = frozenset({"if", "function", "macro", "foreach", "while", "block"})
CMAKE_BLOCK_ENDS = frozenset({"endif", "endfunction", "endmacro", "endforeach", "endwhile", "endblock"})
# File kinds of C, C++, CUDA and HIP source (one C/C++ extractor, tree-sitter, reads them all)
C_SOURCE_KINDS = frozenset({"cuda", "cpp", "hip"})
# File kinds of files that install, run or deploy a project's code and hold none of it: a workload made only of them
# serves the code beside it (workloads/verdict.py; docs/decisions/2026-12-07-s29-helper-files-of-an-examples-repository.md)
SERVING_KINDS = frozenset({"shell", "requirements", "conda", "dockerfile", "manifest", "gitmodules"})

# How a build_switch fact's switch was declared, the last word of its text (`<default> <how>`), for those
# workloads/parts.py reads: a macro in flags every build passes, and a `//#define X` left commented out.
ALWAYS_DEFINED = "always-defined"
REMOVE_ITEM = "REMOVE_ITEM"  # a build_filter fact's last word where its name is an item list(REMOVE_ITEM) drops
COMMENTED_OUT_DEFINE = "commented-out-define"
# a make variable a Makefile tests (`ifeq "$(ENABLE_CUDA)" "1"`) and does not assign: off by default only where no
# build file of the project assigns it and its name asks for something (workloads/switches.make_unset)
MAKE_UNSET = "make-unset"
# a cmake fact's name where a source property gives a file a host language (`set_source_files_properties(a.cu
# PROPERTIES LANGUAGE CXX)`: extract/text/cmakelists.py), which workloads/switches.compiled_only_under reads
HOST_LANGUAGE = "language:host"
# The prefix of a switch_branch fact's name for CMake's `if(DEFINED X)` (true when X is set at all, to any value): the
# switch `DEFINED X`, off by default only where nothing sets X (workloads/switches.never_set).
DEFINED_PREFIX = "DEFINED "
# ... and of `if(DEFINED ENV{CUDA})`, an environment variable (https://cmake.org/cmake/help/latest/command/if.html#defined):
# the switch `DEFINED ENV{CUDA}`, off where the user's environment does not set it
ENVIRONMENT_PREFIX = "ENV{"
# cmake_parse_arguments(<prefix> ...) and cmake_parse_arguments(PARSE_ARGV <N> <prefix> ...) set `<prefix>_<keyword>`
# for each keyword a caller passes (https://cmake.org/cmake/help/latest/command/cmake_parse_arguments.html): its cmake
# fact carries the prefix (`if(DEFINED arg_USE_CUDA)` in a helper tests what its caller asked for)
PARSE_ARGUMENTS = "cmake_parse_arguments"
# The text of a `defined` fact of a struct, class or union a file defines with a body (`struct cuComplex {`):
# the name is that file's own type there (match.candidates), not a repo-wide name (a header copying a vendor's
# declarations must not hide the vendor's type elsewhere).
OWN_RECORD = "own-record"

STRUCTURE_KINDS: dict[str, str] = {
    "defined": "a macro the project defines (its uses are the project's names, not CUDA's), or a top-level "
               "namespace a file opens, as `namespace NAME` (a call qualified by it is the project's), or a struct a "
               "file defines with a body (text `own-record`: the file's own type there)",
    "namespace_alias": "`namespace a = b;` (a HIP-guarded alias makes `a::` portable repo-wide)",
    "loaded_library": "a shared library a C/C++ file opens by name at run time (`dlopen(\"libnvidia-ml.so\", ...)`, "
                      "`LoadLibraryA(\"nvml.dll\")`); the name is the string as written",
    "cmake_project": "a CMake `project()`",
    "cmake_target": "a CMake target; the role is the command that made it",
    "cmake_include": "include directories of a target",
    "cmake_link": "`target_link_libraries` of a target",
    "distribution": "a Python distribution's name (pyproject, setup.py, setup.cfg)",
    "extension": "an extension module built by setup.py (role `setup`: torch's CUDAExtension or a setuptools Extension; "
                 "the declaring file's builder decides the workload kind) or loaded at run time (role `jit`)",
    "extension_target": "an offload target an extension build's flags name (`--offload-arch=gfx942` in "
                        "load(extra_cuda_cflags=...)); the name is the flag, the text the extension's sources, one a line",
    "build_script": "a script or tool a CMake execute_process()/add_custom_command() runs, or a set() of such a "
                    "command line holds (`.../build_amd.py`, `hipify-perl`); the name is its file name",
    "link_library": "a native library a file links by name (`-lNAME` of a Go file's `#cgo LDFLAGS:`); the text: the "
                    "`-L` folders of the same directive, one a line",
    "switch_define": "a live `#define X [value]` of a switch-shaped name; the text is its value (empty for none)",
    "toggle_define": "a live `#define X` with no value (not an include guard): turns on a toggle another file "
                     "leaves commented out (`//#define X`, a `build_switch`)",
    "julia_package": "a Julia package's name (Project.toml `name`): its code is src/<name>.jl and what that includes",
    "julia_include": "a Julia `include(...)`: the name is a literal argument's path (relative to the file's folder), "
                     "empty for any other argument (its text kept)",
    "julia_extension": "a package extension a Julia Project.toml's `[extensions]` names (the name); the text: the weak "
                       "dependencies that load it, one a line",
    "runtime_source": "a CUDA file a run-time compiler reads (`cupy.RawModule(code=Path(...).read_text())` of `x.cu`); "
                      "the name is the file's",
    "kernel_binary": "a compiled GPU module a Python string names (`_convolution.fatbin`); the name is its stem",
    "function_defined": "a function definition (its span); role `cutlass` when it names cutlass::/cute:: or a type of its "
                        "file that does, `stub` when its body only throws or fails a check (`crossref`)",
    "function_reference": "a name code reaches a function by: role `call` (once per enclosing function), `registration` "
                          "(`m.impl(\"op\", f)`, pybind `m.def(\"f\", &f)`; the op and dispatch key in its text), "
                          "`schema` (`m.def(\"op(...) -> ...\")`), `declaration` (`T f(...);`)",
    "switch_branch": "a branch taken when a build switch is on (`#ifdef USE_CUDNN`, CMake `if(BUILD_CUTLASS)`, make "
                     "`ifeq ($(USE_CUDNN), 1)`), over "
                     "its lines; the name is the switch (workloads/parts.py decides whether it is optional)",
    "host_tool_branch": "lines of a shell script that run only where an NVIDIA tool is installed (the `then` branch "
                        "of `if command -v nvidia-smi`, or what follows `if ! command -v nvidia-smi; then exit 0; fi`): "
                        "the name is the tool, the text the test (extract/text/host_tools.py)",
    "shell_case_arm": "an arm of a shell `case` on the script's command line (`case $1 in`, or a variable the script "
                      "assigns `$1`), from its pattern to its `;;`: the name is the pattern, the text the case "
                      "(extract/text/case_arms.py)",
    "unless_branch": "a branch taken only while a macro is undefined (`#ifndef NO_CUDA`, `#if !defined(X)`, the `#else` "
                     "of `#ifdef X`), over its lines; the name is the macro (workloads/project_defines.py reads it "
                     "against the macros every build defines)",
    "compose_service": "a service of a Compose file that builds its image, over the service's lines: the name is the "
                       "service, the text the Dockerfile's path relative to the Compose file's folder "
                       "(workloads/compose_services.py)",
    "library_guard_branch": "a branch taken on a CUDA library header's include guard (`#ifdef _CUFFT_H_` in NVIDIA's "
                            "samples helper helper_cuda.h: rules/names/device.yaml `library_include_guards`), over its "
                            "lines; the name is the guard (workloads/library_guards.py)",
    "backend_branch": "a CMake branch a HIP build takes (`hip`) or skips (`cuda`: `if(NOT USE_ROCM)`, "
                      "`if(GPU_LANG STREQUAL \"CUDA\")`), over its lines",
    "build_switch": "a CMake `option()`, `cmake_dependent_option()`, project `*_option()` or `set(X 0 CACHE BOOL)`, a "
                    "Makefile `X ?= 0`, a commented-out `# X := 1` or a macro a setup.py defines only when an "
                    "environment variable is set (`-DX`, `(\"X\", None)`; text `0 environment-opt-in`) or in flags every "
                    "build passes (`1 always-defined`): the name is the switch, the text its default and "
                    "how it was declared (`OFF option`)",
    "configured": "a make variable a Makefile tests whose value is one configure substitution (`ENABLE_CUDA = "
                  "@enable_cuda@`): the name is the variable, the text the substituted output variable",
    "configured_value": "an output variable a configure script substitutes (`AC_SUBST(enable_cuda, \"$enable_cuda\")`) "
                        "with its value at configure's defaults: the name is the variable, the text the value",
    "switch_value": "a CMake `set(X VALUE)` of one unquoted value (not a cache entry): the name is the variable, "
                    "the text the value in upper case (`ON`), or another variable's value as written (`${USE_X}`)",
    "build_source": "a source file a CMake command or a Makefile assignment names (`list(APPEND SRCS csrc/a.cu)`, "
                    "`SRCS += a.cu`), or a pattern that globs them (`file(GLOB_RECURSE SRCS *.cu)`, make "
                    "`$(wildcard cuda/*.cu)`; text: the mode and variable), relative to its folder",
    "source_unplaced": "a source a CMake command names where the extractor cannot place it: below a folder "
                       "variable (`${SRC_DIR}/kernel.cu`), or a file(GLOB) pattern not read as sources (`src/ios/*`, "
                       "`${DIR}/*.cu`): the name is the file name as a pattern (`kernel.cu`, `*.cu` for `${name}.cu`, "
                       "`*`), the text the path as written",
    "make_source": "a source file a Makefile names once its own variables are expanded (`$S/k.cu` with `S = ./src`), "
                   "relative to its folder (a glob where `$(wildcard)` gave one); text `object`: the source a pattern "
                   "rule of the file compiles an object from (`%.o: %.cu`, `kudnn.o`)",
    "make_unplaced": "what a Makefile names where the reading cannot place it (extract/text/make_reach.py): the name "
                     "is a file name pattern (`k.cu` below an unassigned variable, `x.*` for an object no rule of the "
                     "file compiles, `*` for an unread function that mentions sources), the text says which",
    "vs_source": "a file a Visual Studio project lists (`<CudaCompile Include=\"k.cu\" />` of a .vcxproj, `<File "
                 "RelativePath=\".\\k.cu\">` of a .vcproj), relative to the project's folder; the text is the element",
    "cmake_subdirectory": "`add_subdirectory(dir)`",
    "build_filter": "`list(FILTER SRC EXCLUDE REGEX re)` or `list(REMOVE_ITEM SRC item...)` in the branch of a top-level "
                    "`if(NOT X)` or `if(X)` taken while X is off: the name is the regular expression (or the item), "
                    "the text the list variable and X (then `REMOVE_ITEM` for an item)",
    "switch_from_package": "a CMake `set(X ${X} PARENT_SCOPE)` in a function() body after a find_package of a package "
                           "(the text: the package and the function): the caller's X is the found package's value",
    "switch_cleared": "a CMake `set(X OFF)` directly in the branch of a top-level `if(NOT Y)` or the else() of a "
                      "top-level `if(Y)`, Y one variable (`if(NOT ${CUDA_FOUND}) set(GPU_VERSION off)`): the name is X, "
                      "the text the value in upper case and Y",
    "cargo_package": "a Cargo.toml `[package]` name",
    "cargo_member": "a Cargo workspace member as written (a path or glob); text `default` or `not-default` where "
                    "`default-members` is given, `only-default` for a default member `members` omits, `exclude`",
    "cargo_dependency": "a Cargo dependency `cargo build` may compile (not dev-dependencies): the name is the package, "
                        "the text `path=<folder>`, `workspace` or empty; role words `optional`, `workspace-table`, "
                        "`no-default-features`",
    "cargo_build_source": "a file path a Cargo build script (build.rs) writes as a string (`\"csrc/x.cpp\"`, a glob); the "
                          "text: the feature gates around it, one a line (`a|b` where either turns it on)",
    "cargo_feature": "a Cargo `[features]` entry (the name; its items one a line in the text), or the features a "
                     "dependency asks for (named `<dependency key>/`)",
    "cmake_genex": "a conditional generator expression (`$<$<COMPILE_LANGUAGE:CUDA>:...>`) over its lines; the name is "
                   "its condition",
    "make_goal_only": "a Makefile rule (or the assignment of a variable only such rules use) that make's default goal "
                      "does not reach, over its lines: the name is the goal that runs it, the text the default goal",
    "source_variable_use": "a CMake command that reads a variable a file(GLOB[_RECURSE] VAR ...) of the same file lists "
                           "sources into (`add_executable(x ${CUDA_SOURCES})`): the name is the variable, the text "
                           "the command",
    "maven_module": "a module a Maven POM lists (`<module>cutlass-jni</module>`, relative to its folder): the text is the "
                    "profile's id (empty outside profiles), the role `default` or `not-default` (a profile `mvn` "
                    "does not activate by itself)",
    "make_goal_test": "a Makefile conditional's branch taken only when make's command line names a goal "
                      "(`ifneq (,$(filter $(MAKECMDGOALS),optix))`), over its lines: the name is the first goal, the "
                      "text all of them",
    "make_stem": "a plain stem (`mmc_optix_host`: no suffix, no variable) an assignment names inside a "
                 "`make_goal_test` branch, and no assignment outside such branches names",
    "make_no_rule": "a prerequisite make's default goal needs that no rule of the Makefile makes (`cuda` in "
                    "`all: sequential cuda`); where no file or folder of that name is there, make stops: the default "
                    "goal fails (workloads/make_goals.py)",
    "make_include": "a file a Makefile's include / -include / sinclude names, relative to the folder make runs in "
                    "(its variables expanded; text `unplaced` where one the file does not assign is in it, `optional` "
                    "for -include / sinclude)",
    "make_unassigned": "the upper-case variables a Makefile reads and never assigns (the name the first one, the text "
                       "all of them): what an includer or the environment gives it",
    "make_call": "a goal a recipe asks make for (`$(MAKE) -C gpu cuda`); `*` where the goal is a variable",
    "make_enters": "a folder a recipe make's default goal reaches runs make in (`make -C src`, `cd src && make`); `.` "
                   "the Makefile's own folder, `*` a folder a variable names (workloads/reach.py)",
    "hip_rejected": "`#error` on the HIP side of a HIP guard: a HIP build of the file stops there",
    "commented_import": "an import statement left in a comment (`#     from .fused_act import FusedLeakyReLU`): the "
                        "module as written (a relative one with its dots)",
    "cli_option": "a command-line option (`parser.add_argument(\"--engine\", type=str)`): the name is its "
                  "destination, the text the repr() of its default on a run that does not give it (`?`: no constant)",
    "option_branch": "an `if` branch holding an import, whose test reads only attributes (`opt.engine`), constants, "
                     "not/and/or and comparisons: the name is the branch (`then`, `else`), the text the test",
    "parameter_branch": "an `if` branch holding an import, in a function, whose test reads a parameter with a "
                        "True/False default, or compares one whose default names a back end (a choice): the name is "
                        "the branch, the text the test, the role the parameters (`switches:custom_cuda=False`, "
                        "`switches:backend='auto'|'triton'`)",
    "branch_use": "a use of a name the module binds by `from ... import`, where one use of it at least sits in an "
                  "`if` branch an option or a function's switch picks: the name is the imported name, the text "
                  "`<then|else>\\n<test>` of the innermost such branch (empty outside every one), the role the "
                  "switches the test reads (extract/python/branch_uses.py)",
    "uncalled_function": "a module-level function holding an import in its body that its own file never names "
                         "outside it (no call, reference, decorator or string of its name): the name is the "
                         "function, over its lines (extract/python/on_demand.py)",
    "deferred_body": "the body of a module's top-level function or of a method of its top-level class: code that "
                     "runs when called, not when the module is imported; the name is the function, over the body's "
                     "lines (extract/python/deferred.py)",
    "entry_point": "a function a distribution's entry points name (`x = pkg.cli:main` in pyproject's "
                   "[project.scripts]/[project.entry-points.*]/[tool.poetry.scripts], setup.cfg's "
                   "[options.entry_points], a setup.py string): the name is the function, the text the module; "
                   "the installer's script calls it, so it is not uncalled",
    "execution_provider": "an ONNX Runtime execution provider that is not NVIDIA's (`CPUExecutionProvider`, MIGraphX, "
                          "CoreML ...) in a providers list or a query of the available providers: the name",
    "import_unbound": "an import in `try:` whose ImportError handler binds no name (`except ImportError: pass`): "
                      "the module as its `python_import` names it; the code that uses it has no fallback",
    "rocm_path": "evidence of an upstream ROCm path (a HIP build branch, a ROCm CI job, an `is_hip` branch); "
                 "the name is its strength",
}

# Fact roles; a rule without `roles` matches every role but `definition` and `alias`.
# Roles that carry a value after a colon (`local:12-30`): a family, not one word, so no rule matches them by
# equality (they stay out of the rule schema's enum); what reads them parses the value.
ROLE_FAMILIES: dict[str, str] = {
    "local": "a Python import below the top level: `local:<first line>-<last line>`, the lines of its function "
             "or branch (workloads/optional_words.py reads them)",
    "switches": "a function's switches a `parameter_branch` test reads: `switches:<name>=<default>,...`, a "
                "choice's names joined by `|` (workloads/option_branches.py reads them)",
}


# Roles written as several words joined by spaces (a Cargo dependency both `optional` and from the workspace table):
# what reads them splits the role; no rule matches them (they stay out of the rule schema's enum).
ROLE_WORDS: dict[str, str] = {
    "optional": "a Cargo dependency with `optional = true`: compiled only when a feature turns it on",
    "workspace-table": "an entry of a Cargo `[workspace.dependencies]` table (what members inherit)",
    "no-default-features": "a Cargo dependency with `default-features = false`",
    "default": "a Maven module a plain `mvn` builds (outside profiles, or in a profile active by default)",
    "not-default": "a Maven module only a profile `mvn` does not activate by itself lists",
}


def role_known(role: str) -> bool:
    """Whether `role` is a word of ROLES, a `family:value` of ROLE_FAMILIES or words of ROLE_WORDS."""
    family, colon, _ = role.partition(":")
    words = role.split()
    return role in ROLES or (bool(colon) and family in ROLE_FAMILIES) or (bool(words) and all(w in ROLE_WORDS for w in words))


ROLES: dict[str, str] = {
    "call": "a call `f()`",
    "probe": "a `build_source` a configure-time command compiles (try_run/try_compile): a probe, not a build's source",
    "member": "a member call `obj.f()`",
    "type": "a type name",
    "template": "the name of a template type",
    "value": "any other use of the name",
    "macro": "a name in a preprocessor condition",
    "negated_macro": "a name tested only negated in a preprocessor condition (`#ifndef X`, `!defined(X)`)",
    "legacy_gate": "a name in a preprocessor condition only an older NVIDIA GPU passes "
                   "(`defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600`): false under hip-clang, which takes the other path",
    "tuning_macro": "a name in the condition of a preprocessor chain whose every branch only sets a pragma "
                    "(`#ifdef __CUDA_ARCH__` / `#define PRAGMA_UNROLL #pragma unroll` / `#else` / `#define PRAGMA_UNROLL`)",
    "compare": "a Python name compared with (`dtype == torch.float8_e4m3fn`, `x in (...)`) or "
               "checked by `isinstance`",
    "literal_match": "a Python name tested only for equality with string literals (`torch.version.cuda == '12.5'`, "
                     "`x in ('11.8', '12.1')`): false, not an error, when the name is None",
    "message": "a Python name printed or logged (an argument of `print`, `logging`/`logger` calls, "
               "`warnings.warn`)",
    "locked": "a requirement of a file a resolver wrote (a pip-compile/uv header, `--hash=` on every exact pin, or a "
              "name-ordered `pip freeze` of 20 or more exact pins): the resolver's record, not the project's requirement "
              "(extract/text/deps.py); no dependency rule reads it, the stack reads it as a locked pin",
    "framework_runtime": "a CUDA runtime pin (cudatoolkit, pytorch-cuda, cuda-version) of a conda environment that "
                         "installs PyTorch from conda: PyTorch's runtime, which its ROCm build brings itself",
    "namespace": "a namespace qualifier",
    "definition": "a function's own name",
    "alias": "`namespace a = b;`",
    "command": "a CMake command (facts of kind `cmake`)",
    "required": "a CMake find_package the configuration stops without (REQUIRED, or `if(NOT X_FOUND)` + FATAL_ERROR)",
    "found": "a CMake find_package the configuration goes on without (its result is only tested)",
    "project": "`project()` (facts of kind `cmake_project`)",
    "add_library": "the command that made a CMake target",
    "add_executable": "the command that made a CMake target",
    "cuda_add_library": "the command that made a CMake target (FindCUDA)",
    "cuda_add_executable": "the command that made a CMake target (FindCUDA)",
    "hip_add_library": "the command that made a CMake target (FindHIP)",
    "hip_add_executable": "the command that made a CMake target (FindHIP)",
    "target_sources": "the command that added sources to a CMake target",
    "python_add_library": "the command that made a CMake target (a Python extension module, FindPython)",
    "python3_add_library": "the command that made a CMake target (a Python extension module, FindPython3)",
    "pybind11_add_module": "the command that made a CMake target (a pybind11 extension module)",
    "nanobind_add_module": "the command that made a CMake target (a nanobind extension module)",
    "include_directories": "facts of kind `cmake_include`",
    "target_include_directories": "facts of kind `cmake_include`",
    "target_link_libraries": "facts of kind `cmake_link`",
    "setup": "an extension built by setup.py",
    "jit": "an extension loaded at run time (`load`, `load_inline`)",
    "cgo": "a library a Go file's `#cgo LDFLAGS:` directive links (facts of kind `link_library`)",
    "set": "a CMake set() (facts of kind `build_script`: the command line it holds runs a script)",
    "execute_process": "a CMake execute_process() (facts of kind `build_script`: the script it runs at configure time)",
    "add_custom_command": "a CMake add_custom_command() (facts of kind `build_script`: the script it runs at build time)",
    "add_custom_target": "a CMake add_custom_target() (facts of kind `build_script`: the script it runs at build time)",
    "top": "a CMake set() in no block of its file (no if(), function(), macro() or loop; facts of kind `switch_value`)",
    "ptx": "inline assembly written in PTX's syntax, its statements ended by `;` (facts of kind `asm`)",
    "cutlass": "a function definition that names cutlass::/cute:: (facts of kind `function_defined`)",
    "stub": "a function definition whose body only throws or fails a check (facts of kind `function_defined`)",
    "registration": "`m.impl(\"op\", f)`, pybind `m.def(\"f\", &f)` (facts of kind `function_reference`)",
    "schema": "`m.def(\"op(...) -> ...\")` (facts of kind `function_reference`)",
    "declaration": "a function declared without a body (facts of kind `function_reference`)",
}

# Construct name -> what it is, by the extractor that emits it.
C_CONSTRUCTS: dict[str, str] = {
    "kernel-definition": "a `__global__` function",
    "kernel-launch": "a `<<<...>>>` launch in host code",
    "device-kernel-launch": "a launch in device code (dynamic parallelism)",
    "device-runtime-call": "a `cuda*` runtime call in device code",
    "device-alloca": "`alloca` (or `__builtin_alloca`) called in device code",
    "lane-mask-32": "a mask covering at most 32 lanes passed to a `*_sync` intrinsic or `__syncwarp`",
    "ballot-32bit-store": "a ballot result stored in a 32-bit integer",
    "popc-ballot": "`__popc` of a ballot (a 32-bit population count of a 64-bit mask)",
    "lane-arith-32": "`& 31`, `% 32`, `>> 5`, `/ 32`, `< 32`, `>= 32` on a lane/thread/warp expression in device code",
    "warpsize-compare-32": "`warpSize == 32` and its spellings",
    "shuffle-offset-16": "a shuffle reduction starting at offset 16",
    "tiled-partition-32": "`tiled_partition<32>` / `tiled_partition(g, 32)`",
    "warp-size-constant-32": "a constant named like a warp size, defined as 32 (or its log, 5)",
    "warp-size-constant-use": "a use of such a constant",
    "warp-size-constant-shared": "such a constant in a file that uses none of them in device code (it serves other files)",
    "warp-size-constant-unused": "such a constant whose name the file spells nowhere but in its definition",
    "warpsize-constexpr": "`warpSize` where a constant expression is needed",
    "shared-memory-request": "a dynamic or static shared-memory request; its value is the byte count",
    "launch-bounds-min-blocks": "`__launch_bounds__` with a minimum-blocks argument",
    "managed-variable": "a `__managed__` variable",
    "mask-type-32": "a lane-mask type or mask variable declared 32 bits wide",
    "bitop-mask-32": "a 32-bit `__popc` / `__ffs` / `__clz` / `__brev` / `__fns` applied to a lane mask",
    "grid-sync": "a cooperative-groups grid synchronisation (`grid.sync()`)",
    "flat-index-early-return": "a kernel indexed by one flat global id, with an early return and no grid-stride loop",
    "warp-size-constant-64": "HIP code that fixes the wavefront size at 64",
    "fp8-e4m3-max": "the OCP FP8 E4M3 maximum (448) used as a constant",
    "device-atomic-overload": "a device function that defines its own atomicMax / atomicMin / atomicAdd overload "
                              "with a floating signature HIP declares itself (float* with float, double* with double)",
    "raw-half-init": "a raw half / bfloat16 value brace-initialised from bit patterns",
    "libcudacxx-name": "a libcu++ name spelled `cuda::std::...` or `cuda::atomic_ref` and the like",
    "portability-cuda-gate": "a preprocessor branch taken only when Kokkos, RAJA, PETSc or SUNDIALS was built for CUDA",
    "portability-cuda-backend": "the CUDA back end of Kokkos or RAJA named directly (`Kokkos::CudaSpace`, `RAJA::cuda_exec`)",
    "warp-width-block": "a block shape `dim3(32, nwarps)`: x is one 32-lane warp, y counts warps",
    "warp-size-template-argument": "a template argument of 32 for a template parameter named like the warp size",
    "pointer-attributes-unregistered": "a `cudaPointerAttributes` field compared with CUDA's answer for unregistered memory",
    "unsigned-32-alias": "a 32-bit unsigned alias (`using bitmask_t = unsigned int;`) its file uses as no lane mask",
    "device-capability-compare": "a comparison of `cudaDeviceProp::major` (or the compute-capability attribute) that HIP's "
                                 "gfx-derived values decide differently",
    "device-capability-gate-above-instinct": "a compute-capability bound above every Instinct major (>= 10) whose "
                                             "branch for older GPUs only declines (prints and returns)",
    "ginkgo-cuda-executor": "Ginkgo's CUDA executor named directly (`gko::CudaExecutor`)",
    "cuda-arch-option": "a string literal that is an NVIDIA architecture option (`\"--gpu-architecture=compute_80\"`, "
                        "`\"-arch=sm_90a\"`): NVRTC options or an nvcc command built in code (also in Python)",
    "clang-error": "C++ that clang rejects when it parses the code as CUDA (precise mode only)",
    "member-template-without-keyword": "`Outer<T>::member<N>(...)` in a template over T, without `::template`",
    "shading-language-directive": "a GLSL `#extension GL_...: behavior` directive: the file is shader code "
                                  "(or a header shared with shaders), not C++",
    "warp-row-index-no-grid-stride": "a kernel with one warp per row (`blockIdx.x * blockDim.y + threadIdx.y`), "
                                     "bounded by an `if`, with no grid-stride loop",
    "warp-row-early-return": "a `return` (or `#define GO_NEXT return`) after the row id of such a kernel, which ends "
                             "one row's work",
    "ballot-returned-32bit": "a function returning a ballot through a 32-bit unsigned return type (or alias of one)",
    "cuda-version-decode": "a CUDA version number decoded by CUDA's encoding (`v / 1000` with `v % 100` or "
                           "`v / 10 % 100`) in a function that reads a CUDA version",
    "shared-memory-optin-field": "cudaDeviceProp's opt-in shared-memory limit (`prop.sharedMemPerBlockOptin`) read in code",
    "lane-mask-variable-32": "a warp/lane-mask variable or constant declared 32 bits wide",
    "warp-transpose-partial-wave": "a thread count that is no multiple of 64 given to a `BLOCK_LOAD_WARP_TRANSPOSE` / "
                                   "`BLOCK_STORE_WARP_TRANSPOSE` block load or store (directly or through a template "
                                   "parameter of the file)",
    "full-mask-compare-32": "a lane mask (a ballot, `kFullWarpMask`-style name) compared with the 32-lane mask 0xffffffff",
    "half-directed-rounding-host": "`__float2half_rz` / `_rd` / `_ru` called in host-only code",
    "cutlass-only-function-reference": "a registration, op schema, header declaration or call of a function whose every "
                                       "definition (stubs aside) is CUTLASS/CuTe code, outside that code (a cross-file "
                                       "join, `migrate/scan/crossref.py`)",
    "sync-alias-mask-32": "a macro that aliases a *_sync intrinsic (`#define SHFL_DOWN __shfl_down_sync`) and is passed "
                          "a 32-bit mask",
}
PYTHON_CONSTRUCTS: dict[str, str] = {
    "subprocess-nvidia-smi": "a run of nvidia-smi (subprocess, notebook `!`, shell, Makefile, Dockerfile)",
    "capability-compare": "a comparison of the compute capability",
    "capability-floor": "a compute-capability bound below 9 (`cap >= (8, 0)`): decided on ROCm as on the newest GPUs",
    "numba-cuda-kernel": "a `@cuda.jit` kernel",
    "cupy-runtime-compile": "a CuPy call given CUDA C source to compile at run time (`cupy.RawKernel(code, name)`)",
    "triton-inline-asm": "`tl.inline_asm_elementwise`",
    "triton-num-warps": "a `num_warps` value",
    "cuda-library-load": "a CUDA library loaded by name through ctypes (`ctypes.CDLL(\"libcublas.so\")`, `find_library`), "
                         "or in Java through JNA or JNI (`System.loadLibrary(\"cudart\")`)",
    "cuda-library-settings": "a CUDA runtime or driver library loaded through ctypes only to read a version or a device "
                             "count or set a device limit (`lib = ctypes.CDLL(\"libcudart.so\")`, then only "
                             "`lib.cudaDeviceSetLimit(...)`)",
    "nvidia-sdk-library-load": "a closed NVIDIA SDK's binary (OptiX, TensorRT, NVENC/NVDEC, NVAPI, Reflex) loaded by file "
                               "name through ctypes (`cdll.LoadLibrary(os.path.join(here, \"librndSharpOptiX7.so\"))`) "
                               "or, in Java, JNA or JNI (`Native.load(\"NvLowLatencyVk\", ...)`)",
    "warp-size-32-python": "a warp size of 32 in Python code",
    "onnxruntime-nvidia-provider": "an NVIDIA execution provider of ONNX Runtime",
    "jax-cuda-platform": "JAX's `cuda` platform name",
    "mitsuba-cuda-variant": "a Mitsuba 3 CUDA variant (`cuda_ad_rgb` ...) named in `set_variant`",
    "jax-ffi-cuda-target": "an FFI target registered for CUDA",
    "gpu-name-compare": "a comparison of the GPU's name with an NVIDIA product name",
    "tf32-enabled": "TF32 switched on",
}
# what extract/binary.py reads from a prebuilt library or program (its own headers, never its code)
BINARY_CONSTRUCTS: dict[str, str] = {
    "prebuilt-cuda-device-code": "a prebuilt library or program (ELF, PE) that carries CUDA device code: an `.nv_fatbin` "
                                 "(ELF) or `.nv_fatb` (PE) section; the text names the section and the libraries it needs",
}
# what extract/text/julia.py reads from Julia sources
JULIA_CONSTRUCTS: dict[str, str] = {
    "julia-cuda-kernel-launch": "a kernel launched with CUDA.jl's `@cuda` macro (`@cuda threads=n f!(a)`); the text is "
                                "the function launched",
}
# what extract/text/fortran.py reads from Fortran sources (CUDA Fortran)
FORTRAN_CONSTRUCTS: dict[str, str] = {
    "cuda-fortran-module": "a `use` of a CUDA Fortran module (`use cudafor`); the text is the module",
    "cuda-fortran-library-module": "a `use` of a CUDA library's Fortran interface module (`use cublas`); the text is "
                                   "the module",
    "cuda-fortran-kernel": "a CUDA Fortran kernel (`attributes(global) subroutine k(...)`); the text is its name",
    "cuda-fortran-device-procedure": "a CUDA Fortran device procedure (`attributes(device) function f(...)`); the text "
                                     "is its name",
    "cuda-fortran-kernel-launch": "a CUDA Fortran kernel launch (`call k<<<grid, block>>>(...)`); the text is the "
                                  "kernel",
    "cuda-fortran-cuf-kernel": "a `!$cuf kernel do` directive (a loop nvfortran turns into a kernel)",
    "cuda-fortran-device-data": "a declaration with a CUDA Fortran data attribute (`real, device :: a(n)`, "
                                "`attributes(pinned) :: b`); the text is the attribute",
    "cuda-fortran-api-call": "a call of a `cuda*` runtime function in a file that uses a CUDA Fortran module "
                             "(`istat = cudaMemcpy(...)`); the text is the function as written",
}
LINT_CONSTRUCTS: dict[str, str] = {
    "suppression-without-rules": "a `rocm-migrate: ignore` marker that names no rule",
    "unused-suppression": "a suppression that matched no finding",
}
# what `check` adds from hip-clang's answer (migrate/hipclang); no extractor emits it
CHECK_CONSTRUCTS: dict[str, str] = {
    "compiler-error-unpredicted": "a hip-clang error on a converted line that no finding predicted",
}
CONSTRUCTS: dict[str, str] = {**C_CONSTRUCTS, **PYTHON_CONSTRUCTS, **BINARY_CONSTRUCTS, **JULIA_CONSTRUCTS,
                               **FORTRAN_CONSTRUCTS, **LINT_CONSTRUCTS, **CHECK_CONSTRUCTS}

# How a package's version is pinned, strongest first: the first kind among a package's pins
# decides it. A `variable` pin (`torch==${{ matrix.torch }}`) is set elsewhere and cannot be checked.
PIN_KINDS: tuple[PinKind, ...] = ("exact", "locked", "range", "unpinned", "variable")
FLOATING_PIN_KINDS: frozenset[PinKind] = frozenset({"range", "unpinned"})
VERSIONED_PIN_KINDS: frozenset[PinKind] = frozenset({"exact", "locked"})


def pin_rank(kind: str) -> int:
    """The place of a pin kind in PIN_KINDS; a kind from an older report ranks after all of them."""
    return PIN_KINDS.index(kind) if kind in PIN_KINDS else len(PIN_KINDS)

# The optional extras of pyproject.toml that a command names when it misses one (`Extra`, above).
EXTRAS: tuple[Extra, ...] = ("check", "cluster", "precise", "validate")


def install_hint(extra: Extra) -> str:
    """How to get an extra: rocm-migrate has no release on a package index, so it is installed from its checkout."""
    return f"pip install '.[{extra}]' in rocm-migrate's checkout"
