"""Extension builds only a hand-run setup script declares (workloads/hand_run_setups.py; fixture
fixtures/workloads/optional/hand_run_setup, cut from mlbench/mlbench-core): an opt-in build, an optional part with its
own class. Near misses: the install's setup.py imports the script, or compiles the same sources, or no package
manifest encloses the script (the script is the tree's only build)."""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import ROOT, copied_tree, scan_tree

CASE = ROOT / "fixtures" / "workloads" / "optional" / "hand_run_setup"
SCRIPT = "mlbench_core/install_cuda_extensions.py"
KERNEL = "mlbench_core/models/pytorch/gnmt/attn_score/attn_score_cuda_kernel.cu"
HEADER = "mlbench_core/models/pytorch/gnmt/attn_score/attn_score.h"


def statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def test_an_extension_only_a_second_setup_script_declares_is_an_opt_in_build(rulebase) -> None:
    data = scan_tree(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    root = next(w for w in data["workloads"] if w["root"] == ".")
    assert root["class"] == "native"
    part = next(p for p in root["optional_parts"] if p["root"] == SCRIPT)
    assert part["evidence"][0].startswith(f"{SCRIPT} declares attn_score for setup() and no file imports it: "
                                          "an install builds setup.py's package through setup.py (PEP 517)")
    extension = next(w for w in data["workloads"] if w["name"] == "attn_score")
    assert extension["optional"] and extension["class"] == "migration-required"  # its own class, kept
    assert statuses(data, KERNEL) == {"optional"} and statuses(data, SCRIPT) == {"optional"}
    assert statuses(data, HEADER) == {"optional"}  # included only by the sources the script alone compiles


@pytest.mark.parametrize("change", ["imported", "installed", "no_manifest"])
def test_a_script_the_install_runs_or_the_only_build_is_required(change: str, tmp_path: Path, rulebase) -> None:
    tree = copied_tree(CASE, tmp_path)
    setup = tree / "setup.py"
    if change == "imported":  # setup.py takes its extension list from the script
        setup.write_text(setup.read_text().replace(
            "from setuptools import find_packages, setup\n",
            "from setuptools import find_packages, setup\n\nfrom mlbench_core.install_cuda_extensions import ext_modules\n"))
    elif change == "installed":  # setup.py builds the same sources itself
        setup.write_text(setup.read_text().replace(
            "from setuptools import find_packages, setup\n",
            "from setuptools import find_packages, setup\nfrom torch.utils.cpp_extension import CUDAExtension\n\n"
            "ext = CUDAExtension('mlbench_core.models.pytorch.gnmt.attn_score', "
            "['mlbench_core/models/pytorch/gnmt/attn_score/attn_score_cuda.cpp', "
            "'mlbench_core/models/pytorch/gnmt/attn_score/attn_score_cuda_kernel.cu'])\n"))
    else:  # no setup.py: the script is how the tree builds its extension
        setup.unlink()
    data = scan_tree(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""} and statuses(data, HEADER) == {""}
    assert not any(p["root"] == SCRIPT for w in data["workloads"] for p in w["optional_parts"])


PADDLE = ROOT / "fixtures" / "workloads" / "optional" / "hand_run_setup_paddle"
OP = "ppdet/modeling/transformers/ext_op/ms_deformable_attn_op.cu"
PADDLE_SETUP = ("from paddle.utils.cpp_extension import CUDAExtension, setup\n\n"
                "setup(name='deformable_detr_ops', ext_modules=CUDAExtension(sources=['op.cc', 'op.cu']))\n")


def test_paddles_extension_takes_its_sources_first_and_its_module_name_from_setup() -> None:
    from migrate.extract.python.extractor import extract

    facts = [f for f in extract(PADDLE_SETUP.encode()).facts if f.kind == "extension"]
    assert [(f.name, f.text, f.role) for f in facts] == [("deformable_detr_ops", "op.cc\nop.cu", "setup")]
    # near miss: outside setup(name=...) the extension has no name of its own (named by its folder, as before)
    bare = "from paddle.utils.cpp_extension import CUDAExtension\next = CUDAExtension(sources=['op.cu'])\n"
    assert [(f.name, f.text) for f in extract(bare.encode()).facts if f.kind == "extension"] == [("", "op.cu")]


def test_a_paddle_op_only_a_hand_run_script_builds_is_an_opt_in_build(rulebase) -> None:
    data = scan_tree(PADDLE, rulebase)
    assert data["summary"]["class"] == "native"
    op = next(w for w in data["workloads"] if w["name"] == "deformable_detr_ops")
    assert op["optional"] and op["class"] == "migration-required"
    assert statuses(data, OP) == {"optional"}


def test_a_paddle_op_the_packages_setup_builds_is_required(tmp_path: Path, rulebase) -> None:
    tree = copied_tree(PADDLE, tmp_path, name="paddle")
    (tree / "ppdet/modeling/transformers/ext_op/setup_ms_deformable_attn_op.py").unlink()
    (tree / "setup.py").write_text(
        "from paddle.utils.cpp_extension import CUDAExtension, setup\n\n"
        "setup(name='deformable_detr_ops', ext_modules=CUDAExtension(sources=[\n"
        "    'ppdet/modeling/transformers/ext_op/ms_deformable_attn_op.cc',\n"
        "    'ppdet/modeling/transformers/ext_op/ms_deformable_attn_op.cu']))\n")
    (tree / "ppdet/modeling/transformers/deformable_transformer.py").write_text(
        "from deformable_detr_ops import ms_deformable_attn\n")  # and imported with no fallback
    data = scan_tree(tree, rulebase)
    assert data["summary"]["class"] != "native"
    assert statuses(data, OP) == {""}
