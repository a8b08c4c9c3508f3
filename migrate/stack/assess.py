"""The stack stage: pins from the extracted facts, a verdict per target, and findings for the workloads."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from migrate.model import Extraction, Finding, SourceFile
from migrate.rulebase.load import RuleBase
from migrate.stack import check, outcomes
from migrate.stack.binaries import coverage
from migrate.stack.capability import audit
from migrate.stack.matrix import Matrix, vtuple
from migrate.stack.model import Problem, StackReport
from migrate.stack.pins import Pin, Stack, collect
from migrate.vocabulary import FLOATING_PIN_KINDS


def assess(matrix: Matrix, extractions: Mapping[str, Extraction], files: Iterable[SourceFile], *,
           rocm: list[str], arch: list[str], findings: Iterable[Finding] = ()) -> StackReport:
    """The stack report for every requested ROCm release x GPU (no release: the newest that lists the GPU)."""
    findings = list(findings)
    stack = collect(extractions, files, locked=frozenset(matrix.packages))
    found = [check.check(matrix, stack, requested, release, gpu)
             for requested, release, gpu in check.targets(matrix, rocm, arch)]
    notes = [f"ROCm {t.rocm} is not in the compatibility matrix (it covers {matrix.releases[-1].version} to "
             f"{matrix.releases[0].version}); no stack verdict for it" for t in found if t.release is None]
    notes += _stream_notes(matrix, {t.release for t in found if t.release})
    return StackReport(
        pins=tuple(_pin_json(p) for p in stack.pins if p.package in matrix.packages),
        images=tuple({"image": i.ref, "rocm": i.rocm, "cuda": i.cuda, "os": i.os, "python": i.python,
                      "framework": i.framework, "version": i.version, "path": i.where.path, "line": i.where.line}
                     for i in stack.images),
        python=tuple({"requires": spec, "path": w.path, "line": w.line} for spec, w in stack.python),
        cuda=tuple(stack.cuda_versions),
        rocm_pinned=_rocm_pinned(stack),
        floating=tuple(_pin_json(p) for p in check.framework_pins(matrix, stack).values()
                       if p.kind in FLOATING_PIN_KINDS),
        no_rocm_build=tuple({"package": f.symbol, "rule": f.rule, "instead": f.hip, "path": f.path, "line": f.line}
                            for f in sorted(findings, key=lambda f: f.sort_key) if f.rule in outcomes.load().no_rocm_build),
        targets=tuple(found),
        notes=tuple(dict.fromkeys(notes)),
        binaries=tuple(b.to_json() for b in coverage(matrix, stack, list(dict.fromkeys(arch)))),
        capabilities=audit(findings, list(dict.fromkeys(arch))),
    )


def to_findings(report: StackReport, rules: RuleBase) -> list[Finding]:
    """One finding per rule and pin, merged over the GPUs it applies to (the first GPU's message)."""
    merged: dict[tuple[str, str, int, str], Finding] = {}
    archs: dict[tuple[str, str, int, str], list[str]] = {}
    for target in report.targets:
        for problem in target.problems:
            key = (problem.rule, problem.where.path, problem.where.line, problem.symbol)
            merged.setdefault(key, _finding(problem, rules))
            archs.setdefault(key, []).append(problem.arch)
    return [replace(f, targets=tuple(dict.fromkeys(archs[k]))) for k, f in merged.items()]


def _finding(problem: Problem, rules: RuleBase) -> Finding:
    rule = rules.get(problem.rule)
    assert rule is not None, f"stack rule {problem.rule} missing from the rule base"
    w = problem.where
    return Finding(rule=rule.id, path=w.path, line=w.line, column=w.column, end_line=w.end_line,
                   end_column=w.end_column, symbol=problem.symbol, message=problem.message, hip=rule.hip,
                   hipify="no", confidence=rule.confidence, migration_class=rule.migration_class,
                   source_line=w.text)


def _stream_notes(matrix: Matrix, releases: set[str]) -> list[str]:
    """What changes with the release stream of each release judged, and which of its data is unconfirmed."""
    notes = []
    for release in sorted((r for r in matrix.releases if r.version in releases), key=lambda r: vtuple(r.version)):
        stream = matrix.stream(release)
        if stream is None or stream.id == "legacy":
            continue
        major, minor = release.version.split(".")[:2]
        where = stream.install_dir.replace("{major}", major).replace("{minor}", minor)
        notes.append(f"ROCm {release.version} is a {stream.name} release: install dir {where}; packages "
                     f"{stream.packages.replace('{major}', major).replace('{minor}', minor)}; frameworks: "
                     f"{stream.frameworks} ({matrix.url(stream.source)})")
        if not release.frameworks:
            notes.append(f"ROCm {release.version}: its framework versions and OS list were not confirmed from AMD's "
                         "pages; framework pins get the install route only")
    return notes


def _pin_json(pin: Pin) -> dict[str, Any]:
    return {"package": pin.package, "spec": pin.spec, "version": pin.version, "local": pin.local,
            "kind": pin.kind, "path": pin.where.path, "line": pin.where.line}


def _rocm_pinned(stack: Stack) -> bool:
    return (any(i.rocm for i in stack.images) or any(k == "rocm" for k, _, _ in stack.indexes)
            or any((p.local or "").startswith("rocm") for p in stack.pins))
