"""CUDA sources of a Cargo package that only non-default features build (rules/workloads/optional.yaml `cargo_cuda`).

Cargo compiles Rust only; a package's .cu files are compiled by its build script through a crate that drives nvcc, or
at run time through one that calls NVRTC. Where every such crate the package depends on is optional and the `default`
feature (what a plain `cargo build` turns on) turns none of them on, the .cu and .cuh files below the package's folder
(not below a package of their own) are built only with the features that turn one on: an optional part, the switch
`cargo feature <name> of <Cargo.toml>`. A package with a required one (`cc` for its C code), or none, says nothing."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.optional_words import Words
from migrate.workloads.reach import DEFAULT_FEATURE, MANIFEST, Crate
from migrate.workloads.route import CUDA_SUFFIXES
from migrate.workloads.switches import Region

PREFIX = "cargo feature "


def feature_gated(facts: Mapping[str, Sequence[Fact]], known: Words
                  ) -> tuple[dict[str, Region], dict[str, tuple[str, ...]]]:
    """(file -> the feature's region, switch -> evidence) for the CUDA sources of packages whose CUDA crates only
    non-default features turn on (module docstring)."""
    manifests = sorted(p for p in facts if posixpath.basename(p) == MANIFEST)
    folders = [posixpath.dirname(p) for p in manifests]
    gated: dict[str, Region] = {}
    switches: dict[str, tuple[str, ...]] = {}
    for path in manifests:
        crate = Crate.read(posixpath.dirname(path), facts[path])
        cuda = sorted(k for k in crate.dependencies if k in known.cargo_cuda)
        if not cuda or any("optional" not in crate.dependencies[k].role.split() for k in cuda) \
                or set(cuda) & set(crate.needs({DEFAULT_FEATURE})):
            continue
        turning = [f for f in facts[path] if f.kind == "cargo_feature" and not f.name.endswith("/")
                   and f.name != DEFAULT_FEATURE and set(cuda) & set(crate.needs({f.name}))]
        if not turning:
            continue
        first = min(turning, key=lambda f: f.line)
        name = f"{PREFIX}{first.name} of {path}"
        default = next((f for f in facts[path] if f.kind == "cargo_feature" and f.name == DEFAULT_FEATURE), None)
        said = f"{path}:{default.line} default = [{', '.join(filter(None, default.text.split()))}]" if default \
            else f"{path}: no `default` feature"
        switches[name] = (f"{path}:{first.line} feature `{first.name}` turns on {', '.join(cuda)}, optional; {said} "
                          "turns on none: a plain `cargo build` compiles none of the package's CUDA sources",)
        region = Region(path, first.line, first.line, name, f"feature `{first.name}`")
        folder = crate.folder
        for file in facts:
            if file.endswith(CUDA_SUFFIXES) and _owner(file, folders) == folder:
                gated[file] = region
    return gated, switches


def _owner(path: str, folders: Sequence[str]) -> str | None:
    """The folder of the innermost package whose folder holds the file."""
    found = [f for f in folders if not f or path.startswith(f + "/")]
    return max(found, key=len) if found else None
