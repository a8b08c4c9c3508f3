"""Torch extensions whose source lists a setup file builds where the extractor cannot follow them
(fixtures/workloads/torch_ext_named): the source file names the file spells are the extension's, so PyTorch's
ROCm build hipifies them (minor-adaptation), through the real CLI; near misses keep what they had."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from migrate.extract.python.extractor import extract
from tests.conftest import ROOT, run_cli

CASE = ROOT / "fixtures" / "workloads" / "torch_ext_named"


def scan(tree: Path) -> dict:
    result = run_cli("scan", str(tree), "--format", "json", "--no-cache", "--no-hipify")
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def extension_sources(source: str) -> list[str]:
    return [f.text for f in extract(source.encode()).facts if f.kind == "extension"]


def test_sources_named_where_the_list_cannot_be_followed_are_hipified_with_the_extension() -> None:
    report = scan(CASE)
    kinds = {p: w["kind"] for w in report["workloads"] for p in w["files"]}
    assert kinds["ops/src/scatter_cuda.cu"] == kinds["chamfer/chamfer2D.cu"] == "torch-extension"
    assert report["summary"]["class"] == "minor-adaptation"
    kernels = {f["class"] for f in report["findings"] if f["path"].endswith(".cu")}
    assert kernels == {"minor-adaptation"}


def test_a_helper_parameter_joined_in_a_comprehension_names_the_call_sites_files() -> None:
    text = (CASE / "ops" / "setup.py").read_text()
    assert extension_sources(text) == ["glob:**/src/scatter.cpp\nglob:**/src/scatter_cuda.cu"]


def test_a_list_that_can_be_followed_takes_no_other_names_of_the_file() -> None:
    # near miss: the list is literal; a test file's name elsewhere in setup.py is not a source
    text = ('from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n'
            'TESTS = ["tests/bench_scatter.cu"]\n'
            'setup(name="s", ext_modules=[CUDAExtension("s._C", ["src/scatter.cpp", "src/scatter_cuda.cu"])])\n')
    assert extension_sources(text) == ["src/scatter.cpp\nsrc/scatter_cuda.cu"]


def test_an_unknown_list_with_no_source_names_stays_unknown(tmp_path: Path) -> None:
    # near miss: nothing in the file names a source, so the extension's sources stay unknown (no guess)
    text = ('from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n'
            'def ext(name, sources):\n    return CUDAExtension(name, [s for s in sources])\n'
            'setup(name="s", ext_modules=[ext("s._C", SOURCES)])\n')
    assert extension_sources(text) == [""]
    tree = tmp_path / "ops"
    shutil.copytree(CASE / "ops", tree)
    (tree / "setup.py").write_text(text)
    kinds = {p: w["kind"] for w in scan(tree)["workloads"] for p in w["files"]}
    assert kinds["src/scatter_cuda.cu"] != "torch-extension"
