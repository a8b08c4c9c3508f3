"""Extension builds a user runs by hand: a Python file other than the install's setup script (rules/workloads/
optional.yaml `torch_extensions.install_scripts`: setup.py) that declares extensions for setup()
(`CUDAExtension(...)`), inside a package that pip installs (a `manifests` file in its folder or above), which no file
imports. pip builds a source tree through its build back end, which runs the tree's setup.py (PEP 517); a second
script runs only when a user runs it (`python install_cuda_extensions.py install`), so the package installs and runs
without what only that script compiles (mlbench/mlbench-core 4fd3c7e6 mlbench_core/install_cuda_extensions.py builds
the attn_score and strided_batched_gemm CUDA extensions; its setup.py declares no extension). The script, the sources
only it compiles and the headers only those include are an optional part, an opt-in build with its own class.

Not where an install script, or a run-time `load()`, compiles one of the same sources (the install builds them
anyway), not where a file imports the script (a helper setup.py calls: its extensions are the install's), and not in a
folder no manifest encloses (a tree whose only way to build its extension is that script: the build itself)."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.assemble import resolve_sources
from migrate.workloads.fact_index import of_kind
from migrate.workloads.includes import HEADER_SUFFIXES, close_over_includes, includers_of
from migrate.workloads.modules import ModuleIndex
from migrate.workloads.optional_words import Words


def built_by_hand(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, str]:
    """Each file of an extension build only a hand-run setup script declares -> the evidence."""
    if not known.install_scripts:
        return {}
    files = frozenset(facts)
    installed: set[str] = set()  # sources an install script or a run-time load() compiles
    declared: dict[str, list[Fact]] = {}  # other Python file -> its setup() extensions
    for path, f in of_kind(facts, "extension"):
        if not f.text:
            continue
        if f.role == "setup" and posixpath.basename(path) not in known.install_scripts:
            declared.setdefault(path, []).append(f)
        else:
            installed.update(resolve_sources(f.text, posixpath.dirname(path), files))
    if not declared:
        return {}
    index = ModuleIndex(p for p in facts if p.endswith(".py"))
    imported = {target for path, f in of_kind(facts, "python_import")
                if (target := index.resolve(path, f.name)) is not None and target != path}
    # the manifest names in the order each folder is tried: an install script first
    manifest_names = sorted(known.manifests, key=lambda n: (n not in known.install_scripts, n))
    out: dict[str, str] = {}
    for path, built in sorted(declared.items()):
        manifest = _enclosing_manifest(path, files, manifest_names)
        if manifest is None or path in imported:
            continue
        sources = [s for f in built for s in resolve_sources(f.text, posixpath.dirname(path), files)]
        if not sources or any(s in installed for s in sources):
            continue
        names = ", ".join(dict.fromkeys(f.name or "an extension" for f in built))
        why = (f"{path} declares {names} for setup() and no file imports it: an install builds {manifest}'s package "
               f"through {', '.join(sorted(known.install_scripts))} (PEP 517), so only a user who runs this script by "
               "hand builds them (rules/workloads/optional.yaml torch_extensions)")
        out[path] = why
        for source in sources:
            out.setdefault(source, why)
    if out:  # the headers only those sources include go with them
        headers = [p for p in facts if p.endswith(HEADER_SUFFIXES) and p not in out]
        close_over_includes(out, headers, includers_of(facts), lambda p: p in out,
                            "included only by sources a hand-run setup script alone compiles")
    return out


def _enclosing_manifest(path: str, files: frozenset[str], names: Sequence[str]) -> str | None:
    """The nearest package manifest (`names`: setup.py, pyproject.toml ... in the order tried) in the file's folder or
    a folder above it."""
    folder = posixpath.dirname(path)
    while True:
        for name in names:
            candidate = posixpath.join(folder, name) if folder else name
            if candidate in files and candidate != path:
                return candidate
        if not folder:
            return None
        folder = posixpath.dirname(folder)
