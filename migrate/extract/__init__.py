"""extract: one function per file kind, each a pure function of the file's bytes."""
from __future__ import annotations

from typing import Callable

from migrate.extract.budget import TRANSIENT, guarded
from migrate.model import Extraction

# Bump when extraction output changes, so cached facts are recomputed.
EXTRACTOR_VERSION = "9"


def _cuda(source: bytes) -> Extraction:
    from migrate.extract.c import cuda_cpp

    return cuda_cpp.extract(source)


def _hip(source: bytes) -> Extraction:
    """HIP source is already ported: kernels and launches are no work, device hazards still are."""
    from dataclasses import replace

    extraction = _cuda(source)
    kept = tuple(f for f in extraction.facts if f.name not in ("kernel-definition", "kernel-launch"))
    return replace(extraction, facts=kept)


def _python(source: bytes) -> Extraction:
    from migrate.extract.python import extractor as python_ast

    return python_ast.extract(source)


def _lazy(module: str, function: str) -> Callable[[bytes], Extraction]:
    def run(source: bytes) -> Extraction:
        import importlib

        return getattr(importlib.import_module(f"migrate.extract.{module}"), function)(source)

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
}


def extract(kind: str, source: bytes) -> Extraction:
    """Facts of one file of the given kind. Never raises: an extractor that fails, recurses too
    deep or runs past the time limit gives an Extraction with an error (migrate.extract.budget)."""
    return guarded(EXTRACTORS[kind], source)


def cacheable(extraction: Extraction) -> bool:
    """Whether the result depends on the bytes alone (a time limit that ran out depends on the machine)."""
    return not (extraction.error or "").startswith(TRANSIENT)
