"""GPU parts a Python project loads only on demand (fixtures/workloads/optional/on_demand_import, jit_build_fallback,
each cut from a real case of batch fresh-2026-12-06q, with near misses): a module imported only in a function nothing
in the project calls (extract/python/on_demand.py, workloads/on_demand.py), and a run-time extension build whose
failure the caller falls back from (extract/python/optional.py is_build_fallback)."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.extract.python.extractor import extract
from tests.test_optional_parts import _copy, optional_parts, report, scanned

LOSS = "main/speechbrain/nnet/loss/transducer_loss.py"
KERNEL = "src/ssm/ops/cuda/layer_norm.cu"


def _uncalled(source: str) -> list[str]:
    return [f.name for f in extract(source.encode()).facts if f.kind == "uncalled_function"]


def test_a_function_its_file_never_names_is_recorded() -> None:
    source = ("def loss(x):\n    from .kernels import k\n    return k(x)\n\n"
              "def again(n):\n    import numba\n    return again(n - 1) if n else numba\n\n"  # recursion is no use
              "def used(x):\n    import cupy\n    return cupy.asarray(x)\n\nresult = used(1)\n\n"
              "def by_name():\n    import cupy\n\nLOSSES = {'x': 'by_name'}\n\n"  # a string naming it: a use
              "@register\ndef registered():\n    import cupy\n\n"  # a decorator may register it
              "def test_kernel():\n    import cupy\n\n"  # pytest calls it
              "def __getattr__(name):\n    from .kernels import k\n    return k\n\n"  # Python calls it (PEP 562)
              "def plain(x):\n    return x\n")  # no import: not recorded
    assert _uncalled(source) == ["loss", "again"]


def test_a_module_only_an_uncalled_function_imports_is_optional(rulebase) -> None:
    """SpeechSeparation: `transducer_loss()` imports the numba.cuda loss in its body; nothing calls it."""
    data = report("on_demand_import", rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)[LOSS]
    assert part["class"] == "migration-required"
    assert "main/speechbrain/nnet/losses.py:11" in part["evidence"][0]


@pytest.mark.parametrize(("path", "old", "new"), [
    # the app imports the function and calls it
    ("main/train.py", "import get_si_snr_with_pitwrapper\n",
     "import get_si_snr_with_pitwrapper, transducer_loss\n"),
    # the app reaches it by an attribute chain of an import
    ("main/train.py", "        return get_si_snr_with_pitwrapper(targets, predictions)",
     "        return sb.nnet.losses.transducer_loss(predictions, targets, 1, 1, 0)"),
    # its own module calls it
    ("main/speechbrain/nnet/losses.py", '    """Calculate SI-SNR."""', '    """Calculate SI-SNR."""\n'
     "    transducer_loss(source, estimate_source, 1, 1, 0)"),
    # a decorator may register it where a configuration picks it
    ("main/speechbrain/nnet/losses.py", "\ndef transducer_loss(", "\n@torch.jit.ignore\ndef transducer_loss("),
    # the module is imported at the top of its importer: loaded with the package
    ("main/speechbrain/nnet/losses.py", "import torch\n",
     "import torch\nfrom speechbrain.nnet.loss.transducer_loss import Transducer\n"),
    # another module binds the module whole by a relative import: its attribute uses leave no fact
    ("main/speechbrain/core.py", "class Brain:", "from .nnet import losses\n\n\nclass Brain:"),
])
def test_a_module_a_called_function_imports_stays_required(path: str, old: str, new: str, tmp_path: Path,
                                                           rulebase) -> None:
    tree = _copy("on_demand_import", tmp_path)
    text = (tree / path).read_text()
    assert old in text
    (tree / path).write_text(text.replace(old, new, 1))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert LOSS not in optional_parts(data)


def test_kernels_a_fallen_back_build_compiles_are_optional(rulebase) -> None:
    """ssm: `try: _CUDA_OPS = load(...)` / `except Exception as exc: _CUDA_LOAD_ERROR = exc; return None`."""
    data = report("jit_build_fallback", rulebase)
    assert data["summary"]["class"] == "native"
    assert {f["status"] for f in data["findings"] if f["path"] == KERNEL} == {"optional"}
    assert any(f["class"] == "migration-required" for f in data["findings"] if f["path"] == KERNEL)


@pytest.mark.parametrize("new", [
    "raise RuntimeError('the CUDA ops failed to build') from exc",  # no fallback: the failure stops the run
    "pass",  # binds nothing in the build's place
])
def test_kernels_a_build_without_fallback_compiles_stay_required(new: str, tmp_path: Path, rulebase) -> None:
    tree = _copy("jit_build_fallback", tmp_path)
    path = tree / "src/ssm/ops/__init__.py"
    text = path.read_text()
    old = "        _CUDA_LOAD_ERROR = exc\n        return None\n"
    assert old in text
    path.write_text(text.replace(old, f"        {new}\n", 1))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "optional" not in {f["status"] for f in data["findings"] if f["path"] == KERNEL}


def test_a_handler_that_catches_no_build_failure_is_no_fallback(tmp_path: Path, rulebase) -> None:
    tree = _copy("jit_build_fallback", tmp_path)
    path = tree / "src/ssm/ops/__init__.py"
    text = path.read_text()
    old = "    except Exception as exc:  # pragma: no cover - build environment specific\n        _CUDA_LOAD_ERROR"
    assert old in text
    path.write_text(text.replace(old, "    except KeyError as exc:\n        _CUDA_LOAD_ERROR", 1))
    assert scanned(tree, rulebase)["summary"]["class"] == "migration-required"


@pytest.mark.parametrize(("name", "text"), [
    ("pyproject.toml", '[project]\nname = "sb"\n[project.scripts]\nsb-loss = "speechbrain.nnet.losses:transducer_loss"\n'),
    ("setup.cfg", "[metadata]\nname = sb\n[options.entry_points]\nconsole_scripts =\n"
                  "    sb-loss = speechbrain.nnet.losses:transducer_loss\n"),
    ("setup.py", "from setuptools import setup\nsetup(name='sb', entry_points={'console_scripts': "
                 "['sb-loss=speechbrain.nnet.losses:transducer_loss']})\n"),
])
def test_a_function_an_entry_point_names_is_called(name: str, text: str, tmp_path: Path, rulebase) -> None:
    """An installed script calls the function its entry point names (pyproject, setup.cfg, setup.py), from
    outside the project's files: what it imports is not loaded on demand only."""
    tree = _copy("on_demand_import", tmp_path)
    (tree / "main" / name).write_text(text)
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert LOSS not in optional_parts(data)
    other = text.replace("transducer_loss", "get_si_snr_with_pitwrapper")  # a script of another function
    (tree / "main" / name).write_text(other)
    assert LOSS in optional_parts(scanned(tree, rulebase))
