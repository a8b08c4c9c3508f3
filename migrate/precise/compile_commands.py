"""Read `compile_commands.json`; nvcc_flags turns each command line into clang's CUDA flags.

Pure Python (no libclang): `precise.analyse` feeds what this returns to `precise.clang`."""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from migrate.precise.flag_policy import allowed
from migrate.precise.nvcc_flags import CLANG_MAX_SM, translate
from migrate.scan.readfile import read_regular

__all__ = ["CLANG_MAX_SM", "Command", "allowed", "find", "load", "translate"]

# Where a build usually leaves the database, relative to the project root.
CANDIDATES = ("compile_commands.json", "build/compile_commands.json")

DATABASE_BYTES = 256 << 20  # a real one for 50,000 files is ~100 MB

# Extensions parsed as CUDA whatever the compiler was.
CUDA_SUFFIXES = frozenset({".cu", ".cuh"})


@dataclass(frozen=True, slots=True)
class Command:
    """One entry of the database: the source file (absolute) and the flags clang should get."""

    file: Path
    directory: Path
    args: tuple[str, ...]  # translated flags, without the compiler, the source, -c and -o
    cuda: bool  # parse as CUDA (nvcc command or a .cu file)
    notes: tuple[str, ...] = ()  # flags dropped or rewritten, one note each


def find(root: Path, explicit: Path | None = None) -> Path | None:
    """The database to use: the one given, else `compile_commands.json` or `build/compile_commands.json`."""
    if explicit is not None:
        return explicit if explicit.is_file() else None
    for name in CANDIDATES:
        candidate = root / name
        if candidate.is_file():
            return candidate
    return None


def load(path: Path, root: Path | None = None) -> list[Command] | str:
    """Every entry of the database, translated and bounded to `root` (default: the database's
    folder); a one-line reason instead when it cannot be read."""
    top = (root or path.parent).resolve()
    shown = _shown(path, top)
    try:
        entries = json.loads(read_regular(path, DATABASE_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        return f"{shown}: cannot read the compilation database ({reason})"
    if not isinstance(entries, list):
        return f"{shown}: not a compilation database (expected a JSON list)"
    commands = []
    for entry in entries:
        command = _entry(entry, path.resolve().parent, top)
        if command is not None:
            commands.append(command)
    if entries and not commands:
        return f"{shown}: no entry has a file, a directory and a command (strings) or arguments (a list of strings)"
    return commands


def _shown(path: Path, top: Path) -> str:
    """A path for a note: relative to the scanned tree, else its name only (notes hold no absolute path)."""
    try:
        return path.resolve().relative_to(top).as_posix()
    except (ValueError, OSError):
        return path.name


def _entry(entry: object, base: Path, top: Path) -> Command | None:
    """One entry, or None when its fields are missing or of the wrong type (the database is the
    scanned repository's: untrusted input)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) or not isinstance(entry.get("directory"), str):
        return None
    arguments, command = entry.get("arguments"), entry.get("command", "")
    if arguments is not None and not (isinstance(arguments, list) and all(isinstance(a, str) for a in arguments)):
        return None
    if not isinstance(command, str):
        return None
    directory = base / entry["directory"]  # absolute in real databases; relative to the file otherwise
    file = Path(entry["file"])
    try:
        file = (file if file.is_absolute() else directory / file).resolve()
        argv = list(arguments) if arguments is not None else shlex.split(command)
    except (OSError, ValueError):  # a NUL in a path, an unclosed quote
        return None
    if not argv:
        return None
    compiler = Path(argv[0]).name
    is_nvcc = compiler.startswith("nvcc")
    args, notes = translate(argv[1:], source=file, nvcc=is_nvcc, directory=directory, root=top)
    kept, dropped = allowed(_absolute(args, directory), top)
    return Command(file=file, directory=directory, args=tuple(kept), cuda=is_nvcc or file.suffix in CUDA_SUFFIXES,
                   notes=tuple(notes + dropped))


def _absolute(args: list[str], directory: Path) -> list[str]:
    """Make include paths absolute: libclang resolves relative ones against its own working directory."""
    out: list[str] = []
    pending = False
    for arg in args:
        if pending:
            out.append(arg if Path(arg).is_absolute() else str(directory / arg))
            pending = False
        elif arg in _PATH_FLAGS:
            out.append(arg)
            pending = True
        elif arg.startswith("-I") and len(arg) > 2 and not Path(arg[2:]).is_absolute():
            out.append("-I" + str(directory / arg[2:]))
        else:
            out.append(arg)
    return out


_PATH_FLAGS = frozenset({"-I", "-isystem", "-iquote", "-idirafter", "-include"})
