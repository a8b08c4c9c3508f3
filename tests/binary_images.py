"""Small ELF and PE images for the binary reader's tests and fixtures: only the headers the reader reads
(section names, ELF DT_NEEDED, the PE import directory), laid out as the linkers lay them out."""
from __future__ import annotations

import struct


def elf(*, needed: tuple[str, ...] = (), sections: tuple[str, ...] = ()) -> bytes:
    """An x86-64 ELF shared object whose dynamic section needs `needed`, with extra (empty-ish) `sections`."""
    dynstr = b"\0" + b"".join(n.encode() + b"\0" for n in needed)
    offsets, at = [], 1
    for n in needed:
        offsets.append(at)
        at += len(n) + 1
    dynamic = b"".join(struct.pack("<qQ", 1, o) for o in offsets) + struct.pack("<qQ", 0, 0)
    names = ["", ".dynstr", ".dynamic", *sections, ".shstrtab"]
    shstrtab, name_at = b"", []
    for n in names:
        name_at.append(len(shstrtab))
        shstrtab += n.encode() + b"\0"
    bodies = [b"", dynstr, dynamic, *(b"\x50\xed\x55\xba" * 4 for _ in sections), shstrtab]
    types = [0, 3, 6, *(1 for _ in sections), 3]
    data, places = bytearray(64), []
    for body in bodies:
        places.append(len(data))
        data += body
    shoff = len(data)
    for i, body in enumerate(bodies):
        link = 1 if types[i] == 6 else 0
        data += struct.pack("<IIQQQQIIQQ", name_at[i], types[i], 0, 0, places[i] if body else 0, len(body), link, 0,
                            1, 16 if types[i] == 6 else 0)
    header = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    header += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(bodies), len(bodies) - 1)
    data[:64] = header
    return bytes(data)


def pe(*, needed: tuple[str, ...] = (), sections: tuple[str, ...] = ()) -> bytes:
    """An x86-64 PE DLL whose import directory names `needed`, with extra `sections` after .idata."""
    idata_rva, file_align = 0x2000, 0x200
    names_at = 20 * (len(needed) + 1)
    strings, name_rvas = b"", []
    for n in needed:
        name_rvas.append(idata_rva + names_at + len(strings))
        strings += n.encode() + b"\0"
    idata = b"".join(struct.pack("<IIIII", 0, 0, 0, rva, 0) for rva in name_rvas) + bytes(20) + strings
    table = [(b".text", b"\xc3" * 16), (b".idata", idata), *((s.encode(), b"\x50\xed\x55\xba" * 4) for s in sections)]
    optional = bytearray(240)
    struct.pack_into("<H", optional, 0, 0x20B)
    struct.pack_into("<I", optional, 108, 16)
    struct.pack_into("<II", optional, 112 + 8, idata_rva, len(idata))
    coff = struct.pack("<HHIIIHH", 0x8664, len(table), 0, 0, 0, len(optional), 0x2022)
    head = bytearray(b"MZ" + bytes(0x3A) + struct.pack("<I", 0x40)) + b"PE\0\0" + coff + optional
    raw_at = file_align
    headers, bodies = b"", b""
    for i, (name, body) in enumerate(table):
        rva = 0x1000 * (i + 1)
        padded = body + bytes(-len(body) % file_align)
        headers += struct.pack("<8sIIIIIIHHI", name, len(body), rva, len(padded), raw_at + len(bodies), 0, 0, 0, 0,
                               0x40000040)
        bodies += padded
    image = bytes(head) + headers
    return image + bytes(file_align - len(image)) + bodies
