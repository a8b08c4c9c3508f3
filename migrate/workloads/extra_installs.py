"""Packages a container or a setup script installs that the project's own manifest declares only as an extra.

A plain `pip install <project>` installs the distribution and the requirements its metadata lists without an extra
marker; a requirement declared under an extra (PEP 621 `[project.optional-dependencies]`, setuptools'
`extras_require`, a dependency group) is installed only where the user asks for it (`pip install <project>[extra]`:
https://packaging.python.org/en/latest/specifications/core-metadata/#provides-extra-multiple-use ,
https://packaging.python.org/en/latest/specifications/pyproject-toml/#dependencies-optional-dependencies). A Dockerfile
or a shell script of the same project that pip-installs such a package by name builds one environment with the extra
in it (NVIDIA-BioNeMo/nvSubquadratic's Dockerfile installs nvidia-dali-cuda120, its pyproject.toml's `dali` extra, "not
required by the importable library"): the package is as opt-in there as in the manifest, an optional part with its own
class. So are the distributions such a package requires (rules/workloads/installs.yaml `requires`, from their own
metadata), which a script installs one by one beside it. A package the manifest also requires, or one it does not name
(and no extra's package requires), is left to the other readings."""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from migrate.model import Fact
from migrate.workloads.fact_index import of_kind
from migrate.workloads.optional_words import DataError
from migrate.workloads.undeclared import RUN_DIRECTLY, is_manifest, read_installs

Install = tuple[int, str, str]  # line, the package's canonical name, evidence
# a distribution name, then nothing or what a requirement puts after it (a version, extras, a marker, a URL): not an
# image name (vllm/vllm-openai) or an index
REQUIREMENT = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?=$|[=<>!~\[;@ ])")


def package_name(requirement: str) -> str:
    """The canonical distribution name of a `requirement` fact's name ("" for an index, channel or system package)."""
    match = REQUIREMENT.match(requirement)  # index:URL, channel:..., system:... have a colon
    if not match:
        return ""
    # imported here (with packaging.requirements, packaging.tags, platform, sysconfig): a project whose facts name
    # no package never asks
    from migrate.rulebase.ported_elsewhere import canonical

    return canonical(match.group(1))


@lru_cache(maxsize=4)
def requirements(directory: Path | None = None) -> dict[str, frozenset[str]]:
    """Distribution -> the distributions its metadata requires (rules/workloads/installs.yaml `requires`)."""
    read = read_installs(directory)
    if read is None:  # a rules directory without the file: nothing known
        return {}
    path, data = read
    from migrate.rulebase.ported_elsewhere import canonical  # see package_name

    entries = data.get("requires", []) if isinstance(data, dict) else []
    out: dict[str, frozenset[str]] = {}
    for entry in entries if isinstance(entries, list) else [None]:
        if not (isinstance(entry, dict) and str(entry.get("source", "")).startswith("https://")
                and isinstance(entry.get("requires"), list) and entry.get("distribution")):
            raise DataError(f"{path}: each of requires needs a distribution, its requires and a source URL")
        out[canonical(str(entry["distribution"]))] = frozenset(canonical(str(r)) for r in entry["requires"])
    return out


def _brought(extras: Mapping[str, str], needs: Mapping[str, frozenset[str]]) -> dict[str, str]:
    """The extras' packages and, transitively, what they require, each with the manifest line of its extra."""
    out = dict(extras)
    todo = list(extras)
    while todo:
        name = todo.pop()
        for required in sorted(needs.get(name, ())):
            if required not in out:
                out[required] = out[name]
                todo.append(required)
    return out


def extra_installs(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                   needs: Mapping[str, frozenset[str]] | None = None) -> dict[str, tuple[Install, ...]]:
    """File outside the manifests -> the installs in it of packages that the manifests declare only under an extra
    (or that such a package requires)."""
    manifests = {p for p in facts if is_manifest(p, kinds)}
    extras: dict[str, str] = {}
    required: set[str] = set()
    for path in sorted(manifests):
        for f in facts[path]:
            if f.kind == "requirement" and (name := package_name(f.name)):
                if f.guard == "optional":
                    extras.setdefault(name, f"{path}:{f.line}")
                else:
                    required.add(name)
    if not extras:  # no extra declared: nothing to bring, and the table of what packages require is not read
        return {}
    brought = _brought(extras, requirements() if needs is None else needs)
    only_extras = {name: where for name, where in brought.items() if name not in required}
    if not only_extras:
        return {}
    found: dict[str, dict[Install, None]] = {}  # the requirement facts' index, not a pass over every fact
    for path, f in of_kind(facts, "requirement"):
        if path in manifests or path.rsplit("/", 1)[-1] in RUN_DIRECTLY \
                or (name := package_name(f.name)) not in only_extras:
            continue
        found.setdefault(path, {})[(f.line, name, f"{path}:{f.line} installs {name}, "
                                    + ("which the project declares only as an extra" if name in extras else
                                       "which only a package the project declares as an extra requires")
                                    + f" ({only_extras[name]}): a plain install of the project does not bring it")] = None
    return {path: tuple(installs) for path, installs in found.items()}


def install_of(installs: Mapping[str, tuple[Install, ...]], path: str, line: int, symbol: str) -> Install | None:
    """The install of an extra's package that a finding at path:line on `symbol` reports, if any."""
    found = installs.get(path)
    if not found:  # asked for every finding's part: most files install no extra's package
        return None
    name = package_name(symbol)
    return next((i for i in found if i[0] == line and i[1] == name), None)
