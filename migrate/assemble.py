"""assemble: group files into workloads. For now the whole scan target is one workload."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from migrate.classify import classify
from migrate.estimate import estimate
from migrate.model import Finding, SourceFile, Workload


def assemble(root: Path, files: Sequence[SourceFile], findings: Sequence[Finding],
             effort_of: Callable[[str], tuple[float, float]]) -> tuple[list[Workload], list[Finding]]:
    """Workloads with their class and effort, and the findings tagged with their workload."""
    name = root.name or "root"
    tagged = [replace(f, workload=name) for f in findings]
    migration_class, deciding = classify(tagged)
    workload = Workload(
        name=name, root=".", kind=_kind(files), migration_class=migration_class,
        reasons=deciding,
        effort=estimate(tagged, effort_of), files=tuple(f.rel for f in files),
    )
    return [workload], tagged


def _kind(files: Sequence[SourceFile]) -> str:
    kinds = {f.kind for f in files}
    if "cmake" in kinds:
        return "cmake"
    if kinds & {"python", "notebook", "pyproject"}:
        return "python"
    return "directory"
