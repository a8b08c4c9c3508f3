"""A bounded reader of a prebuilt library's or program's own metadata: the libraries it needs and its section names.

ELF (Linux .so, executables, MATLAB .mexa64): the DT_NEEDED entries of the dynamic section and the section names
(`.nv_fatbin` is the CUDA fat binary nvcc embeds, https://docs.nvidia.com/cuda/cuda-binary-utilities/). PE (Windows
.dll/.exe/.mexw64/.pyd): the names of the import directory's DLLs and the section names (`.nv_fatb`). Nothing is
executed or loaded; every offset is checked against the bytes read, and the counts walked are capped, so a hostile
file costs at most MAX_ENTRIES steps per table."""
from __future__ import annotations

import struct
from dataclasses import dataclass

from migrate.extract.names import name_list
from migrate.model import Extraction, Fact

MAX_ENTRIES = 4096  # sections, dynamic entries or import descriptors walked, at most
MAX_NAME = 256  # the longest library or section name read
ELF_MAGIC = b"\x7fELF"
PE_MAGIC = b"MZ"
SHT_DYNAMIC = 6
DT_NEEDED = 1
PE_IMPORT_DIRECTORY = 1
FATBIN_SECTIONS = name_list("build", "cuda_fatbin_sections")  # where nvcc puts device code
DEVICE_CODE = "prebuilt-cuda-device-code"
NO_IMAGE = "binary file (no ELF or PE header could be read)"
NO_DEVICE_CODE = "binary file (a prebuilt library or program without CUDA device code)"


@dataclass(frozen=True, slots=True)
class Header:
    """What a binary says of itself: its format, the libraries it needs and its section names."""

    form: str  # "elf" or "pe"
    needed: tuple[str, ...]
    sections: tuple[str, ...]


def extract(source: bytes) -> Extraction:
    """A `prebuilt-cuda-device-code` construct when the image carries a CUDA fat binary. Any other file is skipped
    (the error is its reason), as the scan skipped binaries before it read them: it joins no workload and is no
    scanned file. Such is an image without device code, and a file that is no ELF or PE image (a linker script
    named `.so`) or whose headers cannot be read."""
    header = read_header(source)
    if header is None:
        return Extraction(facts=(), lines=0, error=NO_IMAGE)
    sections = [s for s in header.sections if s in FATBIN_SECTIONS]
    if not sections:
        return Extraction(facts=(), lines=0, error=NO_DEVICE_CODE)
    text = f"{sections[0]} section"
    fact = Fact(kind="construct", name=DEVICE_CODE, line=1, column=1, end_line=1, end_column=1, text=text)
    return Extraction(facts=(fact,), lines=0)


def is_binary(head: bytes) -> bool:
    """Whether the first bytes are an ELF or PE (MZ with a PE header) image's."""
    return head.startswith(ELF_MAGIC) or (head.startswith(PE_MAGIC) and _pe_offset(head) is not None)


def read_header(data: bytes) -> Header | None:
    """The header of an ELF or PE image, or None when the bytes are neither (or too damaged to read)."""
    try:
        if data.startswith(ELF_MAGIC):
            return _elf(data)
        if data.startswith(PE_MAGIC):
            return _pe(data)
    except (struct.error, IndexError, ValueError, OverflowError):  # OverflowError: an offset past any index
        return None
    return None


def _cstring(data: bytes, offset: int) -> str:
    if not 0 <= offset < len(data):
        raise ValueError("offset outside the file")
    end = data.find(b"\0", offset, offset + MAX_NAME)
    raw = data[offset:end if end >= 0 else offset + MAX_NAME]
    return raw.decode("latin-1")


def _elf(data: bytes) -> Header:
    wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
    if wide:
        shoff, = struct.unpack_from(order + "Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", data, 0x3A)
        layout = order + "IIQQQQIIQQ"
    else:
        shoff, = struct.unpack_from(order + "I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", data, 0x2E)
        layout = order + "IIIIIIIIII"
    count = min(shnum, MAX_ENTRIES)
    headers = [struct.unpack_from(layout, data, shoff + i * shentsize) for i in range(count)]
    # (name, type, flags, addr, offset, size, link, info, addralign, entsize)
    names_at = headers[shstrndx][4] if shstrndx < count else None
    sections = tuple(_cstring(data, names_at + h[0]) for h in headers) if names_at is not None else ()
    needed: list[str] = []
    for h in headers:
        if h[1] == SHT_DYNAMIC and h[6] < count:
            needed += _elf_needed(data, h, headers[h[6]][4], wide, order)
    return Header(form="elf", needed=tuple(needed), sections=tuple(s for s in sections if s))


def _elf_needed(data: bytes, section: tuple[int, ...], strings: int, wide: bool, order: str) -> list[str]:
    entry = order + ("qQ" if wide else "iI")
    step = struct.calcsize(entry)
    offset, size = section[4], section[5]
    out: list[str] = []
    for i in range(min(size // step, MAX_ENTRIES)):
        tag, value = struct.unpack_from(entry, data, offset + i * step)
        if tag == 0:
            break
        if tag == DT_NEEDED:
            out.append(_cstring(data, strings + value))
    return out


def _pe_offset(data: bytes) -> int | None:
    if len(data) < 0x40:
        return None
    at, = struct.unpack_from("<I", data, 0x3C)
    return at if data[at:at + 4] == b"PE\0\0" else None


def _pe(data: bytes) -> Header | None:
    at = _pe_offset(data)
    if at is None:
        return None
    nsections, = struct.unpack_from("<H", data, at + 6)
    optional_size, = struct.unpack_from("<H", data, at + 20)
    optional = at + 24
    magic, = struct.unpack_from("<H", data, optional)
    directories = optional + (112 if magic == 0x20B else 96)
    table = optional + optional_size
    sections = [struct.unpack_from("<8sIIII", data, table + i * 40) for i in range(min(nsections, MAX_ENTRIES))]
    # (name, virtual size, virtual address, raw size, raw offset)
    names = tuple(s[0].rstrip(b"\0").decode("latin-1") for s in sections)
    import_rva, _ = struct.unpack_from("<II", data, directories + PE_IMPORT_DIRECTORY * 8)
    needed: list[str] = []
    if import_rva:
        start = _file_offset(import_rva, sections)
        for i in range(MAX_ENTRIES):
            fields = struct.unpack_from("<IIIII", data, start + i * 20)
            if not any(fields):
                break
            needed.append(_cstring(data, _file_offset(fields[3], sections)))
    return Header(form="pe", needed=tuple(needed), sections=tuple(n for n in names if n))


def _file_offset(rva: int, sections: list[tuple[bytes, int, int, int, int]]) -> int:
    for _, vsize, vaddr, rawsize, rawoffset in sections:
        if vaddr <= rva < vaddr + max(vsize, rawsize):
            return rawoffset + rva - vaddr
    raise ValueError("address in no section")
