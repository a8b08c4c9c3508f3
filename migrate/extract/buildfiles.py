"""extract, build files: CMake, Makefiles and shell scripts."""
from __future__ import annotations

import re

from migrate.extract.lines import fact, finish, flags, numbered
from migrate.model import Extraction, Fact

NVCC_FLAGS = re.compile(
    r"^(-gencode|--generate-code|-arch|--gpu-architecture|-code|--use_fast_math|-use_fast_math|--?expt-[\w-]+"
    r"|--extended-lambda|--ptxas-options|--compiler-bindir|-rdc|--relocatable-device-code|-dc|-dlink|-Xptxas"
    r"|-maxrregcount|--maxrregcount|-lcuda\w*|-lcu\w+|-lnv[\w-]+|-lnccl|-ccbin)$"
)
CMAKE_COMMAND = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(")
CMAKE_TOKENS = re.compile(
    r"\bCUDA::\w+|\bCMAKE_CUDA_\w+|\bCUDA_(?:NVCC_FLAGS\w*|ARCHITECTURES|SEPARABLE_COMPILATION|TOOLKIT_ROOT_DIR"
    r"|INCLUDE_DIRS|LIBRARIES|CUBLAS_LIBRARIES|curand_LIBRARY|cublas_LIBRARY)\b"
    r"|\bLANGUAGES?\b[^)]*\bCUDA\b|\b(?i:enable_language)\s*\(\s*CUDA\b"
    r"|\b(?i:find_package)\s*\(\s*(?:CUDA|CUDAToolkit|NCCL|CUDNN|TensorRT)\b"
)
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
VARIABLE = re.compile(r"\$\{[^}]*\}")
BRACKET_COMMENT = re.compile(r"#\[(=*)\[.*?\]\1\]", re.DOTALL)
WORD_NVIDIA_SMI = re.compile(r"\bnvidia-smi\b")
WORD_NVCC = re.compile(r"(?<![\w-])(?:[\w$(){}.~/-]*/)?nvcc\b(?![.-])")
# Lines that only mention a tool (messages, existence checks) do not run it.
MENTION_ONLY = re.compile(r"^\s*(echo|printf|@echo|command\s+-v|which|type|hash)\b|\$\(\s*(command\s+-v|which)\b")


def cmake(source: bytes) -> Extraction:
    raw = source.decode("utf-8")
    # blank out bracket comments, keeping line numbers
    text = BRACKET_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), raw)
    facts: list[Fact] = []
    for number, line, _ in numbered(text):
        if m := CMAKE_COMMAND.match(line):
            facts.append(fact("cmake", m.group(1).lower(), number, m.start(1), m.end(1), role="command"))
        for m in CMAKE_TOKENS.finditer(_strings_blanked(line)):
            facts.append(fact("cmake", _cmake_name(m.group(0)), number, m.start(), m.end(), text=m.group(0)))
        facts.extend(flags(line, number, NVCC_FLAGS))
    return finish(text, facts)


def _strings_blanked(line: str) -> str:
    """The line with quoted text blanked out, except ${VARIABLE} references (columns kept)."""
    def blank(m: re.Match[str]) -> str:
        kept = [" "] * len(m.group(0))
        for var in VARIABLE.finditer(m.group(0)):
            kept[var.start():var.end()] = var.group(0)
        return "".join(kept)

    return QUOTED.sub(blank, line)


def _cmake_name(token: str) -> str:
    squashed = re.sub(r"\s+", "", token)
    if squashed.lower().startswith(("language", "enable_language")):
        return "language:CUDA"
    if squashed.lower().startswith("find_package("):
        return "find_package:" + squashed.split("(", 1)[1]
    return token


def makefile(source: bytes) -> Extraction:
    return _commands(source)


def shell(source: bytes) -> Extraction:
    return _commands(source)


def _commands(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    facts: list[Fact] = []
    for number, line, _ in numbered(text):
        if MENTION_ONLY.search(line):
            continue
        for m in WORD_NVIDIA_SMI.finditer(line):
            facts.append(fact("construct", "subprocess-nvidia-smi", number, m.start(), m.end(), text="nvidia-smi"))
        for m in WORD_NVCC.finditer(line):
            facts.append(fact("flag", "nvcc", number, m.start(), m.end(), text=m.group(0)))
        facts.extend(flags(line, number, NVCC_FLAGS))
    return finish(text, facts)
