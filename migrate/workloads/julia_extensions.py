"""Julia package extensions: code a package loads only when the user also loads one of its weak dependencies.

Pkg (https://pkgdocs.julialang.org/v1/creating-packages/#Conditional-loading-of-code-in-packages-(Extensions)): a
Project.toml's `[extensions]` table names each extension and the `[weakdeps]` that trigger it (`FooCUDAExt = "CUDA"`),
and the extension's code is `ext/FooCUDAExt.jl` or `ext/FooCUDAExt/FooCUDAExt.jl` beside that Project.toml (with what
that file includes from its folder). Installing the package installs none of the weak dependencies, so an extension's
code is an optional part, as an optional import's module is (`julia_extension` facts: extract/text/julia_project.py)."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.fact_index import of_kind

EXTENSION_FOLDER = "ext"  # Pkg's place for extension code, beside Project.toml (the page above)
SOURCE_SUFFIX = ".jl"


def extension_files(facts: Mapping[str, Sequence[Fact]]) -> dict[str, str]:
    """Each Julia file of a package extension -> the evidence (the `[extensions]` entry that names it)."""
    named: dict[str, tuple[str, Fact]] = {}  # ext/Name (no suffix) -> (Project.toml, fact)
    for path, fact in of_kind(facts, "julia_extension"):
        folder = posixpath.join(posixpath.dirname(path), EXTENSION_FOLDER)
        named[posixpath.join(folder, fact.name)] = (path, fact)
    if not named:
        return {}
    out: dict[str, str] = {}
    for path in facts:
        if not path.endswith(SOURCE_SUFFIX):
            continue
        key = path[:-len(SOURCE_SUFFIX)] if path[:-len(SOURCE_SUFFIX)] in named else \
            next((k for k in _folders(path) if k in named), None)
        if key is not None:
            project, fact = named[key]
            weak = ", ".join(fact.text.split("\n")) or "its weak dependencies"
            out[path] = (f"{project}:{fact.line}: [extensions] {fact.name}: a package extension, loaded only when the "
                         f"user loads {weak} ([weakdeps]); installing the package installs none of it")
    return out


def _folders(path: str) -> list[str]:
    """The folders `path` lies in, innermost first."""
    out, folder = [], posixpath.dirname(path)
    while folder:
        out.append(folder)
        folder = posixpath.dirname(folder)
    return out
