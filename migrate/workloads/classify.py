"""classify: one class per workload and target, from its findings and what it depends on.

Every finding gets one *effective class*, the class it counts as; the same value is shown
everywhere (summary.by_class, lint --fail-on, SARIF levels, HTML). See docs/design-notes.md."""
from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import replace

from migrate.model import CLASSES, CONFIDENCES, Finding, class_rank

# Distinct symbols of medium confidence that together confirm their class.
CORROBORATING_SYMBOLS = 3
# Kinds whose CUDA sources a ROCm build of PyTorch hipifies on its own.
AUTO_HIPIFIED_KINDS = frozenset({"torch-extension"})
# Folders whose code a package does not need to run: reported as optional parts.
OPTIONAL_DIRS = frozenset({"test", "tests", "testing", "unittest", "unit_tests", "example", "examples",
                           "benchmark", "benchmarks", "bench", "experimental", "docs", "doc", "demo", "demos",
                           "sample", "samples", "contrib", "tutorials", "notebooks"})


def optional_root(path: str) -> str | None:
    """The optional folder a file sits in (`tests`, `pkg/experimental`), or None."""
    parts = posixpath.dirname(path).split("/")
    for i, part in enumerate(parts):
        if part.lower() in OPTIONAL_DIRS or part.lower().startswith(("test_", "bench_")):
            return "/".join(parts[:i + 1])
    return None


def effective_class(finding: Finding, findings: Sequence[Finding], kind: str) -> str:
    """A finding's weight among `findings` (its workload's required findings, or one optional part).

    Code a ROCm path already covers counts as native. In a PyTorch extension, CUDA that hipify
    converts automatically ("yes") is a minor adaptation: PyTorch's ROCm build runs hipify
    itself. A low-confidence finding never moves a class (native). A medium-confidence one
    counts at its class only when corroborated, by a more confident finding of at least that
    class or by several distinct medium symbols of it; alone it counts one class lower."""
    if finding.status == "ported":
        return "native"
    cls = finding.migration_class
    if kind in AUTO_HIPIFIED_KINDS and cls == "migration-required" and finding.hipify == "yes":
        cls = "minor-adaptation"
    if finding.confidence == "low" or cls == "native":
        return "native"
    if finding.confidence == "high":
        return cls
    agrees = [o for o in findings if class_rank(o.migration_class) >= class_rank(cls) and o.status != "ported"]
    if any(CONFIDENCES.index(o.confidence) > CONFIDENCES.index(finding.confidence) for o in agrees):
        return cls
    if len({o.symbol for o in agrees if o.confidence == "medium"}) >= CORROBORATING_SYMBOLS:
        return cls
    return CLASSES[class_rank(cls) - 1]


def judged(findings: Sequence[Finding], kind: str = "directory") -> list[Finding]:
    """The findings with their effective class set (worst over earlier judgements)."""
    out = []
    for f in findings:
        cls = effective_class(f, findings, kind)
        if f.effective_class and class_rank(f.effective_class) > class_rank(cls):
            cls = f.effective_class
        out.append(replace(f, effective_class=cls))
    return out


def classify(findings: Sequence[Finding], kind: str = "directory",
             everything: bool = False) -> tuple[str, tuple[Finding, ...]]:
    """The class of required findings and those that decided it (worst effective class).
    Optional findings (status "optional") are classified apart, as optional parts, unless
    `everything` (an optional part itself, or a workload that is optional as a whole)."""
    required = list(findings) if everything else [f for f in findings if f.status != "optional"]
    if not required:
        return "native", ()
    effective = {f: effective_class(f, required, kind) for f in required}
    worst = max(effective.values(), key=class_rank)
    if worst == "native":
        return worst, ()
    return worst, tuple(f for f in required if effective[f] == worst)


def worst_of(findings: Iterable[Finding], kind: str = "directory") -> str:
    return classify(list(findings), kind)[0]
