"""nvcc command lines as clang's CUDA flags: a table of what becomes of each nvcc option.

Pure Python (no libclang). `translate` reads the table; adding an option is a table row."""
from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from migrate.scan.readfile import NotRegular, Outside, read_inside, read_regular

CLANG_MAX_SM = 90  # the newest architecture libclang 18 knows
OPTIONS_FILE_BYTES = 1 << 20
OPTIONS_FILE_DEPTH = 4  # nested --options-file levels followed (a file that includes itself stops here)
SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".C")


@dataclass(frozen=True, slots=True)
class Option:
    """What an option becomes: `action` is one of ACTIONS; `value` says whether it takes one
    (the next word, or after '='); `nvcc` whether only nvcc's command lines have it."""

    action: str
    value: bool = False
    nvcc: bool = True
    to: str = ""  # the clang spelling, for "rename" and "emit"
    note: str = ""  # why it is dropped, for "drop"


def _rows(names: str, option: Option) -> dict[str, Option]:
    return dict.fromkeys(names.split(), option)


OPTIONS: dict[str, Option] = {
    # the compile itself: output, language and dependency files are clang's business here
    **_rows("-o -x -MF -MT -MQ", Option("skip", value=True, nvcc=False)),
    **_rows("-c", Option("skip", nvcc=False)),
    **_rows("-Xcompiler --compiler-options", Option("split", value=True, nvcc=False)),
    **_rows("-arch --gpu-architecture", Option("arch", value=True, nvcc=False)),
    **_rows("-gencode --generate-code", Option("gencode", value=True, nvcc=False)),
    **_rows("-rdc --relocatable-device-code", Option("rdc", nvcc=False)),
    **_rows("-dc --device-c", Option("emit", to="-fgpu-rdc", nvcc=False)),
    **_rows("--expt-relaxed-constexpr -expt-relaxed-constexpr",
            Option("drop", nvcc=False, note="clang's CUDA mode allows constexpr calls across host and device by default")),
    **_rows("--options-file -optf", Option("options-file", value=True, nvcc=False)),
    **_rows("--std -std", Option("rename", value=True, to="-std=")),
    "--include-path": Option("rename", value=True, to="-I"),
    "--define-macro": Option("rename", value=True, to="-D"),
    "--undefine-macro": Option("rename", value=True, to="-U"),
    "--system-include": Option("separate", value=True, to="-isystem"),
    "--pre-include": Option("separate", value=True, to="-include"),
    **_rows("-ccbin --compiler-bindir -Xptxas --ptxas-options -Xlinker --linker-options -Xnvlink --nvlink-options "
            "-Xfatbin --fatbin-options -maxrregcount --maxrregcount --default-stream -default-stream "
            "--diag-suppress -diag-suppress --diag-error --diag-warn -Xcudafe --cudafe-options --threads -t "
            "-code --gpu-code -Werror --keep-dir -odir --output-directory --dependency-output -ftemplate-depth "
            "-split-compile --split-compile --output-file -Xarchive --archive-options",
            Option("drop", value=True)),
    **_rows("-lineinfo --generate-line-info -G --device-debug --keep -keep -v --verbose "
            "-forward-unknown-to-host-compiler --forward-unknown-to-host-compiler -use_fast_math --use_fast_math "
            "--extended-lambda -extended-lambda --expt-extended-lambda -expt-extended-lambda --compile -dw -dlto "
            "--dlink-time-opt -MD -MMD -Xptxas=-v --resource-usage -res-usage -cudart --cudart "
            "-static-global-template-stub -Wno-deprecated-gpu-targets --Wno-deprecated-gpu-targets "
            "-Wno-deprecated-declarations-gpu", Option("drop")),
}
RDC_VALUES = frozenset({"true", "false", "1", "0", "yes", "no"})


@dataclass
class _State:
    out: list[str]
    notes: list[str]
    archs: list[str]
    directory: Path | None
    root: Path | None = None  # options files are read only inside it
    depth: int = 0


def translate(argv: list[str], *, source: Path | None = None, nvcc: bool = True,
              directory: Path | None = None, root: Path | None = None) -> tuple[list[str], list[str]]:
    """Flags of one compile command (without argv[0]) as clang flags, and a note per flag changed or dropped.

    `-arch=sm_XX` and `-gencode arch=compute_XX,code=sm_XX` become one `--cuda-gpu-arch=sm_XX`,
    `-Xcompiler A,B` becomes `A B`, `-rdc=true` and `-dc` become `-fgpu-rdc`; `-c`, `-o FILE`,
    `-x cu` and the source itself go; what else becomes of an option is in OPTIONS."""
    state = _State(out=[], notes=[], archs=[], directory=directory, root=root)
    _words(list(argv), state, source=source, nvcc=nvcc)
    if state.archs:  # one host-side parse needs one architecture
        arch = min(state.archs, key=_sm_number)
        if _sm_number(arch) > CLANG_MAX_SM:
            state.notes.append(f"parsed for sm_{CLANG_MAX_SM} instead of {arch}, which libclang 18 does not know")
            arch = f"sm_{CLANG_MAX_SM}"
        state.out.append(f"--cuda-gpu-arch={arch}")
    return state.out, state.notes


def _words(words: list[str], state: _State, *, source: Path | None, nvcc: bool) -> None:
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, inline = word.partition("=")
        option = OPTIONS.get(word) or OPTIONS.get(name)
        if option is not None and option.nvcc and not nvcc:
            option = None
        if option is None:
            i += _unlisted(word, state, source=source, nvcc=nvcc)
            continue
        takes_next = option.value and not eq and option is OPTIONS.get(name)
        value = inline if eq else (words[i + 1] if takes_next and i + 1 < len(words) else "")
        if option.action == "rdc":
            takes_next = not eq and i + 1 < len(words) and words[i + 1].lower() in RDC_VALUES
            value = inline if eq else (words[i + 1] if takes_next else "true")
        if option.action == "options-file":
            _options_file(value, state, source=source, nvcc=nvcc)
        else:
            ACTIONS[option.action](option, name, value, state)
        i += 2 if takes_next else 1


def _unlisted(word: str, state: _State, *, source: Path | None, nvcc: bool) -> int:
    """An option the table does not name: the source and `-oFILE` go, nvcc's long options are dropped."""
    if source is not None and _same_file(word, source):
        return 1
    if word.startswith("-o") and len(word) > 2 and not word.startswith("-opt"):
        return 1
    if nvcc and word.startswith("-Xptxas"):
        state.notes.append(f"dropped nvcc option {word}")
        return 1
    if nvcc and word.startswith("--") and not word.startswith(("--cuda", "--offload")):
        state.notes.append(f"dropped nvcc option {word}: clang has no equivalent")
        return 1
    state.out.append(word)
    return 1


def _skip(option: Option, name: str, value: str, state: _State) -> None:
    return None


def _split(option: Option, name: str, value: str, state: _State) -> None:
    state.out.extend(v for v in value.split(",") if v)


def _arch(option: Option, name: str, value: str, state: _State) -> None:
    arch = _sm(value)
    if arch:
        state.archs.append(arch)
    else:
        state.notes.append(f"dropped {name} {value}: no single GPU architecture for clang")


def _gencode(option: Option, name: str, value: str, state: _State) -> None:
    arch = _gencode_arch(value)
    if arch:
        state.archs.append(arch)


def _rdc(option: Option, name: str, value: str, state: _State) -> None:
    if value.lower() in ("true", "1", "yes"):
        state.out.append("-fgpu-rdc")


def _emit(option: Option, name: str, value: str, state: _State) -> None:
    state.out.append(option.to)


def _drop(option: Option, name: str, value: str, state: _State) -> None:
    state.notes.append(f"dropped {name}: {option.note}" if option.note else f"dropped nvcc option {name}")


def _rename(option: Option, name: str, value: str, state: _State) -> None:
    state.out.append(option.to + value)


def _separate(option: Option, name: str, value: str, state: _State) -> None:
    state.out.extend([option.to, value])


ACTIONS: dict[str, Callable[[Option, str, str, _State], None]] = {
    "skip": _skip, "split": _split, "arch": _arch, "gencode": _gencode, "rdc": _rdc, "emit": _emit,
    "drop": _drop, "rename": _rename, "separate": _separate,
}


def _options_file(value: str, state: _State, *, source: Path | None, nvcc: bool) -> None:
    """The words of an nvcc `--options-file` (CMake puts include paths there), read in place."""
    if state.directory is None:
        return
    if state.depth >= OPTIONS_FILE_DEPTH:
        state.notes.append(f"options file {value}: nested deeper than {OPTIONS_FILE_DEPTH} levels, not read")
        return
    path = state.directory / value
    try:  # regular files inside the tree only, bounded: the path comes from the scanned repository
        data = read_inside(path, state.root, OPTIONS_FILE_BYTES) if state.root is not None \
            else read_regular(path, OPTIONS_FILE_BYTES)
        words = shlex.split(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        if isinstance(exc, Outside | NotRegular):
            reason = "outside the scanned tree" if isinstance(exc, Outside) else "not a regular file"
        state.notes.append(f"cannot read options file {Path(value).name}: {reason}")
        return
    state.depth += 1
    _words(words, state, source=source, nvcc=nvcc)
    state.depth -= 1


def _same_file(word: str, source: Path) -> bool:
    return not word.startswith("-") and word.endswith(SOURCE_SUFFIXES) and Path(word).name == source.name


def _sm_number(arch: str) -> int:
    return int(arch[3:].rstrip("af"))


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
    for key in ("code", "arch"):
        arch = _sm(parts.get(key, ""))
        if arch:
            return arch
    return None
