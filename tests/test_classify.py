"""Classification of one workload: worst finding, with confidence and extension rules."""
from __future__ import annotations

import pytest
from migrate.model import Finding
from migrate.workloads.classify import classify


def finding(cls: str, confidence: str = "high", hipify: str = "no", symbol: str = "x", status: str = "") -> Finding:
    return Finding(rule="HIP0000", path="a.cu", line=1, column=1, end_line=1, end_column=2, symbol=symbol,
                   message="m", hip=None, hipify=hipify, confidence=confidence, migration_class=cls, status=status)


@pytest.mark.parametrize(("findings", "kind", "expected"), [
    ([], "directory", "native"),
    ([finding("minor-adaptation")], "python", "minor-adaptation"),
    ([finding("migration-required", hipify="yes")], "cmake-target", "migration-required"),
    # PyTorch's ROCm build hipifies what hipify converts automatically
    ([finding("migration-required", hipify="yes")], "torch-extension", "minor-adaptation"),
    ([finding("migration-required", hipify="yes"), finding("migration-required")], "torch-extension",
     "migration-required"),
    # one weak signal does not condemn a workload
    # low confidence never moves a class; medium only when corroborated
    ([finding("migration-required", confidence="low")], "directory", "native"),
    ([finding("incompatible", confidence="low"), finding("minor-adaptation")], "directory", "minor-adaptation"),
    ([finding("migration-required", confidence="low"), finding("migration-required", "medium")], "directory",
     "minor-adaptation"),
    ([finding("migration-required", "medium"), finding("migration-required", "high", symbol="y")], "directory",
     "migration-required"),
    ([finding("migration-required", "medium", symbol=s) for s in "abc"], "directory", "migration-required"),
    ([finding("incompatible", confidence="medium")], "directory", "migration-required"),
    ([finding("incompatible", "medium", symbol=s) for s in "abc"], "directory", "incompatible"),
    ([finding("incompatible", "medium"), finding("incompatible", "high", symbol="y")], "directory", "incompatible"),
    ([finding("incompatible", confidence="high")], "directory", "incompatible"),
    # code a ROCm path covers is native; optional code is classified apart
    ([finding("incompatible", status="ported")], "directory", "native"),
    ([finding("incompatible", status="optional"), finding("minor-adaptation")], "directory", "minor-adaptation"),
])
def test_workload_class(findings: list[Finding], kind: str, expected: str) -> None:
    assert classify(findings, kind)[0] == expected


def test_reasons_are_the_deciding_findings() -> None:
    worst = finding("incompatible", symbol="wgmma")
    cls, reasons = classify([finding("minor-adaptation"), worst, finding("migration-required")], "cmake-target")
    assert (cls, reasons) == ("incompatible", (worst,))
