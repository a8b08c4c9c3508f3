"""extract, Fortran sources: CUDA Fortran, as `construct` facts (`cuda-fortran-*`).

CUDA Fortran is NVIDIA's Fortran dialect (nvfortran, formerly PGI's pgf90 with `-Mcuda`;
https://docs.nvidia.com/hpc-sdk/compilers/cuda-fortran-prog-guide/index.html). No AMD compiler reads it: on ROCm the
kernels are rewritten (HIP C++ behind `iso_c_binding` interfaces, or OpenMP offload for AMD's flang) and the runtime and
library calls go through hipfort (the rules in rules/device.yaml and rules/libraries.yaml that match these constructs).
What is read, each the construct of its own rule (the names are data: rules/names/fortran.yaml):

- `use cudafor` (and CUDA Fortran's other modules): `cuda-fortran-module`; `use cublas` and the other CUDA library
  interface modules: `cuda-fortran-library-module` (the text is the module);
- `attributes(global)` / `attributes(grid_global)` procedures: `cuda-fortran-kernel`; `attributes(device)` ones:
  `cuda-fortran-device-procedure` (the text is the procedure's name);
- `call k<<<grid, block>>>(...)`: `cuda-fortran-kernel-launch` (the text is the kernel called);
- `!$cuf kernel do` directives (loops the compiler turns into kernels): `cuda-fortran-cuf-kernel`;
- declarations with a CUDA data attribute (`real, device :: a(n)`, `attributes(device) :: a`, `pinned`, `managed`,
  `constant`, `shared`): `cuda-fortran-device-data` (the text is the attribute);
- in a file that uses a CUDA Fortran module, calls of `cuda*` runtime functions (`istat = cudaMemcpy(...)`):
  `cuda-fortran-api-call` (the text is the function as written).

Fortran is read as the standard writes it (Fortran 2018, 6.3: https://j3-fortran.org/doc/year/18/18-007r1.pdf): names
are case-insensitive; in free form (`.f90`, `.cuf` ...) a `!` outside a character literal starts a comment, a line
ending in `&` continues on the next (which may start with `&`), `;` separates statements; in fixed form (`.f`, `.for`
...: scan/discover.py gives those the kind `fortran_fixed`) a `C`, `c`, `*` or `!` in column 1 makes a comment line
and a character other than blank or zero in column 6 a continuation line. Character literals (`'...'`, `"..."`, a
doubled quote inside) and comments are blanked first, so `attributes(global)` in a comment or a string is nothing;
CUDA Fortran's directive `!$cuf` (fixed form: `c$cuf`, `*$cuf` too) is read before comments go, and the conditional
compilation sentinel `!@cuf` (a line compiled only as CUDA Fortran) is read as code. Preprocessor lines (`#ifdef`) are
skipped; the code under them is read whichever branch it is in. A file with none of the words these constructs need
is not read further."""
from __future__ import annotations

import bisect
import re
from functools import cache

from migrate.extract.names import name_list
from migrate.extract.text.lines import fact, finish, split_args
from migrate.model import Extraction, Fact

MODULE = "cuda-fortran-module"
LIBRARY_MODULE = "cuda-fortran-library-module"
KERNEL = "cuda-fortran-kernel"
DEVICE_PROCEDURE = "cuda-fortran-device-procedure"
LAUNCH = "cuda-fortran-kernel-launch"
CUF_KERNEL = "cuda-fortran-cuf-kernel"
DEVICE_DATA = "cuda-fortran-device-data"
API_CALL = "cuda-fortran-api-call"

# What any construct needs, looked for in the lower-cased bytes before anything is decoded (most Fortran is CPU code):
# `cuda` (a runtime call), `attributes`, chevrons, a `!$cuf` directive, a module of rules/names/fortran.yaml; else a
# data attribute word of its `data_attributes` in a declaration's shape (after a comma, or before `::` at a statement's
# start), since words such as `device` and `shared` fill comments and names.
WORDS = (b"cuda", b"attributes", b"<<<", b"$cuf", b"@cuf")
DATA_AFTER = re.compile(rb"[ \t]*::")
CUF_DIRECTIVE = re.compile(r"[ \t]*!\$cuf[ \t]+(kernel[ \t]+do\b.*)", re.IGNORECASE)
FIXED_CUF_DIRECTIVE = re.compile(r"[!c*]\$cuf[ \t]+(kernel[ \t]+do\b.*)", re.IGNORECASE)
CUF_SENTINEL = re.compile(r"[ \t]*!@cuf(?=[ \t])", re.IGNORECASE)
FIXED_CUF_SENTINEL = re.compile(r"[!c*]@cuf(?=[ \t])", re.IGNORECASE)
USE = re.compile(r"\s*use\b\s*(?:,\s*(?:non_)?intrinsic\s*)?(?:::)?\s*([a-z_]\w*)")
# a procedure's prefix (Fortran 2018 R1526-R1527: RECURSIVE, PURE, a type ...) may come before `attributes(...)`; one
# way only to split the blanks between its words (`\s*` never beside another `\s*`), else a line of many type words
# with no `attributes` backtracks exponentially
PREFIX = r"(?:(?:pure|impure|elemental|recursive|non_recursive|module|integer|real|logical|complex|character" \
         r"|double\s*precision|type\s*\([^)]*\))(?:\s*(?:\([^)]*\)|\*\s*\d+))?\s*)*"
ATTRIBUTES = re.compile(rf"\s*{PREFIX}attributes\s*\(([a-z_,\s]*)\)(.*)")
PROCEDURE = re.compile(r"\b(?:subroutine|function)\s+([a-z_]\w*)")
KERNEL_CALL = re.compile(r"\bcall\s+([a-z_][\w%]*)\s*<<<")
TYPE_SPEC = re.compile(r"\s*(?:integer|real|complex|logical|character|double\s*precision|double\s*complex|type\s*\(|"
                       r"class\s*\()")
ATTRIBUTE_STATEMENT = re.compile(r"\s*([a-z_]+)\s*::")
API = re.compile(r"\b(cuda[a-z]\w*)\s*\(")
PREPROCESSOR = re.compile(r"[ \t]*#")


@cache
def _lists() -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    return (name_list("fortran", "cuda_fortran_modules"), name_list("fortran", "cuda_library_modules"),
            name_list("fortran", "data_attributes"), name_list("fortran", "kernel_attributes"))


@cache
def _module_words() -> tuple[bytes, ...]:
    """WORDS and the modules' names (rules/names/fortran.yaml): what a file needs for any construct but device data;
    a word that holds another (`cublas_v2`, `cudafor`) is not looked for again."""
    modules, libraries = _lists()[:2]
    words = WORDS + tuple(sorted(name.encode() for name in modules | libraries))
    return tuple(w for w in words if not any(v != w and v in w for v in words))


@cache
def _data_words() -> tuple[tuple[bytes, ...], re.Pattern[bytes]]:
    """The data attributes (rules/names/fortran.yaml `data_attributes`) as the prefilter looks for them: the words,
    and a pattern of any one as a whole word."""
    words = tuple(sorted(word.encode() for word in _lists()[2]))
    return words, re.compile(rb"\b(?:" + b"|".join(re.escape(word) for word in words) + rb")\b")


class _Statement:
    """One statement's code, joined from its lines' pieces; `place` maps a position in it back to a line and column."""

    __slots__ = ("code", "length", "lines", "offsets", "pieces", "starts")

    def __init__(self) -> None:
        self.code = ""  # the pieces joined, once `close` is called
        self.pieces: list[str] = []  # joined once, not added one by one: a statement of 100k continuation lines
        self.length = 0
        self.starts: list[int] = []  # where each piece starts in `code`
        self.lines: list[int] = []  # the piece's 1-based line
        self.offsets: list[int] = []  # the piece's 0-based column on that line

    def add(self, piece: str, line: int, column: int) -> None:
        self.starts.append(self.length)
        self.lines.append(line)
        self.offsets.append(column)
        self.pieces.append(piece)
        self.length += len(piece)

    def close(self) -> _Statement:
        self.code = "".join(self.pieces)
        self.pieces = []
        return self

    def place(self, start: int, end: int) -> tuple[int, int, int]:
        i = bisect.bisect_right(self.starts, start) - 1
        column = self.offsets[i] + start - self.starts[i]
        return self.lines[i], column, column + max(1, min(end, self.starts[i + 1] if i + 1 < len(self.starts)
                                                          else self.length) - start)


def extract(source: bytes) -> Extraction:
    """A free-form Fortran file (`.f90`, `.cuf` ...)."""
    return _extract(source, fixed=False)


def extract_fixed(source: bytes) -> Extraction:
    """A fixed-form Fortran file (`.f`, `.for` ...)."""
    return _extract(source, fixed=True)


def _extract(source: bytes, *, fixed: bool) -> Extraction:
    text = source.decode("utf-8", errors="replace")
    if not worth_reading(source):
        return finish(text, [])
    facts: list[Fact] = []
    statements = list(_statements(text, fixed, facts))
    modules, libraries, data_attributes, kernel_attributes = _lists()
    used_cuda = False
    for statement in statements:
        for code, start in _parts(statement.code):
            used_cuda |= _read(code.lower(), code, start, statement, facts, (modules, libraries, data_attributes,
                                                                              kernel_attributes))
    if used_cuda:
        for statement in statements:
            lowered = statement.code.lower()
            for m in API.finditer(lowered):
                facts.append(fact("construct", API_CALL, *statement.place(m.start(1), m.end(1)),
                                  text=statement.code[m.start(1):m.end(1)]))
    facts.sort(key=lambda f: (f.line, f.column))
    return finish(text, facts)


def worth_reading(source: bytes) -> bool:
    """Whether the file holds anything a construct needs (the words of WORDS or a module's name, or a data attribute
    where a declaration puts one)."""
    low = source.lower()
    if any(word in low for word in _module_words()):
        return True
    data_words, data_word = _data_words()
    if not any(word in low for word in data_words):
        return False
    for m in data_word.finditer(low):
        window = max(0, m.start() - 200)  # the line's start looked for only this far back: a file of one long line
        before = low[low.rfind(b"\n", window, m.start()) + 1 or window:m.start()]
        before = before.strip().lstrip(b"&").strip()  # a free-form continuation line may start with `&`
        if before.endswith(b",") or (not before and DATA_AFTER.match(low, m.end())):
            return True
    return False


def _parts(code: str) -> list[tuple[str, int]]:
    """The statements `;` separates on one logical line, each with where it starts."""
    out, start = [], 0
    for i, ch in enumerate(code):
        if ch == ";":
            out.append((code[start:i], start))
            start = i + 1
    out.append((code[start:], start))
    return out


def _read(lowered: str, code: str, base: int, statement: _Statement, facts: list[Fact],
          lists: tuple[frozenset[str], ...]) -> bool:
    """The constructs of one statement; True when it uses a CUDA Fortran module."""
    modules, libraries, data_attributes, kernel_attributes = lists

    def add(name: str, start: int, end: int, text: str) -> None:
        facts.append(fact("construct", name, *statement.place(base + start, base + end), text=text))

    if (m := USE.match(lowered)) is not None:
        module = m.group(1)
        if module in modules:
            add(MODULE, m.start(1), m.end(1), module)
            return True
        if module in libraries:
            add(LIBRARY_MODULE, m.start(1), m.end(1), module)
        return False
    if (m := ATTRIBUTES.match(lowered)) is not None:
        attributes = {a.strip() for a in m.group(1).split(",")}
        procedure = PROCEDURE.search(lowered, m.start(2))
        if procedure is None:  # an attribute statement: `attributes(device) :: a, b`
            if attributes & data_attributes:
                add(DEVICE_DATA, m.start(1), m.end(1), sorted(attributes & data_attributes)[0])
        elif attributes & kernel_attributes:
            add(KERNEL, procedure.start(1), procedure.end(1), code[procedure.start(1):procedure.end(1)])
        elif "device" in attributes:
            add(DEVICE_PROCEDURE, procedure.start(1), procedure.end(1), code[procedure.start(1):procedure.end(1)])
        return False
    for m in KERNEL_CALL.finditer(lowered):
        add(LAUNCH, m.start(1), m.end(1), code[m.start(1):m.end(1)])
    if (m := ATTRIBUTE_STATEMENT.match(lowered)) is not None and m.group(1) in data_attributes:
        add(DEVICE_DATA, m.start(1), m.end(1), m.group(1))  # `device :: a(n)`
    elif TYPE_SPEC.match(lowered) and "::" in lowered:
        head = lowered[:lowered.index("::")]
        at = 0
        for part in split_args(head)[1:]:
            at = head.index(part, at)
            word = part.strip().split("(")[0].strip()
            if word in data_attributes:
                start = at + part.index(word)
                add(DEVICE_DATA, start, start + len(word), word)
                break
    return False


def _statements(text: str, fixed: bool, facts: list[Fact]) -> list[_Statement]:
    """The file's logical lines (continuations joined), comments and character literals blanked; `!$cuf kernel do`
    directives go to `facts` as they are met."""
    out: list[_Statement] = []
    current: _Statement | None = None
    quote = ""  # the quote a free-form literal continued onto the next line is open in
    directive = FIXED_CUF_DIRECTIVE if fixed else CUF_DIRECTIVE
    sentinel = FIXED_CUF_SENTINEL if fixed else CUF_SENTINEL
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if (d := directive.match(line)) is not None:
            facts.append(fact("construct", CUF_KERNEL, number, d.start(1), d.end(1), text=" ".join(d.group(1).split())))
            continue
        if (s := sentinel.match(line)) is not None:
            line = " " * s.end() + line[s.end():]
        if PREPROCESSOR.match(line) and not quote:
            continue
        column = 0
        if fixed:
            if line[:1] in ("c", "C", "*", "!"):
                continue
            continued = len(line) > 5 and line[5] not in " 0" and line[:5].strip() == ""
            if continued:
                column = 6
            elif current is not None:
                out.append(current.close())
                current = None
        code, quote = _blank(line[column:], "" if fixed else quote)
        if fixed:
            if current is None:
                current = _Statement()
            current.add(code, number, column)
            continue
        stripped = code.lstrip()
        if current is not None and stripped.startswith("&"):
            column = len(code) - len(stripped) + 1
            code = code[column:]
        ends = code.rstrip()
        more = ends.endswith("&")
        piece = ends[:-1] if more else code
        if current is None:
            current = _Statement()
        current.add(piece + " ", number, column)
        if not more:
            out.append(current.close())
            current = None
    if current is not None:
        out.append(current.close())
    return out


def comments(text: str, *, fixed: bool) -> list[tuple[int, int, str]]:
    """Each comment, read as the statements are (a `!` outside literals; in fixed form a column-1 comment line):
    (1-based line, 0-based column, the comment's text). For inline suppressions (extract/comments.py)."""
    out: list[tuple[int, int, str]] = []
    quote = ""
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if fixed and line[:1] in ("c", "C", "*", "!"):
            out.append((number, 0, line))
            continue
        if PREPROCESSOR.match(line) and not quote:
            continue
        code, quote = _blank(line, "" if fixed else quote)
        if len(code) < len(line):  # _blank cuts the line where its comment starts, and only there
            out.append((number, len(code), line[len(code):]))
    return out


def _blank(line: str, quote: str) -> tuple[str, str]:
    """`line` with its character literals blanked and its `!` comment cut; `quote`: a literal open from the line
    before (free form). Returns the code and the quote still open at the line's end (after a `&`)."""
    if not quote and "'" not in line and '"' not in line:  # most lines: no literal, at most a comment
        cut = line.find("!")
        return (line if cut < 0 else line[:cut]), ""
    out = list(line)
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if quote:
            if ch == quote:
                if i + 1 < n and line[i + 1] == quote:  # a doubled quote stands for one
                    out[i] = out[i + 1] = " "
                    i += 2
                    continue
                quote = ""
            elif not (ch == "&" and line[i + 1:].strip() == ""):
                out[i] = " "
            i += 1
        elif ch in "'\"":
            quote = ch
            i += 1
        elif ch == "!":
            return "".join(out[:i]), ""
        else:
            i += 1
    return "".join(out), quote
