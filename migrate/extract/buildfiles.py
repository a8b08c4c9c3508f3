"""extract, build files: CMake, Makefiles and shell scripts."""
from __future__ import annotations

import re

from migrate.extract.lines import fact, finish, flags, numbered
from migrate.model import Extraction, Fact

NVCC_FLAGS = re.compile(
    r"^(-gencode|--generate-code|-arch|--gpu-architecture|-code|--use_fast_math|-use_fast_math|--expt-\w+"
    r"|-rdc|--relocatable-device-code|-Xptxas|-maxrregcount|--maxrregcount|-lcuda\w*|-lcu\w+|-lnv\w+|-lnccl|-ccbin)$"
)
CMAKE_COMMAND = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(")
CMAKE_TOKENS = re.compile(
    r"\bCUDA::\w+|\bCMAKE_CUDA_\w+|\bCUDA_(?:NVCC_FLAGS\w*|ARCHITECTURES|SEPARABLE_COMPILATION|TOOLKIT_ROOT_DIR"
    r"|INCLUDE_DIRS|LIBRARIES|CUBLAS_LIBRARIES|curand_LIBRARY|cublas_LIBRARY)\b"
    r"|\bLANGUAGES?\b[^)]*\bCUDA\b|\benable_language\s*\(\s*CUDA\b|\bfind_package\s*\(\s*(?:CUDA|CUDAToolkit|NCCL|CUDNN|TensorRT)\b"
)
WORD_NVIDIA_SMI = re.compile(r"\bnvidia-smi\b")
WORD_NVCC = re.compile(r"(?<![\w/-])nvcc\b")


def cmake(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    facts: list[Fact] = []
    for number, line, _ in numbered(text):
        if m := CMAKE_COMMAND.match(line):
            facts.append(fact("cmake", m.group(1).lower(), number, m.start(1), m.end(1), role="command"))
        for m in CMAKE_TOKENS.finditer(line):
            facts.append(fact("cmake", _cmake_name(m.group(0)), number, m.start(), m.end(), text=m.group(0)))
        facts.extend(flags(line, number, NVCC_FLAGS))
    return finish(text, facts)


def _cmake_name(token: str) -> str:
    squashed = re.sub(r"\s+", "", token)
    if squashed.startswith(("LANGUAGE", "enable_language")):
        return "language:CUDA"
    if squashed.startswith("find_package("):
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
        for m in WORD_NVIDIA_SMI.finditer(line):
            facts.append(fact("construct", "subprocess-nvidia-smi", number, m.start(), m.end(), text="nvidia-smi"))
        for m in WORD_NVCC.finditer(line):
            facts.append(fact("flag", "nvcc", number, m.start(), m.end(), text="nvcc"))
        facts.extend(flags(line, number, NVCC_FLAGS))
    return finish(text, facts)
