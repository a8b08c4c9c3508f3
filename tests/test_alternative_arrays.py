"""A CuPy import in one function or branch of a Python file whose other branch imports the NumPy/SciPy counterpart
(rules/workloads/optional.yaml `alternative_arrays`, workloads/optional_words.alternative_runtime_scopes): one array
back end among alternatives, an optional part. Fixture cut from ComputationalCryoEM/ASPIRE-Python (its README); the
near misses import SciPy in the CuPy branch too, or have no NumPy/SciPy branch."""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned

CASE = "cupy_numpy_branches"
MODULE = "src/aspire/numeric/__init__.py"


def test_a_cupy_branch_beside_a_scipy_branch_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)[f"{MODULE}:21-26 (an alternative runtime)"]
    assert part["class"] == "migration-required"  # cupyx.scipy.sparse: not in CuPy's ROCm build (HIP6021)
    assert part["evidence"][0].endswith("one array library among alternatives (rules/workloads/optional.yaml "
                                        "alternative_arrays)")
    assert statuses(data, MODULE) == {"optional"}


@pytest.mark.parametrize(("old", "new"), [
    # the CuPy branch needs SciPy too: no alternative of its own
    ("        SparseClass.linalg.eigsh = eigsh\n",
     "        SparseClass.linalg.eigsh = eigsh\n        from scipy.sparse import csr_matrix\n"),
    # no NumPy/SciPy branch: CuPy is the only array library of the file's scopes
    ("        from scipy import sparse as SparseClass\n", "        SparseClass = None\n"),
])
def test_a_cupy_branch_without_a_cpu_peer_is_no_alternative(old: str, new: str, tmp_path: Path, rulebase) -> None:
    """No part of this reading (the fixture's CuPy comes from an extra only, so the undeclared-package reading may
    still make the import optional: workloads/undeclared.py)."""
    tree = edited(CASE, tmp_path, MODULE, old, new)
    data = scanned(tree, rulebase)
    assert not [e for p in optional_parts(data).values() for e in p["evidence"] if "alternative_arrays" in e]
