"""Julia packages: which of their files the package loads, and which only a weak dependency or nothing loads.

Pkg (https://pkgdocs.julialang.org/v1/creating-packages/): a package's code is `src/<name>.jl` (the `name` of its
Project.toml), with the files it `include`s, each path relative to the including file's folder
(https://docs.julialang.org/en/v1/base/base/#Base.include). Two kinds of file are optional parts, as an optional import's
module is (ProjectParts.optional_modules):

- a package extension (https://pkgdocs.julialang.org/v1/creating-packages/#Conditional-loading-of-code-in-packages-
  (Extensions)): `[extensions]` names it and the `[weakdeps]` that trigger it (`FooCUDAExt = "CUDA"`), and its code is
  `ext/FooCUDAExt.jl` or `ext/FooCUDAExt/FooCUDAExt.jl` beside that Project.toml. Installing the package installs none
  of the weak dependencies;
- a file under the package's `src/` that neither `src/<name>.jl` nor an extension includes, directly or through the
  files they include: the package never loads it (a script kept beside the sources that a demo includes by path).
  Only where every include of the files read is a literal path: one computed at run time
  (`include(joinpath(@__DIR__, f))`) could load any file, and then every file counts as loaded.

The facts: `julia_package`, `julia_extension` (extract/text/julia_project.py), `julia_include` (extract/text/julia.py)."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.fact_index import of_kind

EXTENSION_FOLDER = "ext"  # Pkg's place for extension code, beside Project.toml (the page above)
SOURCE_FOLDER = "src"  # Pkg's place for the package's code, `src/<name>.jl` its entry
SOURCE_SUFFIX = ".jl"


def extension_files(facts: Mapping[str, Sequence[Fact]]) -> dict[str, str]:
    """Each Julia file of a package extension -> the evidence (the `[extensions]` entry that names it): its code under
    ext/, and the files that code includes by literal paths only the extension loads (CliMA/ClimaCore.jl 50598270
    ext/ClimaCoreCUDAExt.jl:17 `include(joinpath("cuda", "adapt.jl"))`: ext/cuda/, beside the extension's own file)."""
    named = _extensions(facts)
    includes = _includes(facts)
    by_packages = _loaded_by_packages(facts, includes) if named else set()  # made once, read for each include
    out: dict[str, str] = {}
    for path in facts:
        if path.endswith(SOURCE_SUFFIX) and (key := _extension_of(path, named)) is not None:
            project, fact = named[key]
            weak = ", ".join(fact.text.split("\n")) or "its weak dependencies"
            evidence = (f"{project}:{fact.line}: [extensions] {fact.name}: a package extension, loaded only when the "
                        f"user loads {weak} ([weakdeps]); installing the package installs none of it")
            out[path] = evidence
            for loaded in sorted(_loaded([path], includes, literal_only=True) or ()):
                if loaded in facts and loaded.startswith(posixpath.join(posixpath.dirname(project), EXTENSION_FOLDER)
                                                         + "/") and loaded not in by_packages:
                    out.setdefault(loaded, evidence)
    return out


def _includes(facts: Mapping[str, Sequence[Fact]]) -> dict[str, list[Fact]]:
    """Each Julia file -> its `julia_include` facts."""
    out: dict[str, list[Fact]] = {}
    for path, fact in of_kind(facts, "julia_include"):
        out.setdefault(path, []).append(fact)
    return out


def _loaded_by_packages(facts: Mapping[str, Sequence[Fact]], includes: Mapping[str, Sequence[Fact]]) -> set[str]:
    """The files that the files of a package's own src/ folder (beside a Project.toml) include, by literal paths."""
    entries = {posixpath.join(posixpath.dirname(p), SOURCE_FOLDER) for p, _ in of_kind(facts, "julia_package")}
    roots = [p for p in includes if posixpath.dirname(p) in entries]
    return _loaded(roots, includes, literal_only=True) or set()


def unloaded_files(facts: Mapping[str, Sequence[Fact]]) -> dict[str, str]:
    """Each Julia file under a package's src/ that the package's entry and its extensions never include -> the
    evidence; nothing for a package whose loaded files include a path computed at run time."""
    includes = _includes(facts)
    named = _extensions(facts)
    out: dict[str, str] = {}
    for project, package in of_kind(facts, "julia_package"):
        top = posixpath.dirname(project)
        entry = posixpath.join(top, SOURCE_FOLDER, f"{package.name}{SOURCE_SUFFIX}")
        if entry not in facts:
            continue
        roots = [entry, *(p for p in facts if p.endswith(SOURCE_SUFFIX)
                           and (key := _extension_of(p, named)) is not None and named[key][0] == project)]
        loaded = _loaded(roots, includes)
        if loaded is None:
            continue
        src = posixpath.join(top, SOURCE_FOLDER) + "/"
        for path in facts:
            if path.endswith(SOURCE_SUFFIX) and path.startswith(src) and path not in loaded:
                out[path] = (f"{entry} is {package.name}'s code ({project}:{package.line}), and neither it nor the "
                             "files it includes include this file: the package never loads it")
    return out


def _loaded(roots: Sequence[str], includes: Mapping[str, Sequence[Fact]], *,
            literal_only: bool = False) -> set[str] | None:
    """The files `roots` include, transitively (themselves among them); None where one includes a computed path
    (with `literal_only`, such an include is passed over)."""
    seen, todo = set(roots), list(roots)
    while todo:
        path = todo.pop()
        for fact in includes.get(path, ()):
            if not fact.name and literal_only:
                continue
            if not fact.name:
                return None
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path), fact.name))
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def _extensions(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[str, Fact]]:
    """ext/Name (no suffix, beside its Project.toml) -> (Project.toml, its `julia_extension` fact)."""
    return {posixpath.join(posixpath.dirname(path), EXTENSION_FOLDER, fact.name): (path, fact)
            for path, fact in of_kind(facts, "julia_extension")}


def _extension_of(path: str, named: Mapping[str, tuple[str, Fact]]) -> str | None:
    """The extension `path` is the code of (`ext/Name.jl`, or a file under `ext/Name/`), or None."""
    stem = path[:-len(SOURCE_SUFFIX)]
    if stem in named:
        return stem
    folder = posixpath.dirname(path)
    while folder:
        if folder in named:
            return folder
        folder = posixpath.dirname(folder)
    return None
