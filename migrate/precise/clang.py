"""The one adapter to libclang (`clang.cindex`, the `libclang` wheel): toolchain discovery and parsing.

It turns a translation unit into plain records (`Ref`, `Diagnostic`); `migrate.precise` decides
what they mean. Nothing here raises for a missing tool: discovery returns a one-line reason.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from migrate.vocabulary import install_hint

SHIM_DIR = Path(__file__).parent / "shims"
WRAPPER = "__clang_cuda_runtime_wrapper.h"
ENV_RESOURCE_DIR = "ROCM_MIGRATE_CLANG_RESOURCE_DIR"
# The newest CUDA each clang release supports (clang's release notes, "CUDA support": 17 -> 12.1, 18 -> 12.3).
CLANG_NEWEST_CUDA = {17: (12, 1), 18: (12, 3)}


@dataclass(frozen=True, slots=True)
class Toolchain:
    """What a CUDA parse needs besides the user's flags."""

    resource_dir: Path  # clang's builtin headers, with the CUDA wrapper headers
    cuda_path: Path  # a CUDA installation: include/cuda_runtime.h
    version: str  # libclang's version string
    cuda_version: tuple[int, int] | None = None  # from include/cuda.h

    def header_note(self) -> str:
        """A note when the CUDA headers are newer than the libclang release supports (a unit that does
        not parse may then fail on the headers, not on the project: CUDA 13 changed cudaMemAdvise)."""
        newest = CLANG_NEWEST_CUDA.get(libclang_major() or 0)
        if self.cuda_version is None or newest is None or self.cuda_version <= newest:
            return ""
        have, top = ".".join(map(str, self.cuda_version)), ".".join(map(str, newest))
        return (f"CUDA {have} headers ({self.cuda_path}) are newer than libclang {libclang_major()} supports "
                f"(CUDA up to {top}): a unit that does not parse may fail on the headers; --cuda-path can name "
                f"a CUDA {top} or older")
    system_dirs: tuple[Path, ...] = ()  # the C and C++ library headers clang finds on its own (probed)

    def args(self) -> list[str]:
        """Flags for a host-side CUDA parse. The shims come last (`-idirafter`): a real header always wins."""
        return ["-resource-dir", str(self.resource_dir), f"--cuda-path={self.cuda_path}", "--cuda-host-only",
                "-nocudalib", "-Wno-unknown-cuda-version", "-idirafter", str(SHIM_DIR)]

    def folders(self) -> tuple[Path, ...]:
        """Every folder outside the project that a parse may read: the toolchain's own."""
        return (self.resource_dir, self.cuda_path, SHIM_DIR, *self.system_dirs)


@dataclass(frozen=True, slots=True)
class Ref:
    """One use of a declared name (or a macro) in a source file, at its expansion site."""

    kind: str  # call | value | type | template | namespace | member | macro | include | kernel | launch | asm
    name: str
    file: str  # file of the use (absolute)
    line: int
    column: int
    end_line: int
    end_column: int
    decl_file: str | None  # file of the declaration or macro definition
    macro: str | None = None  # the macro expanded at this site, when the use comes from one
    macro_file: str | None = None
    macro_line: int | None = None
    macro_end_line: int | None = None  # last line of the macro's definition
    device: bool = False  # inside a __global__ or __device__ function
    text: str = ""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: str  # warning | error | fatal
    text: str  # file:line:col: message
    file: str | None = None
    line: int = 0
    column: int = 0
    message: str = ""  # the text without its location


@dataclass(slots=True)
class Parsed:
    refs: list[Ref] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _cindex() -> Any:
    from clang import cindex

    return cindex


def available() -> str | None:
    """None when libclang can be loaded, else a one-line reason."""
    try:
        cindex = _cindex()
        cindex.Index.create()
    except ImportError:
        return f"libclang is not installed ({install_hint('precise')})"
    except Exception as exc:
        return f"libclang cannot be loaded: {exc}"
    return None


def version() -> str:
    try:
        return str(_cindex().conf.lib.clang_getClangVersion())
    except Exception:
        return "unknown"


def find_resource_dir(major: int | None = None) -> Path | None:
    """A clang resource directory that has the CUDA wrapper headers, of the clang release of the
    libclang that parses (`major`, default the libclang wheel's): clang 15's wrappers (Debian's,
    beside `hipcc`) do not parse with libclang 18 (`no template named 'texture'`).

    Order: $ROCM_MIGRATE_CLANG_RESOURCE_DIR (taken as given); the `ziglang` wheel of the `precise`
    extra (its lib/include is clang's resource headers; its release is read from the libc++ it
    carries); a clang on PATH; Debian's `/usr/lib/llvm-N/lib/clang/*` (`libclang-common-N-dev`),
    newest first; `/usr/lib/clang/*`. A candidate whose release is known and differs is passed over.
    """
    explicit = os.environ.get(ENV_RESOURCE_DIR)
    if explicit:
        return Path(explicit) if (Path(explicit) / "include" / WRAPPER).is_file() else None
    want = libclang_major() if major is None else major
    zig = _ziglang_lib()
    candidates: list[tuple[str, int | None]] = [(str(zig), _libcxx_major(zig))] if zig is not None else []
    clang = shutil.which("clang")
    if clang:
        candidates += [(p, _path_major(p)) for p in glob.glob(str(Path(clang).resolve().parent.parent / "lib" / "clang" / "*"))]
    for pattern in ("/usr/lib/llvm-*/lib/clang/*", "/usr/lib/clang/*"):
        candidates += [(p, _path_major(p)) for p in sorted(glob.glob(pattern), key=_version_key, reverse=True)]
    for candidate, release in candidates:
        if (Path(candidate) / "include" / WRAPPER).is_file() and (want is None or release in (None, want)):
            return Path(candidate)
    return None


def libclang_major() -> int | None:
    """The clang release of the libclang wheel (its distribution version), None when not known."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return int(dist_version("libclang").split(".")[0])
    except (PackageNotFoundError, ValueError):
        return None


def _path_major(path: str) -> int | None:
    """`/usr/lib/llvm-15/lib/clang/15.0.6` -> 15; `/usr/lib/clang/15` -> 15."""
    m = re.search(r"/clang/(\d+)", path) or re.search(r"llvm-(\d+)", path)
    return int(m.group(1)) if m else None


def _libcxx_major(lib: Path) -> int | None:
    """The LLVM release of a zig installation, from the libc++ it ships (`_LIBCPP_VERSION 180100` -> 18)."""
    try:
        text = (lib / "libcxx" / "include" / "__config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(r"#\s*define\s+_LIBCPP_VERSION\s+(\d+)", text)
    return int(m.group(1)) // 10000 if m else None


def _ziglang_lib() -> Path | None:
    """site-packages/ziglang/lib, when the wheel is installed (it is never imported or run)."""
    from importlib.util import find_spec

    spec = find_spec("ziglang")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "lib"


def _version_key(path: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", path))


def find_cuda(cuda_path: str | os.PathLike[str] | None = None) -> Path | None:
    """A CUDA installation: the one given, else $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, nvcc's parent."""
    candidates = [cuda_path] if cuda_path else [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
                                                "/usr/local/cuda"]
    nvcc = shutil.which("nvcc")
    if nvcc and not cuda_path:
        candidates.append(str(Path(nvcc).resolve().parent.parent))
    for candidate in candidates:
        if candidate and (Path(candidate) / "include" / "cuda_runtime.h").is_file():
            return Path(candidate).resolve()
    return None


def toolchain(cuda_path: str | os.PathLike[str] | None = None) -> Toolchain | str:
    """Everything a CUDA parse needs, or a one-line reason why it cannot run."""
    missing = available()
    if missing:
        return missing
    resource = find_resource_dir()
    if resource is None:
        release = libclang_major()
        return (f"clang {release or ''}'s CUDA headers ({WRAPPER}) not found (the resource directory must be of "
                f"libclang's release): {install_hint('precise')} (the ziglang 0.13 wheel carries clang 18's), "
                f"or set ${ENV_RESOURCE_DIR}")
    cuda = find_cuda(cuda_path)
    if cuda is None:
        where = str(cuda_path) if cuda_path else "$CUDA_HOME, $CUDA_PATH, /usr/local/cuda"
        return f"CUDA headers (include/cuda_runtime.h) not found in {where}: pass --cuda-path"
    return Toolchain(resource_dir=resource, cuda_path=cuda, version=version(), system_dirs=_system_dirs(resource),
                     cuda_version=cuda_version(cuda))


PROBE = "#include <vector>\n#include <cstdio>\n#include <cmath>\n#include <new>\n#include <cstdlib>\n"
SPELLED = re.compile(r'#\s*include(?:_next)?\s*[<"]([^>"]+)[>"]')


def _system_dirs(resource: Path) -> tuple[Path, ...]:
    """The folders clang searches for the C and C++ library headers, found by parsing a probe file
    without any project flag: each included file's path less the name it was included by."""
    import tempfile

    cindex = _cindex()
    with tempfile.TemporaryDirectory(prefix="rocm-migrate-probe-") as folder:
        probe = Path(folder) / "probe.cpp"
        probe.write_text(PROBE)
        try:
            tu = cindex.Index.create().parse(str(probe), args=["-x", "c++", "-resource-dir", str(resource)])
        except cindex.TranslationUnitLoadError:
            return ()
        found: dict[Path, None] = {}
        for inclusion in tu.get_includes():
            spelled = _spelling(inclusion.location.file.name, inclusion.location.line)
            path = inclusion.include.name  # as clang built it: /../lib/gcc/x/12/../../../../include/c++/12/vector
            if spelled and path.endswith("/" + spelled):
                searched = Path(os.path.realpath(path[:-len(spelled) - 1]))
                if not searched.is_relative_to(resource.resolve()):
                    found.setdefault(searched)
    return tuple(found)


def _spelling(file: str, line: int) -> str | None:
    try:
        with open(file, encoding="utf-8", errors="replace") as handle:
            text = next((t for n, t in enumerate(handle, start=1) if n == line), "")
    except OSError:
        return None
    m = SPELLED.search(text)
    return m.group(1) if m else None


def write_overlay(files: dict[str, str], tc: Toolchain, folder: Path) -> Path:
    """A clang virtual file system that shows only `files` (name -> real path, both absolute) and
    the toolchain's folders, with nothing falling through to the real file system: an `#include`
    of any other path (outside the tree, a FIFO, a device) is "file not found"."""
    import json

    roots: list[dict[str, str]] = [{"name": name, "type": "file", "external-contents": real}
                                   for name, real in sorted(files.items())]
    roots += [{"name": str(d), "type": "directory-remap", "external-contents": str(d)} for d in tc.folders()]
    overlay = folder / "overlay.json"
    overlay.write_text(json.dumps({"version": 0, "case-sensitive": "true", "fallthrough": False, "roots": roots}))
    return overlay


def cuda_version(cuda: Path) -> tuple[int, int] | None:
    """`#define CUDA_VERSION 13000` in include/cuda.h -> (13, 0)."""
    try:
        text = (cuda / "include" / "cuda.h").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", text)
    return (int(m.group(1)) // 1000, int(m.group(1)) % 1000 // 10) if m else None


# -- parsing -----------------------------------------------------------------

_SEVERITY = {2: "warning", 3: "error", 4: "fatal"}


def parse(path: Path, args: list[str], tc: Toolchain, *, cuda: bool,
          report: Callable[[str], bool], overlay: Path | None = None) -> Parsed:
    """Parse one translation unit and return the uses of declared names in files `report` accepts.
    With `overlay` (write_overlay), clang reads no file but those it lists."""
    cindex = _cindex()
    lang = ["-x", "cuda", *tc.args()] if cuda else ["-x", "c++", "-resource-dir", str(tc.resource_dir),
                                                     "-isystem", str(tc.cuda_path / "include")]
    if overlay is not None:
        lang += ["-ivfsoverlay", str(overlay), *(a for d in tc.system_dirs for a in ("-isystem", str(d)))]
    options = cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD  # keeps macro expansions
    parsed = Parsed()
    try:
        tu = cindex.Index.create().parse(str(path), args=lang + list(args), options=options)
    except cindex.TranslationUnitLoadError as exc:
        parsed.diagnostics.append(Diagnostic("fatal", f"{path}: libclang could not parse the file ({exc})"))
        return parsed
    for diag in tu.diagnostics:
        if diag.severity >= 2:
            loc = diag.location
            where = f"{loc.file.name}:{loc.line}:{loc.column}: " if loc.file else ""
            parsed.diagnostics.append(Diagnostic(_SEVERITY.get(diag.severity, "error"), where + diag.spelling,
                                                 loc.file.name if loc.file else None, loc.line, loc.column,
                                                 diag.spelling))
    _Walker(cindex, report, parsed.refs).run(tu)
    return parsed


class _Walker:
    """Collects `Ref`s from the parts of the AST that lie in reported files."""

    def __init__(self, cindex: Any, report: Callable[[str], bool], out: list[Ref]) -> None:
        self.ck = cindex.CursorKind
        self.report = report
        self.out = out
        self.macros: dict[tuple[str, int, int], tuple[str, str | None, int | None, int | None, int, int]] = {}
        self.lines: dict[str, list[str]] = {}
        self._reported: dict[str, bool] = {}
        ck = self.ck
        self.refs = {ck.DECL_REF_EXPR: "value", ck.MEMBER_REF_EXPR: "member", ck.TYPE_REF: "type",
                     ck.TEMPLATE_REF: "template", ck.NAMESPACE_REF: "namespace", ck.OVERLOADED_DECL_REF: "value"}
        self.functions = {ck.FUNCTION_DECL, ck.FUNCTION_TEMPLATE, ck.CXX_METHOD, ck.CONVERSION_FUNCTION}

    def _in_report(self, cursor: Any) -> str | None:
        file = cursor.location.file
        if file is None:
            return None
        name = file.name
        if name not in self._reported:
            self._reported[name] = self.report(name)
        return name if self._reported[name] else None

    def run(self, tu: Any) -> None:
        top = [c for c in tu.cursor.get_children() if self._in_report(c)]
        for cursor in top:  # macro expansions and includes first, so uses can name their macro
            if cursor.kind == self.ck.MACRO_INSTANTIATION:
                self._macro(cursor)
            elif cursor.kind == self.ck.INCLUSION_DIRECTIVE:
                self._include(cursor)
        for cursor in top:
            if not cursor.kind.is_preprocessing():
                self._visit(cursor, callee=False, device=False)

    def _macro(self, cursor: Any) -> None:
        loc, end = cursor.extent.start, cursor.extent.end
        definition = cursor.referenced
        dfile = definition.location.file.name if definition is not None and definition.location.file else None
        dline = definition.location.line if definition is not None and dfile else None
        dend = definition.extent.end.line if definition is not None and dfile else None
        key = (loc.file.name, loc.line, loc.column)
        self.macros[key] = (cursor.spelling, dfile, dline, dend, end.line, end.column)
        self.out.append(Ref(kind="macro", name=cursor.spelling, file=loc.file.name, line=loc.line,
                            column=loc.column, end_line=end.line, end_column=end.column, decl_file=dfile))

    def _include(self, cursor: Any) -> None:
        try:
            included = cursor.get_included_file()
        except AssertionError:  # cindex asserts on a header that was not found
            included = None
        loc, end = cursor.extent.start, cursor.extent.end
        self.out.append(Ref(kind="include", name=cursor.spelling, file=loc.file.name, line=loc.line,
                            column=loc.column, end_line=end.line, end_column=end.column,
                            decl_file=included.name if included is not None else None))

    def _visit(self, cursor: Any, *, callee: bool, device: bool) -> None:
        ck = self.ck
        kind = cursor.kind
        if kind in self.functions:
            attrs = {c.kind for c in cursor.get_children() if c.kind.is_attribute()}
            device = bool(attrs & {ck.CUDAGLOBAL_ATTR, ck.CUDADEVICE_ATTR}) and ck.CUDAHOST_ATTR not in attrs
            if ck.CUDAGLOBAL_ATTR in attrs and cursor.is_definition() and self._in_report(cursor):
                self._add(cursor, "kernel", cursor.spelling, None, device=device)
        elif kind in self.refs:
            decl = cursor.referenced
            if kind == ck.OVERLOADED_DECL_REF:
                decl = _overloaded(cursor) or decl
            role = self.refs[kind]
            if role == "value" and decl is not None and decl.kind in self.functions and callee:
                role = "call"
            name = decl.spelling if decl is not None and decl.spelling else cursor.spelling
            dfile = decl.location.file.name if decl is not None and decl.location.file else None
            self._add(cursor, role, name, dfile, device=device)
        elif kind == ck.CALL_EXPR:
            children = list(cursor.get_children())
            config = [c for c in children if c.kind == ck.CALL_EXPR and c.spelling == "__cudaPushCallConfiguration"]
            if config:
                self._add(config[0], "launch", cursor.spelling, None, device=device, check_text=False)
            for index, child in enumerate(children):
                self._visit(child, callee=index == 0, device=device)
            return
        elif kind == ck.ASM_STMT:
            text = "".join(t.spelling[1:-1] for t in cursor.get_tokens() if t.kind.name == "LITERAL"
                           and t.spelling.startswith('"'))
            self._add(cursor, "asm", text, None, device=device, check_text=False)
        passes = callee and kind in (ck.UNEXPOSED_EXPR, ck.PAREN_EXPR)
        for child in cursor.get_children():
            self._visit(child, callee=passes, device=device)

    def _add(self, cursor: Any, kind: str, name: str, decl_file: str | None, *, device: bool,
             check_text: bool = True) -> None:
        file = self._in_report(cursor)
        if file is None or not name:
            return
        loc, end = cursor.location, cursor.extent.end
        macro = self.macros.get((file, loc.line, loc.column))
        if macro is None and check_text and not self._spelled(file, loc.line, loc.column, name):
            return  # implicit: a conversion, a generated call, a destructor
        if macro is not None:
            self.out.append(Ref(kind=kind, name=name, file=file, line=loc.line, column=loc.column,
                                end_line=macro[4], end_column=macro[5], decl_file=decl_file, macro=macro[0],
                                macro_file=macro[1], macro_line=macro[2], macro_end_line=macro[3],
                                device=device))
        else:
            end_line, end_col = (end.line, end.column) if end.file is not None else (loc.line, loc.column)
            self.out.append(Ref(kind=kind, name=name, file=file, line=loc.line, column=loc.column,
                                end_line=end_line, end_column=end_col, decl_file=decl_file, device=device,
                                text=cursor.spelling if kind in ("kernel", "launch") else ""))

    def _spelled(self, file: str, line: int, column: int, name: str) -> bool:
        """The source at the location spells the name (a qualified `ns::name` or `~name` is found too)."""
        if file not in self.lines:
            try:
                self.lines[file] = Path(file).read_text(encoding="utf-8", errors="replace").split("\n")
            except OSError:
                self.lines[file] = []
        lines = self.lines[file]
        if not 0 < line <= len(lines):
            return False
        tail = lines[line - 1].encode()[column - 1:].decode("utf-8", "replace")
        base = name.split("<", maxsplit=1)[0].rsplit("::", maxsplit=1)[-1]
        return tail.startswith(base) or tail.lstrip("~:").startswith(base)


def _overloaded(cursor: Any) -> Any:
    """The first candidate of an unresolved overloaded name (a call in a template body)."""
    try:
        lib = _cindex().conf.lib
        if lib.clang_getNumOverloadedDecls(cursor):
            return lib.clang_getOverloadedDecl(cursor, 0)
    except Exception:
        return None
    return None
