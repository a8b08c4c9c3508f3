"""Session 33, opt33a (issue 28 pattern 5): a Makefile branch that builds the CUDA twin of a per-back-end family, beside
another branch that builds its HIP twin, is the CUDA back end; what it alone names is credited with the HIP one
(workloads/make_backend_choice.py; fixtures cut from pmodels/mpich's GPU layer, with near misses)."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.model import Fact
from migrate.scan.layout import hip_twinned, twin_stems
from migrate.workloads.make_backend_choice import twinned_branch_sources
from tests.test_optional_parts import _copy, report, scanned, statuses_of

KERNELS = "src/gpu/mpl_gpu_cuda_kernels.cu"
FRAGMENT = "src/gpu/Makefile.mk"


def test_a_cuda_branch_beside_a_hip_branch_credits_its_untwinned_kernels(rulebase) -> None:
    """mpich: `if MPL_HAVE_CUDA` names mpl_gpu_cuda.c and the kernels file, the `else` chain names mpl_gpu_hip.c;
    configure picks one back end, and the ROCm build takes the HIP one."""
    data = report("automake_backend_choice", rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses_of(data, KERNELS) == {"ported"}
    assert statuses_of(data, "src/gpu/mpl_gpu_cuda.c") == {"ported"}


def test_a_cuda_branch_whose_other_side_builds_no_hip_twin_keeps_its_kernels(rulebase) -> None:
    """The `else` side builds Level Zero and a CPU fallback; mpl_gpu_hip.c lies in the tree, named by no build."""
    data = report("automake_backend_choice_near", rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses_of(data, KERNELS) == {""}


HIP_LINE = "libmpl_la_SOURCES += src/gpu/mpl_gpu_hip.c\n"


@pytest.mark.parametrize("edits", [
    # both twins in the one branch: it is no choice between them
    [(HIP_LINE, ""), ("libmpl_la_SOURCES += src/gpu/mpl_gpu_cuda.c\n",
                      "libmpl_la_SOURCES += src/gpu/mpl_gpu_cuda.c\n" + HIP_LINE)],
    # the HIP twin named by no branch of the file (only lying in the tree): nothing to choose
    [(HIP_LINE, "")],
])
def test_no_credit_without_a_choice_between_the_twins(edits: list[tuple[str, str]], tmp_path: Path,
                                                     rulebase) -> None:
    tree = _copy("automake_backend_choice", tmp_path)
    fragment = tree / FRAGMENT
    text = fragment.read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    fragment.write_text(text)
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses_of(data, KERNELS) == {""}


def test_twinned_branch_sources_reads_make_conditionals() -> None:
    """A plain make `ifeq` chain too: `ifeq ($(GPU),cuda)` names x_cuda.c and k.cu, `else` names x_hip.c."""
    def source(name: str, line: int) -> Fact:
        return Fact(kind="build_source", name=name, line=line, column=1, end_line=line, end_column=1, text="")

    branch = Fact(kind="switch_branch", name="GPU_CUDA", line=1, column=1, end_line=4, end_column=1, text="make: GPU=cuda")
    facts = {"Makefile": [branch, source("x_cuda.c", 2), source("k.cu", 3), source("x_hip.c", 5)],
             "x_cuda.c": [], "x_hip.c": [], "k.cu": []}
    kinds = {"Makefile": "makefile", "x_cuda.c": "c", "x_hip.c": "c", "k.cu": "cuda"}
    assert twinned_branch_sources(facts, kinds, hip_twinned(kinds), twin_stems) == {"x_cuda.c", "k.cu"}
    facts["Makefile"].append(source("k.cu", 6))  # k.cu named outside the branch too: every build compiles it
    assert twinned_branch_sources(facts, kinds, hip_twinned(kinds), twin_stems) == {"x_cuda.c"}
    facts["Makefile"] = [branch, source("x_cuda.c", 2), source("k.cu", 3)]  # no HIP twin named: no choice
    assert twinned_branch_sources(facts, kinds, hip_twinned(kinds), twin_stems) == frozenset()
