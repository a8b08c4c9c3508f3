"""Session 33 (tie33): ATen's cuDNN operators called by name in a PyTorch extension (HIP3067).
docs/decisions/2026-12-07-s33-aten-cudnn-ops.md."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from migrate.rulebase.load import RuleBase
from tests.conftest import write_tree
from tests.test_optional_parts import scanned

# ziplab/Mesa (8b7a0db) setup.py:18-30: a CppExtension beside a CUDAExtension, built by torch's BuildExtension
SETUP = ("from setuptools import setup\nfrom torch.utils import cpp_extension\n"
         "setup(name='Mesa', ext_modules=[\n"
         "    cpp_extension.CppExtension('mesa.native', ['native.cpp']),\n"
         "    cpp_extension.CUDAExtension('mesa.cpp_extension.quantization',\n"
         "        ['mesa/cpp_extension/quantization.cc', 'mesa/cpp_extension/quantization_cuda_kernel.cu']),\n"
         "], cmdclass={'build_ext': cpp_extension.BuildExtension})\n")
# its native.cpp:43-63: a custom batch-norm forward on the cuDNN operator
NATIVE = ("#include <torch/extension.h>\n"
          "std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> batch_norm_forward(const at::Tensor& input,\n"
          "    const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& running_mean,\n"
          "    const at::Tensor& running_var, bool training, double average_factor, double epsilon) {\n"
          "  return at::cudnn_batch_norm(input, weight, bias, running_mean, running_var, training,\n"
          "                              average_factor, epsilon);\n}\n"
          "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"batch_norm_forward\", &batch_norm_forward); }\n")
# its quantization_cuda_kernel.cu: a plain kernel PyTorch's ROCm build hipifies
KERNEL = ("#include <cuda.h>\n#include <cuda_runtime.h>\n"
          "__global__ void pack_kernel(const float* x, signed char* y, int n) {\n"
          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = (signed char)x[i];\n}\n"
          "void pack(const float* x, signed char* y, int n) { pack_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }\n")


def _scan(tmp_path: Path, files: dict[str, str], rulebase: RuleBase) -> dict[str, Any]:
    write_tree(tmp_path, files)
    data: dict[str, Any] = scanned(tmp_path, rulebase)
    return data


def test_a_cudnn_aten_op_makes_the_extension_a_port(tmp_path: Path, rulebase: RuleBase) -> None:
    files = {"setup.py": SETUP, "native.cpp": NATIVE, "mesa/cpp_extension/quantization.cc": "int f();\n",
             "mesa/cpp_extension/quantization_cuda_kernel.cu": KERNEL}
    data = _scan(tmp_path, files, rulebase)
    found = [f for f in data["findings"] if f["rule"] == "HIP3067"]
    assert [(f["path"], f["symbol"], f["class"]) for f in found] == [
        ("native.cpp", "cudnn_batch_norm", "migration-required")], data["findings"]
    assert data["summary"]["class"] == "migration-required", data["workloads"]
    # near miss: the same extension on the generic ATen op (it picks MIOpen on ROCm) is hipified by the build
    generic = NATIVE.replace("at::cudnn_batch_norm(", "at::native_batch_norm(")
    near = _scan(tmp_path / "near", {**files, "native.cpp": generic}, rulebase)
    assert not [f for f in near["findings"] if f["rule"] == "HIP3067"]
    assert near["summary"]["class"] == "minor-adaptation", near["workloads"]


# mlverse/torch (e4de110) src/lantern/src/lantern.cpp: the generated binding of every ATen operator
BINDING = ("#include <torch/torch.h>\n"
           "void* _lantern_cudnn_batch_norm_tensor(void* input, void* weight, bool training, double eps) {\n"
           "  return make_raw::tuple(torch::cudnn_batch_norm(from_raw::Tensor(input), from_raw::Tensor(weight),\n"
           "                                                 training, eps));\n}\n"
           "void* _lantern_miopen_batch_norm_tensor(void* input, void* weight, bool training, double eps) {\n"
           "  return make_raw::tuple(torch::miopen_batch_norm(from_raw::Tensor(input), from_raw::Tensor(weight),\n"
           "                                                  training, eps));\n}\n")


def test_a_binding_of_every_aten_op_is_left_alone(tmp_path: Path, rulebase: RuleBase) -> None:
    data = _scan(tmp_path, {"src/lantern/src/lantern.cpp": BINDING}, rulebase)
    assert not [f for f in data["findings"] if f["rule"] == "HIP3067"], data["findings"]
    # without its MIOpen wrapper the same call is the cuDNN op's
    alone = BINDING.split("void* _lantern_miopen", 1)[0]
    data = _scan(tmp_path / "alone", {"src/lantern/src/lantern.cpp": alone}, rulebase)
    assert {f["symbol"] for f in data["findings"] if f["rule"] == "HIP3067"} == {"cudnn_batch_norm"}
