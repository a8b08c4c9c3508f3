"""Inputs for fuzzing the extractors and a one-file scan: token soups per file kind.

Shared by tests/test_fuzz.py (hypothesis, a few hundred examples in CI) and scripts/fuzz.py
(a plain random loop for as long as it is given). An input is what `readfile.read` would hand
to an extractor: text kinds get valid UTF-8 without NUL bytes, C/C++/CUDA any bytes without NUL, a prebuilt
binary a real image with runs of its bytes overwritten."""
from __future__ import annotations

import random
from pathlib import Path

from migrate.extract import EXTRACTORS, extract
from migrate.model import Extraction
from migrate.rulebase.load import RuleBase
from migrate.scan.readfile import BINARY_KIND, BYTE_PARSED
from tests.binary_images import elf, pe

COMMON = ["\n", "\n", " ", "\t", "\\\n", "\r\n", "#", "\"", "'", "(", ")", "[", "]", "{", "}", ",", ":", ";", "=",
          "\ufeff", "\u202e", "\x1b[2J", "é", "\U0001f600", "0", "32", "0xffffffff", "-1", "9" * 50, "cuda", "nvidia",
          "rocm-migrate: ignore[HIP4010]", "HIP", "__HIP_PLATFORM_AMD__", "torch.version.hip"]
TOKENS: dict[str, list[str]] = {
    "cuda": ["#include <cuda_runtime.h>", "#include \"", "#if ", "#ifdef ", "#ifndef ", "#elif ", "#else", "#endif",
             "#define ", "defined(", "__global__", "__device__", "__shared__", "void ", "int ", "k", "<<<", ">>>",
             "cudaMalloc(", "cudaFree(", "__shfl_down_sync(", "__ballot_sync(", "threadIdx.x", "warpSize", "& 31",
             "% 32", "asm(\"", "asm volatile(\"mov.u32 %0, %%laneid;\"", "/*", "*/", "//", "template<", ">",
             "namespace cub = hipcub;", "cub::", "for (int i = 16; i > 0; i >>= 1)", "sizeof(float) * 1024",
             "__launch_bounds__(1024)", "extern __shared__ float s[];", "\xdf", "\\"],
    "python": ["import torch", "import pynvml", "from torch.utils.cpp_extension import load_inline", "def f(", "):",
               "    ", "return ", "if ", "else:", "torch.cuda.", "is_available()", "torch.version.cuda", "cupy.RawKernel(",
               "r'''", "'''", '"""', "lambda x: ", "a + ", "-", "not ", "[", "]", "{", "}", "**", "@", "nvcc", "-arch=sm_80",
               "os.environ['CUDA_VISIBLE_DEVICES']", "setup(", "CUDAExtension(", "extra_compile_args={'nvcc': [",
               "async ", "await ", "match x:", "case 1:", "f'{", "}'", "\\N{", "0b", "1e999", "__import__"],
    "notebook": ['{"cells": [', '{"cell_type": "code", "source": [', '"source": ', '"!nvidia-smi\\n"', '"import torch\\n"',
                 '"%%time\\n"', '], "metadata": {}}', "]}", "5", "null", "[[[", "]]]", '"\\u0000"', '"\\ud800"', "{", "}"],
    "requirements": ["cupy-cuda12x", "torch==2.3.0+cu121", "--extra-index-url https://download.pytorch.org/whl/cu121",
                     "-r other.txt", "nvidia-cublas-cu12", "; python_version < '3.11'", "==", ">=", "[cuda]", "-e .",
                     "tensorrt", "@ https://x/y.whl", "--hash=sha256:", "pycuda"],
    "conda": ["dependencies:", "  - ", "cudatoolkit=11.8", "pytorch-cuda=12.1", "channels:", "nvidia", "- pip:",
              "    - cupy-cuda12x", "name: env", "&a", "*a", "!!python/object", "{", "}", "---"],
    "pyproject": ["[project]", "dependencies = [", "\"cupy-cuda12x\"", "]", "[tool.rocm-migrate]", "jobs = 40",
                  "[build-system]", "requires = [", "\"torch\"", "[tool]", "x = [[[[", "]]]]", "\"\"\"", "'''", "= {"],
    "setupcfg": ["[options]", "install_requires =", "    cupy-cuda12x", "[metadata]", "name = x", "%(", ")s"],
    "dockerfile": ["FROM nvidia/cuda:12.4.0-devel-ubuntu22.04", "FROM ", " AS build", "RUN ", "nvidia-smi", "&& ",
                   "pip install cupy-cuda12x", "ENV NVIDIA_VISIBLE_DEVICES=all", "ARG CUDA=12", "${CUDA}", "COPY --from=",
                   "<<EOF", "EOF", "# syntax=", "\\", "CMD [\"python\"]", "SHELL [\"/bin/bash\", \"-c\"]"],
    "manifest": ["apiVersion: v1", "kind: Pod", "resources:", "  limits:", "    nvidia.com/gpu: 1", "image: nvcr.io/",
                 "services:", "  deploy:", "devices:", "capabilities: [gpu]", "runs-on: [self-hosted, gpu]", "&a", "*a",
                 "!!binary", "---", "- ", "{", "}", "'", "key: |"],
    "cmake": ["project(x CUDA)", "enable_language(CUDA)", "find_package(CUDAToolkit)", "add_library(k k.cu)",
              "set(CMAKE_CUDA_ARCHITECTURES 80)", "-gencode arch=compute_80,code=sm_80", "target_link_libraries(k ",
              "CUDA::cublas", "${", "}", "[[", "]]", "#[[", "if(", "endif()", "\"", "set_source_files_properties("],
    "makefile": ["NVCC := nvcc", "$(NVCC) -arch=sm_80 -c k.cu", "all:", "\t", "include other.mk", "$(", "ifeq (", "endif",
                 "-lcudart", "-gencode", "--use_fast_math", "%.o: %.cu", ":="],
    "gitmodules": ["[submodule \"cutlass\"]", "\tpath = csrc/cutlass", "\turl = https://github.com/NVIDIA/cutlass.git",
                   "url =", "# ", "; ", "[", "]", "\\"],
    "shell": ["#!/bin/bash", "nvcc -arch=sm_80 k.cu", "nvidia-smi", "export CUDA_VISIBLE_DEVICES=0", "module load cuda/12",
              "#SBATCH --gres=gpu:2", "pip install cupy-cuda12x", "docker run --gpus all", "$(", "`", "<<EOF", "EOF", "|",
              "&&", "'", "\"", "conda install pytorch-cuda=12.1"],
}
TOKENS["cargo"] = ["[package]", "name = \"x\"", "[features]", "rocm = [\"dep/rocm\"]", "cuda = []", "[dependencies]",
                   "cudarc = { version = \"0.12\", features = [\"cuda-12040\"] }", "default = [", "]", "\"", "{", "}", "#"]
TOKENS["cargo_build"] = ["fn main() {", "}", "{", "#[cfg(feature = \"cuda\")]", "if cfg!(feature = \"x\")",
                         "std::env::var(\"CARGO_FEATURE_CUDA\").is_ok()", "\"csrc/k.cu\"", "r#\"a.cpp\"#", "'{'",
                         "/* /*", "*/", "//", "else", "!", "\"", ";"]
TOKENS["julia_project"] = ["name = \"X\"", "[deps]", "[weakdeps]", "[extensions]", "[compat]",
                           "CUDA = \"052768ef-5323-5732-b1bb-66c8b64840ba\"", "CUDSS_jll = \"4889d778\"",
                           "XCUDAExt = \"CUDA\"", "\"", "=", "[", "]", "#"]
TOKENS["julia"] = ["@cuda", "CUDA.@cuda", " threads=256 ", "kernel!(", "(", ")", "include(", "\"k.jl\"", "\"\"\"",
                   "#=", "=#", "# ", "'", "`", "x'", "\\", "\n", "$(", "Base.include", "map(include, fs)"]
TOKENS["fortran"] = TOKENS["fortran_fixed"] = [
    "use cudafor", "use cublas", "attributes(global) subroutine k(a)", "attributes(device) ", "call k<<<g, b>>>(a)",
    "!$cuf kernel do <<<*,*>>>", "!@cuf ", "real, device :: a(n)", "attributes(pinned) :: b", "istat = cudaMemcpy(",
    "'", "\"", "''", "!", "&", "\n", "\n     &", "\nC ", "\nc$cuf kernel do", ";", "::", ",", "(", ")", "#ifdef _CUDA\n"]
TOKENS["java"] = ["Native.load(", "System.loadLibrary(", "NativeLibrary.getInstance(", "\"NvLowLatencyVk\"",
                  "\"cudart\"", "\"nvapi64\"", "\"", "\\", "//", "/*", "*/", "\n", ")", "X.class", "\"\"\""]
TOKENS["go"] = ["package main", "/*", "*/", "// ", "#cgo LDFLAGS: -L${SRCDIR}/lib -lcudart -lkernels", "#cgo ",
                "linux,amd64 ", "CFLAGS: -I/usr/local/cuda/include", "LDFLAGS:", " -l", "-L", "import \"C\"",
                "#include <cuda_runtime.h>", "func main() {", "}", "\"", "`"]
TOKENS["go_module"] = ["module example.com/x", "go 1.22", "require (", ")", "require ", "github.com/NVIDIA/go-nvml",
                       " v0.13.0-1", " // indirect", "replace ", " => ../x", "\"", "`", "\n", "\t", "// "]
TOKENS["doc_site"] = ["module.exports = {", "};", "title: \"x\",", "[book]", "title = \"x\"", "baseURL = \"/\"",
                      "site:", "  title: x", "\"", "\n"]
TOKENS["autoconf"] = ["AC_INIT([x], [1.0])", "AC_ARG_WITH([cuda],", "AC_ARG_ENABLE([gpu],", "AS_HELP_STRING([--with-cuda])",
                      "[with_cuda=no]", "[enable_gpu=yes]", "AC_PATH_PROG([NVCC], [nvcc], [no])",
                      "AC_CHECK_PROG(NVCC, nvcc, nvcc)", "AM_CONDITIONAL([COND_CUDA], [test x$with_cuda = xyes])",
                      "AM_CONDITIONAL([USE_NVCC], [test \"$NVCC\" != no])", "if test ", "then", "fi", "dnl ", "#",
                      "[", "]", "(", ")", ",", "$", "AC_SUBST([NVCC])", "AC_OUTPUT"]
TOKENS["m4"] = TOKENS["autoconf"] + ["AC_DEFUN([AX_CUDA],", "[", "have_cuda=no", "have_cuda=\"yes\"", "else", "elif ",
                                     "case $x in", "esac", "AC_COMPILE_IFELSE([", "])", ";", "-a", "||"]
TOKENS["vsproject"] = ["<?xml version=\"1.0\" encoding=\"utf-8\"?>", "<Project>", "</Project>", "<ItemGroup>",
                       "</ItemGroup>", "<CudaCompile Include=\"kernel.cu\" />", "<ClCompile Include=\"a.cpp;b.cpp\" />",
                       "<File RelativePath=\".\\\\k.cu\">", "</File>", "<ProjectReference Include=\"x.vcxproj\" />",
                       " Include=\"", " RelativePath=", "\"", "<", ">", "/>", "$(CudaToolkitDir)", "\\", ";", "=", "\xff\xfe"]
TOKENS["dotnet"] = ["<Project Sdk=\"Microsoft.NET.Sdk\">", "</Project>", "<ItemGroup>", "</ItemGroup>",
                    "<ProjectReference Include=\"..\\Core\\Core.csproj\" />", "<PackageReference Include=\"x\" />",
                    "<", ">", "/>", "\"", "\xff\xfe", "\xef\xbb\xbf"]
TOKENS["maven"] = ["<project>", "</project>", "<modules>", "</modules>", "<module>core</module>", "<module>",
                   "</module>", "<profiles>", "</profiles>", "<profile>", "</profile>", "<id>cuda</id>", "<activation>",
                   "</activation>", "<activeByDefault>true</activeByDefault>", "<property>", "<name>", "</name>",
                   "<", ">", "/>", "\"", "<!--", "-->", "\xff\xfe"]
TOKENS["cpp"] = TOKENS["hip"] = TOKENS["cuda"]
# a prebuilt binary's soup is a real image (tests/binary_images.py) with runs of its bytes overwritten by these
IMAGES = [elf(needed=("libcudart.so.12", "libc.so.6"), sections=(".nv_fatbin", ".nvFatBinSegment")),
          pe(needed=("cudart64_12.dll", "KERNEL32.dll"), sections=(".nv_fatb",))]
TOKENS["binary"] = ["\x7fELF", "MZ", "PE\0\0", "\0", "\xff" * 8, "\0" * 8, ".nv_fatbin", ".nv_fatb", "libcudart.so",
                    "nvcuda.dll", "\x01\0\0\0", "\xff\xff\xff\x7f", "\x00\x10\x00\x00", "\x40\0\0\0"]
KINDS = sorted(EXTRACTORS)


def soup(rng: random.Random, kind: str, size: int) -> str:
    if kind == BINARY_KIND:
        image = list(rng.choice(IMAGES).decode("latin-1"))
        for _ in range(max(1, size // 8)):
            at = rng.randrange(len(image))
            token = rng.choice(TOKENS[kind])
            image[at:at + len(token)] = token
        return "".join(image)
    pool = TOKENS[kind] + COMMON
    return "".join(rng.choice(pool) if rng.random() < 0.9 else chr(rng.randrange(1, 0x3000)) for _ in range(size))


def admissible(kind: str, data: bytes) -> bytes | None:
    """What `readfile.read` would pass to the extractor (BOM removed), else None."""
    if kind == BINARY_KIND:
        return data
    data = data.removeprefix(b"\xef\xbb\xbf")
    if b"\0" in data:
        return None
    if kind not in BYTE_PARSED:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return data


def encode(kind: str, text: str, rng: random.Random | None = None) -> bytes:
    if kind == BINARY_KIND:
        return text.encode("latin-1", "replace")
    data = text.encode("utf-8", "surrogatepass")
    if kind in BYTE_PARSED and rng is not None and rng.random() < 0.2:  # Latin-1 bytes in C/C++
        data = data.replace(b"\xc3\xa9", b"\xe9")
    return data


def check_extraction(kind: str, data: bytes, extraction: Extraction) -> list[str]:
    """What is wrong with one extraction: an extractor bug (an exception the guard caught) or a
    fact whose location is impossible."""
    problems = []
    if extraction.error and extraction.error.startswith("extractor error"):
        problems.append(f"{kind}: {extraction.error}")
    lines = max(extraction.lines, 1)
    for fact in extraction.facts:
        if fact.line < 1 or fact.column < 1 or fact.end_line < fact.line or (fact.cell is None and fact.line > lines):
            problems.append(f"{kind}: fact {fact.kind}/{fact.name!r} at impossible place {fact.line}:{fact.column}-"
                            f"{fact.end_line}:{fact.end_column} ({lines} lines)")
            break
    return problems


def fuzz_extract(kind: str, data: bytes) -> list[str]:
    admitted = admissible(kind, data)
    if admitted is None:
        return []
    return check_extraction(kind, admitted, extract(kind, admitted))


FILE_NAMES = {"cuda": "k.cu", "cpp": "k.cpp", "hip": "k.hip", "python": "m.py", "notebook": "n.ipynb",
              "requirements": "requirements.txt", "conda": "environment.yml", "pyproject": "pyproject.toml",
              "setupcfg": "setup.cfg", "dockerfile": "Dockerfile", "manifest": "docker-compose.yml",
              "cmake": "CMakeLists.txt", "makefile": "Makefile", "shell": "run.sh",
              "gitmodules": ".gitmodules", "cargo": "Cargo.toml", "cargo_build": "build.rs",
              "julia_project": "Project.toml", "julia": "k.jl", "fortran": "k.cuf", "fortran_fixed": "k.f",
              "java": "K.java", "go": "main.go", "go_module": "go.mod", "doc_site": "docusaurus.config.js",
              "autoconf": "configure.ac", "m4": "ax_k.m4", "vsproject": "k.vcxproj", "dotnet": "k.csproj", "maven": "pom.xml",
              "binary": "libk.so"}


def fuzz_scan(kind: str, data: bytes, folder: Path, rules: RuleBase) -> list[str]:
    """Scan a folder holding one fuzzed file and render the report in every format."""
    import json

    from migrate.render import FORMATS, renderer
    from migrate.scan import pipeline
    from migrate.settings import Settings

    (folder / FILE_NAMES[kind]).write_bytes(data)
    settings = Settings(jobs=1, cache_dir=None, use_hipify=False)
    try:
        report = pipeline.run([folder], settings, rules)
        texts = {name: renderer(name)(report) for name in FORMATS}
        json.loads(texts["json"])
        json.loads(texts["sarif"])
    except Exception as exc:
        return [f"{kind}: the scan failed: {type(exc).__name__}: {exc}"]
    problems = [p for s in report.skipped if (p := _extractor_error(kind, s.reason))]
    return problems


def _extractor_error(kind: str, reason: str) -> str | None:
    return f"{kind}: {reason}" if reason.startswith("extractor error") else None
