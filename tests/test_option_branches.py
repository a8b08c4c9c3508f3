"""Session 19, pyreq9 (issue 28): what a default run of a script reaches. Command-line options at their argparse
defaults pick `if` branches; what only an untaken branch imports is optional (migrate/workloads/option_branches.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.python.extractor import extract
from migrate.workloads.option_branches import branches_not_taken, option_defaults, taken
from tests.test_optional_parts import _copy, optional_parts, report, scanned


def _facts(source: str) -> list:
    return [f for f in extract(source.encode()).facts if f.kind in ("cli_option", "option_branch")]


def test_options_are_read_with_their_argparse_defaults() -> None:
    found = _facts("p.add_argument('--engine', type=str)\np.add_argument('--fp16', action='store_true')\n"
                   "p.add_argument('--no-flip', action='store_false')\np.add_argument('--size', default=512)\n"
                   "p.add_argument('-n', '--n-iter', dest='iters', default=len(x))\np.add_argument('path')\n")
    assert {f.name: f.text for f in found} == {"engine": "None", "fp16": "False", "no_flip": "True", "size": "512",
                                               "iters": "?"}


def test_a_branch_with_an_import_under_an_options_test_is_recorded() -> None:
    found = _facts("if not opt.engine and not opt.onnx:\n    model = create(opt)\nelse:\n    from run_engine import run\n"
                   "if self.opt.fp16:\n    from apex import amp\nif use_trt(opt):\n    import tensorrt\n"
                   "if opt.fp16:\n    x = 1\n"
                   # an object's own attribute, a module's: no option namespace (curobo's `if self.device is None:`)
                   "import sys\nif self.device is None:\n    from cuda.core import Device\n"
                   "if sys.platform == 'win32':\n    import winreg\n")
    assert [(f.name, f.line, f.end_line, f.text) for f in found] == [
        ("else", 4, 4, "not opt.engine and (not opt.onnx)"), ("then", 6, 6, "self.opt.fp16")]


@pytest.mark.parametrize(("test", "defaults", "expected"), [
    ("not opt.engine and (not opt.onnx)", {"engine": None, "onnx": None}, True),
    ("opt.fp16", {"fp16": False}, False),
    ("opt.data_type == 16", {"data_type": 32}, False),
    ("opt.mode == 'trt'", {"mode": "trt"}, True),
    ("opt.engine", {}, None),  # not an option of the project: cannot be told
    ("opt.fp16 or opt.other", {"fp16": False}, None),
    ("opt.fp16 and opt.other", {"fp16": False}, False),
])
def test_a_test_is_evaluated_at_the_defaults(test: str, defaults: dict, expected: bool | None) -> None:
    assert taken(test, defaults) == expected


def test_options_declared_twice_with_other_defaults_are_not_told() -> None:
    facts = {"a.py": _facts("p.add_argument('--mode', default='a')\np.add_argument('--fp16', action='store_true')\n"),
             "b.py": _facts("p.add_argument('--mode', default='b')\n")}
    assert option_defaults(facts) == {"fp16": False}
    facts["c.py"] = _facts("if opt.mode == 'a':\n    import x\nif opt.fp16:\n    import y\n")
    assert [s[:2] for s in branches_not_taken(facts)["c.py"]] == [(4, 4)]


def test_a_script_only_an_options_branch_imports_is_optional(rulebase) -> None:
    """pix2pixHD: run_engine.py (TensorRT, PyCUDA) is imported only under `else:` of
    `if not opt.engine and not opt.onnx:`, both options without a default."""
    data = report("option_branch_import", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["run_engine.py"]
    assert part["class"] == "incompatible"
    assert "test.py:36" in part["evidence"][0]


@pytest.mark.parametrize(("path", "old", "new"), [
    # the option has a default: every run takes the TensorRT branch
    ("options/test_options.py", '"--engine", type=str,', '"--engine", type=str, default="model.engine",'),
    # the import is outside the branch
    ("test.py", "import torch\n", "import torch\nfrom run_engine import run_trt_engine\n"),
])
def test_a_script_a_default_run_imports_stays_required(path: str, old: str, new: str, tmp_path: Path,
                                                         rulebase) -> None:
    tree = _copy("option_branch_import", tmp_path)
    text = (tree / path).read_text()
    assert old in text
    (tree / path).write_text(text.replace(old, new, 1))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert "run_engine.py" not in optional_parts(data)
