"""CUDA C a Python host compiles at run time: the host runtime decides the step (docs/decisions/
2026-12-06-s25-runtime-compiled-hosts.md). CuPy's compile calls and torch's load_inline have ROCm paths of their own
(a minor adaptation); PyCUDA has none, its host code is ported onto hip-python (migration-required, not
incompatible); the kernels' own findings keep their class."""
from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

from migrate.extract.python import extractor as python_ast
from tests.conftest import ROOT, run_cli, write_tree

INLINE_TREE = ROOT / "fixtures" / "trees" / "torch_inline_file"


def facts(source: str):
    found, _notes = python_ast.extract_text(textwrap.dedent(source))
    return found


def scan(tree: Path) -> dict:
    result = run_cli("scan", str(tree), "--format", "json", "--no-cache", "--no-hipify")
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def owners(report: dict) -> dict[str, dict]:
    return {path: w for w in report["workloads"] for path in w["files"]}


def test_a_cuda_file_read_in_a_module_that_compiles_at_run_time_is_its_source() -> None:
    """gpu-auralization: `cuda_src = open(cuda_code_path).read()` at import, passed to load_inline by a function
    whose parameter has the same name; the path is a name assigned before the read."""
    found = facts((INLINE_TREE / "src" / "partitioned_convolution.py").read_text())
    assert [(f.name, f.line) for f in found if f.kind == "runtime_source"] == [("kernel.cu", 20)]


def test_a_cuda_file_read_or_written_without_a_run_time_compiler_is_not_one() -> None:
    """Near misses: a module that only reads a .cu file's text (no run-time compiler in it), and one that compiles
    at run time but writes the .cu file it names (a generated source for a build, not a read)."""
    text_only = """
        import os
        KERNEL = open(os.path.join(os.path.dirname(__file__), "kernel.cu")).read()
    """
    written = """
        from torch.utils.cpp_extension import load_inline
        with open("generated.cu", "w") as out:
            out.write("// generated")
        mod = load_inline(name="x", cpp_sources=[""], cuda_sources=[""])
    """
    assert not [f for f in facts(text_only) + facts(written) if f.kind == "runtime_source"]


def test_cupy_compiling_given_source_is_a_construct_loading_a_built_module_is_not() -> None:
    """HIP6052's construct: RawKernel(code, name), RawModule(code=...), compile_with_cache(source); cusignal's
    RawModule(path=...) loads a module built elsewhere (its own gpu-module reading)."""
    found = facts("""
        import cupy as cp
        a = cp.RawKernel(SOURCE, "k")
        b = cp.RawModule(code=SOURCE)
        c = cp.cuda.compile_with_cache(SOURCE)
        d = cp.RawModule(path="kernels/_scale.fatbin")
    """)
    assert [(f.line, f.text) for f in found if f.name == "cupy-runtime-compile"] == [
        (3, "cupy.RawKernel"), (4, "cupy.RawModule"), (5, "cupy.cuda.compile_with_cache")]


def test_a_run_time_compile_of_an_optional_import_is_optional() -> None:
    """sar-radar's shape: `try: import cupy` / `except ImportError` with a NumPy fallback: the compile call runs only
    where CuPy imports, like the import itself; the same call under a plain import is required."""
    guarded = facts("""
        try:
            import cupy as cp
        except ImportError:
            cp = None

        def backproject(code):
            return cp.RawKernel(code, "bp")
    """)
    plain = facts("import cupy as cp\n\ndef backproject(code):\n    return cp.RawKernel(code, 'bp')\n")
    assert {f.guard for f in guarded if f.name == "cupy-runtime-compile"} == {"optional"}
    assert {f.guard for f in plain if f.name == "cupy-runtime-compile"} == {None}


def test_the_same_cuda_file_handed_to_pycuda_is_ported_with_its_host(tmp_path: Path) -> None:
    """Near miss of torch_inline_file: PyCUDA's SourceModule gets the file (gpu-ocean's shape). PyCUDA has no ROCm
    build, so the file is no runtime-compiled workload and the project is migration-required."""
    tree = shutil.copytree(INLINE_TREE, tmp_path / "tree")
    (tree / "src" / "partitioned_convolution.py").write_text(
        "import os\nimport pycuda.autoinit\nfrom pycuda.compiler import SourceModule\n\n"
        "path = os.path.join(os.path.dirname(__file__), 'kernel.cu')\n"
        "module = SourceModule(open(path).read(), no_extern_c=True)\n")
    report = scan(tree)
    assert owners(report)["src/kernel.cu"]["kind"] != "runtime-compiled"
    assert report["summary"]["class"] == "migration-required"


def test_a_pycuda_requirement_is_a_port_not_incompatible(tmp_path: Path) -> None:
    """gpu-ocean (123a59a): requirements.txt names pycuda and the simulators compile .cu kernels through it. The
    requirement is HIP7021 (migration-required: hip-python is the counterpart); an NVIDIA-only package beside it
    (TensorRT, HIP7005) still decides incompatible."""
    tree = write_tree(tmp_path / "ocean", {
        "requirements.txt": "pycuda\nnumpy\n",
        "sim/run.py": "import pycuda.driver as cuda\nfrom pycuda.compiler import SourceModule\n"})
    report = scan(tree)
    assert {f["rule"] for f in report["findings"] if f["symbol"] == "pycuda"} == {"HIP7021"}
    assert report["summary"]["class"] == "migration-required"
    (tree / "requirements.txt").write_text("pycuda\ntensorrt==10.0.1\n")
    assert scan(tree)["summary"]["class"] == "incompatible"


def test_cupy_compiling_a_kernel_built_in_another_function_is_a_minor_adaptation(tmp_path: Path) -> None:
    """sepconv (sniklaus/pytorch-sepconv): the kernel text comes through a parameter from a template filled
    elsewhere, so no kernel is traced; the compile call alone says CuPy's ROCm build is needed. Near miss: the
    same project with the CuPy call removed (array code only) stays native."""
    launch = ("import cupy\nimport torch\n\n@cupy.memoize(for_each_device=True)\n"
              "def cupy_launch(strFunction, strKernel):\n"
              "    return cupy.cuda.compile_with_cache(strKernel).get_function(strFunction)\n")
    tree = write_tree(tmp_path / "sep", {"requirements.txt": "torch\ncupy\n", "sepconv/sepconv.py": launch})
    assert scan(tree)["summary"]["class"] == "minor-adaptation"
    (tree / "sepconv" / "sepconv.py").write_text("import cupy\n\ndef ones(n):\n    return cupy.ones(n)\n")
    assert scan(tree)["summary"]["class"] == "native"
