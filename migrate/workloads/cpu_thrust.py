"""Thrust compiled for the CPU. Thrust picks its device system at compile time (THRUST_DEVICE_SYSTEM), and its CPP,
OMP and TBB systems run every algorithm on the CPU: a build that defines one of them compiles Thrust code with no GPU
and no CUDA compiler. Where the project's default build does so (a `-D` flag outside every switch's branch, in a
build file the build adds by default, or Thrust's thrust_create_target(... DEVICE OMP)), the Thrust findings in the
folder of that build file are CPU code, an optional part with their own class (rules/workloads/optional.yaml
`cpu_thrust`; docs/decisions/2026-12-07-s28-what-the-default-configure-reaches.md)."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence

from migrate.model import Fact, Finding
from migrate.workloads import alternatives
from migrate.workloads.fact_index import of_kind
from migrate.workloads.optional_words import Words
from migrate.workloads.switches import BUILD_KINDS, Region, around, define_flags, gates

WHAT = "Thrust on the CPU"
WORD = re.compile(r"[A-Za-z]+")


def is_thrust(finding: Finding, known: Words) -> bool:
    """Whether a finding is Thrust's: its header or namespace, or a package or fetched source named after it
    (`find_package:Thrust`, `index:https://github.com/NVIDIA/thrust.git`)."""
    return finding.rule in known.thrust_rules or (
        finding.rule in known.thrust_package_rules
        and any(w.lower() in known.thrust_package for w in WORD.findall(finding.symbol)))


def cpu_thrust_folders(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                       regions: Mapping[str, tuple[Region, ...]], gated: Mapping[str, Region],
                       known: Words) -> dict[str, str]:
    """Folder (`dir/`, "" for the whole project) -> evidence, for each build file whose default configure defines
    a CPU device system for Thrust."""
    out: dict[str, str] = {}
    if not known.thrust_macros:
        return out
    for path, f in of_kind(facts, "flag"):
        if kinds.get(path) not in BUILD_KINDS:
            continue
        for flag, macro in define_flags((f,)):
            value = flag.text.partition("=")[2] if "=" in flag.text else ""
            system = value.removeprefix(f"{macro}_") if value.startswith(f"{macro}_") else value
            if macro not in known.thrust_macros or system.upper() not in known.thrust_cpu_systems \
                    or around(regions, path, flag.line) or gates(regions, gated, path):
                continue
            folder = posixpath.dirname(path)
            out.setdefault(f"{folder}/" if folder else "", f"{path}:{flag.line} {flag.text}: the default build "
                           f"compiles Thrust for its {system.upper()} device system, on the CPU "
                           "(rules/workloads/optional.yaml cpu_thrust)")
    return out


def covering(folders: Mapping[str, str], path: str) -> str | None:
    """The folder of `folders` that holds `path` ("" holds every path), the innermost first."""
    inner = alternatives.covering(folders, path, 0)  # its keys are folders only: the innermost that holds `path`
    return inner if inner is not None else "" if "" in folders else None
