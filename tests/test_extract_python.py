"""The Python extractor: resolved names, nvidia-smi, capability checks, embedded CUDA, notebooks."""
from __future__ import annotations

import json
import textwrap

from migrate.extract.python import extractor as python_ast
from migrate.extract.python import notebook


def facts(source: str):
    return python_ast.extract(textwrap.dedent(source).encode()).facts


def test_attribute_chains_resolve_through_aliases() -> None:
    got = {(f.name, f.role, f.line) for f in facts('''
        import torch as th
        from torch.utils.cpp_extension import load_inline as li
        v = th.version.cuda
        li(name="x", cpp_sources="")
        obj.version.cuda
    ''') if f.kind == "python_attr"}
    assert ("torch.version.cuda", "value", 4) in got
    assert ("torch.utils.cpp_extension.load_inline", "call", 5) in got
    assert not any(name.endswith("version.cuda") and line == 6 for name, _, line in got)


def test_docstrings_comments_and_strings_are_not_facts() -> None:
    got = facts('''
        """Uses torch.version.cuda and nvidia-smi."""
        import torch
        # torch.version.cuda
        msg = "run nvidia-smi and check torch.version.cuda"
    ''')
    assert [f.name for f in got] == ["torch"]


def test_nvidia_smi_and_capability_checks() -> None:
    got = {(f.name, f.line) for f in facts('''
        import subprocess, torch
        from subprocess import check_output
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True)
        check_output("nvidia-smi --query-gpu=name --format=csv", shell=True)
        if torch.cuda.get_device_capability() >= (8, 0):
            pass
        major, minor = torch.cuda.get_device_capability()
        if major >= 9:
            pass
        if torch.cuda.get_device_properties(0).major < 8:
            pass
    ''') if f.kind == "construct"}
    # bounds below 9 are capability-floor: every ROCm GPU reports 9.0 or higher (no rule reports them)
    assert got == {("subprocess-nvidia-smi", 4), ("subprocess-nvidia-smi", 5), ("capability-floor", 6),
                   ("capability-compare", 9), ("capability-floor", 11)}


def test_embedded_cuda_points_at_python_lines() -> None:
    src = textwrap.dedent('''\
        import cupy as cp

        _SRC = r"""
        extern "C" __global__ void k(float* x) {
            int lane = threadIdx.x & 31;
            x[0] = __shfl_down_sync(0xffffffff, x[0], 16);
        }
        """
        kernel = cp.RawKernel(_SRC, "k")
        mod = cp.RawModule(code="__global__ void j() { cudaDeviceSynchronize(); }")
        ''')
    got = {(f.name, f.line, f.column) for f in python_ast.extract(src.encode()).facts if f.kind != "python_import"}
    assert ("kernel-definition", 4, 28) in got
    assert ("lane-arith-32", 5, 16) in got
    assert ("lane-mask-32", 6, 29) in got
    line10 = src.split("\n")[9]
    assert ("cudaDeviceSynchronize", 10, line10.index("cudaDeviceSynchronize") + 1) in got


def test_load_inline_sources_list_and_escaped_strings() -> None:
    src = textwrap.dedent('''\
        from torch.utils.cpp_extension import load_inline
        cuda_src = "__global__ void k() {}\\nvoid launch() { k<<<1, 1>>>(); }"
        load_inline(name="m", cpp_sources=[""], cuda_sources=[cuda_src])
        ''')
    extraction = python_ast.extract(src.encode())
    got = {(f.name, f.line) for f in extraction.facts if f.kind == "construct"}
    assert got == {("kernel-definition", 2), ("kernel-launch", 2)}
    assert any("escapes" in n for n in extraction.notes)


def test_syntax_error_is_reported() -> None:
    extraction = python_ast.extract(b"def f(:\n  pass\n")
    assert extraction.error == "Python syntax error at line 1: invalid syntax"


def test_notebook_cells_are_located_by_cell_and_line() -> None:
    nb = {"cells": [
        {"cell_type": "markdown", "source": ["torch.version.cuda in prose"]},
        {"cell_type": "code", "source": ["!nvidia-smi\n", "import torch\n", "print(torch.version.cuda)"]},
        {"cell_type": "code", "source": "def broken(:\n"},
    ], "nbformat": 4}
    extraction = notebook.extract(json.dumps(nb).encode())
    got = {(f.name, f.cell, f.line) for f in extraction.facts}
    assert got == {("subprocess-nvidia-smi", 2, 1), ("torch", 2, 2), ("torch.version.cuda", 2, 3)}
    assert any(n.startswith("cell 3: Python syntax error") for n in extraction.notes)


def test_notebook_cells_share_one_namespace() -> None:
    """datawhalechina/llm-algo-leetcode 04_CUDA_and_System_Optimization/15_CUDA_Custom_Kernel_Intro.ipynb (cut): cell 1
    imports load_inline, a later cell calls it with CUDA source from the cell between; a name a project's own module
    gives (the near miss) stays unresolved."""
    def cells(*sources: str) -> bytes:
        return json.dumps({"cells": [{"cell_type": "code", "source": s} for s in sources], "nbformat": 4}).encode()

    kernel = 'src = """\n__global__ void add(float* x) { x[threadIdx.x] += 1; }\n"""\n'
    call = "ext = load_inline(name='add', cpp_sources='', cuda_sources=src)\n"
    got = {(f.name, f.cell, f.line) for f in notebook.extract(cells(
        "import torch\nfrom torch.utils.cpp_extension import load_inline\n", kernel, call)).facts
        if f.name in ("torch.utils.cpp_extension.load_inline", "kernel-definition")}
    assert got == {("torch.utils.cpp_extension.load_inline", 3, 1), ("kernel-definition", 2, 2)}
    near = notebook.extract(cells("from course_tools import load_inline\n", kernel, call)).facts
    assert not any(f.name.startswith("torch.") or f.name == "kernel-definition" for f in near)


def test_compared_and_printed_names_have_their_own_roles() -> None:
    got = [(f.line, f.role) for f in facts('''
        import logging, torch
        log = logging.getLogger(__name__)
        x = torch.zeros(2).to(torch.float8_e4m3fn)
        ref = torch.bfloat16 if dtype == torch.float8_e4m3fn else dtype
        ok = dtype in (torch.float8_e4m3fn, torch.float8_e5m2)
        print(f"CUDA {torch.version.cuda}")
        log.info("CUDA %s", torch.version.cuda)
        if torch.version.cuda is None:
            pass
        print(torch.cuda.get_device_name())
    ''') if f.kind == "python_attr" and f.name.startswith(("torch.float8", "torch.version", "torch.cuda.get"))]
    assert got == [(4, "value"), (5, "compare"), (6, "compare"), (6, "compare"), (7, "message"), (8, "message"),
                   (9, "compare"), (11, "call")]


def test_the_arguments_of_a_raised_exception_are_its_message() -> None:
    """harleyszhang/lite_llama lite_llama/executor/loader.py:179: the version in an error's text decides nothing (the
    exception's arguments are its message); the test that raises it still does. Near miss: a call that is not raised."""
    got = [(f.line, f.role) for f in facts('''
        import torch
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise RuntimeError(f"torch=={torch.__version__} (cuda={torch.version.cuda})")
        if torch.version.cuda is None:
            raise RuntimeError("no CUDA")
        check(torch.version.cuda)
    ''') if f.kind == "python_attr" and f.name == "torch.version.cuda"]
    assert got == [(4, "message"), (5, "compare"), (7, "value")]


def test_architecture_option_strings() -> None:
    got = {(f.line, f.text) for f in facts('''
        opts = ("--gpu-architecture=compute_80", b"-arch=sm_90a", "-std=c++17")
        arch = f"-arch=sm_{cc}"
        help = "pass -arch=sm_80 to nvcc"
        setup(ext_modules=[CUDAExtension("k", ["k.cu"], extra_compile_args={"nvcc": ["-arch=sm_80"]})])
        def test_flags():
            assert args == ["-gencode=arch=compute_80,code=sm_80"]
    ''') if f.name == "cuda-arch-option"}
    assert got == {(2, "--gpu-architecture=compute_80"), (2, "-arch=sm_90a"), (3, "-arch=sm_")}


def test_extension_sources_walked_from_a_folder() -> None:
    """Pointcept's libs/pointops/setup.py: the sources are every .cpp/.cu os.walk finds under src/."""
    got = [f.text for f in facts('''
        import os
        from setuptools import setup
        from torch.utils.cpp_extension import CUDAExtension
        src = "src"
        sources = [os.path.join(root, file) for root, dirs, files in os.walk(src) for file in files
                   if file.endswith(".cpp") or file.endswith(".cu")]
        everything = [os.path.join(r, f) for r, _, fs in os.walk("csrc") for f in fs]
        setup(ext_modules=[CUDAExtension(name="pointops._C", sources=sources),
                           CUDAExtension("all", everything), CUDAExtension("other", [f for f in names])])
    ''') if f.kind == "extension"]
    assert got == ["glob:src/*.cpp\nglob:src/*.cu", "glob:csrc/*", ""]


def test_a_rocm_home_import_counts_only_where_the_module_reads_it() -> None:
    """MinkowskiEngine's tests/cpp/setup.py imports ROCM_HOME and never reads it: no ROCm path."""
    unused = [f for f in facts('''
        from torch.utils.cpp_extension import CUDA_HOME, ROCM_HOME
        print(CUDA_HOME)
    ''') if f.kind == "rocm_path"]
    used = [f.text for f in facts('''
        from torch.utils.cpp_extension import ROCM_HOME
        flags = ["-DUSE_ROCM"] if ROCM_HOME else []
    ''') if f.kind == "rocm_path"]
    assert unused == [] and "from torch.utils.cpp_extension import ROCM_HOME" in used


def test_extension_sources_grown_and_the_extension_picked_into_a_variable() -> None:
    got = [(f.name, f.text) for f in facts('''
        import glob
        from torch.utils.cpp_extension import CppExtension, CUDAExtension
        sources = glob.glob("csrc/*.cpp")
        extension = CppExtension
        if cuda:
            extension = CUDAExtension
            sources += glob.glob("csrc/**/*.cu", recursive=True)
        sources.append("csrc/extra.cu")
        sources.extend(["csrc/more.cu"])
        ext = extension(name="pkg._C", sources=sources)
        fresh = ["a.cu"]
        fresh = ["b.cu"]
        other = CUDAExtension("other", fresh)
        unrelated = sorted(names)(1)
    ''') if f.kind == "extension"]
    assert got == [("_C", "glob:csrc/*.cpp\nglob:csrc/**/*.cu\ncsrc/extra.cu\ncsrc/more.cu"), ("other", "b.cu")]


# fused-ssim's setup.py shape: a helper with one return (followed) and one with two (which one a build takes is unknown)
SSIM_HELPERS = '''
        from torch.utils.cpp_extension import CppExtension, CUDAExtension
        def pick():
            if hip:
                return CppExtension, ["ssim_hip.cpp"]
            return CUDAExtension, ["ssim.cu", "ext.cpp"]
        def backend():
            return CUDAExtension, ["ssim.cu", "ext.cpp"]
'''


def test_extension_class_and_sources_returned_by_a_helper_of_the_file() -> None:
    got = [(f.name, f.text) for f in facts(SSIM_HELPERS + '''
        ext_cls, srcs = backend()
        a, b, c = backend()
        setup(ext_modules=[ext_cls(name="fused_ssim_cuda", sources=srcs)])
    ''') if f.kind == "extension"]
    assert got == [("fused_ssim_cuda", "ssim.cu\next.cpp")]


def test_a_source_list_filtered_by_a_comprehension_of_itself_keeps_its_files() -> None:
    """splatad-style setup.py: `sources = glob(...) + glob(...)`, then `sources = [p for p in sources if "hip" not in p]`."""
    got = [f.text for f in facts('''
        import glob
        from torch.utils.cpp_extension import CUDAExtension
        sources = glob.glob("csrc/*.cu") + glob.glob("csrc/*.cpp")
        sources = [path for path in sources if "hip" not in path]
        others = [path for path in names if path]
        ext = CUDAExtension("k", sources)
        other = CUDAExtension("o", others)
    ''') if f.kind == "extension"]
    # `others` cannot be followed: a list that names no .cu in a file that globs its sources is taken as
    # those patterns (maskrcnn-benchmark's `[join(extensions_dir, s) for s in sources]`)
    assert got == ["glob:csrc/*.cu\nglob:csrc/*.cpp", "glob:csrc/*.cu\nglob:csrc/*.cpp"]


def test_a_helper_with_several_returns_is_not_unpacked() -> None:
    """The near miss of the helper above, called: which of its returns a build takes is unknown."""
    got = [(f.name, f.text) for f in facts(SSIM_HELPERS + '''
        p_cls, p_srcs = pick()
        ext_cls, srcs = backend()
        setup(ext_modules=[p_cls(name="picked", sources=p_srcs), ext_cls(name="fused_ssim_cuda", sources=srcs)])
    ''') if f.kind == "extension"]
    assert got == [("fused_ssim_cuda", "ssim.cu\next.cpp")]


def test_an_nvidia_tool_run_from_a_command_string_or_argv_list() -> None:
    """trtexec built as a command line in Python (jetson_benchmarks, nanoowl, trt-samples) is the run a shell
    script reports; prose naming it, a path check and a list of tool names are not."""
    got = [(f.line, f.name, f.text) for f in facts('''
        import os, subprocess
        os.system("trtexec --onnx=" + d + "/m.onnx --fp16")
        cmd = str('./trtexec' + " " + base + " " + fmt)
        args = ["/usr/src/tensorrt/bin/trtexec"]
        command = ["trtexec", f"--loadEngine={e}"]
        subprocess.run(f"trtexec --onnx={p}", shell=True)
        subprocess.run(("nsys", "profile", script))
        log.warning("trtexec failed with code %d", 3)
        x = "trtexec" + "-style summary"
        tools = ["nsys", "ncu"]
        ok = os.path.isfile('/usr/src/tensorrt/bin/trtexec')
    ''') if f.kind == "manifest"]
    assert got == [(3, "tool:trtexec", "trtexec"), (4, "tool:trtexec", "./trtexec"),
                   (5, "tool:trtexec", "/usr/src/tensorrt/bin/trtexec"), (6, "tool:trtexec", "trtexec"),
                   (7, "tool:trtexec", "trtexec"), (8, "tool:nsys", "nsys")]
