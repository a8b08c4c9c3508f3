"""Fixed costs per project (not per workload, not per target), scaled by its C/C++/CUDA size."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from migrate.model import EffortItem, Finding, sum_effort
from migrate.model_report import OptionalPart, Project, ProjectCost, Workload, required_class
from migrate.scan.layout import backend_files, hip_twinned
from migrate.workloads.calibration import Calibration
from migrate.workloads.estimate import EffortModel, part_estimate, project_estimate
from migrate.workloads.parts import optional_root

C_KINDS = frozenset({"cuda", "cpp"})


def project_costs(projects: Sequence[Project], root_name: str, workloads: Sequence[Workload],
                  findings: Sequence[Finding], files: Mapping[str, tuple[str, int]], model: EffortModel,
                  calibration: Calibration, generators: Mapping[str, int] | None = None) -> tuple[ProjectCost, ...]:
    """One entry per project of a portfolio, or one for the whole scan. `files`: path -> (kind, lines);
    `generators`: the code generators among them (path -> lines of CUDA device code in string literals,
    scan.layout.generators)."""
    groups = list(projects) or [Project(name=root_name, root=".", workloads=tuple(w.name for w in workloads))]
    out = []
    optional = {w.name for w in workloads if w.optional}
    optional_files = {p for w in workloads if w.optional for p in w.files}
    part_files = {p for w in workloads if not w.optional for part in w.optional_parts for p in part.files}
    for project in groups:
        members = set(project.workloads)
        cls = required_class(w for w in workloads if w.name in members)
        counted = [f for f in findings if f.workload in members and f.workload not in optional and not f.status]
        paths = {f.path for f in counted if files.get(f.path, ("", 0))[0] in C_KINDS}
        kloc = sum(files[p][1] for p in paths) / 1000
        build = [f for f in counted if (family := calibration.family_of(f.rule)) is not None and family.name == "build"]
        rocm_path = any(w.rocm_path for w in workloads if w.name in members)
        lanes = sorted({c.title for w in workloads if w.name in members and not w.optional for c in w.components
                        if c.kind == "rewrite" and not c.optional})
        twins = twin_files(project, files, optional_files | (part_files - paths))  # a ROCm path of another back end too
        result = project_estimate(cls, c_files=len(paths - twins), build_findings=len(build), model=model,
                                  calibration=calibration, build_files=len({f.path for f in build}),
                                  build_kinds=len({f.rule for f in build}),
                                  backend_files=len(twins),
                                  backend_lines=sum(files[p][1] for p in twins), rocm_path=rocm_path,
                                  generators=_own_generators(project, generators or {}, optional_files),
                                  python_or_build=any((family := calibration.family_of(f.rule)) is not None
                                                      and family.name in ("python", "build") for f in counted),
                                  rewrite_lanes=lanes)
        out.append(ProjectCost(name=project.name, migration_class=cls, kloc=round(kloc, 2), effort=result.effort,
                               breakdown=result.breakdown, calibrated=result.calibrated,
                               validation=result.validation))
    return tuple(out)


def _own_generators(project: Project, generators: Mapping[str, int], optional_files: set[str]) -> dict[str, int]:
    """The project's code generators outside optional folders and workloads (a tests/ generator is not ported)."""
    root = "" if project.root in ("", ".") else project.root.rstrip("/") + "/"
    return {p: n for p, n in generators.items() if p.startswith(root) and p not in optional_files
            and optional_root(p[len(root):]) is None}


def twin_files(project: Project, files: Mapping[str, tuple[str, int]], optional_files: set[str]) -> set[str]:
    """The project's C/C++/CUDA files in a per-back-end layout (scan.layout.backend_files), outside optional
    folders, workloads and parts (a build switch's back end is costed with its part): a port writes a HIP twin
    of each, unless the tree has it already (scan.layout.hip_twinned: nstream-cuda.cu beside nstream-hip.cc;
    s9's ParRes Kernels were costed 155 h of twins that were there). A project with a ROCm path gets them too: the
    path may be another back end's (PLSSVM's SYCL back end built with hipSYCL), which writes no HIP member of the
    CUDA back end's files (s16: PLSSVM and Morpheus wrote them, 308 and 256 twin-term hand lines)."""
    root = "" if project.root in ("", ".") else project.root.rstrip("/") + "/"
    mine = [p for p in files if p.startswith(root) and files[p][0] in C_KINDS and p not in optional_files
            and optional_root(p[len(root):]) is None]
    return set(backend_files(mine) - hip_twinned(p for p in files if files[p][0] in C_KINDS))


def with_part_costs(workloads: Sequence[Workload], findings: Sequence[Finding], files: Mapping[str, tuple[str, int]],
                    costs: Sequence[ProjectCost], calibration: Calibration, model: EffortModel) -> list[Workload]:
    """The workloads with each optional part that holds GPU code (C/C++/CUDA files with findings) costed as a
    port of its own: its findings' cost plus its build files, glue and HIP twins (estimate.part_estimate), the
    build system itself too where the required code has no build port to share it with (a build switch's CUDA
    back end is all of a GPU port when the project's required code has nothing to port). A part without GPU
    code (CI workflows, a Dockerfile) keeps its findings' cost: the project's assumed CI step covers it."""
    if not model.calibrated or not any(w.optional_parts for w in workloads):
        return list(workloads)
    system_ported = any(i.kind == "build system port" for p in costs for i in p.breakdown)
    c_paths = [p for p in files if files[p][0] in C_KINDS]
    # the per-back-end files a port writes a HIP twin of, once for all parts
    twinnable = backend_files(c_paths) - hip_twinned(c_paths)  # with a ROCm path too: it may be another back end's
    # each workload's optional findings by file, their places kept: a part's are read from its own files (a workload of
    # 4,000 optional parts read every finding once per part)
    optional_at: dict[tuple[str, str], list[int]] = {}
    for i, f in enumerate(findings):
        if f.status == "optional":
            optional_at.setdefault((f.workload, f.path), []).append(i)

    def of_part(workload: str, part: OptionalPart) -> list[Finding]:
        return [findings[i] for i in sorted({i for p in part.files for i in optional_at.get((workload, p), ())})]

    return [replace(w, optional_parts=tuple(_part_cost(part, of_part(w.name, part),
                                                      files, calibration, system_ported=system_ported,
                                                      twinnable=twinnable)
                                            for part in w.optional_parts)) if w.optional_parts else w
            for w in workloads]


def _part_cost(part: OptionalPart, findings: Sequence[Finding], files: Mapping[str, tuple[str, int]],
               calibration: Calibration, *, system_ported: bool, twinnable: frozenset[str]) -> OptionalPart:
    paths = {p for p in part.files if files.get(p, ("", 0))[0] in C_KINDS}
    if not paths:  # no GPU code (CI workflows, a Dockerfile): the project's assumed "CI on ROCm" step covers it
        return part
    build = [f for f in findings if (family := calibration.family_of(f.rule)) is not None and family.name == "build"]
    twins = paths & twinnable
    own = part_estimate(c_files=len(paths - twins), build_findings=len(build), build_files=len({f.path for f in build}),
                        build_kinds=len({f.rule for f in build}),
                        calibration=calibration, system_ported=system_ported,
                        backend_files=len(twins),
                        backend_lines=sum(files[p][1] for p in twins))
    items: list[EffortItem] = sorted([*part.breakdown, *own.breakdown], key=lambda i: (-i.hours, i.label))
    return replace(part, effort=sum_effort([part.effort, own.effort]), breakdown=tuple(items))
