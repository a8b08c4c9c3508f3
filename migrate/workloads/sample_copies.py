"""Copies of NVIDIA's CUDA Samples utilities that nothing of the project builds (precision sample 27).

A project keeps `deviceQuery.cpp` or `bandwidthTest.cu` from NVIDIA's CUDA Samples beside its own code to check a
machine's GPU (fjramireg/StiffMa's Utils/, with the programs' binaries and the author's logs). No build file, script or
source of the project names or includes such a copy, so a port of the project edits nothing there: it is a part of its
own, not reached by the default build. Which programs are such utilities is data (rules/workloads/optional.yaml
`sample_programs`, NVIDIA/cuda-samples Samples/1_Utilities): a file is one by its stem. A tree holding no C/C++/CUDA
code besides such copies (a collection of sample programs compiled by hand) keeps them, as does a build that names
them. Docs: docs/decisions/2026-12-07-s32-cuda-samples-utilities-built-by-nothing.md."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.vocabulary import C_SOURCE_KINDS
from migrate.workloads.includes import includers_of
from migrate.workloads.optional_words import Words
from migrate.workloads.reached_files import named_words


def copied_samples(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], known: Words
                   ) -> dict[str, tuple[str, str]]:
    """File -> (its part: the file; evidence), for each copy of a CUDA Samples utility built and included by nothing."""
    code = [p for p, kind in kinds.items() if kind in C_SOURCE_KINDS]
    copies = {p for p in code if _stem(p) in known.sample_programs}
    if not copies or len(copies) == len(code):
        return {}
    includers = includers_of(facts)
    named = named_words(facts, kinds)
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(copies):
        name = posixpath.basename(path)
        if includers.get(name) or name in named or _stem(path) in named:
            continue
        out[path] = (path, f"{path}: a copy of NVIDIA's CUDA Samples utility {_stem(path)} (rules/workloads/optional.yaml "
                           "sample_programs), a GPU check that no build file, script or source of the project builds "
                           "or includes")
    return out


def _stem(path: str) -> str:
    return posixpath.basename(path).split(".", 1)[0]
