"""Session 26, kclass (issue 28): what a torch extension's cooperative-groups collectives headers cost, and NVIDIA's
product headers copied into a project's tree (docs/decisions/2026-12-06-s26-kernel-classes.md; fixtures cut from the
real cases, each with a near miss)."""
from __future__ import annotations

from pathlib import Path

from tests.test_optional_parts import scanned

WORKLOADS = Path(__file__).resolve().parent.parent / "fixtures" / "workloads"


def _rules(data: dict) -> set[tuple[str, int, str]]:
    return {(f["path"], f["line"], f["rule"]) for f in data["findings"]}


def test_an_unused_reduce_header_in_a_torch_extension_is_a_line_to_delete(rulebase) -> None:
    """diff-surfel-rasterization-MCMC (graphdeco's rasteriser): cooperative_groups/reduce.h included, only
    this_grid/this_thread_block used; torch's hipify converts cooperative_groups.h, the reduce.h line is deleted."""
    data = scanned(WORKLOADS / "coop_reduce_unused", rulebase)
    found = _rules(data)
    assert ("cuda_rasterizer/forward.cu", 5, "HIP0048") in found
    assert not any(rule in {"HIP0047", "HIP0004"} and line == 5 for _, line, rule in found)
    assert data["summary"]["class"] == "minor-adaptation"


def test_a_torch_extension_that_calls_cg_reduce_is_edited_by_hand(rulebase) -> None:
    data = scanned(WORKLOADS / "coop_reduce_used", rulebase)
    found = _rules(data)
    assert ("cuda_rasterizer/forward.cu", 5, "HIP0047") in found
    assert not any(rule == "HIP0048" for _, _, rule in found)
    assert data["summary"]["class"] == "migration-required"


def test_a_copy_of_nvidias_p2p_header_stays_nvidias(rulebase) -> None:
    """NVIDIA's open kernel modules include their own kernel-open/nvidia/nv-p2p.h; the copy has no finding, but it is
    NVIDIA's interface header (HIP0046 product_header), not a project header named like one."""
    data = scanned(WORKLOADS / "product_header", rulebase)
    assert {("kernel-open/nvidia/nv-p2p.c", 6, "HIP0046"),
            ("kernel-open/nvidia-peermem/nvidia-peermem.c", 8, "HIP0046")} <= _rules(data)
    assert data["summary"]["class"] == "incompatible"
