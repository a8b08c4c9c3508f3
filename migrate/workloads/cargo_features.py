"""CUDA sources of a Cargo package that only non-default features build (rules/workloads/optional.yaml `cargo_cuda`).

Cargo compiles Rust only; a package's .cu files are compiled by its build script through a crate that drives nvcc, or
at run time through one that calls NVRTC. Where every such crate the package depends on is optional and the `default`
feature (what a plain `cargo build` turns on) turns none of them on, the .cu and .cuh files below the package's folder
(not below a package of their own) are built only with the features that turn one on: an optional part, the switch
`cargo feature <name> of <Cargo.toml>`. A package with a required one (`cc` for its C code), or none, says nothing.

A package's build script says the same of the files it names (extract/text/cargo_build.py `cargo_build_source`): a
file of the project every mention of which in the build.rs beside its package's Cargo.toml is gated by a feature the
workspace's default build does not turn on (reach.default_features: reco-detect's `tensorrt-native = []`, compiled by
`cc::Build::file("csrc/tensorrt_wrapper.cpp")` only in `if env::var("CARGO_FEATURE_TENSORRT_NATIVE").is_ok()`) is
built only with that feature: the same switch. A file any ungated mention names, or one outside the package's folder,
says nothing; the headers only such a file includes follow it (parts.gate_headers)."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads import path_globs
from migrate.workloads.optional_words import Words
from migrate.workloads.reach import DEFAULT_FEATURE, MANIFEST, Crate, default_features
from migrate.workloads.route import CUDA_SUFFIXES
from migrate.workloads.switches import Region

PREFIX = "cargo feature "
BUILD_SCRIPT = "build.rs"  # https://doc.rust-lang.org/cargo/reference/build-scripts.html
SOURCE = "cargo_build_source"


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
    for file, (region, evidence) in _built_under_features(facts).items():
        if file not in gated:
            gated[file] = region
            switches.setdefault(region.switch, evidence)
    return gated, switches


def _built_under_features(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[Region, tuple[str, ...]]]:
    """File -> (the feature's region, evidence) for the files build scripts name only under features off by default
    (module docstring)."""
    scripts = sorted(p for p in facts if posixpath.basename(p) == BUILD_SCRIPT
                     and posixpath.join(posixpath.dirname(p), MANIFEST) in facts)
    if not scripts:
        return {}
    asked = default_features(facts)
    folders = [posixpath.dirname(p) for p in facts if posixpath.basename(p) == MANIFEST]
    out: dict[str, tuple[Region, tuple[str, ...]]] = {}
    for script in scripts:
        folder = posixpath.dirname(script)
        manifest = posixpath.join(folder, MANIFEST)
        crate = Crate.read(folder, facts[manifest])
        on = crate.enabled(asked.get(folder, {DEFAULT_FEATURE}))
        default = next((f for f in facts[manifest] if f.kind == "cargo_feature" and f.name == DEFAULT_FEATURE), None)
        said = f"{manifest}:{default.line} default = [{', '.join(filter(None, default.text.split()))}]" \
            if default else f"{manifest}: no `default` feature"
        spelled = {_env_form(name): name for name in crate.features}
        mentions: dict[str, list[tuple[Fact, str | None]]] = {}
        for fact in facts[script]:
            if fact.kind != SOURCE:
                continue
            off = _first_off([g for g in fact.text.split("\n") if g], spelled, on)
            for file in _named(folder, fact.name, facts, folders):
                mentions.setdefault(file, []).append((fact, off))
        for file, named in sorted(mentions.items()):
            if any(off is None for _, off in named):
                continue
            fact, feature = named[0]
            assert feature is not None
            name = f"{PREFIX}{feature} of {manifest}"
            out[file] = (Region(script, fact.line, fact.line, name, f"feature `{feature}`"),
                         (f"{script}:{fact.line} compiles {fact.name} only with feature `{feature}`; {said}: the "
                          "default build does not turn it on",))
    return out


def _first_off(gates: Sequence[str], spelled: Mapping[str, str], on: set[str]) -> str | None:
    """The feature (as Cargo.toml spells it) of the first gate none of whose features is on; None where every gate
    has one on (or there is none). A gate naming a feature the package does not declare is left as unknown: on."""
    for gate in gates:
        names = [spelled.get(_env_form(n)) for n in gate.split("|")]
        if all(n is not None and n not in on for n in names):
            return names[0]
    return None


def _env_form(feature: str) -> str:
    """A feature's name as its CARGO_FEATURE_ variable spells it (upper case, `-` as `_`)."""
    return feature.upper().replace("-", "_")


def _named(folder: str, written: str, facts: Mapping[str, Sequence[Fact]], folders: Sequence[str]) -> list[str]:
    """The project's files a build script's path (relative to its package folder; a glob) names, inside the package."""
    path = posixpath.normpath(posixpath.join(folder, written))
    if path.startswith("../") or path == "..":
        return []
    if not any(c in path for c in "*?["):
        return [path] if path in facts and _owner(path, folders) == folder else []
    return sorted(p for p in facts if path_globs.matches(p, path) and _owner(p, folders) == folder)


def _owner(path: str, folders: Sequence[str]) -> str | None:
    """The folder of the innermost package whose folder holds the file."""
    found = [f for f in folders if not f or path.startswith(f + "/")]
    return max(found, key=len) if found else None
