"""The arms of a shell `case` on the script's own command line: `case $1 in`, or `case ${ARCH} in` where the script
assigns `ARCH=$1` outside every function (milc-qcd/milc_qcd Grid/build.sh: `ARCH=$1`, then `case ${ARCH} in ...
gpu-cuda) ... CXX=nvcc ...;;`). Each arm is taken only when the user's command line names its pattern
(https://pubs.opengroup.org/onlinepubs/9799919799/utilities/V3_chap02.html#tag_19_09_04_05: the first pattern that
matches the word selects the compound-list). A `shell_case_arm` fact per arm: the name is its pattern as written, the
lines its head to its `;;`, the text `case <word> in` with the case's line. A case inside a function body reads the
function's own arguments, not the script's: none is given. Blocks are the ones host_tools counts (SHELL_OPENS /
SHELL_CLOSES and a function's braces)."""
from __future__ import annotations

import re

from migrate.extract.text.host_tools import CLOSES, OPENS
from migrate.extract.text.lines import code_lines
from migrate.model import Fact

CASE = re.compile(r"^\s*case\s+(?P<word>\S+)\s+in\s*$")
POSITIONAL = re.compile(r"^[\"']?\$\{?(?P<n>[1-9])(?::-[^}]*)?\}?[\"']?$")  # $1, "$1", ${1}, ${1:-scalar}
VARIABLE = re.compile(r"^[\"']?\$\{?(?P<name>[A-Za-z_]\w*)\}?[\"']?$")  # $ARCH, "${ARCH}"
FUNCTION = re.compile(r"^\s*(?:function\s+[\w.-]+|[\w.-]+\s*\(\s*\))\s*\{?\s*$")
ARM = re.compile(r"^\s*\(?\s*(?P<pattern>[^()\s][^()]*?)\s*\)(?P<rest>.*)$")
ENDS = re.compile(r";;&?\s*$|;&\s*$")
ESAC = re.compile(r"^\s*esac\b")
ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?(?P<name>[A-Za-z_]\w*)=(?P<value>\S*)\s*;?\s*$")


def arms(text: str) -> list[Fact]:
    """The `shell_case_arm` facts of a shell script's text (module docstring)."""
    lines = code_lines(text)
    if not any(CASE.match(line) for line in lines):
        return []
    in_function = _in_functions(lines)
    assigned = _assigned_arguments(lines, in_function)
    out: list[Fact] = []
    for index, line in enumerate(lines):
        m = CASE.match(line)
        if m is None or in_function[index]:
            continue
        word = m.group("word")
        argument = _argument(word, assigned)
        if argument is not None:
            out.extend(_arms(lines, index, f"case {word} in (line {index + 1}, ${argument})"))
    return out


def _argument(word: str, assigned: dict[str, str]) -> str | None:
    """The positional parameter the case word is, or holds (`ARCH=$1`), or None."""
    if m := POSITIONAL.match(word):
        return m.group("n")
    if m := VARIABLE.match(word):
        return assigned.get(m.group("name"))
    return None


def _assigned_arguments(lines: list[str], in_function: list[bool]) -> dict[str, str]:
    """Variables assigned a positional parameter outside every function (`ARCH=$1`, `export MODE="${1:-cpu}"`), each
    assigned only so."""
    out: dict[str, str] = {}
    dropped: set[str] = set()
    for index, line in enumerate(lines):
        m = ASSIGNMENT.match(line)
        if m is None:
            continue
        value = POSITIONAL.match(m.group("value"))
        name = m.group("name")
        if value is None or in_function[index]:
            dropped.add(name)
        else:
            out.setdefault(name, value.group("n"))
    return {name: n for name, n in out.items() if name not in dropped}


def _in_functions(lines: list[str]) -> list[bool]:
    """For each line, whether it sits inside a function's body: an open block above it that is a function head, or
    inside one (counted once, in one pass over the file)."""
    out: list[bool] = []
    stack: list[bool] = []
    for line in lines:
        out.append(bool(stack) and stack[-1])
        if OPENS.match(line):
            stack.append(bool(FUNCTION.match(line)) or (bool(stack) and stack[-1]))
        elif CLOSES.match(line) and stack:
            stack.pop()
    return out


def _arms(lines: list[str], index: int, head: str) -> list[Fact]:
    """The arms of the case opened on line `index`, up to its `esac`."""
    out: list[Fact] = []
    depth = 0
    current: tuple[str, int] | None = None  # (pattern, first line index) of the arm being read
    for i in range(index + 1, len(lines)):
        line = lines[i]
        if depth == 0 and ESAC.match(line):
            if current is not None:
                out.append(_fact(current, i - 1, head))
            return out
        if depth == 0 and current is None and line.strip():
            m = ARM.match(line)
            if m is None:
                return []  # not a form read here: no arm is given
            current = (m.group("pattern"), i)
            line = m.group("rest")
        if OPENS.match(line):
            depth += 1
        elif CLOSES.match(line) and depth > 0:
            depth -= 1
        if depth == 0 and current is not None and ENDS.search(line):
            out.append(_fact(current, i, head))
            current = None
    return []  # no esac: not read


def _fact(current: tuple[str, int], last: int, head: str) -> Fact:
    pattern, first = current
    return Fact(kind="shell_case_arm", name=pattern, line=first + 1, column=1, end_line=max(first, last) + 1,
                end_column=1, text=head[:160])
