"""Which hip-clang runs: `--hip-compiler`, then `$ROCM_PATH`, `hipcc`, `amdclang++` (a ROCm
installation), then the pip-only fallback of the `[check]` extra (the `ziglang` wheel's clang 18,
which has the AMDGPU target, with the HIP runtime headers of the `triton` wheel).

Discovery reads files and asks the compiler for its version; it never raises for a missing tool:
`find` returns the toolchain or a one-line reason."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Literal

from migrate.vocabulary import install_hint

Source = Literal["option", "rocm-path", "hipcc", "amdclang++", "pip"]
VERSION_TIMEOUT = 60.0
PIP_ONLY = "pip"  # --hip-compiler pip: the `[check]` extra's toolchain even where ROCm is installed
HIP_PLATFORM = ("HIP_PLATFORM", "amd")  # hipcc picks NVIDIA's platform when it finds nvcc otherwise
HOW_TO_GET = (f"install ROCm (hipcc), pass --hip-compiler PATH, or {install_hint('check')} "
              "(clang from the ziglang wheel, HIP headers from the triton wheel)")


@dataclass(frozen=True, slots=True, kw_only=True)
class HipToolchain:
    """A compiler that takes `-x hip --offload-arch=gfxNNN`, and what it is."""

    source: Source
    command: tuple[str, ...]  # argv before the compile's own flags
    flags: tuple[str, ...] = ()  # flags this toolchain always needs (headers, resource dir)
    env: tuple[tuple[str, str], ...] = ()
    hip_version: str  # "6.1", from hip_version.h or hipcc --version; "" when unknown
    clang_version: str
    device_code: bool  # True: a full toolchain (device libraries, linker): the device compile runs too

    @property
    def name(self) -> str:
        kind = {"option": "--hip-compiler", "rocm-path": "$ROCM_PATH", "pip": "pip-only (ziglang + triton)"}
        return f"{kind.get(self.source, self.source)}: {' '.join(self.command)}"

    def describe(self) -> str:
        what = "front end and device compile" if self.device_code else "front end only (no device code generation)"
        return f"{self.name}; HIP {self.hip_version or 'unknown'}, clang {self.clang_version or 'unknown'}; {what}"

    def environment(self) -> dict[str, str]:
        return {**os.environ, **dict(self.env)}


def find(explicit: Path | None = None, env: Mapping[str, str] | None = None) -> HipToolchain | str:
    """The toolchain to use, in the documented order, or a one-line reason none was found."""
    env = os.environ if env is None else env
    if explicit is not None and str(explicit) == PIP_ONLY:
        return _pip_only() or f"--hip-compiler {PIP_ONLY}: the pip-only toolchain is not installed ({HOW_TO_GET})"
    if explicit is not None:
        if not explicit.is_file():
            return f"--hip-compiler {explicit}: no such file"
        return _from_compiler(explicit, "option")
    rocm = env.get("ROCM_PATH")
    if rocm:
        for name in ("bin/hipcc", "bin/amdclang++", "llvm/bin/clang++"):
            if (Path(rocm) / name).is_file():
                return _from_compiler(Path(rocm) / name, "rocm-path")
    path = env.get("PATH", os.defpath)
    for name, source in (("hipcc", "hipcc"), ("amdclang++", "amdclang++")):
        found = shutil.which(name, path=path)
        if found:
            return _from_compiler(Path(found), source)  # type: ignore[arg-type]
    return _pip_only() or f"no HIP compiler found: {HOW_TO_GET}"


def _from_compiler(compiler: Path, source: Source) -> HipToolchain:
    hipcc = compiler.name.startswith("hipcc")
    text = _version_text([str(compiler), "--version"], env={**os.environ, HIP_PLATFORM[0]: HIP_PLATFORM[1]})
    clang = _match(r"clang version (\d+\.\d+\.\d+)", text)
    hip = _match(r"HIP version: (\d+\.\d+)", text) or _header_version(_hip_include(compiler))
    return HipToolchain(source=source, command=(str(compiler),), env=(HIP_PLATFORM,) if hipcc else (),
                        flags=("-Wno-unused-command-line-argument",) if hipcc else (),
                        hip_version=hip, clang_version=clang, device_code=True)


def _pip_only() -> HipToolchain | None:
    """The `[check]` extra: zig's clang (never imported: its binary is run) and triton's HIP headers."""
    zig_dir, triton_dir = _package_dir("ziglang"), _package_dir("triton")
    if zig_dir is None or triton_dir is None:
        return None
    zig, include = zig_dir / "zig", triton_dir / "backends" / "amd" / "include"
    if not zig.is_file() or not (include / "hip" / "hip_runtime.h").is_file():
        return None
    resource = zig_dir / "lib"
    if not (resource / "include" / "__clang_hip_runtime_wrapper.h").is_file():
        return None
    text = _version_text([str(zig), "clang", "--version"])
    return HipToolchain(source="pip", command=(str(zig), "clang"),
                        flags=("-nogpulib", "-isystem", str(include), "-resource-dir", str(resource)),
                        hip_version=_header_version(include), clang_version=_match(r"clang version (\d+\.\d+\.\d+)", text),
                        device_code=False)


def _package_dir(name: str) -> Path | None:
    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _hip_include(compiler: Path) -> Path | None:
    """The HIP headers next to a compiler: <prefix>/include (bin/hipcc), <rocm>/include (llvm/bin/clang++)."""
    real = compiler.resolve()
    for prefix in (real.parent.parent, real.parent.parent.parent, compiler.parent.parent):
        if (prefix / "include" / "hip" / "hip_version.h").is_file():
            return prefix / "include"
    return None


def _header_version(include: Path | None) -> str:
    if include is None:
        return ""
    try:
        text = (include / "hip" / "hip_version.h").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    major = _match(r"#define\s+HIP_VERSION_MAJOR\s+(\d+)", text)
    minor = _match(r"#define\s+HIP_VERSION_MINOR\s+(\d+)", text)
    return f"{major}.{minor}" if major and minor else ""


def _version_text(argv: list[str], env: Mapping[str, str] | None = None) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=VERSION_TIMEOUT,
                              stdin=subprocess.DEVNULL, env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout + done.stderr


def _match(pattern: str, text: str) -> str:
    m = re.search(pattern, text)
    return m.group(1) if m else ""
