"""extract, CMake: commands and their arguments, read with a small lexer of CMake's grammar
(comments, bracket arguments, quoted and unquoted arguments, nested parentheses)."""
from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass

from migrate.extract.text import repositories
from migrate.extract.text.lines import fact, finish, flags
from migrate.model import Extraction, Fact

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
    for command in parse(text):
        line, col = where(command.start)
        facts.append(fact("cmake", command.name, line, col, col + command.end - command.start, role="command"))
        facts.extend(_language(command, where))
        facts.extend(_arguments(command, where))
        if command.name == "find_package" and command.arguments and not command.arguments[0].quoted:
            first = command.arguments[0]
            line, col = where(first.start)
            facts.append(fact("cmake", f"find_package:{first.text}", line, col, col + len(first.text),
                              text=f"find_package({first.text})"))
        if command.name in LINK_COMMANDS:
            facts.extend(_bare_libraries(command, where))
        facts.extend(_structure(command, where))
        if command.name in repositories.FETCH_COMMANDS:
            facts.extend(_repositories(command, where))
    return finish(text, facts)


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
            out.extend(flags(" " * col + piece, line))
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


TARGET_COMMANDS = frozenset({"add_library", "add_executable", "cuda_add_library", "cuda_add_executable",
                             "hip_add_library", "hip_add_executable", "target_sources"})
TARGET_KEYWORDS = frozenset({"STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "IMPORTED", "ALIAS", "GLOBAL",
                             "EXCLUDE_FROM_ALL", "WIN32", "MACOSX_BUNDLE", "PUBLIC", "PRIVATE", "FILE_SET", "BASE_DIRS",
                             "FILES", "TYPE", "HEADERS", "CXX_MODULES", "SYSTEM", "BEFORE", "AFTER"})
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
