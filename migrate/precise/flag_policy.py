"""Which clang flags from a scanned repository's compilation database reach libclang: an allow-list.

The database is untrusted input. Flags that define or undefine macros, add include folders and
forced includes inside the scanned tree, and select the language standard or GPU target pass;
everything else is dropped, with one note per command naming the options dropped. No flag that
writes a file (-MD -MF, -Wp,..., -Xclang ...), loads a plugin or reads outside the tree passes.
System and toolkit headers come from the tool's own toolchain (precise.clang), never from here."""
from __future__ import annotations

import os
import re
from pathlib import Path

from migrate.scan.readfile import inside

MACRO_FLAGS = ("-D", "-U")
FOLDER_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter")
FILE_FLAGS = ("-include",)
VALUED = (*MACRO_FLAGS, *FOLDER_FLAGS, *FILE_FLAGS)
JOINED = (*MACRO_FLAGS, "-I")  # written -DX, -Ipath
SELECTION = re.compile(r"^(?:-std=(?:c|gnu|c\+\+|gnu\+\+)\w{1,4}|--cuda-gpu-arch=sm_\d{2,3}[af]?|-fgpu-rdc"
                       r"|-m(?:32|64)|-f(?:no-)?(?:exceptions|rtti|char8_t|signed-char|unsigned-char|gnu-keywords))$")
MACRO = re.compile(r"^[A-Za-z_]\w*(?:=.*)?$", re.DOTALL)
MAX_SHOWN = 8


def allowed(args: list[str], top: Path) -> tuple[list[str], list[str]]:
    """The flags that pass, and at most one note naming what was dropped (no paths, no values)."""
    kept: list[str] = []
    dropped: list[str] = []
    outside = 0
    i = 0
    while i < len(args):
        flag = args[i]
        name, value, width = _split(flag, args[i + 1] if i + 1 < len(args) else None)
        i += width
        if name in MACRO_FLAGS and value is not None and MACRO.match(value) and "\n" not in value:
            kept.append(name + value)
        elif name in (*FOLDER_FLAGS, *FILE_FLAGS) and value is not None:
            if _inside(value, top, folder=name in FOLDER_FLAGS):
                kept.extend([name, value] if width == 2 else [flag])
            else:
                outside += 1
        elif value is None and SELECTION.match(flag):
            kept.append(flag)
        else:
            dropped.append(_option_name(flag))
    notes = []
    if dropped:
        names = list(dict.fromkeys(dropped))
        more = f" and {len(names) - MAX_SHOWN} more" if len(names) > MAX_SHOWN else ""
        notes.append(f"dropped {len(dropped)} flag(s) not on precise mode's allow-list: "
                     + ", ".join(names[:MAX_SHOWN]) + more)
    if outside:
        notes.append(f"dropped {outside} include folder(s) or file(s) outside the scanned tree")
    return kept, notes


def _split(flag: str, following: str | None) -> tuple[str, str | None, int]:
    """(option, value, words used): `-DX` and `-D X`, `-Ipath` and `-I path`, `-include f`."""
    for name in VALUED:
        if flag == name:
            return name, following, 2 if following is not None else 1
        if flag.startswith(name) and name in JOINED:
            return name, flag[len(name):], 1
    return flag, None, 1


def _inside(value: str, top: Path, *, folder: bool) -> bool:
    """Inside the tree once links are resolved; a folder that does not exist is harmless, a file
    must be a regular one."""
    try:
        real = os.path.realpath(value)
    except (OSError, ValueError):
        return False
    if not inside(real, str(top)):
        return False
    return os.path.isdir(real) or not os.path.exists(real) if folder else os.path.isfile(real)


def _option_name(flag: str) -> str:
    """The option without its value: `-Wp,-MD,/x` -> `-Wp`, `-MF` -> `-MF`, a bare word -> `(a value)`."""
    if not flag.startswith("-"):
        return "(a value)"
    name = re.split(r"[,=]", flag, maxsplit=1)[0]
    return name[:40] if re.fullmatch(r"-[\w+#-]*", name) else "(an option)"
