"""A shell `case` on the script's command line (`ARCH=$1`, `case ${ARCH} in`) whose `gpu-cuda)` arm is the NVIDIA build
beside CPU arms: that arm runs only when the user asks for it, an optional part (extract/text/case_arms.py,
workloads/alternatives.nvidia_case_arms). Fixture cut from milc-qcd/milc_qcd 1e11e121 Grid/build.sh (its README);
each near miss keeps the arm in the default run."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.text.case_arms import arms
from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned

CASE = "shell_case_arm"
SCRIPT = "Grid/build.sh"


def test_the_nvidia_arm_of_a_case_on_the_command_line_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)[f"{SCRIPT}:27-34 (a command-line option's branch)"]
    assert part["class"] == "minor-adaptation"
    assert part["evidence"][0].startswith(f"{SCRIPT}:27-34: the `gpu-cuda)` arm of `case ${{ARCH}} in (line 10, $1)`, "
                                          "beside `scalar)`, `avx2)`")
    assert statuses(data, SCRIPT) == {"optional"}


def test_a_case_on_a_value_the_script_sets_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, SCRIPT, "ARCH=$1\n", "ARCH=gpu-cuda\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert statuses(data, SCRIPT) == {""}


def test_an_nvidia_arm_with_no_other_build_beside_it_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, SCRIPT, "    scalar)\n", "    gpu-scalar)\n")
    tree = edited(CASE, tmp_path, SCRIPT, "    avx2)\n", "    gpu-avx2)\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert statuses(data, SCRIPT) == {""}


def test_a_case_inside_a_function_reads_the_functions_argument(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, SCRIPT, "  case ${ARCH} in\n", "configure() {\n  case $1 in\n")
    tree = edited(CASE, tmp_path, SCRIPT, "  esac\n", "  esac\n}\nconfigure gpu-cuda\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert statuses(data, SCRIPT) == {""}


@pytest.mark.parametrize(("text", "found"), [
    ('while [ $# -gt 0 ]; do\n  case "$1" in\n    --cuda) CUDA=1 ;;\n    --cpu) CUDA=0 ;;\n  esac\n  shift\ndone\n',
     [("--cuda", 3, 3), ("--cpu", 4, 4)]),
    ("MODE=${1:-cpu}\ncase $MODE in\n  cpu|omp)\n    make cpu\n    ;;\n  cuda)\n    make cuda\n    ;;\nesac\n",
     [("cpu|omp", 3, 5), ("cuda", 6, 8)]),
    ("case $1 in\n  cuda)\n    case $2 in\n      a) x ;;\n    esac\n    ;;\nesac\n",
     [("cuda", 2, 6), ("a", 4, 4)]),  # the inner case reads $2
    ("MODE=cuda\ncase $MODE in\n  cuda) x ;;\nesac\n", []),  # the script's own value
    ("MODE=$1\nMODE=cuda\ncase $MODE in\n  cuda) x ;;\nesac\n", []),  # assigned otherwise too
])
def test_the_arms_read(text: str, found: list[tuple[str, int, int]]) -> None:
    assert [(f.name, f.line, f.end_line) for f in arms(text)] == found
