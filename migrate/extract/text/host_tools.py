"""Lines of a shell script that run only where an NVIDIA tool is installed (rules/names/build.yaml
`nvidia_host_tools`): the `then` branch of `if command -v nvidia-smi ...`, and everything after a top-level
`if ! command -v nvidia-smi ...; then ... exit ...; fi` (lab-cosmo/sphericart 67643cfd scripts/install-cupy.sh:4-6
leaves with `exit 0` where nvidia-smi is missing, then picks a cupy-cuda wheel by the CUDA version nvidia-smi prints).
and the `else` of a negated test whose branch only skips (messages, `exit 0`: not `exit 1`, where the script needs the
tool). A presence test is POSIX `command -v NAME` (https://pubs.opengroup.org/onlinepubs/9799919799/utilities/command.html),
`which`, `type`, `hash`, `[ -x "$(command -v NAME)" ]`, or the tool itself run as the condition (`if nvidia-smi
&> /dev/null; then`: `if` takes the branch on the command's exit status, and a missing command fails, 127:
https://pubs.opengroup.org/onlinepubs/9799919799/utilities/V3_chap02.html#tag_19_09_04_07; the test line, a probe
that answers false on an AMD host, is a span of its own; talatops/DDoS-Detection-System-with-ML 5352bab
scripts/quick_test.sh:48-53, which falls back to the CPU in the `else`); each `host_tool_branch` fact spans the lines it covers,
the name is the tool, the text the test."""
from __future__ import annotations

import re

from migrate.extract.names import alternatives
from migrate.extract.text.lines import SHELL_CLOSES, SHELL_OPENS, code_lines
from migrate.model import Fact

TOOLS = alternatives("build", "nvidia_host_tools")
# `if [!] <presence test of a tool> ...` with the presence test as the whole condition (a redirection after it)
PRESENCE = re.compile(
    rf"^\s*(?:el)?if\s+(?P<neg>!\s+)?(?:(?:command\s+-v|which|type|hash)\s+(?P<a>{TOOLS})\b[^;&|]*"
    rf"|(?P<c>{TOOLS})(?![\w.-])[^;&|]*"
    rf"|\[\[?\s+(?P<neg2>!\s+)?-x\s+\"?\$\((?:command\s+-v|which)\s+(?P<b>{TOOLS})\)\"?\s+\]\]?[^;&|]*)"
    r"(?:;\s*then\s*)?$")
# blocks, a function's body (`f() {`) among them: a guard inside one leaves the function, not the script
OPENS = re.compile(rf"^(?:\s*(?:{'|'.join(SHELL_OPENS)})\b|.*\{{\s*$)")
CLOSES = re.compile(rf"^\s*(?:{'|'.join(SHELL_CLOSES)}|\}})(?:\s|;|$)")
THEN = re.compile(r"^\s*then\s*$")
ELSE = re.compile(r"^\s*(?:else|elif)\b")
# a branch that skips quietly where the tool is missing: messages and a successful exit (`exit`, `exit 0`); a branch
# that fails there (`exit 1`, a project's own `fatal`) says the script needs NVIDIA's tools, which a port must change
SKIP = re.compile(r"^\s*(?:(?:echo|printf|:|true)\b.*|(?:exit|return)(?:\s+0)?\s*;?|then)\s*$")
LEAVES = re.compile(r"^\s*(?:exit|return)\b")
# output redirections (`>/dev/null 2>&1`, `&> /dev/null`): taken off a test before it is read
REDIRECTION = re.compile(r"\s*(?:&>>?|\d*>>?)\s*(?:&\d+|[^\s;&|]+)")


def branches(text: str) -> list[Fact]:
    """The `host_tool_branch` facts of a shell script's text."""
    lines = code_lines(text)
    out: list[Fact] = []
    depths: list[int] | None = None  # the block depth at each line, counted once where a presence test is found
    for index, line in enumerate(lines):
        m = PRESENCE.match(REDIRECTION.sub("", line))
        if m is None or line.lstrip().startswith("elif"):
            continue
        tool = m.group("a") or m.group("b") or m.group("c")
        negated = bool(m.group("neg") or m.group("neg2"))
        depths = _depths(lines) if depths is None else depths
        body_end, closing = _branch_end(lines, index)
        if closing is None:
            continue
        test = line.strip()
        if m.group("c") and not negated:  # `if nvidia-smi &> /dev/null`: a probe that fails without the tool
            out.append(_fact(tool, index + 1, index + 1, test))
        if not negated:
            first = index + 3 if index + 1 < len(lines) and THEN.match(lines[index + 1]) else index + 2
            out.append(_fact(tool, first, body_end, test))
        elif not all(SKIP.match(x) for x in lines[index + 1:body_end] if x.strip()):
            continue  # where the tool is missing the script fails, or does something else: not a skip
        elif lines[closing].strip().startswith("else"):  # `if ! command -v nvidia-smi ... else <on NVIDIA> fi`
            else_end, _ = _branch_end(lines, closing)
            out.append(_fact(tool, closing + 2, else_end, f"{test} ... else"))
        elif depths[index] <= 0 and lines[closing].strip().startswith("fi") \
                and any(LEAVES.match(x) for x in lines[index + 1:body_end]) and closing + 1 < len(lines):
            out.append(_fact(tool, closing + 2, len(lines), f"{test} ... exit"))
    return out


def _fact(tool: str, first: int, last: int, test: str) -> Fact:
    return Fact(kind="host_tool_branch", name=tool, line=first, column=1, end_line=max(first, last), end_column=1,
                text=test[:120])


def _depths(lines: list[str]) -> list[int]:
    """The blocks open before each line (opened less closed: below 0 where more close than open)."""
    out, depth = [], 0
    for line in lines:
        out.append(depth)
        depth += bool(OPENS.match(line)) - bool(CLOSES.match(line))
    return out


def _branch_end(lines: list[str], index: int) -> tuple[int, int | None]:
    """(last line of the `then` branch, 1-based; index of the else/elif/fi that ends it) of the `if` on `index`."""
    depth = 0
    for i in range(index + 1, len(lines)):
        if OPENS.match(lines[i]):
            depth += 1
        elif CLOSES.match(lines[i]):
            if depth == 0:
                return i, i
            depth -= 1
        elif depth == 0 and ELSE.match(lines[i]):
            return i, i
    return len(lines), None
