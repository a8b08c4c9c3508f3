"""The translation units of a converted copy and the project's own flags for each.

With a compilation database (`--compile-commands`, else `compile_commands.json` or
`build/compile_commands.json` of the source tree) each entry whose file lies in the tree is
compiled, its nvcc flags translated by precise mode's table and filtered by the allow-list; its
paths are moved from the source tree into the copy. Without one, every CUDA file (`.cu`) of the
copy is a unit, with its own folder, the tree's root, `include/` and the folders the CMakeLists.txt
of its folder and the folders above name (`include_directories`, `target_include_directories`,
literal paths only) on the include path, inside the tree."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from migrate.extract import extract
from migrate.precise import compile_commands
from migrate.precise.safe_flags import filter_flags
from migrate.scan.readfile import read_regular

CLANG_ONLY = ("--cuda-gpu-arch=", "--cuda-path=", "-fgpu-rdc")  # nvcc's table gives these for clang's CUDA mode
UNIT_SUFFIXES = frozenset({".cu"})
CMAKE_BYTES = 4 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    rel: str  # the source file, relative to the tree (the same in the source and the copy)
    flags: tuple[str, ...]
    notes: tuple[str, ...] = ()


def units(source: Path, copy: Path, files: list[str], *, database: Path | None = None) -> tuple[list[Unit], str]:
    """The units to compile and where their flags came from ("compile_commands.json", "no build flags")."""
    found = compile_commands.find(source, database)
    if found is not None:
        loaded = compile_commands.load(found)
        if not isinstance(loaded, str):
            from_db = _from_database(loaded, source.resolve(), copy.resolve(), set(files))
            if from_db:
                return from_db, found.name
    return [Unit(rel=rel, flags=tuple(_default_flags(copy, rel))) for rel in sorted(files)
            if Path(rel).suffix in UNIT_SUFFIXES], "no build flags (each .cu file with its folder and the root included)"


def _from_database(commands: list[compile_commands.Command], source: Path, copy: Path, files: set[str]) -> list[Unit]:
    out: dict[str, Unit] = {}
    for command in commands:
        if not command.file.is_relative_to(source):
            continue
        rel = command.file.relative_to(source).as_posix()
        if rel not in files or rel in out:
            continue
        moved = [_moved(arg, source, copy) for arg in command.args if not arg.startswith(CLANG_ONLY)]
        flags, notes = filter_flags(moved, root=copy)
        out[rel] = Unit(rel=rel, flags=tuple(flags), notes=(*command.notes, *notes))
    return [out[rel] for rel in sorted(out)]


def _moved(arg: str, source: Path, copy: Path) -> str:
    """A path of the source tree inside a flag, as the same path in the copy."""
    for prefix in ("-isystem", "-iquote", "-idirafter", "-I", ""):
        if arg.startswith(prefix + str(source)):
            return prefix + str(copy) + arg[len(prefix) + len(str(source)):]
    return arg


def _default_flags(copy: Path, rel: str) -> list[str]:
    folders = [copy / Path(rel).parent, copy, copy / "include", *_cmake_includes(copy, rel)]
    seen: list[str] = []
    for folder in folders:
        if folder.is_dir() and str(folder) not in seen:
            seen.append(str(folder))
    flags, _ = filter_flags([word for folder in seen for word in ("-I", folder)], root=copy)
    return ["-std=c++17", *flags]  # nvcc's default standard


def _cmake_includes(copy: Path, rel: str) -> list[Path]:
    """The include folders of the CMakeLists.txt files from the unit's folder up to the root."""
    out: list[Path] = []
    folder = (copy / rel).parent
    while folder == copy or folder.is_relative_to(copy):
        out += _cmake_file_includes(folder)
        if folder == copy:
            break
        folder = folder.parent
    return out


def _cmake_file_includes(folder: Path) -> list[Path]:
    try:
        data = read_regular(folder / "CMakeLists.txt", CMAKE_BYTES)
    except OSError:
        return []
    facts = extract("cmake", data).facts
    return [folder / value for f in facts if f.kind == "cmake_include" for value in f.text.split("\n")
            if value and not value.startswith(("$", "<"))]
