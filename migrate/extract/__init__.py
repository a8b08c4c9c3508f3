"""extract: one function per file kind, each a pure function of the file's bytes."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from migrate.extract.budget import TRANSIENT, guarded
from migrate.extract.text import rocm_path
from migrate.model import Extraction, Fact

# Bump when extraction output changes, so cached facts are recomputed.
EXTRACTOR_VERSION = "31"


Names = Callable[[str], bool]  # identifier names worth a fact (the C extractor builds no others)


def _cuda(source: bytes, names: Names | None = None) -> Extraction:
    from migrate.extract.c import cuda_cpp

    return cuda_cpp.extract(source, names)


def _hip(source: bytes, names: Names | None = None) -> Extraction:
    """HIP source is already ported: kernels and launches are no work, device hazards still are."""
    from dataclasses import replace

    extraction = _cuda(source, names)
    kept = tuple(f for f in extraction.facts if f.name not in ("kernel-definition", "kernel-launch"))
    return replace(extraction, facts=kept)


def _python(source: bytes) -> Extraction:
    from migrate.extract.python import extractor as python_ast

    return python_ast.extract(source)


def _lazy(module: str, function: str) -> Callable[[bytes], Extraction]:
    def run(source: bytes) -> Extraction:
        import importlib

        extractor: Callable[[bytes], Extraction] = getattr(importlib.import_module(f"migrate.extract.{module}"), function)
        return extractor(source)

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
}


NAMED = {"cuda": _cuda, "cpp": _cuda, "hip": _hip}  # the extractors that take `names`


def extract(kind: str, source: bytes, names: Names | None = None) -> Extraction:
    """Facts of one file of the given kind. Never raises: an extractor that fails, recurses too
    deep or runs past the time limit gives an Extraction with an error (migrate.extract.budget).

    `names`: the identifier names worth a fact; C/C++/CUDA identifiers it rejects are left out
    (the scan's fast path, which keeps only what its rules match); None keeps every fact."""
    return guarded(lambda data: _extract(kind, data, names), source)


def prepare(kinds: Iterable[str]) -> None:
    """Do what the extractors of these kinds do once per process (compile the C/C++/CUDA query),
    so that worker processes forked afterwards inherit it instead of each doing it again."""
    if NAMED.keys() & set(kinds):
        from migrate.extract.c import ts

        ts.prepare()


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
