"""extract, build files: CMake (see cmakelists), Makefiles and shell scripts."""
from __future__ import annotations

import re

from migrate.extract.text import commands
from migrate.extract.text.lines import Logical, fact, finish, flags, logical_lines, numbered
from migrate.model import Extraction, Fact

WORD_NVIDIA_SMI = re.compile(r"\bnvidia-smi\b")
WORD_NVCC = re.compile(r"(?<![\w-])(?:[\w$(){}.~/-]*/)?nvcc\b(?![.-])")
# Lines that only mention a tool (messages, existence checks) do not run it.
MENTION_ONLY = re.compile(
    r"^\s*(?:if\s+!?\s*|!\s*)?(echo|printf|@echo|command\s+-v|which|type|hash)\b|\$\(\s*(command\s+-v|which)\b"
)
MAKE_ASSIGNMENT = re.compile(r"^\s*(?:export\s+|override\s+)*([A-Za-z_]\w*)\s*(?::{1,3}|\?|\+|!)?=\s*(.*?)\s*$")
RECIPE_PREFIX = re.compile(r"^\t[@+\-\s]*")
# make's message functions print their text (`$(info ... try `apt install libnccl-dev`)`): nothing runs.
MAKE_MESSAGE = re.compile(r"^\s*\$[({](info|warning|error)\s")
SBATCH = re.compile(r"^\s*#SBATCH\s+")


def cmake(source: bytes) -> Extraction:
    from migrate.extract.text import cmakelists

    return cmakelists.extract(source)


def makefile(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    facts = _tool_lines(text)
    for logical in logical_lines(text):
        if not logical.text.startswith("\t") and (m := MAKE_ASSIGNMENT.match(logical.text)):
            facts += commands.variable(logical, m.group(1), m.group(2), m.start(1), len(logical.text.rstrip()))
            continue
        if MAKE_MESSAGE.match(logical.text):
            continue
        prefix = RECIPE_PREFIX.match(logical.text)
        facts += commands.analyse(logical, start=prefix.end() if prefix else 0)
    return finish(text, facts)


def shell(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    facts = _tool_lines(text)
    for logical in logical_lines(text):
        facts += commands.analyse(logical)
    for number, _, raw in numbered(text, strip_hash_comments=False):
        if m := SBATCH.match(raw):
            directive = Logical(raw, ((0, number, 0),))
            facts += commands.slurm_options(directive, directive.words(m.end()))
    return finish(text, facts)


def _tool_lines(text: str) -> list[Fact]:
    out: list[Fact] = []
    for number, line, _ in numbered(text):
        out.extend(command_line(line, number))
    return out


def command_line(line: str, number: int) -> list[Fact]:
    """nvidia-smi and nvcc runs and nvcc flags on one physical line (without its comment)."""
    if MENTION_ONLY.search(line):
        return []
    facts: list[Fact] = []
    for m in WORD_NVIDIA_SMI.finditer(line):
        facts.append(fact("construct", "subprocess-nvidia-smi", number, m.start(), m.end(), text="nvidia-smi"))
    for m in WORD_NVCC.finditer(line):
        facts.append(fact("flag", "nvcc", number, m.start(), m.end(), text=m.group(0)))
    facts.extend(flags(line, number))
    return facts
