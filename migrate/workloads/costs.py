"""Fixed costs per project (not per workload, not per target), scaled by its C/C++/CUDA size."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from migrate.model import Finding
from migrate.model_report import Project, ProjectCost, Workload, required_class
from migrate.workloads.calibration import Calibration
from migrate.workloads.estimate import EffortModel, project_estimate

C_KINDS = frozenset({"cuda", "cpp"})


def project_costs(projects: Sequence[Project], root_name: str, workloads: Sequence[Workload],
                  findings: Sequence[Finding], files: Mapping[str, tuple[str, int]], model: EffortModel,
                  calibration: Calibration) -> tuple[ProjectCost, ...]:
    """One entry per project of a portfolio, or one for the whole scan. `files`: path -> (kind, lines)."""
    groups = list(projects) or [Project(name=root_name, root=".", workloads=tuple(w.name for w in workloads))]
    out = []
    optional = {w.name for w in workloads if w.optional}
    for project in groups:
        members = set(project.workloads)
        cls = required_class(w for w in workloads if w.name in members)
        counted = [f for f in findings if f.workload in members and f.workload not in optional and not f.status]
        paths = {f.path for f in counted if files.get(f.path, ("", 0))[0] in C_KINDS}
        kloc = sum(files[p][1] for p in paths) / 1000
        build = sum(1 for f in counted if (family := calibration.family_of(f.rule)) is not None and family.name == "build")
        result = project_estimate(cls, c_files=len(paths), build_findings=build, model=model, calibration=calibration)
        out.append(ProjectCost(name=project.name, migration_class=cls, kloc=round(kloc, 2), effort=result.effort,
                               breakdown=result.breakdown, calibrated=result.calibrated,
                               validation=result.validation))
    return tuple(out)
