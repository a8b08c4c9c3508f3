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


PATHLIB_SETUP = '''from glob import glob
from pathlib import Path
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

module_root = Path(__file__).parent.absolute()
extension_name = module_root.name
extension_root = module_root / extension_name
cuda_modules = [d.name for d in Path(extension_root).iterdir() if d.is_dir() and d.name != 'torch_bindings']
all_sources = []
for module in cuda_modules:
    all_sources += glob(str(extension_root / module / 'src' / '**' / '*.cu'), recursive=True)
base_sources = [str(extension_root / 'torch_bindings' / 'bindings.cpp')]
for src in all_sources:
    base_sources.append(src)
setup(name=extension_name, ext_modules=[CUDAExtension(name=f'{extension_name}._C', sources=base_sources)],
      cmdclass={'build_ext': BuildExtension})
'''


def test_a_pathlib_glob_over_module_folders_names_the_extensions_sources(tmp_path: Path) -> None:
    """HTGS (nerficg-project/HTGS 5ac6e08 HTGSCudaBackend/setup.py:13-22): `glob(str(extension_root / module /
    'src' / '**' / '*.cu'))` for each module folder; pathlib's `/` with the setup file's folder as nothing and
    run-time names as `*`."""
    assert extension_sources(PATHLIB_SETUP) == ["glob:*/torch_bindings/bindings.cpp\nglob:*/*/src/**/*.cu"]
    tree = tmp_path / "Backend"
    kernel = "#include <cub/cub.cuh>\n__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n"
    for path, text in {"setup.py": PATHLIB_SETUP, "Backend/torch_bindings/bindings.cpp": "int bind();\n",
                       "Backend/raster/src/blend/forward.cu": kernel,
                       "Backend/raster/tools/probe.cu": kernel}.items():  # near miss: outside any module's src/
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
    kinds = {p: w["kind"] for w in scan(tree)["workloads"] for p in w["files"]}
    assert kinds["Backend/raster/src/blend/forward.cu"] == "torch-extension"
    assert kinds["Backend/raster/tools/probe.cu"] != "torch-extension"


HELPER_SETUP = '''import glob
import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

library_name = "pointops"


def create_extension(module_name):
    cpp_sources = glob.glob(os.path.join(library_name, module_name, "csrc", "*.cpp"))
    cuda_sources = glob.glob(os.path.join(library_name, module_name, "csrc", "cuda", "*.cu"))
    sources = cpp_sources
    sources.extend(cuda_sources)
    return CUDAExtension(name=f"{library_name}.{module_name}._C", sources=sources)


setup(name=library_name, ext_modules=[create_extension(m) for m in ["chamfer", "knn"]],
      cmdclass={"build_ext": BuildExtension})
'''


def test_a_helper_parameter_inside_a_joined_glob_is_any_folder(tmp_path: Path) -> None:
    """satyajitghana/torch-point-ops 5cda723 setup.py:64-70: `glob(os.path.join(library_name, module_name, "csrc",
    "cuda", "*.cu"))` in a helper called once per module: the parameter is a folder known at run time (`*`), not
    nothing (which made the pattern `pointops/csrc/cuda/*.cu` and left every kernel outside the extension)."""
    assert extension_sources(HELPER_SETUP) == ["glob:pointops/*/csrc/*.cpp\nglob:pointops/*/csrc/cuda/*.cu"]
    tree = tmp_path / "ops"
    kernel = "#include <cuda_runtime.h>\n__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n"
    for path, text in {"setup.py": HELPER_SETUP, "pointops/chamfer/csrc/bind.cpp": "int bind();\n",
                       "pointops/chamfer/csrc/cuda/chamfer.cu": kernel,
                       "pointops/chamfer/bench/probe.cu": kernel}.items():  # near miss: not under csrc/cuda/
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
    kinds = {p: w["kind"] for w in scan(tree)["workloads"] for p in w["files"]}
    assert kinds["pointops/chamfer/csrc/cuda/chamfer.cu"] == "torch-extension"
    assert kinds["pointops/chamfer/bench/probe.cu"] != "torch-extension"


def test_a_run_time_name_as_the_joined_root_or_file_name_is_still_nothing() -> None:
    # near miss: the first part (a root from elsewhere) and the last (a file name from a loop) add no `*`
    text = ('import os\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n'
            'def ext(root, name):\n    return CUDAExtension(name, [os.path.join(root, "src", "k.cu")])\n'
            'setup(name="s", ext_modules=[ext(ROOT, "s._C")])\n')
    assert extension_sources(text) == ["src/k.cu"]


WALKED = '''from os import path, walk

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension


def find_sources(root_dir, with_cuda=True):
    extensions = [".cpp", ".cu"] if with_cuda else [".cpp"]
    sources = []
    for subdir, _, files in walk(root_dir):
        for filename in files:
            _, ext = path.splitext(filename)
            if ext in extensions:
                sources.append(path.join(subdir, filename))
    return sources


setup(name="inplace-abn", ext_modules=[CUDAExtension(name="inplace_abn._backend", sources=find_sources("src"))],
      cmdclass={"build_ext": BuildExtension})
'''


def test_a_helper_that_walks_a_folder_names_the_files_below_it() -> None:
    """mapillary/inplace_abn setup.py:10-20: `sources=find_sources("src")`, a helper of the file that os.walk()s
    its first parameter (os.walk imported by name)."""
    assert extension_sources(WALKED) == ["glob:src/*"]


def test_a_helper_that_does_not_walk_its_parameter_names_nothing() -> None:
    # near miss: the helper walks a fixed folder, not the one it is given
    text = WALKED.replace("walk(root_dir)", 'walk("vendor")')
    assert extension_sources(text) != ["glob:src/*"]
