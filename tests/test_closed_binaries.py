"""Session 24, closedbin (issue 28): prebuilt binaries with CUDA device code, read from their own headers."""
from __future__ import annotations

import json
import struct
from pathlib import Path

from migrate.extract import binary
from migrate.scan.discover import file_kind
from tests.binary_images import elf, pe
from tests.conftest import run_cli

GLIBC = ("libstdc++.so.6", "libm.so.6", "libc.so.6")


def test_an_elf_image_gives_its_needed_libraries_and_sections() -> None:
    header = binary.read_header(elf(needed=("libcudart.so.10.2", *GLIBC), sections=(".text", ".nv_fatbin")))
    assert header is not None and header.form == "elf"
    assert header.needed == ("libcudart.so.10.2", *GLIBC)
    assert ".nv_fatbin" in header.sections


def test_a_pe_image_gives_its_imported_dlls_and_sections() -> None:
    header = binary.read_header(pe(needed=("cudart64_110.dll", "KERNEL32.dll"), sections=(".nv_fatb",)))
    assert header is not None and header.form == "pe"
    assert header.needed == ("cudart64_110.dll", "KERNEL32.dll")
    assert header.sections == (".text", ".idata", ".nv_fatb")


def test_device_code_is_the_fat_binary_section_not_a_cuda_import() -> None:
    """PEEL's PhysXCore.dll imports cudart32_30_9.dll and carries no kernels: it runs its CPU path without a GPU."""
    assert [f.name for f in binary.extract(elf(sections=(".nv_fatbin",))).facts] == ["prebuilt-cuda-device-code"]
    assert binary.extract(pe(needed=("cudart32_30_9.dll",))).error == binary.NO_DEVICE_CODE
    assert binary.extract(b"/* GNU ld script */\nINPUT(libcktso.so.1)\n").error == binary.NO_IMAGE


def test_damaged_headers_are_no_image() -> None:
    """Offsets past the end, a section count of 65535 and a cut file give None (or a bounded walk), never an error."""
    image = bytearray(elf(sections=(".nv_fatbin",)))
    assert binary.read_header(bytes(image[:200])) is None
    struct.pack_into("<H", image, 0x3C, 0xFFFF)  # e_shnum
    assert binary.read_header(bytes(image)) is None
    struct.pack_into("<Q", image, 0x28, 1 << 60)  # e_shoff
    assert binary.read_header(bytes(image)) is None
    assert binary.read_header(b"MZ" + bytes(0x3A) + struct.pack("<I", 1 << 30)) is None
    assert binary.read_header(b"\x7fELF") is None
    struct.pack_into("<Q", image, 0x28, (1 << 64) - 64)  # e_shoff past what an index can hold (scripts/fuzz.py found it)
    assert binary.read_header(bytes(image)) is None


def test_binaries_are_discovered_by_suffix_or_elf_magic(tmp_path: Path) -> None:
    (tmp_path / "solver_sm_90").write_bytes(elf(sections=(".nv_fatbin",)))
    (tmp_path / "notes").write_text("plain text without a suffix\n")
    assert file_kind(tmp_path / "solver_sm_90") == "binary"
    assert file_kind(tmp_path / "notes") is None
    assert [file_kind(Path(n)) for n in ("a.so", "a.dll", "a.mexa64", "libx.so.2.3.1", "a.o")] == \
        ["binary", "binary", "binary", "binary", None]


def _scan(tree: Path, files: dict[str, bytes]) -> dict:
    for rel, data in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data)
    done = run_cli("scan", str(tree), "-f", "json", "-o", "-", "--rocm", "7.2", "--target-arch", "gfx942")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_shipped_solver_without_source_is_a_closed_part(tmp_path: Path) -> None:
    """pinton-lab/fullwave25: Python that runs solver programs shipped one per NVIDIA architecture, with no source."""
    data = _scan(tmp_path / "closed", {"pkg/__init__.py": b"import numpy\n",
                                       "pkg/bins/solver_sm_90_cuda126": elf(needed=GLIBC, sections=(".nv_fatbin",))})
    assert [(f["rule"], f["path"]) for f in data["findings"]] == [("HIP7020", "pkg/bins/solver_sm_90_cuda126")]
    assert data["summary"]["class"] == "incompatible"


def test_a_binary_beside_cuda_source_is_its_build_output(tmp_path: Path) -> None:
    """RuiLiu1217/CTLAB: MATLAB .mexa64 files with device code next to the .cu files they are built from."""
    data = _scan(tmp_path / "built", {"src/proj.cu": b"__global__ void k(float *x) { x[0] = 1; }\n",
                                      "src/proj.mexa64": elf(needed=("libcudart.so.10.2",), sections=(".nv_fatbin",))})
    assert "HIP7020" not in {f["rule"] for f in data["findings"]}
    assert data["summary"]["class"] == "migration-required"
    assert [s["path"] for s in data["skipped"]] == ["src/proj.mexa64"]
    # davidAlgis/InteropUnityCUDA: plugin DLLs with kernels in a folder of their own, the .cu files elsewhere
    data = _scan(tmp_path / "unity", {"Plugin/src/k.cu": b"__global__ void k(float *x) { x[0] = 1; }\n",
                                      "Assets/Plugin/Sample.dll": pe(needed=("cudart64_12.dll",), sections=(".nv_fatb",))})
    assert "Assets" not in {w["root"] for w in data["workloads"]}


def test_a_binary_without_device_code_is_skipped_as_before(tmp_path: Path) -> None:
    """davidAlgis/InteropUnityCUDA ships its plugin DLLs (linked to cudart, no kernels) in a folder of their own:
    they are skipped with a reason and make no workload of that folder."""
    data = _scan(tmp_path / "plugins", {"src/main.py": b"import numpy\n",
                                        "Plugins/Plugin.dll": pe(needed=("cudart64_12.dll", "KERNEL32.dll"))})
    assert {s["path"]: s["reason"] for s in data["skipped"]} == {"Plugins/Plugin.dll": binary.NO_DEVICE_CODE}
    assert "Plugins" not in {w["root"] for w in data["workloads"]}


def test_a_marker_inside_a_binary_is_no_suppression() -> None:
    from migrate.lint import suppression

    image = elf(sections=(".nv_fatbin",)) + b"\n# rocm-migrate: ignore[HIP7020]\n"
    assert suppression.parse("binary", image) == []
    assert suppression.parse("shell", b"x  # rocm-migrate: ignore[HIP7020]\n") != []
