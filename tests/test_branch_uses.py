"""Session 30, py30 (issue 28): a function the project calls only in `if` branches a default run does not take
(an option at its argparse default, a function's switch at its default) runs only when the user asks: what its body
imports is an optional part (extract/python/branch_uses.py, workloads/option_branches.py uses_not_taken,
workloads/on_demand.py opted_in_scopes). Fixture cut from PaddlePaddle/models (batch fresh-2026-12-07v)."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.python.extractor import extract
from tests.test_optional_parts import _copy, optional_parts, report, scanned

CASE = "benchmark_only_helper"
HELPER = "utils.py:17-34 (a command-line option's branch)"


def _uses(source: str) -> list[tuple[str, int, str, str]]:
    return [(f.name, f.line, f.text, f.role) for f in extract(source.encode()).facts if f.kind == "branch_use"]


def test_uses_of_an_imported_name_are_recorded_with_their_branch() -> None:
    found = _uses("from utils import mem, other, unused\n"
                  "def predict(images, run_benchmark=False):\n"
                  "    if run_benchmark:\n        mem()\n"
                  "    other()\n"
                  "if not FLAGS.run_benchmark:\n    pass\nelse:\n    mem()\n"
                  "f = lambda: mem()\n")
    assert sorted(found) == [
        ("mem", 4, "then\nrun_benchmark", "switches:run_benchmark=False"),
        ("mem", 9, "else\nnot FLAGS.run_benchmark", ""),
        ("mem", 10, "", ""),  # in a lambda: runs when called, read as outside every branch
        ("unused", 1, "unused", "")]  # imported, never read; `other` has no branched use: nothing recorded


def test_a_function_called_only_in_benchmark_branches_is_optional(rulebase) -> None:
    """PaddlePaddle/models: get_current_memory_mb() imports pynvml and GPUtil; every call is under a benchmark
    switch or option that defaults to False."""
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)[HELPER]
    assert part["class"] == "minor-adaptation"
    assert "infer.py:18" in part["evidence"][0]


@pytest.mark.parametrize(("path", "old", "new"), [
    # a call outside the branches: every run reports the memory
    ("det_keypoint_unite_infer.py", "    return detector.predict_image([image_dir])",
     "    get_current_memory_mb()\n    return detector.predict_image([image_dir])"),
    # the switch defaults to True: a call leaving it alone takes the branch
    ("infer.py", "run_benchmark=False, repeats=1", "run_benchmark=True, repeats=1"),
    # the option defaults to True: a run without it takes the branch
    ("utils.py", "        default=False,", "        default=True,"),
])
def test_a_function_a_default_run_calls_stays_required(path: str, old: str, new: str, tmp_path: Path,
                                                       rulebase) -> None:
    tree = _copy(CASE, tmp_path)
    text = (tree / path).read_text()
    assert old in text
    (tree / path).write_text(text.replace(old, new, 1))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert not any(key.startswith("utils.py:") for key in optional_parts(data))
