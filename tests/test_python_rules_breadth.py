"""The Python extractor's HIP guards and NVIDIA-specific constructs, fact by fact."""
from __future__ import annotations

import textwrap

import pytest
from migrate.extract.python import extractor as python_ast


def facts(source: str):
    return python_ast.extract(textwrap.dedent(source).encode()).facts


def guards(source: str, name: str = "torch.version.cuda") -> dict[int, str | None]:
    """line -> guard label of every fact with this name."""
    return {f.line: f.guard for f in facts(source) if f.name == name}


@pytest.mark.parametrize("test, body, orelse", [
    ("torch.version.hip", "hip", "cuda"),
    ("torch.version.hip is not None", "hip", "cuda"),
    ("torch.version.hip is None", "cuda", "hip"),
    ("not torch.version.hip", "cuda", "hip"),
    ("IS_HIP_EXTENSION", "hip", "cuda"),
    ("is_hip()", "hip", "cuda"),
    ("not is_hip()", "cuda", "hip"),
    ("current_platform.is_rocm()", "hip", "cuda"),
    ("current_platform.is_amd()", "hip", "cuda"),
    ('triton.runtime.driver.active.get_current_target().backend == "hip"', "hip", "cuda"),
    ('triton.runtime.driver.active.get_current_target().backend != "hip"', "cuda", "hip"),
    ("torch.cuda.is_available() and torch.version.hip", "hip", "cuda"),
    ("IS_ROCM", "hip", "cuda"),
    ("IS_CUDA", "cuda", "hip"),
    ("use_rocm_kernels()", "hip", "cuda"),
    ('backend == "rocm"', "hip", "cuda"),
])
def test_both_branches_of_a_hip_test_are_guarded(test: str, body: str, orelse: str) -> None:
    got = guards(f'''
        import torch, triton
        from torch.utils.cpp_extension import IS_HIP_EXTENSION
        from vllm.platforms import current_platform
        IS_ROCM = torch.version.hip is not None
        IS_CUDA = torch.version.hip is None
        if {test}:
            a = torch.version.cuda
        else:
            b = torch.version.cuda
        def is_hip():
            return False
        def use_rocm_kernels():
            return bool(torch.version.hip)
    ''')
    assert got == {8: body, 10: orelse}


def test_unrelated_tests_and_code_after_them_are_not_guarded() -> None:
    got = guards('''
        import torch
        IS_ROCM = False
        if torch.cuda.is_available():
            a = torch.version.cuda
        if IS_ROCM:
            b = torch.version.cuda
        c = torch.version.cuda
    ''')
    assert got == {5: None, 7: None, 8: None}


def test_early_return_guards_the_rest_of_the_block() -> None:
    got = guards('''
        import torch
        def f():
            if torch.version.hip:
                return "rocm"
            a = torch.version.cuda
            for _ in range(2):
                b = torch.version.cuda
            return a
        def g():
            if torch.version.hip:
                raise RuntimeError("ROCm is not supported")
            return torch.version.cuda
        h = torch.version.cuda
    ''')
    assert got == {6: "cuda", 8: "cuda", 13: None, 14: None}


def test_ternaries_and_boolean_fallbacks_are_guarded() -> None:
    got = guards('''
        import torch
        tag = "rocm" if torch.version.hip else torch.version.cuda
        version = torch.version.hip or torch.version.cuda
    ''')
    assert got == {3: "cuda", 4: "hip"}


def constructs(source: str) -> set[tuple[str, int, str]]:
    return {(f.name, f.line, f.text) for f in facts(source) if f.kind == "construct"}


def test_nvidia_smi_through_variables_and_asyncio() -> None:
    got = constructs('''
        import asyncio, subprocess, shutil
        QUERY = ["nvidia-smi", "--query-gpu=name", "--format=csv"]
        subprocess.run(QUERY, capture_output=True)
        async def f():
            await asyncio.create_subprocess_exec("nvidia-smi", "-L")
        shutil.which("nvidia-smi")
        subprocess.run(["amd-smi", "list"])
    ''')
    assert got == {("subprocess-nvidia-smi", 4, "nvidia-smi"), ("subprocess-nvidia-smi", 6, "nvidia-smi")}


def test_numba_kernels_in_every_spelling() -> None:
    got = constructs('''
        from numba import cuda, vectorize, guvectorize
        SIG = "void(float32[:])"
        def f(x): return x
        k1 = cuda.jit(f)
        k2 = cuda.jit(SIG)(f)
        k3 = cuda.reduce(lambda a, b: a + b)
        @cuda.jit(SIG)
        def k4(x): pass
        @vectorize(["float32(float32)"], target="cuda")
        def k5(x): return x
        @vectorize(["float32(float32)"], target="cpu")
        def k6(x): return x
        @cuda.reduce
        def k7(a, b): return a + b
    ''')
    assert got == {("numba-cuda-kernel", 5, "f"), ("numba-cuda-kernel", 6, "f"), ("numba-cuda-kernel", 7, "lambda"),
                   ("numba-cuda-kernel", 8, "k4"), ("numba-cuda-kernel", 10, "k5"), ("numba-cuda-kernel", 14, "k7")}


def test_triton_inline_asm_reports_the_call_and_the_ptx() -> None:
    got = {(f.kind, f.line, f.name) for f in facts('''
        import triton.language as tl
        ASM = "cvt.rn.f16x2.f32 $0, $2, $1;"
        def k(x, y):
            a = tl.inline_asm_elementwise(ASM, "=r,r,r", [x, y], dtype=tl.int32, is_pure=True, pack=1)
            b = tl.inline_asm_elementwise("v_cvt_pk_bf16_f32 $0, $1, $2", "=v,v,v", [x, y], dtype=tl.int32,
                                          is_pure=True, pack=1)
            return tl.inline_asm_elementwise(asm=make_asm(), constraints="=r,r", args=[x], dtype=tl.float32,
                                             is_pure=True, pack=1)
    ''') if f.kind in ("asm", "construct")}
    assert got == {("asm", 3, "cvt.rn.f16x2.f32 $0, $2, $1;"), ("construct", 5, "triton-inline-asm"),
                   ("construct", 8, "triton-inline-asm")}


def test_provider_strings_count_only_where_onnxruntime_takes_them() -> None:
    got = constructs('''
        import onnxruntime as ort
        P = ["CUDAExecutionProvider"]
        ort.InferenceSession("m.onnx", providers=P)
        NAMES = ["TensorrtExecutionProvider"]
        print("CUDAExecutionProvider")
        ok = "CUDAExecutionProvider" in ort.get_available_providers()
        ok2 = "CUDAExecutionProvider" in NAMES
    ''')
    assert got == {("onnxruntime-nvidia-provider", 3, "CUDAExecutionProvider"),
                   ("onnxruntime-nvidia-provider", 7, "CUDAExecutionProvider")}


def test_environment_variables_become_os_environ_attributes() -> None:
    got = {(f.name, f.line) for f in facts('''
        import os
        from os import environ, getenv
        a = os.environ.get("CUDA_HOME", "/usr/local/cuda")
        b = os.environ["CUDA_PATH"]
        c = getenv("TORCH_CUDA_ARCH_LIST")
        environ["TORCH_CUDA_ARCH_LIST"] = "8.0"
        d = "CUDA_HOME" in os.environ
        e = os.environ.get(name)
    ''') if f.name.startswith("os.environ.") and f.name.split(".")[-1].isupper()}
    assert got == {("os.environ.CUDA_HOME", 4), ("os.environ.CUDA_PATH", 5), ("os.environ.TORCH_CUDA_ARCH_LIST", 6),
                   ("os.environ.TORCH_CUDA_ARCH_LIST", 7), ("os.environ.CUDA_HOME", 8)}


def test_a_class_chosen_by_assignment_is_reported_where_it_is_called() -> None:
    got = {(f.name, f.line, f.role) for f in facts('''
        from torch.utils.cpp_extension import CppExtension, CUDAExtension
        extension = CUDAExtension
        extension = CppExtension
        modules = [extension("m", ["m.cu"])]
    ''') if f.kind == "python_attr"}
    assert ("torch.utils.cpp_extension.CUDAExtension", 5, "call") in got
    assert ("torch.utils.cpp_extension.CppExtension", 5, "call") in got


def test_tf32_and_jax_platforms() -> None:
    got = constructs('''
        import jax, torch
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("medium")
        torch.set_float32_matmul_precision("highest")
        jax.devices("cuda")
        jax.devices("gpu")
        jax.config.update("jax_platform_name", "cuda")
        jax.ffi.register_ffi_target("topk", capsule, platform="CUDA")
        jax.ffi.register_ffi_target("topk", capsule, platform="ROCM")
    ''')
    assert got == {("tf32-enabled", 3, "matmul.allow_tf32"), ("tf32-enabled", 5, "torch.set_float32_matmul_precision"),
                   ("jax-cuda-platform", 7, "cuda"), ("jax-cuda-platform", 9, "cuda"),
                   ("jax-ffi-cuda-target", 10, "CUDA")}


def test_warp_size_arithmetic_in_python() -> None:
    got = constructs('''
        WARP_SIZE = 32
        BATCH = 32
        def f(num_warps, num_threads, n_items, width):
            return num_warps * 32, num_threads // 32, n_items // 32, width * 32, 32 * num_warps
    ''')
    assert got == {("warp-size-32-python", 2, "WARP_SIZE = 32"), ("warp-size-32-python", 5, "num_warps * 32"),
                   ("warp-size-32-python", 5, "num_threads // 32"), ("warp-size-32-python", 5, "32 * num_warps")}


def test_helpers_and_flags_defined_below_their_use() -> None:
    got = guards('''
        import torch
        def f():
            if USE_HIP:
                return 1
            return torch.version.cuda
        def g():
            return None if rocm_build() else torch.version.cuda
        def rocm_build():
            return torch.version.hip is not None
        USE_HIP = bool(torch.version.hip)
    ''')
    assert got == {6: "cuda", 8: "cuda"}


def test_the_cuda_arm_of_a_dispatch_with_a_hip_elif_is_guarded() -> None:
    """optimum-quanto's extensions/__init__.py: `if torch.version.cuda: ... elif torch.version.hip: ...`."""
    got = guards('''
        import torch
        if torch.version.cuda:
            a = torch.version.cuda
        elif torch.backends.mps.is_available():
            pass
        elif torch.version.hip:
            b = torch.version.cuda
        if torch.version.cuda:
            c = torch.version.cuda
        elif torch.backends.mps.is_available():
            pass
    ''')
    assert got == {3: "hip", 4: "cuda", 8: "hip", 9: None, 10: None}
