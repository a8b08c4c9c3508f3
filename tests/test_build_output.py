"""nvcc's intermediate files are build output (rules/layout/build-output.yaml): readfile skips them with the
reason, by name or by the line markers nvcc and the preprocessor write; a hand-written line marker is source."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.model import SourceFile
from migrate.scan.build_output import nvcc_intermediate
from migrate.scan.readfile import read

TMPXFT = b'# 1 "/tmp/tmpxft_00007662_00000000-5_GPossibleLines.compute_70.cudafe1.cpp"\n# 1 "<built-in>"\n'


@pytest.mark.parametrize(("rel", "data", "skipped"), [
    ("CommonLine/GPossibleLines.cpp", TMPXFT + b"enum cudaMemoryType { cudaMemoryTypeDevice = 2 };\n", True),
    ("x/GDecode.cpp", b'# 1 "/tmp/tmpxft_00007aac_00000000-5_GDecodeEerFrame.compute_75.cudafe1.cpp"\n', True),
    ("x/kernel.cudafe1.cpp", b"int x;\n", True),
    ("x/kernel.cudafe1.stub.c", b"int x;\n", True),
    ("x/KERNEL.FATBIN.C", b"int x;\n", True),
    ("x/a_dlink.reg.c", b"int x;\n", True),
    ("x/pp.cpp", b'# 0 "GScale.cu"\n# 0 "<built-in>"\n# 0 "<command-line>"\nint x;\n', True),
    ("x/pp.cpp", b'# 1 "a.cpp1.ii"\nint x;\n', True),
    # near misses: one hand-written marker, a preprocessed C++ (not CUDA) file, a register file of the project's
    ("x/remap.cpp", b'# 1 "remap_kernels.cu"\n#include <cuda_runtime.h>\n', False),
    ("x/remap.cpp", b'#line 1 "remap_kernels.cu"\nint x;\n', False),
    ("x/pp.cpp", b'# 0 "main.cpp"\n# 0 "<built-in>"\nint x;\n', False),
    ("x/cpu.reg.c", b"int x;\n", False),
    ("x/kernel.cu", b"#include <cuda.h>\n", False),
    ("x/empty.cpp", b"", False),
])
def test_nvcc_intermediate(rel: str, data: bytes, skipped: bool) -> None:
    assert (nvcc_intermediate(rel, data) is not None) == skipped


def test_read_skips_an_intermediate_with_its_reason(tmp_path: Path) -> None:
    path = tmp_path / "GPossibleLines.cpp"
    path.write_bytes(TMPXFT + b"int x;\n")
    source = SourceFile(path=path, rel=path.name, kind="cpp", size=path.stat().st_size)
    data, reason = read(source, 1 << 20)
    assert data is None
    assert reason == ("nvcc's intermediate file, its first line names "
                      "tmpxft_00007662_00000000-5_GPossibleLines.compute_70.cudafe1.cpp (build output, not source to port)")


def test_read_keeps_a_python_file_that_starts_like_a_marker(tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_bytes(b'# 1 "a.cudafe1.cpp"\nimport os\n')
    source = SourceFile(path=path, rel=path.name, kind="python", size=path.stat().st_size)
    assert read(source, 1 << 20)[0] is not None
