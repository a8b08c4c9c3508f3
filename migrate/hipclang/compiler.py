"""The one place that runs hip-clang: one translation unit of the converted copy for one target, its
errors parsed into records. An argv list, no shell, stdin closed, a timeout; output goes to a
temporary folder of ours (the device compile's object), never into the tree."""
from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from migrate.hipclang.toolchain import HipToolchain

TIMEOUT = 300.0
OUTPUT_LIMIT = 1 << 20  # characters of stderr read
QUIET = ("-fno-color-diagnostics", "-fno-caret-diagnostics", "-fno-diagnostics-fixit-info", "-ferror-limit=100",
         "-fdiagnostics-format=clang")
DIAGNOSTIC = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<column>\d+): (?P<severity>fatal error|error): "
                        r"(?P<message>.*)$")
SIDE = re.compile(r"errors? generated when compiling for (?P<side>\S+?)\.?$")
UNKNOWN_ARCH = re.compile(r"(invalid target ID|unsupported CUDA gpu architecture|Unsupported CUDA gpu|"
                          r"unknown target CPU|invalid offload arch)", re.IGNORECASE)
PROBE = "__global__ void rocm_migrate_probe(int *p) { *p = 0; }\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """One error of a compile: where the compiler put it (as it printed the path) and what it said."""

    file: str
    line: int
    column: int
    severity: Literal["error", "fatal error"]
    message: str
    side: str = ""  # "host" or the architecture, when the compiler said


@dataclass(frozen=True, slots=True, kw_only=True)
class Compiled:
    """The outcome of one translation unit for one architecture."""

    ok: bool
    diagnostics: tuple[Diagnostic, ...]
    failure: str = ""  # the compiler did not run or did not finish (a timeout), in one line


def compile_unit(toolchain: HipToolchain, source: Path, flags: list[str], *, arch: str, cwd: Path) -> Compiled:
    """hip-clang's front end (and with a full toolchain the device compile) on `source` for `arch`."""
    with tempfile.TemporaryDirectory(prefix="rocm-migrate-check-") as scratch:
        mode = ["-c", "-o", str(Path(scratch) / "unit.o")] if toolchain.device_code else ["-fsyntax-only"]
        argv = [*toolchain.command, "-x", "hip", f"--offload-arch={arch}", *mode, *QUIET, *toolchain.flags, *flags,
                str(source)]
        try:
            done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=TIMEOUT,
                                  stdin=subprocess.DEVNULL, env=toolchain.environment(), check=False)
        except subprocess.TimeoutExpired:
            return Compiled(ok=False, diagnostics=(), failure=f"no answer within {TIMEOUT:.0f} s")
        except OSError as exc:
            return Compiled(ok=False, diagnostics=(), failure=f"could not run {argv[0]}: {exc}")
    diagnostics = parse(done.stderr[:OUTPUT_LIMIT], cwd=cwd)
    failure = "" if done.returncode == 0 or diagnostics else _first_line(done.stderr) or f"exit code {done.returncode}"
    return Compiled(ok=done.returncode == 0, diagnostics=diagnostics, failure=failure)


def knows_arch(toolchain: HipToolchain, arch: str) -> bool:
    """Whether the toolchain compiles a trivial kernel for `arch` (clang 15 of ROCm 5.2 has no gfx942)."""
    with tempfile.TemporaryDirectory(prefix="rocm-migrate-probe-") as scratch:
        probe = Path(scratch) / "probe.hip"
        probe.write_text(PROBE, encoding="utf-8")
        result = compile_unit(toolchain, probe, [], arch=arch, cwd=Path(scratch))
    return result.ok or not UNKNOWN_ARCH.search(result.failure + " ".join(d.message for d in result.diagnostics))


def parse(stderr: str, *, cwd: Path) -> tuple[Diagnostic, ...]:
    """The errors in clang's output (`-fdiagnostics-format=clang`, no carets), each with the side
    (host or architecture) of the summary line that follows it; paths made absolute against `cwd`."""
    pending: list[Diagnostic] = []
    out: list[Diagnostic] = []
    for line in stderr.splitlines():
        m = DIAGNOSTIC.match(line)
        if m:
            file = m["file"] if Path(m["file"]).is_absolute() else str(cwd / m["file"])
            pending.append(Diagnostic(file=file, line=int(m["line"]), column=int(m["column"]),
                                      severity="fatal error" if m["severity"] == "fatal error" else "error",
                                      message=m["message"]))
            continue
        side = SIDE.search(line)
        if side:
            out += [Diagnostic(file=d.file, line=d.line, column=d.column, severity=d.severity, message=d.message,
                               side=side["side"]) for d in pending]
            pending = []
    return tuple(out + pending)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:300]
