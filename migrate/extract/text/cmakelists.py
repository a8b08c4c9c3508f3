"""extract, CMake: commands and their arguments, read with a small lexer of CMake's grammar
(comments, bracket arguments, quoted and unquoted arguments, nested parentheses)."""
from __future__ import annotations

import bisect
import dataclasses
import itertools
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from migrate.extract.c.guards import SWITCH_NAME, UNDERSCORED_SWITCH_NAME
from migrate.extract.names import name_list
from migrate.extract.text import repositories
from migrate.extract.text.lines import fact, finish, flags
from migrate.extract.text.rocm_path import HIP_IDENT
from migrate.model import Extraction, Fact
from migrate.vocabulary import (
    CMAKE_BLOCK_ENDS,
    CMAKE_BLOCK_STARTS,
    DEFINED_PREFIX,
    ENVIRONMENT_PREFIX,
    HOST_LANGUAGE,
    PARSE_ARGUMENTS,
    REMOVE_ITEM,
)

COMMAND = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")
BRACKET_OPEN = re.compile(r"\[(=*)\[")
UNQUOTED = re.compile(r'(?:[^\s()#"\\]|\\.)+')
VARIABLE_REFERENCE = re.compile(r"\$(?:ENV)?\{([^}]*)\}")
TOKENS = re.compile(r"\bCUDA::\w+|\b(?:CMAKE_CUDA_|CUDAToolkit_|CUDA_)\w+|\b(?:TORCH_CUDA_ARCH_LIST|CUDAARCHS|CUDACXX"
                    r"|CUDAHOSTCXX|CUDAFLAGS)\b")
LANGUAGE_COMMANDS = frozenset({"set_source_files_properties", "set_property", "set_target_properties",
                               "set_directory_properties"})
LINK_COMMANDS = frozenset({"target_link_libraries", "link_libraries"})
LINK_KEYWORDS = frozenset({"PUBLIC", "PRIVATE", "INTERFACE", "LINK_PUBLIC", "LINK_PRIVATE",
                           "LINK_INTERFACE_LIBRARIES", "debug", "optimized", "general"})
BARE_LIBRARY = re.compile(r"^[A-Za-z][\w+.-]*$")
MESSAGE_COMMANDS = frozenset({"message"})
DEFINING_COMMANDS = frozenset({"function", "macro", "set", "include"})
# Commands that define preprocessor macros for what they compile, named without `-D`:
# https://cmake.org/cmake/help/latest/command/target_compile_definitions.html ,
# https://cmake.org/cmake/help/latest/command/add_compile_definitions.html
THRUST_DEVICE_SYSTEM = "THRUST_DEVICE_SYSTEM"  # the macro that picks Thrust's device back end, and its values' prefix
DEFINITION_COMMANDS = {"target_compile_definitions": 1, "add_compile_definitions": 0}  # -> arguments before the names
DEFINITION_KEYWORDS = frozenset({"PUBLIC", "PRIVATE", "INTERFACE"})
# the commands whose definitions hold for every target of the folder and of the folders it adds (not one target's)
DIRECTORY_DEFINITIONS = frozenset({"add_definitions", "add_compile_definitions"})
MACRO_NAME = re.compile(r"^(?:-D)?([A-Za-z_]\w*)(?:=.*)?$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Argument:
    start: int  # offset in the file
    text: str
    quoted: bool


@dataclass(frozen=True, slots=True)
class Command:
    name: str  # lower case
    start: int
    end: int
    arguments: tuple[Argument, ...]


class _Positions:
    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __call__(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index]


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    where = _Positions(text)
    facts: list[Fact] = []
    commands = parse(text)
    roots = _root_names(commands)
    stops = _stops_without(commands)
    facts.extend(_branches(commands, where, text))
    facts.extend(_source_filters(commands, where))
    facts.extend(_cleared_switches(commands, where))
    facts.extend(_package_switches(commands, where))
    facts.extend(_value_defaults(commands, where))
    facts.extend(_guards(text, commands, where))
    facts.extend(_generator_expressions(text, where))
    facts.extend(_glob_uses(commands, where))
    depth = 0  # blocks open around the command (if, function, macro, foreach, while, block)
    for command in commands:
        depth -= command.name in CMAKE_BLOCK_ENDS
        line, col = where(command.start)
        # function()/macro()/set()/include() carry the name they define or load (a call is told from a body, a set
        # variable from an unset one, a module from where it is loaded)
        defines = command.arguments[0].text if command.name in DEFINING_COMMANDS and command.arguments else ""
        if command.name == PARSE_ARGUMENTS:  # the prefix of the `<prefix>_<keyword>` variables it sets
            defines = _parse_prefix(command.arguments)
        facts.append(fact("cmake", command.name, line, col, col + command.end - command.start, text=defines,
                          role="command"))
        facts.extend(_language(command, where))
        facts.extend(_top_definitions(_arguments(command, where), command, top=depth <= 0))
        # a project's own wrapper of find_package (OpenImageIO's and OSL's `checked_find_package (CUDA REQUIRED ...)`,
        # src/cmake/checked_find_package.cmake) takes find_package's arguments and finds the same package
        if command.name.lower().endswith("find_package") and command.arguments and not command.arguments[0].quoted:
            first = command.arguments[0]
            line, col = where(first.start)
            required = " REQUIRED" if any(a.text == "REQUIRED" and not a.quoted for a in command.arguments) else ""
            needed = required or first.text.upper() in stops
            facts.append(fact("cmake", f"find_package:{first.text}", line, col, col + len(first.text),
                              text=f"find_package({first.text}{required})", role="required" if needed else "found"))
        if command.name in LINK_COMMANDS:
            facts.extend(_bare_libraries(command, where))
        facts.extend(_structure(command, where))
        facts.extend(_top_definitions(_build_parts(command, where, roots), command, top=depth <= 0))
        facts.extend(_switch_value(command, where, top=depth <= 0))
        facts.extend(_scripts(command, where))
        depth += command.name in CMAKE_BLOCK_STARTS
        if command.name in repositories.FETCH_COMMANDS:
            facts.extend(_repositories(command, where))
    return finish(text, facts)


GENEX_CONDITION = re.compile(r"\$<\$<([A-Z_]+:[^<>$]*)>:")


def _generator_expressions(text: str, where: _Positions) -> list[Fact]:
    """`$<$<COMPILE_LANGUAGE:CUDA>:...>` and other conditional generator expressions over their lines (`cmake_genex`,
    the condition as name): an expression may run over several lines of one command (ml-explore/mlx 846d1762
    mlx/CMakeLists.txt:68-69 `$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/wd4244` / `-Xcompiler=/wd4267>)`), which a
    look at one line does not see (https://cmake.org/cmake/help/latest/manual/cmake-generator-expressions.7.html)."""
    out: list[Fact] = []
    for m in GENEX_CONDITION.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            if text.startswith("$<", i):
                depth, i = depth + 1, i + 2
                continue
            if text[i] == ">":
                depth -= 1
            i += 1
        if depth:
            continue
        line, col = where(m.start())
        end_line, end_col = where(i - 1)
        out.append(Fact(kind="cmake_genex", name=m.group(1), line=line, column=col + 1, end_line=end_line,
                        end_column=end_col + 1))
    return out


def _stops_without(commands: list[Command]) -> frozenset[str]:
    """Packages (upper case) whose absence stops the configuration: `if(NOT X_FOUND)` (or `NOT X_FOUND` among
    OR'ed conditions) whose branch runs `message(FATAL_ERROR ...)` before its else/endif, as find_package(X REQUIRED)
    would (Tencent/Forward's `find_package(TensorRT)` + `if(NOT TensorRT_FOUND) message(FATAL_ERROR ...)`)."""
    out: set[str] = set()
    for i, command in enumerate(commands):
        if command.name != "if":
            continue
        words = [a.text for a in command.arguments if not a.quoted]
        if "AND" in words:
            continue
        names = [w[:-len("_FOUND")].upper() for k, w in enumerate(words[1:], 1)
                 if words[k - 1] == "NOT" and w.upper().endswith("_FOUND")]
        if not names:
            continue
        depth = 0
        for later in commands[i + 1:]:
            if later.name == "if":
                depth += 1
            elif later.name == "endif" and depth:
                depth -= 1
            elif later.name in ("else", "elseif", "endif") and not depth:
                break
            elif not depth and later.name in MESSAGE_COMMANDS and later.arguments \
                    and later.arguments[0].text == "FATAL_ERROR":
                out.update(names)
                break
    return frozenset(out)


def parse(text: str) -> list[Command]:
    out: list[Command] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            i = _skip_comment(text, i)
        elif c in "\"[":
            i = _skip_argument(text, i)
        elif m := COMMAND.match(text, i):
            if i and (text[i - 1].isalnum() or text[i - 1] == "_"):
                i += 1
                continue
            arguments, i = _arguments_of(text, m.end())
            out.append(Command(m.group(1).lower(), m.start(1), m.end(1), tuple(arguments)))
        else:
            i += 1
    return out


def _arguments_of(text: str, i: int) -> tuple[list[Argument], int]:
    """Arguments from just inside the opening parenthesis to past the matching closing one."""
    arguments: list[Argument] = []
    depth, n = 1, len(text)
    while i < n and depth:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "#":
            i = _skip_comment(text, i)
        elif c == "(":
            depth, i = depth + 1, i + 1
        elif c == ")":
            depth, i = depth - 1, i + 1
        elif c == '"':
            end = _skip_argument(text, i)
            arguments.append(Argument(i + 1, text[i + 1:end - 1], True))
            i = end
        elif c == "[" and (b := BRACKET_OPEN.match(text, i)):
            end = _skip_argument(text, i)
            arguments.append(Argument(b.end(), text[b.end():end - len(b.group(0))], True))
            i = end
        else:
            m = UNQUOTED.match(text, i)
            end = m.end() if m else i + 1
            arguments.append(Argument(i, text[i:end], False))
            i = end
    return arguments, i


def _skip_comment(text: str, i: int) -> int:
    bracket = BRACKET_OPEN.match(text, i + 1)
    if bracket:
        close = text.find("]" + bracket.group(1) + "]", bracket.end())
        return len(text) if close < 0 else close + len(bracket.group(0))
    newline = text.find("\n", i)
    return len(text) if newline < 0 else newline


def _skip_argument(text: str, i: int) -> int:
    if text[i] == '"':
        j = i + 1
        while j < len(text) and text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        return j + 1
    bracket = BRACKET_OPEN.match(text, i)
    if not bracket:
        return i + 1
    close = text.find("]" + bracket.group(1) + "]", bracket.end())
    return len(text) if close < 0 else close + len(bracket.group(0))


# a source property giving a file a host language (`set_source_files_properties(a.cu PROPERTIES LANGUAGE CXX)`)
HOST_LANGUAGES = frozenset({"C", "CXX"})


def _language(command: Command, where: _Positions) -> list[Fact]:
    """language:CUDA where CUDA is enabled: project(x CXX CUDA), enable_language(CUDA), LANGUAGE CUDA."""
    args = command.arguments
    hits: list[Argument] = []
    if command.name == "project":
        hits = [a for a in args[1:] if not a.quoted and a.text == "CUDA"]
    elif command.name == "enable_language":
        hits = [a for a in args if not a.quoted and a.text == "CUDA"]
    elif command.name in LANGUAGE_COMMANDS:
        hits = [b for a, b in itertools.pairwise(args) if a.text == "LANGUAGE" and b.text == "CUDA"]
        for a, b in itertools.pairwise(args):  # LANGUAGE CXX: sources (a .cu one too) the host compiler builds
            if a.text == "LANGUAGE" and b.text in HOST_LANGUAGES:
                line, col = where(b.start)
                return [fact("cmake", HOST_LANGUAGE, line, col, col + len(b.text), text=b.text)]
    out = []
    for arg in hits:
        line, col = where(arg.start)
        out.append(fact("cmake", "language:CUDA", line, col, col + 4, text="CUDA"))
    return out


def _arguments(command: Command, where: _Positions) -> list[Fact]:
    """CUDA variables, properties and imported targets in the arguments (only ${...} inside quotes), and
    nvcc flags; message() only prints."""
    out: list[Fact] = []
    if command.name in MESSAGE_COMMANDS:
        return out
    for arg in command.arguments:
        spans = [(arg.start + m.start(1), m.group(1)) for m in VARIABLE_REFERENCE.finditer(arg.text)] \
            if arg.quoted else [(arg.start, arg.text)]
        for base, chunk in spans:
            for m in TOKENS.finditer(chunk):
                line, col = where(base + m.start())
                out.append(fact("cmake", m.group(0), line, col, col + len(m.group(0)), text=m.group(0)))
        offset = arg.start
        for piece in arg.text.split("\n"):
            line, col = where(offset)
            out.extend(flags(piece, line, col))
            offset += len(piece) + 1
    return out


def _repositories(command: Command, where: _Positions) -> list[Fact]:
    """Repositories FetchContent, ExternalProject and CPM fetch (GIT_REPOSITORY, URL, gh:owner/name)."""
    out = []
    for offset, value, url in repositories.cmake_urls(command.name, [(a.start, a.text) for a in command.arguments]):
        line, col = where(offset)
        out.append(fact("requirement", repositories.name(url), line, col, col + len(value), text=value))
    return out


def _bare_libraries(command: Command, where: _Positions) -> list[Fact]:
    """target_link_libraries(app PRIVATE cudart cublas): a bare name links like -l<name>."""
    args = command.arguments[1:] if command.name == "target_link_libraries" else command.arguments
    out = []
    for arg in args:
        if arg.quoted or arg.text in LINK_KEYWORDS or not BARE_LIBRARY.match(arg.text):
            continue
        line, col = where(arg.start)
        out.append(fact("flag", f"-l{arg.text}", line, col, col + len(arg.text), text=arg.text))
    return out


# ... and the commands that make a Python extension module target: FindPython's python_add_library
# (https://cmake.org/cmake/help/latest/module/FindPython.html#commands), pybind11's pybind11_add_module
# (https://pybind11.readthedocs.io/en/stable/compiling.html#pybind11-add-module) and nanobind's nanobind_add_module
# (https://nanobind.readthedocs.io/en/latest/api_cmake.html); their option words are no sources
TARGET_COMMANDS = frozenset({"add_library", "add_executable", "cuda_add_library", "cuda_add_executable",
                             "hip_add_library", "hip_add_executable", "target_sources", "python_add_library",
                             "python3_add_library", "pybind11_add_module", "nanobind_add_module"})
TARGET_KEYWORDS = frozenset({"STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "IMPORTED", "ALIAS", "GLOBAL",
                             "EXCLUDE_FROM_ALL", "WIN32", "MACOSX_BUNDLE", "PUBLIC", "PRIVATE", "FILE_SET", "BASE_DIRS",
                             "FILES", "TYPE", "HEADERS", "CXX_MODULES", "SYSTEM", "BEFORE", "AFTER", "WITH_SOABI",
                             "USE_SABI", "NO_EXTRAS", "THIN_LTO", "OPT_SIZE", "NB_STATIC", "NB_SHARED", "STABLE_ABI",
                             "NOMINSIZE", "NOSTRIP", "LTO", "PROTECT_STACK", "FREE_THREADED", "NB_SUPPRESS_WARNINGS"})
STRUCTURE = {"target_link_libraries": "cmake_link", "target_include_directories": "cmake_include",
             "include_directories": "cmake_include", "project": "cmake_project"}


def _structure(command: Command, where: _Positions) -> list[Fact]:
    """Workload structure: targets with their sources, links, include directories and the project.

    The fact's name is the target (or project); its text lists the literal arguments, one per line."""
    kind = "cmake_target" if command.name in TARGET_COMMANDS else STRUCTURE.get(command.name)
    if kind is None or not command.arguments:
        return []
    args = [a.text for a in command.arguments if "${" not in a.text and a.text not in TARGET_KEYWORDS]
    if command.name == "include_directories":
        name, values = "", args
    else:
        name, values = command.arguments[0].text, args[1:]
    line, col = where(command.start)
    return [fact(kind, name, line, col, col + len(command.name), text="\n".join(values), role=command.name)]


# What a build's branches and options say about its parts: `switch_branch` (a branch taken when a build
# switch is on: `if(BUILD_CUTLASS)`), `backend_branch` ("cuda" or "hip": the branch a HIP build takes or
# skips, `if(NOT USE_ROCM)`, `if(GPU_LANG STREQUAL "CUDA")`), `build_switch` (`option(X "doc" OFF)`; the text
# is its default and the command: `OFF option`), `build_source` (a source file a command names) and `cmake_subdirectory`.
COMPARISONS = frozenset({"STREQUAL", "EQUAL", "MATCHES", "LESS", "GREATER", "LESS_EQUAL", "GREATER_EQUAL",
                         "VERSION_LESS", "VERSION_GREATER", "VERSION_EQUAL", "VERSION_LESS_EQUAL",
                         "VERSION_GREATER_EQUAL", "STRLESS", "STRGREATER", "IN_LIST", "DEFINED"})
# if()'s own words: `if(${CUDA_VERSION} VERSION_GREATER_EQUAL "11.8")` tests a version, not a switch named
# VERSION_GREATER_EQUAL (https://cmake.org/cmake/help/latest/command/if.html)
CONDITION_KEYWORDS = COMPARISONS | {"NOT", "AND", "OR", "EXISTS", "COMMAND", "TARGET", "POLICY", "TEST", "IS_DIRECTORY",
                                    "IS_ABSOLUTE", "IS_SYMLINK", "IS_NEWER_THAN", "IS_READABLE", "IS_WRITABLE",
                                    "IS_EXECUTABLE", "PATH_EQUAL", "STREQUAL", "STRLESS_EQUAL", "STRGREATER_EQUAL"}
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hip", ".inl")
DIRECTORY_VARIABLES = re.compile(r"^\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR|PROJECT_SOURCE_DIR"
                                 r"|CMAKE_SOURCE_DIR)\}/")
OPPOSITE = {"hip": "cuda", "cuda": "hip"}
# `$ENV{X}` expands to the empty string, which if() reads as false, when X is not set:
# https://cmake.org/cmake/help/latest/variable/ENV.html , https://cmake.org/cmake/help/latest/command/if.html#basic-expressions
ENVIRONMENT_DEFAULT = re.compile(r"\$ENV\{\w+\}")
# A find module's result (`CUDAToolkit_FOUND`, in the package's own spelling): a branch on it is kept as a switch's
# branch; which results are off without NVIDIA's toolkit is data (rules/workloads/optional.yaml `detection`).
FOUND_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*_FOUND$")
GLOB_KEYWORDS = frozenset({"LIST_DIRECTORIES", "CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS", "RELATIVE"})


# A one-word variable an if() tests (`if(CUDA)`, `elseif(CUBLAS)`: CNugteren/CLBlast eeff2514 CMakeLists.txt:62
# `option(CUDA "Build CLBlast with a CUDA API (beta)" OFF)`, :296 `elseif(CUDA)` adds src/clblast_cuda.cpp): a branch
# on it is kept as a switch's branch; whether it is one is what the project declares (an option() off by default:
# workloads/parts.py), so CMake's platform variables (WIN32, MSVC) never become one. if()'s constants are left out.
WORD_NAME = re.compile(r"^[A-Z][A-Z0-9]+$")
# CMake variables are case-sensitive names a project spells its own way: `option(cuBERT_ENABLE_GPU "Enable GPU support"
# OFF)` (zhihu/cuBERT CMakeLists.txt:10), `SET(OpenMVS_USE_CUDA ON CACHE BOOL ...)` (cdcseacave/openMVS CMakeLists.txt:24).
# A branch on such a name is kept too; what it is, is again what the project declares.
MIXED_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+$")
CONSTANTS = frozenset({"ON", "OFF", "TRUE", "FALSE", "YES", "NO", "NOTFOUND", "IGNORE"})
# `if(A OR B)` of plain switches: on when any is, so off by default only when every one is. Kept as one branch named
# by the switches joined with " OR " (TENGINE_ENABLE_CUDA OR TENGINE_ENABLE_TENSORRT: OAID/Tengine c73708ce
# cmake/cuda.cmake:22); workloads/parts.py gives it the first one's part when all of them are optional.
EITHER = " OR "


def _top_level(args: tuple[Argument, ...], text: str, opening: int) -> tuple[Argument, ...] | None:
    """The arguments outside every parenthesized group of an if() condition (a group stands for one operand: if()
    evaluates it first, https://cmake.org/cmake/help/latest/command/if.html#condition-syntax), or None where the
    condition has no group. `if (BUILD_NVIDIA AND (BUILD_EXE_MINER OR BUILD_EXE_UNIT_TEST))` is taken only where
    BUILD_NVIDIA is on (luminousmining/miner sources/CMakeLists.txt:4): its top level is `BUILD_NVIDIA AND`."""
    depth, grouped, out = 0, False, []
    end = opening
    for a in args:
        gap = text[end:a.start]
        depth += gap.count("(") - gap.count(")")
        grouped = grouped or depth > 0
        if depth == 0:
            out.append(a)
        end = max(a.start, a.start + len(a.text) + (2 if a.quoted else 0))
    return tuple(out) if grouped and depth >= 0 else None


def _parse_prefix(args: tuple[Argument, ...]) -> str:
    texts = [a.text for a in args]
    return (texts[2] if len(texts) > 2 else "") if texts[:1] == ["PARSE_ARGV"] else (texts[0] if texts else "")


def _switch_word(text: str) -> bool:
    return bool(SWITCH_NAME.match(text) or UNDERSCORED_SWITCH_NAME.match(text) or FOUND_NAME.match(text)
                or MIXED_NAME.match(text)
                or (WORD_NAME.match(text) and text not in CONSTANTS and text not in CONDITION_KEYWORDS))


# `if("${GPU_VERSION}")`, `if(${CUDA_FOUND})`: an argument that is one variable's value, quoted or not, tests that
# variable's value: if() reads a value that is one of its true constants (ON, 1, YES, TRUE, Y) as true, quoted or not
# (https://cmake.org/cmake/help/latest/command/if.html#basic-expressions; shadowzhougit/THUNDER bb55b392
# CMakeLists.txt:317 `if("${GPU_VERSION}")` of `option(GPU_VERSION ... ON)`). Read as a test of the variable itself.
WHOLE_REFERENCE = re.compile(r"^\$\{([A-Za-z_]\w*)\}$")


def _dereferenced(args: tuple[Argument, ...]) -> tuple[Argument, ...]:
    """Not the operand of another test (`EXISTS "${DIR}"`, `TARGET ${T}`): that one tests a path or a name, not a value."""
    return tuple(Argument(a.start, m.group(1), False)
                 if (m := WHOLE_REFERENCE.match(a.text)) and (i == 0 or args[i - 1].text in ("NOT", "AND", "OR")) else a
                 for i, a in enumerate(args))


def _condition(args: tuple[Argument, ...], text: str = "", opening: int = 0) -> tuple[str, list[str]]:
    """The back end ("hip", "cuda" or "") and the switches a positive branch of if(...) is taken on. With the file's
    `text` (the condition starting at `opening`), a condition with parenthesized groups is read at its top level
    (`_top_level`)."""
    top = _top_level(args, text, opening) if text else None
    if top is not None and any(a.text not in CONDITION_KEYWORDS for a in top):  # not one group around everything
        if "OR" in (a.text for a in top):
            return _condition(args)[0], []
        args = top
    args = _dereferenced(args)
    texts = [a.text for a in args]
    backend = ""
    for i, arg in enumerate(args):
        negated = i > 0 and texts[i - 1] == "NOT"
        if HIP_IDENT.fullmatch(arg.text) or arg.text.upper() in ("HIP", "ROCM"):
            backend = "cuda" if negated else "hip"
            break
        if arg.text == "CUDA" and i > 0 and texts[i - 1] == "STREQUAL":
            backend = "cuda"
            break
    if "OR" in texts:
        either = texts[::2]
        if backend or len(args) % 2 == 0 or any(t != "OR" for t in texts[1::2]) or any(a.quoted for a in args) \
                or not all(_switch_word(t) and not HIP_IDENT.fullmatch(t) for t in either):
            return backend, []
        return backend, [EITHER.join(either)]
    switches = [a.text for i, a in enumerate(args) if not a.quoted and a.text not in CONDITION_KEYWORDS
                and _switch_word(a.text)
                and not HIP_IDENT.fullmatch(a.text) and (i == 0 or texts[i - 1] not in ("NOT", *COMPARISONS))
                and (i + 1 == len(args) or texts[i + 1] not in COMPARISONS)]
    return backend, switches + [name for name, _, _ in _value_switches(args)] + _defined_switches(args)


# `if(DEFINED USE_CUDA)`: true when the variable is set at all, to any value, OFF included
# (https://cmake.org/cmake/help/latest/command/if.html#defined). Kept as the switch `DEFINED USE_CUDA`
# (vocabulary.DEFINED_PREFIX), apart from USE_CUDA's own branches: an option() or set() of the variable makes it true
# whatever its value, so only a variable that nothing sets leaves it false (workloads/switches.never_set).
# `if(DEFINED ENV{CUDA})` tests an environment variable the same way: kept as the switch `DEFINED ENV{CUDA}`, true only
# where the user's environment sets it (https://cmake.org/cmake/help/latest/command/if.html#defined: "True if a ... or
# environment variable with given <name> is defined"; mlverse/torch e4de110c src/lantern/CMakeLists.txt:141 adds the .cu
# sources and the CUDA language only there; vocabulary.ENVIRONMENT_PREFIX).
ENVIRONMENT_NAME = re.compile(re.escape(ENVIRONMENT_PREFIX) + r"[A-Za-z_]\w*\}")


def _defined_switches(args: tuple[Argument, ...]) -> list[str]:
    texts = [a.text for a in args]
    return [f"{DEFINED_PREFIX}{a.text}" for i, a in enumerate(args)
            if i > 0 and texts[i - 1] == "DEFINED" and (i < 2 or texts[i - 2] != "NOT") and not a.quoted
            and (_switch_word(a.text) or ENVIRONMENT_NAME.fullmatch(a.text))
            and not HIP_IDENT.fullmatch(a.text.removeprefix(ENVIRONMENT_PREFIX).removesuffix("}"))]


# `if(USE_BACKEND STREQUAL "TENSORRT")`: a back end picked by a variable's value. The branch is the switch
# `USE_BACKEND_TENSORRT` (as make's `ifeq ($(DEVICE),CUDA)` is DEVICE_CUDA, buildfiles.py), on by default only where the
# build sets the variable to that value (_value_defaults); STREQUAL compares the variable's value with the string
# (https://cmake.org/cmake/help/latest/command/if.html#comparisons), and a cache entry's choices are strings
# (https://cmake.org/cmake/help/latest/prop_cache/STRINGS.html; lightvector/KataGo cpp/CMakeLists.txt:45-47).
VALUE_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _value_switches(args: tuple[Argument, ...]) -> list[tuple[str, str, str]]:
    """(switch, variable, value) of each `X STREQUAL "VALUE"` of a condition."""
    out = []
    for i in range(1, len(args) - 1):
        if args[i].text != "STREQUAL" or (i > 1 and args[i - 2].text == "NOT"):
            continue
        variable, value = args[i - 1].text, args[i + 1].text
        if variable.startswith("${") and variable.endswith("}"):
            variable = variable[2:-1]
        if SWITCH_NAME.match(variable) and not HIP_IDENT.fullmatch(variable) and VALUE_WORD.match(value):
            out.append((f"{variable}_{value.upper()}", variable, value.upper()))
    return out


def _value_defaults(commands: list[Command], where: _Positions) -> list[Fact]:
    """The default of each value switch the file's if()s test (`USE_BACKEND_TENSORRT`): ON where a set() of the file
    gives the variable that value (a cache entry's default or a plain set()), OFF where the file sets it only to others
    (`set(USE_BACKEND CACHE STRING "...")`: empty); none where the file does not set it (another file may)."""
    values: dict[str, list[str]] = {}  # variable -> the values the file's set()s give it, upper case
    first: dict[str, Command] = {}
    for command in commands:
        if command.name == "set" and command.arguments and not command.arguments[0].quoted:
            args = command.arguments
            value = args[1].text if len(args) > 1 and args[1].text not in ("CACHE", "PARENT_SCOPE") else ""
            values.setdefault(args[0].text, []).append(value.upper())
            first.setdefault(args[0].text, command)
    out: list[Fact] = []
    seen: set[str] = set()
    for command in commands:
        if command.name not in ("if", "elseif") or "OR" in (a.text for a in command.arguments):
            continue
        for name, variable, value in _value_switches(command.arguments):
            if name in seen or variable not in values:
                continue
            seen.add(name)
            line, col = where(first[variable].start)
            default = "ON" if value in values[variable] else "OFF"
            out.append(fact("build_switch", name, line, col, col + 3, text=f"{default} set"))
    return out


def _branches(commands: list[Command], where: _Positions, text: str = "") -> list[Fact]:
    """One fact per branch of if()/elseif()/else() that a back end or a switch decides, over its lines."""
    out: list[Fact] = []
    stack: list[tuple[int, str, list[str], str]] = []  # (first line, back end, switches, the if()'s back end)
    values: dict[str, str] = {}  # value switch -> its test (`if(USE_BACKEND STREQUAL "TENSORRT")`)

    def close(upto: int) -> None:
        first, backend, switches, _ = stack.pop()
        if backend:
            out.append(Fact(kind="backend_branch", name=backend, line=first, column=1, end_line=upto, end_column=1))
        for name in switches:
            out.append(Fact(kind="switch_branch", name=name, line=first, column=1, end_line=upto, end_column=1,
                            text=values.get(name, f"if({name})")))

    for command in commands:
        line = where(command.start)[0]
        if command.name in ("if", "elseif"):
            values.update((name, f'if({variable} STREQUAL "{value}")')
                          for name, variable, value in _value_switches(command.arguments))
        opening = text.find("(", command.start) + 1  # where the condition starts
        if command.name == "if":
            backend, switches = _condition(command.arguments, text, opening)
            stack.append((line, backend, switches, backend))
        elif command.name in ("elseif", "else") and stack:
            origin = stack[-1][3]
            close(line - 1)
            backend, switches = _condition(command.arguments, text, opening) if command.name == "elseif" else \
                (OPPOSITE.get(origin, ""), [])
            stack.append((line, backend, switches, origin))
        elif command.name == "endif" and stack:
            close(line)
    return out


def _source_filters(commands: list[Command], where: _Positions) -> list[Fact]:
    """`list(FILTER SRC EXCLUDE REGEX ".*\\.cu")` or `list(REMOVE_ITEM SRC a.cpp b.cpp)` in the branch of a top-level
    `if(NOT X)` / `if(X)` that the build takes while X is off (the first branch of `if(NOT X)`, the else() of `if(X)`):
    `build_filter`, the name the regular expression or the item, the text `<list variable> <X>` (`REMOVE_ITEM` after
    them for an item): the list loses those sources unless X is on
    (https://cmake.org/cmake/help/latest/command/list.html#filter, #remove-item)."""
    out: list[Fact] = []
    for command, args, switch in _in_off_branches(commands, dereference=False):
        if command.name == "list" and len(args) > 2:
            line, col = where(command.start)
            head = [a.text.upper() for a in args[:4]]
            if len(args) == 5 and head == ["FILTER", args[1].text.upper(), "EXCLUDE", "REGEX"]:
                out.append(fact("build_filter", args[4].text.replace("\\\\", "\\"), line, col,
                                col + len(command.name), text=f"{args[1].text} {switch}"))
            elif head[0] == "REMOVE_ITEM":
                out.extend(fact("build_filter", item.text, line, col, col + len(command.name),
                                text=f"{args[1].text} {switch} {REMOVE_ITEM}") for item in args[2:])
    return out


def _cleared_switches(commands: list[Command], where: _Positions) -> list[Fact]:
    """`set(X OFF)` directly in the branch of a top-level `if(NOT Y)` (or the else() of a top-level `if(Y)`), Y one
    variable (`if(NOT ${CUDA_FOUND}) set(GPU_VERSION off) endif()`: shadowzhougit/THUNDER bb55b392
    CMakeLists.txt:249-262): `switch_cleared`, the name X, the text the value and Y. Every configure of the file runs
    it, so X keeps another value only where Y holds (workloads/switches.py reads which Y are detections)."""
    out: list[Fact] = []
    for command, args, switch in _in_off_branches(commands, dereference=True):
        if command.name == "set" and len(args) >= 2 and not args[0].quoted and not args[1].quoted \
                and PLAIN_VALUE.match(args[1].text) and _switch_word(args[0].text):
            line, col = where(command.start)
            out.append(fact("switch_cleared", args[0].text, line, col, col + len(command.name),
                            text=f"{args[1].text.upper()} {switch}"))
    return out


def _package_switches(commands: list[Command], where: _Positions) -> list[Fact]:
    """`set(X ${X} PARENT_SCOPE)` in a function() body that finds a package first (a command whose name ends in
    find_package, as find_package facts): the function hands its caller the value the found package's config set
    (nv-legate/legate-sparse 49271fa8 cmake/thirdparty/get_legate.cmake:55-72, `rapids_find_package(legate ...)` then
    `set(Legion_USE_CUDA ${Legion_USE_CUDA} PARENT_SCOPE)`; a package config's set() shadows the caller's option():
    https://cmake.org/cmake/help/latest/command/set.html). `switch_from_package`, the name X, the text the package and
    the function's name."""
    out: list[Fact] = []
    function = ""
    found = ""  # the last package the function's body found so far
    for command in commands:
        if command.name == "function" and command.arguments:
            function, found = command.arguments[0].text, ""
        elif command.name == "endfunction":
            function, found = "", ""
        elif function and command.name.endswith("find_package") and command.arguments \
                and not command.arguments[0].quoted:
            found = command.arguments[0].text
        elif function and found and command.name == "set" and len(command.arguments) == 3 \
                and command.arguments[2].text == "PARENT_SCOPE" and _switch_word(name := command.arguments[0].text) \
                and WHOLE_REFERENCE.match(command.arguments[1].text.strip('"')) \
                and command.arguments[1].text.strip('"') == f"${{{name}}}":
            line, col = where(command.start)
            out.append(fact("switch_from_package", name, line, col, col + len(command.name),
                            text=f"{found} {function}"))
    return out


def _in_off_branches(commands: list[Command], *,
                     dereference: bool) -> Iterator[tuple[Command, tuple[Argument, ...], str]]:
    """(command, its arguments, X) for each command directly in the branch of a top-level `if(NOT X)` / `if(X)` that
    configuring takes while X is off (the first branch of `if(NOT X)`, the else() of `if(X)`); X one variable. The
    arguments `${X}`-dereferenced where `dereference` (how CMake reads an if() or set() argument)."""
    stack: list[tuple[str, bool]] = []  # (the X of a top-level `if(NOT X)` or `if(X)`, or "", whether X is off there)
    for command in commands:
        args = _dereferenced(command.arguments) if dereference else command.arguments
        if command.name == "if":
            texts = [a.text for a in args]
            negated = len(texts) == 2 and texts[0] == "NOT" and _switch_word(texts[1]) and not args[1].quoted
            plain = len(texts) == 1 and _switch_word(texts[0]) and not args[0].quoted
            tested = texts[1] if negated else texts[0] if plain else ""
            stack.append(("" if stack else tested, negated))
        elif command.name == "elseif" and stack:
            stack[-1] = ("", False)
        elif command.name == "else" and stack:
            stack[-1] = (stack[-1][0], not stack[-1][1])
        elif command.name == "endif" and stack:
            stack.pop()
        elif len(stack) == 1 and stack[0][0] and stack[0][1]:
            yield command, args, stack[0][0]


# A guard clause, `if(NOT (BUILD_GPU AND CUDA_FOUND)) return() endif()` at a CMakeLists' top level: the rest of the
# file runs only when the guarded condition holds, as if an `if(BUILD_GPU AND CUDA_FOUND)` wrapped it
# (https://cmake.org/cmake/help/latest/command/return.html). Only `NOT X` and `NOT (A AND B ...)` are read: with the
# parentheses gone `NOT A AND B` would say something else.
GUARD = re.compile(r"^if\s*\(\s*NOT\s*(?:\(([^()]*)\)|([A-Za-z_]\w*))\s*\)$", re.DOTALL)


def _guards(text: str, commands: list[Command], where: _Positions) -> list[Fact]:
    """switch_branch facts from the guard clause's endif() to the file's last command."""
    out: list[Fact] = []
    depth = 0
    for i, command in enumerate(commands):
        if command.name == "if":
            depth += 1
        elif command.name == "endif":
            depth -= 1
        if command.name != "if" or depth != 1 or i + 2 >= len(commands) \
                or [c.name for c in commands[i + 1:i + 3]] != ["return", "endif"] or commands[i + 1].arguments:
            continue
        match = GUARD.match(text[command.start:commands[i + 1].start].strip())
        inner = match and (match.group(1) or match.group(2) or "").split()
        if not inner or "OR" in inner or "NOT" in inner:
            continue
        _, switches = _condition(tuple(a for a in command.arguments[1:]))
        first = where(commands[i + 2].end)[0] + 1
        last = where(commands[-1].end)[0]
        if last < first:
            continue
        out.extend(Fact(kind="switch_branch", name=name, line=first, column=1, end_line=last, end_column=1,
                        text=f"if({name})") for name in switches)
    return out


PLAIN_VALUE = re.compile(r"^[A-Za-z0-9]+$")  # ON, OFF, 1, TRUE: a constant, not a path or a list
# `${X}`: the value of one variable (`set(_IRR_COMPILE_WITH_CUDA_ ${IRR_COMPILE_WITH_CUDA})`), kept as written
VARIABLE_VALUE = re.compile(r"^\$\{[A-Za-z_]\w*\}$")


SCRIPT_COMMANDS = frozenset({"execute_process", "add_custom_command", "add_custom_target", "set"})
SCRIPT_SUFFIXES = (".py", ".sh", ".pl")
HIPIFY_TOOL = re.compile(r"^hipify-(?:perl|clang)$")  # AMD's converters, run by name (https://github.com/ROCm/HIPIFY)


def _scripts(command: Command, where: _Positions) -> list[Fact]:
    """A script or tool a configure- or build-time command runs (`execute_process(COMMAND .../build_amd.py ...)`, or
    a set() of the command line a later execute_process() runs): `build_script`, the name its file name."""
    if command.name not in SCRIPT_COMMANDS:
        return []
    out = []
    for arg in command.arguments[1 if command.name == "set" else 0:]:
        name = arg.text.rsplit("/", 1)[-1]
        if "\n" not in name and (name.endswith(SCRIPT_SUFFIXES) or HIPIFY_TOOL.match(name)) and "${" not in name:
            line, col = where(arg.start)
            out.append(fact("build_script", name, line, col, col + len(arg.text), role=command.name))
    return out


def _top_definitions(found: list[Fact], command: Command, *, top: bool) -> list[Fact]:
    """The `-DX` flags of an add_definitions() / add_compile_definitions() in no block of its file (no if(),
    function(), macro() or loop) get the role `top`, as a top-level set() does: every configuration of the file runs
    it, and it defines X for every target of the folder and of the folders added after
    (https://cmake.org/cmake/help/latest/command/add_definitions.html). workloads/project_defines.py reads them."""
    if not top or command.name not in DIRECTORY_DEFINITIONS:
        return found
    return [dataclasses.replace(f, role="top") if f.kind == "flag" and f.name.startswith("-D") else f for f in found]


def _switch_value(command: Command, where: _Positions, *, top: bool = False) -> list[Fact]:
    """set(X_ENABLED ON): a constant the build gives a variable here, or another variable's value (`${Y}`, as
    written): workloads/switches.py reads which branches set it to a true one. Role `top` where the set() is in no
    block of its file (no if(), function(), macro() or loop): every configuration of the file runs it."""
    args = command.arguments
    if command.name != "set" or len(args) not in (2, 3) or args[0].quoted \
            or not (SWITCH_NAME.match(args[0].text) or UNDERSCORED_SWITCH_NAME.match(args[0].text)
                    or MIXED_NAME.match(args[0].text)) \
            or args[1].quoted or not (PLAIN_VALUE.match(args[1].text) or VARIABLE_VALUE.match(args[1].text)) \
            or (len(args) == 3 and args[2].text != "PARENT_SCOPE"):
        return []
    line, col = where(command.start)
    value = args[1].text if args[1].text.startswith("${") else args[1].text.upper()
    return [fact("switch_value", args[0].text, line, col, col + len(command.name), text=value,
                 role="top" if top else "")]


def _root_names(commands: list[Command]) -> dict[str, str]:
    """Variables the file sets to its own folder or a fixed folder below it, with that folder relative to the file's
    (`set(ROOT_PATH ${CMAKE_CURRENT_SOURCE_DIR})`, DeployAI/nndeploy CMakeLists.txt:89, then `file(GLOB_RECURSE ...
    "${ROOT_PATH}/source/nndeploy/inference/tensorrt/*.cc")`: ""; `set(CPP_SOURCES_FOLDER
    "${CMAKE_CURRENT_LIST_DIR}/src")`, Ogarantia/phoenix_core bdf9edef CMakeLists.txt:27: "src"): a path under one of
    them is a path under that folder. A variable set to two different values is none of them (which one a later
    command reads depends on the order)."""
    folders: dict[str, str | None] = {}  # None: set to something else too
    for c in commands:
        if c.name == "set" and len(c.arguments) == 2:
            value = c.arguments[1].text + "/"
            rest = DIRECTORY_VARIABLES.sub("", value)
            fixed = rest != value and "$" not in rest and ".." not in rest.split("/")
            folder = rest.strip("/") if fixed else None
            name = c.arguments[0].text
            folders[name] = folder if folders.get(name, folder) == folder else None
    return {name: folder for name, folder in folders.items() if folder is not None}


def _from_folder(path: str, roots: Mapping[str, str]) -> str:
    """The path with a leading folder variable (DIRECTORY_VARIABLES) taken off, or one of the file's `roots` put in
    as the folder it names."""
    if roots and path.startswith("${"):
        name, close, rest = path[2:].partition("}")
        if close and name in roots and rest.startswith("/"):
            return f"{roots[name]}/{rest[1:]}" if roots[name] else rest[1:]
    return DIRECTORY_VARIABLES.sub("", path)


# subdirs()'s keywords, not folders (https://cmake.org/cmake/help/latest/command/subdirs.html)
SUBDIRS_KEYWORDS = frozenset({"EXCLUDE_FROM_ALL", "PREORDER"})


def _default(value: str) -> str:
    """A switch's default as the build gives it: a constant in upper case (`on` is ON), another variable's value as
    written (`${tmp}`, `${Foo_DEFAULT}`: CMake's variable names are case-sensitive,
    https://cmake.org/cmake/help/latest/manual/cmake-language.7.html#variables)."""
    return value if VARIABLE_VALUE.match(value) else value.upper()


def _build_parts(command: Command, where: _Positions, roots: Mapping[str, str]) -> list[Fact]:
    args = command.arguments
    line, col = where(command.start)
    if (command.name in ("option", "cmake_dependent_option") or command.name.endswith("_option")) and args \
            and not args[0].quoted:
        default = _default(args[2].text) if len(args) > 2 else ("OFF" if command.name == "option" else "")
        if ENVIRONMENT_DEFAULT.fullmatch(default):  # option(USE_CUDA "doc" $ENV{USE_CUDA}): empty, so off, when unset
            default = "OFF"
        return [fact("build_switch", args[0].text, line, col, col + len(command.name), text=f"{default} {command.name}")]
    if command.name == "set" and len(args) > 3 and args[2].text == "CACHE" and args[3].text == "BOOL" \
            and not args[0].quoted:  # set(X 0 CACHE BOOL "doc"): an option by another name
        return [fact("build_switch", args[0].text, line, col, col + len(command.name),
                     text=f"{_default(args[1].text)} set")]
    if command.name == "set" and len(args) > 2 and args[1].text == "CACHE" and args[2].text == "BOOL" \
            and not args[0].quoted:  # set(X CACHE BOOL "doc"): no value, an empty string, which if() reads as false
        return [fact("build_switch", args[0].text, line, col, col + len(command.name), text="OFF set")]
    if command.name == "add_subdirectory" and args:
        return [fact("cmake_subdirectory", _from_folder(args[0].text, roots), line, col,
                     col + len(command.name))]
    if command.name == "subdirs":  # subdirs(a b ...): the deprecated add_subdirectory of each folder it names
        return [fact("cmake_subdirectory", _from_folder(a.text, roots), line, col, col + len(command.name))
                for a in args if a.text.upper() not in SUBDIRS_KEYWORDS]
    if command.name in MESSAGE_COMMANDS:
        return []
    if command.name in DEFINITION_COMMANDS:
        return _definitions(command, where)
    if command.name in name_list("build", "thrust_target_commands"):
        return _device_system(command, where)
    if command.name == "file" and len(args) > 2 and args[0].text in ("GLOB", "GLOB_RECURSE"):
        return _globs(command, where, roots)
    out = []
    for arg in args:
        path = _from_folder(arg.text, roots)
        if not path.endswith(SOURCE_SUFFIXES) or "*" in path or "\n" in path:
            continue
        at, at_col = where(arg.start)
        if "${" not in path:  # try_run()/try_compile(): a configure probe's source, role `probe`
            out.append(fact("build_source", path, at, at_col, at_col + len(arg.text),
                            role="probe" if command.name in name_list("build", "configure_probe_commands") else ""))
        elif (pattern := _variable_pattern(path)) is not None:
            out.append(fact("build_source", pattern, at, at_col, at_col + len(arg.text), text="GLOB variable"))
        else:  # `${SRC_DIR}/kernel.cu`: the folder is a variable's value; the file's name is all that is known
            name = VARIABLE_REFERENCE.sub("*", path.rpartition("/")[2])
            out.append(fact("source_unplaced", name, at, at_col, at_col + len(arg.text), text=path))
    return out


def _glob_uses(commands: list[Command], where: _Positions) -> list[Fact]:
    """`source_variable_use` facts: each command (but the file() that lists it) that reads a variable a
    file(GLOB[_RECURSE] VAR ...) of this file lists sources into (`add_executable(cfd3d ${SOURCES} ${CUDA_SOURCES})`);
    the name is the variable, the text the command (workloads/switches.gated_by_build: a glob's sources go with the
    branch every use of its variable sits in)."""
    listed = {c.arguments[1].text for c in commands
              if c.name == "file" and len(c.arguments) > 2 and c.arguments[0].text in ("GLOB", "GLOB_RECURSE")}
    if not listed:
        return []
    out = []
    for command in commands:
        if command.name == "file" and command.arguments and command.arguments[0].text in ("GLOB", "GLOB_RECURSE"):
            continue
        for arg in command.arguments:
            for name in VARIABLE_REFERENCE.findall(arg.text) if "${" in arg.text else ():
                if name in listed:
                    line, col = where(arg.start)
                    out.append(fact("source_variable_use", name, line, col, col + len(arg.text), text=command.name))
    return out


def _variable_pattern(path: str) -> str | None:
    """A source named through a variable in its file name (`gpu/${name}.cu` in a foreach over a list): the files
    of that shape, as a glob. None when a variable names a folder (its value could be anywhere)."""
    folder, _, name = path.rpartition("/")
    if "${" in folder or not VARIABLE_REFERENCE.sub("", name).strip("._-"):
        return None
    return posixpath.join(folder, VARIABLE_REFERENCE.sub("*", name)) if folder else VARIABLE_REFERENCE.sub("*", name)


def _device_system(command: Command, where: _Positions) -> list[Fact]:
    """thrust_create_target(T HOST CPP DEVICE OMP): Thrust's CMake package defines
    THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_<DEVICE> on the target it makes (rules/names/build.yaml
    thrust_target_commands), read as that `-D` flag at the system's name."""
    args = command.arguments
    for keyword, value in itertools.pairwise(args):
        if keyword.text == "DEVICE" and not keyword.quoted and (m := MACRO_NAME.match(value.text)):
            line, col = where(value.start)
            return [fact("flag", f"-D{THRUST_DEVICE_SYSTEM}", line, col, col + len(value.text),
                         text=f"-D{THRUST_DEVICE_SYSTEM}={THRUST_DEVICE_SYSTEM}_{m.group(1).upper()}")]
    return []


def _definitions(command: Command, where: _Positions) -> list[Fact]:
    """target_compile_definitions(t PUBLIC X Y=1), add_compile_definitions(X): each macro as the flag `-DX`
    (as `add_definitions(-DX)` and compiler flags already are; a `-DX` argument is one of those already)."""
    out = []
    for arg in command.arguments[DEFINITION_COMMANDS[command.name]:]:
        if arg.text in DEFINITION_KEYWORDS or arg.text.startswith("-") or "${" in arg.text \
                or not (m := MACRO_NAME.match(arg.text)):
            continue
        line, col = where(arg.start)
        out.append(fact("flag", f"-D{m.group(1)}", line, col, col + len(arg.text), text=arg.text))
    return out


def _globs(command: Command, where: _Positions, roots: Mapping[str, str]) -> list[Fact]:
    """file(GLOB[_RECURSE] VAR [options] patterns...): one `build_source` per source pattern (relative to the
    listing's folder; the text is the mode and the variable), expanded against the project's files by
    workloads/parts.py. https://cmake.org/cmake/help/latest/command/file.html#glob"""
    mode, variable, *rest = command.arguments
    out = []
    skip = False
    for arg in rest:
        if skip or arg.text in GLOB_KEYWORDS:
            skip = arg.text in ("RELATIVE", "LIST_DIRECTORIES")  # each takes a value
            continue
        pattern = _from_folder(arg.text, roots)
        line, col = where(arg.start)
        if pattern.endswith(SOURCE_SUFFIXES) and "${" not in pattern and "\n" not in pattern:
            out.append(fact("build_source", pattern, line, col, col + len(arg.text),
                            text=f"{mode.text} {variable.text}"))
        elif "\n" not in pattern:  # `src/ios/*`, `${DIR}/*.cu`: which files it lists is not read; their name pattern is
            out.append(fact("source_unplaced", VARIABLE_REFERENCE.sub("*", pattern.rpartition("/")[2]) or "*", line,
                            col, col + len(arg.text), text=pattern))
    return out
