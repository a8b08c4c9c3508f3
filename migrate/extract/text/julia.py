"""extract, Julia sources (`.jl`): the kernel launches of CUDA.jl, as `construct` facts `julia-cuda-kernel-launch`.

CUDA.jl launches a kernel written in Julia with its `@cuda` macro (`@cuda threads=256 blocks=n kernel!(a, b)`,
`CUDA.@cuda launch=false f(x)`, `@cuda(threads=n, f(x))`: https://cuda.juliagpu.org/stable/development/kernel/). The
function launched is CUDA device code; on AMD GPUs it is launched with AMDGPU.jl's `@roc` or rewritten for
KernelAbstractions. Vendor-neutral code (KernelAbstractions' `@kernel`, CuArray broadcasting) launches nothing with
`@cuda`, which is what tells the two apart where Project.toml cannot (rules/dependencies.yaml, julia-cuda-package).
The macro names are data (rules/names/julia.yaml `cuda_kernel_launchers`). Comments (`#`, nested `#= =#`), strings
(`"..."`, `\"\"\"...\"\"\"`, character literals) and command literals (backticks) are blanked first, so a macro named in
a docstring or an error message is no launch. The symbol is the function launched: the last call at the macro's own
bracket depth (`shmem=(n*sizeof(Float64)) kernel!(a)` launches `kernel!`); a `@cuda` with no call after it (a name in
an `export` list) is none.

Each `include(...)` is a `julia_include` fact (https://docs.julialang.org/en/v1/base/base/#Base.include: the path is
relative to the including file's folder): the name is the path of a literal argument (`include("kernels.jl")`, or
string literals joined: `include(joinpath("cuda", "adapt.jl"))`, `joinpath(@__DIR__, "x.jl")`), empty for any other
use (`include(joinpath(@__DIR__, f))`, `include.(files)`, `map(include, files)`: the text kept), so that
workloads/julia_packages.py can tell which files a package loads."""
from __future__ import annotations

import bisect
import re

from migrate.extract.names import alternatives
from migrate.extract.text.lines import fact, finish
from migrate.model import Extraction

CONSTRUCT = "julia-cuda-kernel-launch"
NEWLINE = re.compile(r"\n")
IDENT_CHAR = re.compile(r"[\w!]")
NAME_BEFORE = re.compile(r"([A-Za-z_][\w!.]*)\Z")  # a name just before `(`: a call (Julia allows no space there)
NAME_CHARS = 200
INCLUDE = re.compile(r"(?<![\w.])(?:Base\.)?include(?![\w!])")  # a call, or the function passed on (map(include, fs))
LITERAL_PATH = re.compile(r'\(\s*"([^"\\$]+)"\s*\)')
# `include(joinpath("cuda", "adapt.jl"))`: string literals joined (https://docs.julialang.org/en/v1/base/file/#Base.Filesystem.joinpath),
# a path relative to the including file's folder as a single literal is; `@__DIR__` first is that folder itself
JOINED_PATH = re.compile(r'\(\s*joinpath\(\s*((?:@__DIR__\s*,\s*)?"[^"\\$]+"(?:\s*,\s*"[^"\\$]+")*)\s*\)\s*\)')
JOINED_PART = re.compile(r'"([^"\\$]+)"')
LAUNCH_SCAN = 2000  # characters after the macro searched for the launched call (arguments over several lines)


def _launcher() -> re.Pattern[str]:
    launchers = alternatives("julia", "cuda_kernel_launchers")
    return re.compile(rf"(?<![\w.@])(?:{launchers})(?![\w!])")


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8", errors="replace")
    code = blank(text)
    starts = [0, *(m.end() for m in NEWLINE.finditer(code))]
    facts = []

    def place(m: re.Match[str]) -> tuple[int, int, int]:
        line = bisect.bisect_right(starts, m.start())
        return line, m.start() - starts[line - 1], m.end() - starts[line - 1]

    for m in _launcher().finditer(code):
        if (kernel := launched(code, m.end())) is not None:
            facts.append(fact("construct", CONSTRUCT, *place(m), text=kernel))
    for m in INCLUDE.finditer(code):
        literal = LITERAL_PATH.match(text, m.end())
        joined = None if literal else JOINED_PATH.match(text, m.end())
        name = literal.group(1) if literal else "/".join(JOINED_PART.findall(joined.group(1))) if joined else ""
        line, start, end = place(m)
        rest = "" if name else text[m.end():starts[line] - 1 if line < len(starts) else len(text)]
        facts.append(fact("julia_include", name, line, start, end, text=rest.strip()[:200]))
    return finish(text, facts)


def launched(code: str, at: int) -> str | None:
    """The function a launch macro ending at `at` calls: the last call at the macro's depth (inside its parentheses
    for `@cuda(...)`), up to the end of the expression (a newline outside brackets, or its closing parenthesis)."""
    depth, base, last, i = 0, 0, None, at
    end = min(len(code), at + LAUNCH_SCAN)
    if i < end and code[i] == "(":
        depth, base, i = 1, 1, i + 1
    while i < end:
        ch = code[i]
        if ch in "([{":
            called = NAME_BEFORE.search(code, max(at, i - NAME_CHARS), i) if ch == "(" else None
            if depth == base and called is not None:
                last = called.group(1)
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < base:
                break
        elif ch == "\n" and depth == 0:
            break
        i += 1
    return last


def blank(text: str) -> str:
    """`text` with comments, strings, characters and commands turned into spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)

    def clear(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        ch = text[i]
        if text.startswith("#=", i):
            j, depth = i + 2, 1
            while j < n and depth:
                if text.startswith("#=", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("=#", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            clear(i, j)
            i = j
        elif ch == "#":
            j = text.find("\n", i)
            j = n if j < 0 else j
            clear(i, j)
            i = j
        elif ch in "\"`":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                j += 2 if text[j] == "\\" else 1
            clear(i, j + len(quote))
            i = j + len(quote)
        elif ch == "'" and (i == 0 or not (IDENT_CHAR.match(text[i - 1]) or text[i - 1] in ")]}'.")):
            j = text.find("'", i + 2 if text.startswith("\\", i + 1) else i + 1)  # 'a', '\n', '\''
            j = i + 1 if j < 0 or j - i > 12 or "\n" in text[i:j] else j + 1
            clear(i, j)
            i = j
        else:
            i += 1
    return "".join(out)
