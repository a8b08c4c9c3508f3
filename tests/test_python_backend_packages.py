"""A CUDA back end that is a Python package beside portable ones (fixtures/workloads/optional/python_backend_package*,
cut from candle-org/candle): where its CUDA code runs only when called (function bodies), importing it loads nothing
of CUDA, so the back end is picked at run time and is an optional part; one that loads CUDA at import, or holds a
kernel, is required as before."""
from __future__ import annotations

from migrate.extract.python.extractor import extract
from tests.test_optional_parts import optional_parts, report, statuses_of

RUNTIME = "src/candle/_backends/cuda/runtime.py"
PART = "src/candle/_backends/cuda (chosen at run time)"


def test_a_back_end_package_whose_cuda_runs_when_called_is_optional(rulebase) -> None:
    data = report("python_backend_package", rulebase)
    assert statuses_of(data, RUNTIME) == {"optional"}
    assert optional_parts(data)[PART]["class"] == "migration-required"
    assert data["summary"]["class"] == "native"


def test_a_back_end_package_that_loads_cuda_at_import_is_required(rulebase) -> None:
    data = report("python_backend_package_at_import", rulebase)
    assert statuses_of(data, RUNTIME) == {""}
    assert PART not in optional_parts(data)
    assert data["summary"]["class"] == "migration-required"


def test_a_back_end_package_holding_a_kernel_is_no_run_time_choice(rulebase) -> None:
    data = report("python_backend_package_kernels", rulebase)
    assert statuses_of(data, RUNTIME) == {""}
    assert PART not in optional_parts(data)


def test_deferred_bodies_are_the_bodies_of_functions_and_methods() -> None:
    source = ("import ctypes\n"
              "LIB = ctypes.CDLL('libcudart.so')\n"
              "def load():\n"
              "    return ctypes.CDLL('libcudart.so')\n"
              "class Runtime:\n"
              "    lib = None\n"
              "    def bind(self):\n"
              "        self.lib = load()\n"
              "def one_line(): return 1\n")
    found = [(f.name, f.line, f.end_line) for f in extract(source.encode()).facts if f.kind == "deferred_body"]
    assert found == [("load", 4, 4), ("bind", 8, 8)]  # not line 2 (import time), nor a body on its def's line
