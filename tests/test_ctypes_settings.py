"""A CUDA runtime or driver opened with ctypes only to set a device limit or read a version or device count
(`cuda-library-settings`, HIP6056) is a local edit to Python, minor-adaptation; a handle that calls anything else or
leaves the module's sight stays a binding (HIP6033, migration-required). Fixtures: fixtures/rules/HIP6056 (cut from
nvidia-cosmos/cosmos-predict2.5 and NeptuneHub/AudioMuse-AI); docs/decisions/2026-12-08-s35-ctypes-device-settings.md."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT, scan_tree, write_tree

FIXTURES = ROOT / "fixtures" / "rules" / "HIP6056"


def project(tmp_path: Path, module: str) -> Path:
    """A PyTorch training package whose distributed set-up is `module`."""
    return write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "trainer/__init__.py": "",
        "trainer/distributed.py": module,
        "trainer/train.py": "import torch\nfrom trainer import distributed\n\n\ndef main():\n    distributed.init()\n"
                            "    return torch.zeros(1, device='cuda')\n",
    })


def test_a_device_limit_through_ctypes_is_a_minor_adaptation(tmp_path: Path, rulebase) -> None:
    data = scan_tree(project(tmp_path, (FIXTURES / "bad.py").read_text()), rulebase)
    assert {f["rule"] for f in data["findings"] if f["path"] == "trainer/distributed.py"} == {"HIP6056"}
    assert data["summary"]["class"] == "minor-adaptation"


def test_a_handle_that_also_allocates_is_a_binding(tmp_path: Path, rulebase) -> None:
    """Near miss: the same handle calls cudaMalloc, and another is returned to callers: both bind the runtime."""
    data = scan_tree(project(tmp_path, (FIXTURES / "good.py").read_text()), rulebase)
    rules = [f["rule"] for f in data["findings"] if f["path"] == "trainer/distributed.py"]
    assert rules.count("HIP6033") == 3 and "HIP6056" not in rules
    assert data["summary"]["class"] == "migration-required"


def test_many_library_loads_read_the_module_once() -> None:
    """2000 loads of the CUDA runtime in one file (118 kB): each load walked the whole tree twice (187 s); the tree's
    parents and names are gathered once a module. Same constructs: every load's handle is stored again by the next,
    so none is a settings-only load."""
    import time

    from migrate.extract import EXTRACTORS

    source = ("import ctypes\n" + 'h = ctypes.CDLL("libcudart.so")\nh.cudaRuntimeGetVersion(v)\n' * 2000).encode()
    started = time.perf_counter()
    facts = EXTRACTORS["python"](source).facts
    assert time.perf_counter() - started < 20
    assert {f.name for f in facts if f.kind == "construct"} == {"cuda-library-load"}
    assert sum(f.name == "cuda-library-load" for f in facts) == 2000


def test_a_settings_only_handle_is_read_with_others_in_the_module() -> None:
    from migrate.extract import EXTRACTORS

    source = (b'import ctypes\nh = ctypes.CDLL("libcudart.so")\nh.cudaRuntimeGetVersion(v)\n'
              b'lib = ctypes.CDLL("libcublas.so")\nlib.cublasCreate(p)\n'
              b'ctypes.CDLL("libcudart.so").cudaDeviceSetLimit(1, 2)\n')
    assert [(f.line, f.name) for f in EXTRACTORS["python"](source).facts if f.kind == "construct"] == [
        (2, "cuda-library-settings"), (4, "cuda-library-load"), (6, "cuda-library-settings")]
