"""Read `compile_commands.json` and turn nvcc command lines into clang's CUDA flags.

Pure Python (no libclang): `precise` feeds what this returns to `migrate.clang`.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

# Where a build usually leaves the database, relative to the project root.
CANDIDATES = ("compile_commands.json", "build/compile_commands.json")

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


def load(path: Path) -> list[Command] | str:
    """Every entry of the database, translated; a one-line reason instead when it cannot be read."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"{path}: cannot read the compilation database ({exc})"
    if not isinstance(entries, list):
        return f"{path}: not a compilation database (expected a JSON list)"
    commands = []
    for entry in entries:
        command = _entry(entry, path.resolve().parent)
        if command is not None:
            commands.append(command)
    return commands


def _entry(entry: object, base: Path) -> Command | None:
    if not isinstance(entry, dict) or "file" not in entry or "directory" not in entry:
        return None
    directory = base / entry["directory"]  # absolute in real databases; relative to the file otherwise
    file = Path(entry["file"])
    file = (file if file.is_absolute() else directory / file).resolve()
    argv = [str(a) for a in entry["arguments"]] if "arguments" in entry else shlex.split(str(entry.get("command", "")))
    if not argv:
        return None
    compiler = Path(argv[0]).name
    is_nvcc = compiler.startswith("nvcc")
    args, notes = translate(argv[1:], source=file, nvcc=is_nvcc, directory=directory)
    return Command(file=file, directory=directory, args=tuple(_absolute(args, directory)),
                   cuda=is_nvcc or file.suffix in CUDA_SUFFIXES, notes=tuple(notes))


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


# nvcc options that take a value (as the next word or after '='), dropped with a note.
_NVCC_DROP_VALUE = frozenset({
    "-ccbin", "--compiler-bindir", "-Xptxas", "--ptxas-options", "-Xlinker", "--linker-options",
    "-Xnvlink", "--nvlink-options", "-Xfatbin", "--fatbin-options", "-maxrregcount", "--maxrregcount",
    "--default-stream", "-default-stream", "--diag-suppress", "-diag-suppress", "--diag-error",
    "--diag-warn", "-Xcudafe", "--cudafe-options", "--threads", "-t", "-code", "--gpu-code",
    "--options-file", "-optf", "-Werror", "--keep-dir", "-odir", "--output-directory", "-MF", "-MT", "-MQ",
    "--dependency-output", "-ftemplate-depth", "-split-compile", "--split-compile", "-o", "--output-file",
    "-Xarchive", "--archive-options", "-Xcompiler", "--compiler-options",
})
# nvcc switches that clang does not need, dropped with a note.
_NVCC_DROP = frozenset({
    "-lineinfo", "--generate-line-info", "-G", "--device-debug", "--keep", "-keep", "-v", "--verbose",
    "-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler", "-use_fast_math",
    "--use_fast_math", "--extended-lambda", "-extended-lambda", "--expt-extended-lambda",
    "-expt-extended-lambda", "-c", "--compile", "-dw", "-dlto", "--dlink-time-opt", "-MD", "-MMD",
    "-Xptxas=-v", "--resource-usage", "-res-usage", "-cudart", "--cudart", "-static-global-template-stub",
    "-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets", "-Wno-deprecated-declarations-gpu",
})
CLANG_MAX_SM = 90
_RDC = ("-rdc", "--relocatable-device-code")
_ARCH = ("-arch", "--gpu-architecture")
_GENCODE = ("-gencode", "--generate-code")


def translate(argv: list[str], *, source: Path | None = None, nvcc: bool = True,
              directory: Path | None = None) -> tuple[list[str], list[str]]:
    """Flags of one compile command (without argv[0]) as clang flags, and a note per flag changed or dropped.

    `-arch=sm_XX` and `-gencode arch=compute_XX,code=sm_XX` become `--cuda-gpu-arch=sm_XX`,
    `-Xcompiler A,B` becomes `A B`, `-rdc=true` and `-dc` become `-fgpu-rdc`,
    `--expt-relaxed-constexpr` is dropped (clang's CUDA mode treats constexpr functions as
    host-device by default); `-c`, `-o FILE`, `-x cu` and the source itself go.
    """
    out: list[str] = []
    notes: list[str] = []
    archs: list[str] = []
    words = list(argv)
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, inline = word.partition("=")
        value = inline if eq else (words[i + 1] if i + 1 < len(words) else "")
        takes_next = not eq
        if source is not None and _same_file(word, source):
            i += 1
            continue
        if word in ("-o", "-x", "-MF", "-MT", "-MQ"):  # value in the next word
            i += 2
            continue
        if word.startswith("-o") and len(word) > 2 and not word.startswith("-opt"):
            i += 1
            continue
        if word == "-c":
            i += 1
            continue
        if name in ("-Xcompiler", "--compiler-options"):
            out.extend(v for v in value.split(",") if v)
            i += 2 if takes_next else 1
            continue
        if name in _ARCH:
            arch = _sm(value)
            if arch:
                archs.append(arch)
            else:
                notes.append(f"dropped {name} {value}: no single GPU architecture for clang")
            i += 2 if takes_next else 1
            continue
        if name in _GENCODE:
            arch = _gencode_arch(value)
            if arch:
                archs.append(arch)
            i += 2 if takes_next else 1
            continue
        if name in _RDC:
            if value.lower() in ("true", "1", "yes"):
                out.append("-fgpu-rdc")
            i += 2 if takes_next and value.lower() in ("true", "false", "1", "0", "yes", "no") else 1
            continue
        if word in ("-dc", "--device-c"):
            out.append("-fgpu-rdc")
            i += 1
            continue
        if name in ("--expt-relaxed-constexpr", "-expt-relaxed-constexpr"):
            notes.append(f"dropped {name}: clang's CUDA mode allows constexpr calls across host and device by default")
            i += 1
            continue
        if nvcc and (name in ("--std", "-std")):
            out.append(f"-std={value}")
            i += 2 if takes_next else 1
            continue
        if nvcc and name in ("--include-path", "--system-include", "--define-macro", "--undefine-macro",
                             "--pre-include"):
            flag = {"--include-path": "-I", "--system-include": "-isystem", "--define-macro": "-D",
                    "--undefine-macro": "-U", "--pre-include": "-include"}[name]
            out.extend([flag, value] if flag in ("-isystem", "-include") else [flag + value])
            i += 2 if takes_next else 1
            continue
        if name in ("--options-file", "-optf") and directory is not None:
            words[i + 1 if takes_next else i:i + 2 if takes_next else i + 1] = _options_file(directory / value, notes)
            if takes_next:
                del words[i]
            continue
        if nvcc and name in _NVCC_DROP_VALUE:
            notes.append(f"dropped nvcc option {name}")
            i += 2 if takes_next else 1
            continue
        if nvcc and (word in _NVCC_DROP or name in _NVCC_DROP or word.startswith("-Xptxas")):
            notes.append(f"dropped nvcc option {word}")
            i += 1
            continue
        if nvcc and word.startswith("--") and not word.startswith(("--cuda", "--offload")):
            notes.append(f"dropped nvcc option {word}: clang has no equivalent")
            i += 1
            continue
        out.append(word)
        i += 1
    if archs:  # one host-side parse needs one architecture; clang 18 knows up to sm_90
        arch = min(archs, key=lambda a: int(a[3:].rstrip("af")))
        if int(arch[3:].rstrip("af")) > CLANG_MAX_SM:
            notes.append(f"parsed for sm_{CLANG_MAX_SM} instead of {arch}, which libclang 18 does not know")
            arch = f"sm_{CLANG_MAX_SM}"
        out.append(f"--cuda-gpu-arch={arch}")
    return out, notes


def _options_file(path: Path, notes: list[str]) -> list[str]:
    """The words of an nvcc `--options-file` (CMake puts include paths there)."""
    try:
        return shlex.split(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        notes.append(f"cannot read options file {path}: {exc}")
        return []


def _same_file(word: str, source: Path) -> bool:
    if word.startswith("-") or not word.endswith((".cu", ".cpp", ".cc", ".cxx", ".c", ".C")):
        return False
    return Path(word).name == source.name


def _sm(value: str) -> str | None:
    """`sm_80`, `compute_80`, `sm_90a` -> clang's `sm_XX`; `native`, `all`, lists -> None."""
    value = value.strip()
    for prefix in ("sm_", "compute_", "lto_"):
        if value.startswith(prefix) and value[len(prefix):].rstrip("af").isdigit():
            return "sm_" + value[len(prefix):]
    return None


def _gencode_arch(value: str) -> str | None:
    """`arch=compute_80,code=sm_80` or `arch=compute_80,code=[sm_80,compute_80]` -> `sm_80`."""
    parts = dict(p.split("=", 1) for p in value.replace("[", "").replace("]", "").split(",") if "=" in p)
    for key_ in ("code", "arch"):
        arch = _sm(parts.get(key_, ""))
        if arch:
            return arch
    return None
