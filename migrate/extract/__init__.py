"""extract: one function per file kind, each a pure function of the file's bytes."""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from importlib.util import find_spec
from pathlib import Path

from migrate import __version__
from migrate.extract import names as name_lists
from migrate.extract.budget import TRANSIENT, guarded
from migrate.extract.text import rocm_path
from migrate.model import Extraction, Fact

# What facts depend on besides a file's bytes, hashed into the extractor's version: this package's
# sources and queries, the modules beside it that read the bytes and shape the facts, Python's
# release (ast) and the parsers' (their dist-info names: reading a 7 MB grammar would cost more).
OWN_SUFFIXES = (".py", ".scm")
BESIDE = ("model.py", "scan/readfile.py", "compat.py", "scan/cache.py")
PARSERS = ("tree_sitter", "tree_sitter_cuda", "jinja2")


Names = Callable[[str], bool]  # identifier names worth a fact (the C extractor builds no others)


KERNEL_CONSTRUCTS = ("kernel-definition", "kernel-launch")
HIP_RUNTIME_HEADERS = name_lists.name_list("device", "hip_runtime_headers")


def _cuda(source: bytes, names: Names | None = None) -> Extraction:
    from migrate.extract.c import cuda_cpp

    extraction = cuda_cpp.extract(source, names)
    return _as_hip(extraction) if uses_hip_runtime(extraction.facts) else extraction


def _hip(source: bytes, names: Names | None = None) -> Extraction:
    """HIP source is already ported: kernels and launches are no work, device hazards still are."""
    from migrate.extract.c import cuda_cpp

    return _as_hip(cuda_cpp.extract(source, names))


def uses_hip_runtime(facts: Iterable[Fact]) -> bool:
    """A C/C++ file written against the HIP runtime (it includes hip/hip_runtime.h outside any guard and
    no CUDA header): its `__global__` kernels and `<<<>>>` launches are HIP already, as in a .hip file."""
    includes = [f.name for f in facts if f.kind == "include" and f.guard is None]
    return any(i in HIP_RUNTIME_HEADERS for i in includes) and not any(i.startswith("cuda") for i in includes)


def _as_hip(extraction: Extraction) -> Extraction:
    kept = tuple(f for f in extraction.facts if f.name not in KERNEL_CONSTRUCTS)
    return replace(extraction, facts=kept)


# each extractor's module, imported on first use: by `prepare` before workers fork, so that each does not again
_MODULE_OF: dict[Callable[..., Extraction], str] = {}


def _python(source: bytes) -> Extraction:
    from migrate.extract.python import extractor as python_ast

    return python_ast.extract(source)


_MODULE_OF[_python] = "migrate.extract.python.extractor"


def _lazy(module: str, function: str) -> Callable[[bytes], Extraction]:
    def run(source: bytes) -> Extraction:
        import importlib

        extractor: Callable[[bytes], Extraction] = getattr(importlib.import_module(f"migrate.extract.{module}"), function)
        return extractor(source)

    _MODULE_OF[run] = f"migrate.extract.{module}"
    return run



EXTRACTORS: dict[str, Callable[[bytes], Extraction]] = {
    "cuda": _cuda,
    "cpp": _cuda,
    "hip": _hip,
    "python": _python,
    "notebook": _lazy("python.notebook", "extract"),
    "requirements": _lazy("text.deps", "requirements"),
    "conda": _lazy("text.deps", "conda"),
    "pyproject": _lazy("text.deps", "pyproject"),
    "setupcfg": _lazy("text.deps", "setup_cfg"),
    "dockerfile": _lazy("text.containers", "dockerfile"),
    "manifest": _lazy("text.containers", "manifest"),
    "cmake": _lazy("text.buildfiles", "cmake"),
    "makefile": _lazy("text.buildfiles", "makefile"),
    "shell": _lazy("text.buildfiles", "shell"),
    "gitmodules": _lazy("text.repositories", "gitmodules"),
    "cargo": _lazy("text.cargo", "extract"),
    "cargo_build": _lazy("text.cargo_build", "extract"),
    "julia_project": _lazy("text.julia_project", "extract"),
    "julia": _lazy("text.julia", "extract"),
    "fortran": _lazy("text.fortran", "extract"),
    "fortran_fixed": _lazy("text.fortran", "extract_fixed"),
    "autoconf": _lazy("text.autoconf", "extract"),
    "m4": _lazy("text.autoconf", "extract"),
    "vsproject": _lazy("text.vsproject", "extract"),
    "maven": _lazy("text.maven", "extract"),
    "go": _lazy("text.cgo", "extract"),
    "go_module": _lazy("text.gomod", "extract"),
    "doc_site": _lazy("text.doc_site", "extract"),
    "java": _lazy("text.java", "extract"),
    "dotnet": _lazy("text.dotnet", "extract"),
    "binary": _lazy("binary", "extract"),
}


NAMED = {"cuda": _cuda, "cpp": _cuda, "hip": _hip}  # the extractors that take `names`


_VERSION: list[str] = []  # the one extractor version of this process, however it was first found


def extractor_version(memo_dir: Path | None = None) -> str:
    """A digest of what extraction depends on (found once per process): any edit to an extractor's
    source gives new cache keys, so no cached fact outlives the code that made it. `memo_dir`: a cache
    directory where it is kept with its inputs' stamps (extract/versionmemo.py), so that a process whose
    sources are unchanged does not read and hash them (1-2 ms, ~23 M instructions of a lint of one file)."""
    if not _VERSION:
        package = Path(__file__).resolve().parent
        _VERSION.append(version_of(package) if memo_dir is None else version_of(package, memo_dir=memo_dir))
    return _VERSION[0]


def version_of(package: Path, lists: Path | None = None, *, memo_dir: Path | None = None) -> str:
    """The extractor version of the sources in `package` (a copy of this one, in tests) and of the
    name lists in `lists` (rules/names/ by default: names.folder()); kept in `memo_dir` by stamps."""
    lists = name_lists.folder() if lists is None else lists
    try:
        named = sources(str(package), str(lists))
    except OSError:  # sources not listable as files: the release stands in for them
        return _digest(None)
    if memo_dir is None:
        return _digest(named)
    from migrate.extract import versionmemo

    return versionmemo.version(package, lists, memo_dir, [path for _, path in named], PARSERS, lambda: _digest(named))


def sources(package: str, lists: str) -> list[tuple[str, str]]:
    """What the version hashes, in its order, each source's name (relative to the package's parent;
    names/ for a name list) and path: this package's sources and queries (at any depth), the modules
    beside it, the name lists. Listed with os.walk and as strings (pathlib's rglob and Path objects cost
    ~5 M instructions more), in the order of sorted Paths, and like rglob not into linked folders."""
    top = os.path.join(os.path.dirname(package), "")
    own = sorted((os.path.join(folder, name) for folder, dirs, files in os.walk(package) for name in (*dirs, *files)
                  if name.endswith(OWN_SUFFIXES) and name not in OWN_SUFFIXES), key=_parts)
    beside = [os.path.join(top, *name.split("/")) for name in BESIDE]
    lists_named = sorted(n for n in os.listdir(lists) if n.endswith(".yaml")) if os.path.isdir(lists) else []
    return [*((path[len(top):].replace(os.sep, "/"), path) for path in (*own, *beside)),
            *((f"names/{name}", os.path.join(lists, name)) for name in lists_named)]


def _parts(path: str) -> list[str]:
    return path.split(os.sep)


def _digest(named: list[tuple[str, str]] | None) -> str:
    import hashlib  # here: a process whose version is kept (versionmemo) hashes no more than a few small inputs

    digest = hashlib.sha256(f"{sys.version_info[:2]}\0".encode())
    try:
        if named is None:
            raise OSError("no sources")
        for name, path in named:
            with open(path, "rb") as handle:
                data = handle.read()
            digest.update(f"{name}\0{len(data)}\0".encode() + data)
    except OSError:  # sources not readable as files (a zip import): the release stands in for them
        digest.update(f"release {__version__}".encode())
    for name in PARSERS:
        digest.update(f"\0{_release(name)}".encode())
    return digest.hexdigest()[:20]


def _release(module: str) -> str:
    """The dist-info name of an installed module's distribution, found without importing it."""
    spec = find_spec(module)
    if spec is None or not spec.origin:
        return f"{module} missing"
    folder = os.path.dirname(os.path.dirname(spec.origin))
    try:
        return next((n for n in sorted(os.listdir(folder)) if n.lower().startswith(f"{module.lower()}-")
                     and n.endswith(".dist-info")), f"{module} {os.stat(spec.origin).st_size}")
    except OSError:
        return f"{module} unknown"


def extract(kind: str, source: bytes, names: Names | None = None) -> Extraction:
    """Facts of one file of the given kind. Never raises: an extractor that fails, recurses too
    deep or runs past the time limit gives an Extraction with an error (migrate.extract.budget).

    `names`: the identifier names worth a fact; C/C++/CUDA identifiers it rejects are left out
    (the scan's fast path, which keeps only what its rules match); None keeps every fact."""
    return guarded(lambda data: _extract(kind, data, names), source)


def prepare(kinds: Iterable[str]) -> None:
    """Do what the extractors of these kinds do once per process (import their modules, compile the
    C/C++/CUDA query), so that worker processes forked afterwards inherit it instead of each doing it again."""
    import importlib

    kinds = set(kinds)
    for module in sorted({_MODULE_OF[EXTRACTORS[k]] for k in kinds if EXTRACTORS.get(k) in _MODULE_OF}):
        importlib.import_module(module)
    if NAMED.keys() & kinds:
        from migrate.extract.c import cuda_cpp, ts

        ts.prepare()
        del cuda_cpp  # imported: its fact passes and their patterns


def cacheable(extraction: Extraction) -> bool:
    """Whether the result depends on the bytes alone (a time limit that ran out depends on the machine)."""
    return not (extraction.error or "").startswith(TRANSIENT)


def _extract(kind: str, source: bytes, names: Names | None = None) -> Extraction:
    extraction = NAMED[kind](source, names) if names is not None and kind in NAMED else EXTRACTORS[kind](source)
    if kind in rocm_path.KIND_PATTERNS:
        extraction = _with_evidence(extraction, rocm_path.evidence(kind, source.decode("utf-8")),
                                    source.decode("utf-8").split("\n"))
    return extraction


def _with_evidence(extraction: Extraction, found: list[Fact], lines: list[str]) -> Extraction:
    """Add ROCm-path evidence facts (and their source lines) to a text file's extraction."""
    if not found:
        return extraction
    from dataclasses import replace

    texts = dict(extraction.line_text)
    texts.update({(0, f.line): lines[f.line - 1].strip() for f in found if 0 < f.line <= len(lines)})
    return replace(extraction, facts=extraction.facts + tuple(found), line_text=texts)
