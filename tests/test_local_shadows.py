"""A variable or parameter named like a CUDA API function is the project's own name in the function that declares
it, unless it holds the real function (docs/decisions/2026-12-07-s32-local-shadows.md)."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.rulebase.load import load_rules
from migrate.scan import project
from migrate.settings import Settings

FILES = {
    # MLIR's GPU-to-CUDA lowering (lib/Conversion/GPUToCUDA/ConvertLaunchFuncToCudaCalls.cpp): symbols it emits
    "lower.cpp": "#include \"mlir/IR/Module.h\"\n"
                 "void GpuLaunchFuncToCudaCallsPass::translateGpuLaunchCalls(mlir::gpu::LaunchFuncOp launchOp) {\n"
                 "  FuncOp cuModuleLoad = getModule().lookupSymbol<FuncOp>(cuModuleLoadName);\n"
                 "  builder.create<LLVM::CallOp>(loc, ArrayRef<Type>{getCUResultType()},\n"
                 "                               builder.getSymbolRefAttr(cuModuleLoad), ArrayRef<Value *>{cuModule});\n"
                 "  auto cuLaunchKernel = getModule().lookupSymbol<FuncOp>(cuLaunchKernelName);\n"
                 "  builder.create<LLVM::CallOp>(loc, ArrayRef<Type>{getCUResultType()},\n"
                 "                               builder.getSymbolRefAttr(cuLaunchKernel), ArrayRef<Value *>{});\n"
                 "}\n"
                 "void emit(FuncOp cuStreamSynchronize) { use(cuStreamSynchronize); }\n",
    # a variable holding the function a resolver returns, in the same shapes (a dlopen-ing loader)
    "loader.cpp": "#include <dlfcn.h>\n"
                  "typedef int (*cuInit_pt)(unsigned);\n"
                  "int load(void* h) {\n"
                  "  cuInit_pt cuInit = (cuInit_pt)dlsym(h, \"cuInit\");\n"
                  "  auto cuModuleLoad = reinterpret_cast<int (*)(void**, const char*)>(dlsym(h, \"cuModuleLoad\"));\n"
                  "  int (*cuLaunchKernel)(void*) = 0;\n"
                  "  cuLaunchKernel = (int (*)(void*))dlsym(h, \"cuLaunchKernel\");\n"
                  "  PFN_cuCtxSynchronize cuCtxSynchronize;\n"
                  "  void* cuDriverGetVersion = get_symbol(h, \"cuDriverGetVersion\");\n"
                  "  return cuInit(0) + cuModuleLoad(0, \"k.cubin\") + cuLaunchKernel(0) + cuCtxSynchronize()\n"
                  "    + (cuDriverGetVersion != 0);\n"
                  "}\n",
    # a variable in one function, the real call in another of the same file
    "both.cpp": "#include <cuda.h>\n"
                "void symbols() { auto cuModuleUnload = lookupSymbol<FuncOp>(unloadName); record(cuModuleUnload); }\n"
                "void unload(CUmodule m) { cuModuleUnload(m); }\n"
                "void later(CUmodule m) {\n"
                "  cuModuleUnload(m);\n"
                "  { auto cuModuleUnload = lookupSymbol<FuncOp>(unloadName);\n"
                "    record(cuModuleUnload); }\n"
                "  cuModuleUnload(m);\n"
                "}\n",
}


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[tuple[str, int]]]:
    root: Path = tmp_path_factory.mktemp("shadows")
    for rel, text in FILES.items():
        (root / rel).write_text(text)
    report = project.scan_project([root], Settings(jobs=1, cache_dir=None), load_rules())
    return {rel: {(f.symbol, f.line) for f in report.findings if f.path == rel} for rel in FILES}


def test_a_local_or_parameter_named_like_a_driver_function_is_the_project_s(
        found: dict[str, set[tuple[str, int]]]) -> None:
    assert not {s for s, _ in found["lower.cpp"] if s in ("cuModuleLoad", "cuLaunchKernel", "cuStreamSynchronize")}, \
        found["lower.cpp"]


def test_a_variable_holding_the_resolved_function_stays_a_use(found: dict[str, set[tuple[str, int]]]) -> None:
    symbols = {s for s, _ in found["loader.cpp"]}
    assert symbols >= {"cuInit", "cuModuleLoad", "cuLaunchKernel", "cuCtxSynchronize",
                       "cuDriverGetVersion"}, found["loader.cpp"]


def test_the_variable_hides_the_name_only_in_its_own_function(found: dict[str, set[tuple[str, int]]]) -> None:
    assert ("cuModuleUnload", 3) in found["both.cpp"], found["both.cpp"]
    assert ("cuModuleUnload", 2) not in found["both.cpp"], found["both.cpp"]


def test_the_variable_hides_the_name_from_its_declaration_to_the_end_of_its_block(
        found: dict[str, set[tuple[str, int]]]) -> None:
    lines = {line for s, line in found["both.cpp"] if s == "cuModuleUnload"}
    assert {5, 8} <= lines and not lines & {6, 7}, found["both.cpp"]
