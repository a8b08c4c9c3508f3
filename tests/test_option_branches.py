"""Session 19, pyreq9 (issue 28): what a default run of a script reaches. Command-line options at their argparse
defaults pick `if` branches; what only an untaken branch imports is optional (migrate/workloads/option_branches.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.python.extractor import extract
from migrate.model import Fact
from migrate.workloads.option_branches import branches_not_taken, option_defaults, taken
from tests.conftest import copied_tree
from tests.test_optional_parts import CASES, _copy, optional_parts, report, scanned


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
    tree = copied_tree(CASES / "option_branch_import", tmp_path, [(path, old, new)])
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert "run_engine.py" not in optional_parts(data)


def _switch_facts(source: str) -> list:
    return [(f.name, f.line, f.end_line, f.text, f.role) for f in extract(source.encode()).facts
            if f.kind == "parameter_branch"]


def test_a_branch_under_a_functions_switch_is_recorded() -> None:
    """microxcaling's quantize_elemwise_op: `custom_cuda=False`, kept by `custom_cuda = custom_cuda and ...`."""
    found = _switch_facts(
        "def q(A, round='nearest', custom_cuda=False):\n"
        "    custom_cuda = custom_cuda and round in MODES\n"
        "    if A.device.type == 'cuda' and custom_cuda:\n"
        "        from . import custom_extensions\n"
        "    if round:\n        import math\n")
    assert found == [("then", 4, 4, "A.device.type == 'cuda' and custom_cuda", "switches:custom_cuda=False")]


@pytest.mark.parametrize("source", [
    # reassigned from something else: no switch any more
    "def q(A, custom_cuda=False):\n    custom_cuda = A.is_cuda\n    if custom_cuda:\n        import ext\n",
    # `x = x or ...` could turn a False default on
    "def q(A, custom_cuda=False):\n    custom_cuda = custom_cuda or A.is_cuda\n    if custom_cuda:\n        import ext\n",
    # a call in the module passes the other constant
    "def q(A, custom_cuda=False):\n    if custom_cuda:\n        import ext\nq(x, custom_cuda=True)\n",
    # a default that is no True/False: a value, not a switch
    "def q(A, mask=None):\n    if mask is not None:\n        import ext\n",
    # a nested function's own parameter of that name
    "def q(A, custom_cuda=False):\n    def inner(custom_cuda):\n        if custom_cuda:\n            import ext\n",
    # assigned something other than a name: the default says nothing
    "def f(x, *, backend='auto'):\n    backend = pick(x)\n    if backend == 'cuda':\n        import ext\n",
    # a default that is no back end's name
    "def f(x, *, path='a/b c'):\n    if path == 'cuda':\n        import ext\n",
    # a loop over back ends rebinds it
    "def f(x, *, backend='auto'):\n    for backend in NAMES:\n        if backend == 'cuda':\n            import ext\n",
    # positional: a caller in another file may pass it unnamed (PIXIE's set_rasterizer(self.rasterizer_type))
    "def set_rasterizer(type='pytorch3d'):\n    if type == 'standard':\n        from .cuda import load\n",
])
def test_what_is_no_switch_or_choice(source: str) -> None:
    assert _switch_facts(source) == []


@pytest.mark.parametrize(("text", "role", "branch", "untaken"), [
    ("custom_cuda", "switches:custom_cuda=False", "then", True),
    ("custom_cuda", "switches:custom_cuda=False", "else", False),
    ("not use_cpu", "switches:use_cpu=True", "then", True),
    ("A.is_cuda and custom_cuda", "switches:custom_cuda=False", "then", True),
    ("A.is_cuda or custom_cuda", "switches:custom_cuda=False", "then", False),
    ("a and not b", "switches:a=True,b=True", "then", True),  # cannot be told: A.is_cuda
    ("backend == 'cuda'", "switches:backend='auto'|'cpu'|'triton'", "then", True),
    ("backend == 'triton'", "switches:backend='auto'|'cpu'|'triton'", "then", False),  # one value takes it
    ("backend != 'cuda'", "switches:backend='auto'|'cpu'|'triton'", "else", True),
    ("backend == 'cuda'", "switches:backend='auto'|'cuda'", "then", False),  # a call in the module asks for it
    ("backend == 'cuda' or x.is_cuda", "switches:backend='auto'", "then", False),  # cannot be told
    ("backend == 'cuda' and fast", "switches:backend='auto',fast=True", "then", True),
])
def test_a_switch_or_choice_branch_is_read_at_the_defaults(text: str, role: str, branch: str, untaken: bool) -> None:
    fact = Fact(kind="parameter_branch", name=branch, line=3, column=5, end_line=4, end_column=1, text=text, role=role)
    assert bool(branches_not_taken({"m.py": [fact]})) is untaken


def test_kernels_only_a_switchs_branch_loads_are_optional(rulebase) -> None:
    """microxcaling: custom_extensions.py load()s the kernels in mx/cpp; only `if custom_cuda:` imports it."""
    data = report("parameter_switch_load", rulebase)
    assert data["summary"]["class"] == "native"
    parts = optional_parts(data)
    assert parts["mx/custom_extensions.py"]["class"] == "minor-adaptation"
    assert "mx/elemwise_ops.py:12" in parts["mx/custom_extensions.py"]["evidence"][0]
    assert parts["mx/cpp/mx.cu"]["class"] == "migration-required"
    assert parts["mx/cpp/mx.cuh"]["class"] == "migration-required"  # the header only the optional sources include


@pytest.mark.parametrize(("path", "old", "new"), [
    ("mx/elemwise_ops.py", "custom_cuda=False", "custom_cuda=True"),  # on by default: every call compiles them
    # reassigned from the tensor: the default says nothing
    ("mx/elemwise_ops.py", 'custom_cuda and round in ("nearest", "floor")', "A.is_cuda"),
    ("mx/elemwise_ops.py", "import torch\n", "import torch\nfrom . import custom_extensions\n"),  # imported always
])
def test_kernels_a_default_call_loads_stay_required(path: str, old: str, new: str, tmp_path: Path, rulebase) -> None:
    tree = copied_tree(CASES / "parameter_switch_load", tmp_path, [(path, old, new)])
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "mx/cpp/mx.cu" not in optional_parts(data)


def test_a_lookup_of_an_option_by_name_is_read_as_that_option() -> None:
    """NVIDIA/BigVGAN's `if self.h.get("use_cuda_kernel", False):`: the text is the attribute read it stands for; a
    module's mapping (`os.environ.get`) and a lookup without a constant fallback are no option reads."""
    found = _facts("import os\nif self.h.get('use_cuda_kernel', False):\n    from k import cuda\n"
                   "if os.environ.get('USE_CUDA', '0') == '1':\n    import cupy\n"
                   "if cfg.get('fp16', default):\n    from apex import amp\n")
    assert [(f.name, f.line, f.text) for f in found] == [("then", 3, "self.h.use_cuda_kernel")]


def test_a_kernel_only_an_option_lookup_loads_is_optional(rulebase) -> None:
    data = report("option_lookup_branch", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["alias_free_activation/cuda/load.py"]
    assert part["class"] == "minor-adaptation"
    assert {f["status"] for f in data["findings"]} == {"optional"}


@pytest.mark.parametrize(("path", "old", "new"), [
    # the option on by default: every run loads the kernel
    ("inference.py", 'action="store_true", default=False', 'action="store_false", default=True'),
    # a key no option of the project declares: what it holds on a default run cannot be told
    ("bigvgan.py", 'self.h.get("use_cuda_kernel", False)', 'self.h.get("use_fused_kernel", False)'),
    # the object's own mapping method, as its own attribute (`self.use_cuda_kernel`), holds no option
    # (options.option_namespace)
    ("bigvgan.py", 'self.h.get("use_cuda_kernel", False)', 'self.get("use_cuda_kernel", False)'),
])
def test_a_kernel_an_option_lookup_takes_by_default_stays_required(path: str, old: str, new: str, tmp_path: Path,
                                                                   rulebase) -> None:
    tree = copied_tree(CASES / "option_lookup_branch", tmp_path, [(path, old, new)])
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "minor-adaptation"


def test_an_option_read_and_an_option_lookup_share_one_namespace_reading() -> None:
    """option_namespace decides both readings: the object itself (`self.fp16`, `self.get("fp16", False)`,
    `cls.get(...)`) holds no option, even where the project declares `--fp16`; `self.opt.fp16`, `self.opt.get(...)` and
    a module's namespace read by attribute (`shared.cmd_opts.fp16`) do; a module's mapping (`os.environ.get`) does not."""
    head = "import os\nfrom modules import shared\np.add_argument('--fp16', action='store_true')\n"
    tests = ["self.fp16", "self.get('fp16', False)", "cls.get('fp16', False)", "os.environ.get('fp16', '') == '1'",
             "self.opt.fp16", "self.opt.get('fp16', False)", "shared.cmd_opts.fp16"]
    found = _facts(head + "".join(f"if {t}:\n    import x{i}\n" for i, t in enumerate(tests)))
    assert [(f.line, f.text) for f in found if f.kind == "option_branch"] == [
        (13, "self.opt.fp16"), (15, "self.opt.fp16"), (17, "shared.cmd_opts.fp16")]


def test_a_choice_of_back_end_is_recorded_with_the_names_it_can_hold() -> None:
    """xgrammar's `backend="auto"`, resolved in the function to "cpu" or "triton": a choice, not a value."""
    found = _switch_facts(
        "def apply(logits, backend='auto'):\n"
        "    if backend == 'auto':\n"
        "        backend = 'triton' if False else 'triton'\n"
        "    if backend == 'cuda':\n"
        "        from .kernels import cuda_kernel\n")
    assert found == []  # a conditional expression is no name: no choice
    found = _switch_facts(
        "def apply(logits, *, backend: str = 'auto'):\n"
        "    if backend == 'auto':\n"
        "        backend = 'cpu'\n"
        "        if logits.is_cuda:\n"
        "            backend = 'triton'\n"
        "    if backend == 'cuda':\n"
        "        from .kernels import cuda_kernel\n")
    assert found == [("then", 7, 7, "backend == 'cuda'", "switches:backend='auto'|'cpu'|'triton'")]


def test_a_kernel_only_a_named_back_end_loads_is_optional(rulebase) -> None:
    """xgrammar: the CUDA kernel's module (load_inline of its twin .cu) is imported only under
    `elif backend == "cuda":`, where "auto" resolves to cpu/triton/torch_compile; a benchmark under examples/ imports
    it too, as a user would."""
    data = report("backend_choice_kernel", rulebase)
    assert data["summary"]["class"] == "native"
    parts = optional_parts(data)
    assert "bitmask/matcher.py:35" in parts["bitmask/kernels/apply_cuda.py"]["evidence"][0]
    assert parts["bitmask/kernels/apply_cuda.cu"]["class"] == "migration-required"
    assert "bitmask/kernels/apply_cuda.py:9" in parts["bitmask/kernels/apply_cuda.cu"]["evidence"][0]


@pytest.mark.parametrize(("path", "old", "new"), [
    # the default names the CUDA back end: every call leaving it alone builds the kernel
    ("bitmask/matcher.py", '= "auto",', '= "cuda",'),
    # "auto" resolved from what the device says, not to a name: the default says nothing
    ("bitmask/matcher.py", 'backend = "triton"', 'backend = logits.device.type'),
    # a call in the module asks for the CUDA back end
    ("bitmask/matcher.py", "    else:\n        raise",
     "    else:\n        apply_token_bitmask_inplace(logits, bitmask, backend=\"cuda\")\n        raise"),
    # the package imports the kernel's module at its top: every import builds it
    ("bitmask/__init__.py", "from .matcher", "from .kernels import apply_cuda\nfrom .matcher"),
])
def test_a_kernel_a_default_call_builds_stays_required(path: str, old: str, new: str, tmp_path: Path, rulebase) -> None:
    tree = copied_tree(CASES / "backend_choice_kernel", tmp_path, [(path, old, new)])
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "bitmask/kernels/apply_cuda.cu" not in optional_parts(data)


def test_a_module_only_examples_import_stays_as_it_was(tmp_path: Path, rulebase) -> None:
    """Near miss: the package's own code does not import the kernel's module at all; only the benchmark under
    examples/ does. No optional scope says the package leaves it out: read as before (the module is required)."""
    tree = _copy("backend_choice_kernel", tmp_path)
    text = (tree / "bitmask/matcher.py").read_text()
    (tree / "bitmask/matcher.py").write_text(text.replace("from .kernels.apply_cuda import",
                                                          "from .kernels.apply_triton import", 1))
    data = scanned(tree, rulebase)
    assert "bitmask/kernels/apply_cuda.py" not in optional_parts(data)


def test_a_package_init_examples_import_stays_required(tmp_path: Path, rulebase) -> None:
    """Near miss (xarray-spatial): the package's own code imports its __init__ only inside a function, tests and
    examples import it at their top. A package's __init__.py is what `import pkg` runs: users import it; it stays
    required, and so does what it imports."""
    tree = _copy("backend_choice_kernel", tmp_path)
    init = tree / "bitmask/__init__.py"
    init.write_text("from .kernels.apply_cuda import apply_token_bitmask_inplace_cuda\n")
    matcher = tree / "bitmask/matcher.py"
    matcher.write_text(matcher.read_text() + "\n\ndef _version():\n    import bitmask\n\n    return bitmask\n")
    bench = tree / "examples/bench_apply_token_bitmask.py"
    bench.write_text("import bitmask\n" + bench.read_text())
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "bitmask/kernels/apply_cuda.cu" not in optional_parts(data)


def test_a_module_a_try_imports_and_examples_import_stays_as_it_was(tmp_path: Path, rulebase) -> None:
    """Near miss: the package imports the kernel's module in a `try:` at its top (loaded at import where it builds);
    examples/ import it too. Only an untaken branch or an uncalled function excuses the examples' import."""
    tree = _copy("backend_choice_kernel", tmp_path)
    init = tree / "bitmask/__init__.py"
    init.write_text(init.read_text() + "try:\n    from .kernels import apply_cuda\nexcept ImportError:\n"
                    "    apply_cuda = None\n")
    matcher = tree / "bitmask/matcher.py"
    matcher.write_text(matcher.read_text().replace("from .kernels.apply_cuda import", "from .kernels.apply_triton import", 1))
    data = scanned(tree, rulebase)
    assert "bitmask/kernels/apply_cuda.py" not in optional_parts(data)
