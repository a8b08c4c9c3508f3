"""The compile flags of a scanned project that a compiler run of ours may take: an allow-list.

Compile databases and build files are the scanned repository's, so untrusted: a flag may make the
compiler read or write anywhere (`-o /etc/x`, `-fplugin=`, `@file`, `-include /etc/shadow`,
`--serialize-diagnostics`). Kept are macros, language standard, warnings and `-f` switches without a
value, and include paths inside the tree; everything else is dropped with a note. Shared by every
compiler run over a project's flags (precise mode's libclang parse, `check`'s hip-clang)."""
from __future__ import annotations

from pathlib import Path

INCLUDE_FLAGS = ("-isystem", "-iquote", "-idirafter", "-I")  # longest first: `-isystem` is not `-I` + "system"
VALUE_FLAGS = ("-D", "-U")
SWITCH_PREFIXES = ("-std=", "-W", "-f")
DENIED_SWITCHES = ("-Wl,", "-Wa,", "-Wp,", "-Werror")  # linker/assembler/preprocessor pass-through; no errors of ours
SEPARATE_VALUE = frozenset({*INCLUDE_FLAGS, *VALUE_FLAGS})


def filter_flags(args: list[str], *, root: Path) -> tuple[list[str], list[str]]:
    """The flags that are safe to give a compiler run inside `root` (include paths made absolute and
    kept only inside it), and one note per flag dropped."""
    top = root.resolve()
    kept: list[str] = []
    notes: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        flag, value, step = _split(word, args[i + 1] if i + 1 < len(args) else None)
        i += step
        if flag in INCLUDE_FLAGS:
            path = _inside(value, top)
            if path is None:
                notes.append(f"dropped {flag} {value}: outside the tree")
            else:
                kept += [flag, str(path)]
        elif flag in VALUE_FLAGS:
            kept.append(flag + value)
        elif _switch(word):
            kept.append(word)
        else:
            notes.append(f"dropped {word}: not on the allow-list of flags")
    return kept, notes


def _split(word: str, following: str | None) -> tuple[str, str, int]:
    """(flag, value, words used) for the flags that take a value, joined (`-Ifoo`) or separate (`-I foo`)."""
    for flag in (*INCLUDE_FLAGS, *VALUE_FLAGS):
        if word == flag:
            return flag, following or "", 2 if following is not None else 1
        if word.startswith(flag) and not (flag == "-I" and word.startswith(("-isystem", "-iquote", "-idirafter"))):
            return flag, word[len(flag):].lstrip("="), 1
    return word, "", 1


def _switch(word: str) -> bool:
    if not word.startswith(SWITCH_PREFIXES) or word.startswith(DENIED_SWITCHES):
        return False
    return word.startswith("-std=") or "=" not in word  # `-fplugin=`, `-fprofile-use=` name files


def _inside(value: str, top: Path) -> Path | None:
    if not value or "\0" in value:
        return None
    try:
        path = (top / value).resolve()
    except (OSError, ValueError, RuntimeError):
        return None
    return path if path == top or path.is_relative_to(top) else None
