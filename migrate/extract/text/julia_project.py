"""extract, Julia `Project.toml`: the packages a Julia project depends on, as `requirement` facts named
`julia:<package>` (rules/dependencies.yaml matches CUDA.jl and NVIDIA-only `_jll` libraries by these names).

Pkg's project file (https://pkgdocs.julialang.org/v1/toml-files/#Project.toml): `[deps]` lists the packages the project
loads; `[weakdeps]` lists packages that are loaded only when the user installs them, each one enabling a package
extension named in `[extensions]` (https://pkgdocs.julialang.org/v1/creating-packages/#Conditional-loading-of-code-in-
packages-(Extensions)). A weak dependency's fact is optional (guard `optional`), as an extra's requirement in a
pyproject.toml is. `[extras]` (test-only packages) gives nothing."""
from __future__ import annotations

import dataclasses

from migrate.compat import tomllib
from migrate.extract.text.cargo import TomlPositions
from migrate.extract.text.lines import finish
from migrate.model import Extraction, Fact

PREFIX = "julia:"
TABLES = (("deps", ""), ("weakdeps", "optional"))  # (table, guard)


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8-sig", errors="replace")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return finish(text, [], [f"Project.toml not read: {exc}"])
    where = TomlPositions(text)
    facts: list[Fact] = []
    for table, guard in TABLES:
        entries = data.get(table)
        if not isinstance(entries, dict):
            continue
        for name in entries:
            made = where.fact("requirement", f"{PREFIX}{name}", str(name), text=str(entries[name]))
            facts.append(dataclasses.replace(made, guard=guard) if guard else made)
    if isinstance(data.get("name"), str):
        facts.append(where.fact("julia_package", data["name"], "name"))
    extensions = data.get("extensions")
    for name, needs in (extensions.items() if isinstance(extensions, dict) else ()):
        weak = [needs] if isinstance(needs, str) else [str(n) for n in needs] if isinstance(needs, list) else []
        facts.append(where.fact("julia_extension", str(name), str(name), text="\n".join(weak)))
    return finish(text, facts)
