"""A project's own per-back-end layout (rules/layout/backends.yaml): which of its files are the CUDA member
of a family kept beside another back end's. Read by matching (rules with `in_backend_files: false`)
and by the effort model (the HIP twin a port writes of each)."""
from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir

# The back ends a project keeps beside its CUDA one and the word that names a folder of its own
# CUTLASS code: data, with their sources (backend_files).
BACKENDS_FILE = "layout/backends.yaml"


def backend_files(paths: Iterable[str]) -> frozenset[str]:
    """The paths of a per-back-end family: under a `cuda` folder whose parent also holds a folder
    named for another back end (Ginkgo's cuda/test/base/memory.cpp beside hip/ or dpcpp/), or named
    `cuda_x` (or `x_cuda`, `x-cuda-y`) beside the same name for another back end in the same folder
    (cuda_timer.cpp beside hip_timer.hip.cpp or dpcpp_timer.dp.cpp), or under a folder of the
    project's CUTLASS code, the CUDA member of its family with or without the twin in the tree
    (rules/layout/backends.yaml). Only the scanned paths are read."""
    other_backends, cutlass_folder = _layout()
    paths = list(paths)
    split = [tuple(p.replace("\\", "/").lower().split("/")) for p in paths]
    folders = {parts[:i + 1] for parts in split for i in range(len(parts) - 1)}
    stems = {(parts[:-1], parts[-1].split(".")[0]) for parts in split}
    found = set()
    for path, parts in zip(paths, split, strict=True):
        if any(part == "cuda" and any((*parts[:i], other) in folders for other in other_backends)
               for i, part in enumerate(parts[:-1])) or any(cutlass_folder.search(part) for part in parts[:-1]):
            found.add(path)
        words = re.split(r"([_-])", parts[-1].split(".")[0])
        if "cuda" in words:
            at = words.index("cuda")
            if any((parts[:-1], "".join([*words[:at], other, *words[at + 1:]])) in stems for other in other_backends):
                found.add(path)
    return frozenset(found)


@lru_cache(maxsize=1)
def _layout() -> tuple[tuple[str, ...], re.Pattern[str]]:
    """(other back ends, the pattern of a CUTLASS folder's name), from rules/layout/backends.yaml."""
    data = datafile.read(default_rules_dir() / BACKENDS_FILE)
    word = re.escape(str(data["cutlass_folder_word"]))
    return tuple(str(b) for b in data["other_backends"]), re.compile(rf"(^|[_-]){word}([_-]|$)")
