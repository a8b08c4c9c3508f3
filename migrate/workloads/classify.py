"""classify: one class per workload and target, from its findings and what it depends on.

Every finding gets one *effective class*, the class it counts as; the same value is shown
everywhere (summary.by_class, lint --fail-on, SARIF levels, HTML). See docs/decisions/2026-11-29-confidence-ceilings.md."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from migrate.model import CLASSES, CONFIDENCES, Finding, MigrationClass, class_rank

# Distinct symbols of medium confidence that together confirm their class.
CORROBORATING_SYMBOLS = 3
# Kinds whose CUDA sources are hipified by their build on its own: a ROCm build of PyTorch for a
# torch extension, the project's module build (nvcc --fatbin -> hipify + hipcc --genco) for a kernel
# module CuPy loads. CUDA source embedded in Python strings is compiled by the framework that
# receives it (CuPy's hipRTC path, load_inline's hipify), so it counts the same way.
AUTO_HIPIFIED_KINDS = frozenset({"torch-extension", "gpu-module", "runtime-compiled"})
PYTHON_SUFFIXES = (".py", ".ipynb")
class Agreement:
    """What the findings of at least each class say (not counting ported ones): their best
    confidence and their number of distinct medium-confidence symbols. Computed once per group
    of findings, so judging every finding of a group is linear, not quadratic."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        best = [-1] * len(CLASSES)
        medium: list[set[str]] = [set() for _ in CLASSES]
        for o in findings:
            if o.status == "ported":
                continue
            rank = class_rank(o.migration_class)
            best[rank] = max(best[rank], CONFIDENCES.index(o.confidence))
            if o.confidence == "medium":
                medium[rank].add(o.symbol)
        for rank in range(len(CLASSES) - 2, -1, -1):  # "at least this class": accumulate from the top
            best[rank] = max(best[rank], best[rank + 1])
            medium[rank] |= medium[rank + 1]
        self.best, self.medium = best, [len(m) for m in medium]


def converted_by_build(finding: Finding, kind: str, torch_hipified: frozenset[str] = frozenset()) -> bool:
    """Whether the workload's own build converts this CUDA automatically: hipify says "yes", or
    PyTorch's hipify maps the header in a torch extension (`cub/...` -> hipcub), or it is CUDA
    embedded in a Python string (a C-family finding in a Python file)."""
    auto = kind in AUTO_HIPIFIED_KINDS or (finding.path.endswith(PYTHON_SUFFIXES) and _c_family(finding.rule))
    return auto and (finding.hipify == "yes" or (kind == "torch-extension" and finding.symbol in torch_hipified))


def _c_family(rule: str) -> bool:
    """Whether `rule` is of a C-family rule family (rulebase.families, imported on a Python file's first
    finding: a lint of C/C++/CUDA alone does not load it)."""
    from migrate.rulebase import families

    return families.load().is_code(rule, "c")


def effective_class(finding: Finding, findings: Sequence[Finding], kind: str,
                    agreement: Agreement | None = None, torch_hipified: frozenset[str] = frozenset()) -> MigrationClass:
    """A finding's weight among `findings` (its workload's required findings, or one optional part).

    Code a ROCm path already covers counts as native. In a PyTorch extension, CUDA that hipify
    converts automatically ("yes") is a minor adaptation: PyTorch's ROCm build runs hipify
    itself. A low-confidence finding never moves a class (native). A medium-confidence one
    counts at its class only when corroborated, by a more confident finding of at least that
    class or by several distinct medium symbols of it; alone it counts one class lower."""
    if finding.status == "ported":
        return "native"
    cls = finding.migration_class
    if cls == "migration-required" and converted_by_build(finding, kind, torch_hipified):
        cls = "minor-adaptation"
    if finding.confidence == "low" or cls == "native":
        return "native"
    if finding.confidence == "high":
        return cls
    agreement = agreement or Agreement(findings)
    if agreement.best[class_rank(cls)] > CONFIDENCES.index(finding.confidence):
        return cls
    if agreement.medium[class_rank(cls)] >= CORROBORATING_SYMBOLS:
        return cls
    return CLASSES[class_rank(cls) - 1]


def hipified_by_build(workloads: Iterable[tuple[str, Sequence[str]]]) -> dict[str, str]:
    """Each file of a workload whose build hipifies its CUDA on its own (AUTO_HIPIFIED_KINDS: a torch extension,
    a CuPy kernel module, runtime-compiled CUDA) -> that kind, from (kind, files) per workload. Scan judges a
    workload's findings by its kind; lint judges each linted file by the kind this gives it, so that both
    credit PyTorch's ROCm hipify alike."""
    return {path: kind for kind, files in workloads if kind in AUTO_HIPIFIED_KINDS for path in files}


def judged(findings: Sequence[Finding], kind: str = "directory", *, kind_of: Callable[[Finding], str] | None = None,
           torch_hipified: frozenset[str] = frozenset()) -> list[Finding]:
    """The findings with their effective class set (worst over earlier judgements); `kind_of`: the kind of the
    workload a finding's file belongs to, where it is not `kind` (lint: hipified_by_build of the project)."""
    out = []
    agreement = Agreement(findings)
    for f in findings:
        cls = effective_class(f, findings, kind_of(f) if kind_of else kind, agreement, torch_hipified)
        if f.effective_class and class_rank(f.effective_class) > class_rank(cls):
            cls = f.effective_class
        out.append(replace(f, effective_class=cls))
    return out


def classify(findings: Sequence[Finding], kind: str = "directory", everything: bool = False,
             torch_hipified: frozenset[str] = frozenset()) -> tuple[MigrationClass, tuple[Finding, ...]]:
    """The class of required findings and those that decided it (worst effective class).
    Optional findings (status "optional") are classified apart, as optional parts, unless
    `everything` (an optional part itself, or a workload that is optional as a whole)."""
    required = list(findings) if everything else [f for f in findings if f.status != "optional"]
    if not required:
        return "native", ()
    agreement = Agreement(required)
    # in `required`'s order, not keyed by finding (a hash of each, twice): findings equal in value get the same class
    effective = [effective_class(f, required, kind, agreement, torch_hipified) for f in required]
    worst = max(effective, key=class_rank)
    if worst == "native":
        return worst, ()
    return worst, tuple(f for f, cls in zip(required, effective, strict=True) if cls == worst)

