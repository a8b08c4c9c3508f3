"""Hostile repositories (issue 12): one builder per case, and a runner that scans each in a bounded subprocess.

Each case builds a tree under `root` (the repository to scan) and may put files under
`outside` (which must never be read or written). The runner runs the real CLI with a
wall-clock limit and an address-space limit and returns what happened; the checks are
the caller's (the reproduction script prints them, the test asserts them)."""
from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from tests.deep_folders import deep_folders, remove_deep

SECRET = "OUTSIDE_SECRET_7f3a"
SCALE = float(os.environ.get("HOSTILE_SCALE", "1"))  # the test runs the big cases at a quarter of their size


def n(count: int) -> int:
    return max(1, int(count * SCALE))
CUDA = "#include <cuda_runtime.h>\nvoid f(float** p) { cudaMalloc(p, 4); }\n"
OUTSIDE_CUDA = f"// {SECRET}\nvoid g(float** p) {{ cudaMallocManaged(p, 4); }} // {SECRET}\n"
FAKE_HIPIFY = r"""#!/usr/bin/perl
if (grep { $_ eq '-version' } @ARGV) { print STDERR "HIP version 6.3.0\n"; exit 0; }
my ($f) = grep { !/^-/ } @ARGV; open(my $h, '<', $f) or die "error: $f"; local $/; my $t = <$h>;
$t =~ s/\bcuda(Malloc|Free)\b/hip$1/g; print $t; exit 0;
"""


@dataclass(frozen=True)
class Case:
    name: str
    symptom: str  # what goes wrong without the protection
    build: Callable[[Path, Path], None]  # (root, outside)
    command: str = "scan"  # scan | lint | convert | convert-force | terminal | sarif
    extra: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    codes: tuple[int, ...] = (0,)  # acceptable exit codes
    fake_hipify: bool = False
    alone: bool = False  # needs a root of its own (configuration, .git, links to the root's parent)
    refused: bool = False  # an invalid configuration: exit 2, one escaped error line per problem, no report

    @property
    def combinable(self) -> bool:
        """Scanned together with the other file-level cases, each in a folder of its own."""
        return self.command in ("scan", "html") and not self.alone and not self.extra


@dataclass
class Result:
    case: Case
    rc: int | None
    seconds: float
    peak_mib: float
    stdout: bytes
    stderr: str
    report: dict | None
    outputs: dict[str, bytes]  # every file the run wrote outside the source tree (report, sarif ...)
    timed_out: bool
    root: Path
    outside: Path


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def _good(root: Path) -> None:
    """Every case also has an ordinary CUDA file: the scan must still report it."""
    _write(root / "good.cu", CUDA)


def _git(root: Path) -> None:
    (root / ".git").mkdir(parents=True, exist_ok=True)


def _deep_path(root: Path) -> None:
    """A directory chain whose absolute path is longer than PATH_MAX (built with dir fds)."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(40):
            os.mkdir("d" * 120, dir_fd=fd)
            new = os.open("d" * 120, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = new
        with os.fdopen(os.open("k.cu", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as handle:
            handle.write(CUDA)
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def _many(root: Path, n: int = 70) -> None:
    for i in range(n):
        _write(root / "src" / f"k{i:03}.cu", CUDA)


def _symlink(link: Path, target: str | Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)


def _fifo(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


# Every ASCII character but NUL and '/' in a file name, some that are not ASCII, and one that is not UTF-8.
SARIF_NAMES = [*(f"c{chr(c)}x.cu" for c in range(1, 128) if chr(c) not in "/."),
               "a b.cu", "100%.cu", "%41.cu", "q?.cu", "h#.cu", "é.cu", "中文.cu", "bidi\u202e\u2066.cu", "\U0001f600.cu",
               "[x].cu", "semi;colon.cu", os.fsdecode(b"raw\xff.cu")]


def _b(name: str, fn: Callable[[Path, Path], None]) -> Callable[[Path, Path], None]:
    def build(root: Path, outside: Path) -> None:
        _good(root)
        fn(root, outside)

    build.__name__ = name
    return build


def _outside_tree(outside: Path) -> None:
    _write(outside / "dir" / "k.cu", OUTSIDE_CUDA)
    _write(outside / "requirements.txt", f"cupy-cuda12x  # {SECRET}\n")
    _write(outside / "victim.txt", "victim\n")


CASES: list[Case] = [
    # --- one file kills the whole scan -------------------------------------------------------
    Case("py-binop-chain", "recursive visitor: RecursionError on a + a + ... (330 terms)",
         _b("b", lambda r, o: _write(r / "x.py", "import pynvml\nx = " + " + ".join(["pynvml.a"] * 330) + "\n"))),
    Case("py-binop-chain-3000", "the same, deeper than ast.parse's own limit",
         _b("b", lambda r, o: _write(r / "x.py", "import pynvml\nx = " + " + ".join(["pynvml.a"] * 3000) + "\n"))),
    Case("py-unary-chain", "recursive visitor: RecursionError on a 600-deep unary chain",
         _b("b", lambda r, o: _write(r / "x.py", "import pynvml\nx = " + "-" * 600 + "pynvml.a\n"))),
    Case("py-nested-lists", "deep nesting in one expression (ast.parse limit)",
         _b("b", lambda r, o: _write(r / "x.py", "x = " + "[" * 190 + "]" * 190 + "\n"))),
    Case("nb-cells-int", "notebook with \"cells\": 5 (TypeError)",
         _b("b", lambda r, o: _write(r / "n.ipynb", '{"cells": 5}'))),
    Case("nb-source-nonstring", "notebook cell whose source holds a number (TypeError)",
         _b("b", lambda r, o: _write(r / "n.ipynb", json.dumps(
             {"cells": [{"cell_type": "code", "source": [1, "import pynvml\n"]}]})))),
    Case("nb-deep-json", "100k-deep JSON in a notebook (RecursionError)",
         _b("b", lambda r, o: _write(r / "n.ipynb", '{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}"))),
    Case("cu-guard-nonutf8", "#if(<0xdf>...) in a .cu: decode in the guard map",
         _b("b", lambda r, o: _write(r / "g.cu", b"#if(\xdf__HIP_PLATFORM_AMD__)\nint x;\n#endif\ncudaFree(0);\n"))),
    Case("cu-define-5000-digits", "a 5,000-digit #define (int() digit limit)",
         _b("b", lambda r, o: _write(r / "d.cu", "#define WARP " + "9" * 5000 + "\n"
                                     "__global__ void k(){ __shfl_down_sync(WARP, 1, 1); }\n"))),
    Case("dir-not-utf8", "a directory name that is not UTF-8 (fingerprint encode)",
         _b("b", lambda r, o: _write(Path(os.fsdecode(os.fsencode(r) + b"/d\xff")) / "k.cu", CUDA))),
    Case("pyproject-tool-str", "the scanned repo's pyproject.toml with tool = 'x'",
         _b("b", lambda r, o: _write(r / "pyproject.toml", "tool = 'x'\n")), alone=True),
    Case("pyproject-rocm-migrate-int", "[tool] rocm-migrate = 5",
         _b("b", lambda r, o: _write(r / "pyproject.toml", "[tool]\nrocm-migrate = 5\n")), alone=True,
         codes=(2,), refused=True),
    Case("pyproject-deep-array", "a 5,000-deep array in pyproject.toml naming the tool (RecursionError in tomllib)",
         _b("b", lambda r, o: _write(r / "pyproject.toml", "[tool.rocm-migrate]\nx = " + "[" * 5000 + "]" * 5000
                                     + "\n")), alone=True, codes=(2,), refused=True),
    Case("config-learning-rate-negative", ".rocm-migrate.toml with effort learning-rate = -1",
         _b("b", lambda r, o: _write(r / ".rocm-migrate.toml", "[effort]\nlearning-rate = -1\n")), alone=True,
         codes=(2,), refused=True),
    Case("config-bad-types", ".rocm-migrate.toml with wrong types: one error line each, exit 2 (as ruff)",
         _b("b", lambda r, o: _write(r / ".rocm-migrate.toml",
                                     'jobs = "x"\nmax-file-size = -5\nexclude = [1]\nfail-on = "bad"\n'
                                     '[effort]\nhipify-factor = {yes = "a"}\nuncertainty = 7\n')), alone=True,
         codes=(2,), refused=True),
    Case("precise-bad-database", "a malformed compile_commands.json under --precise (TypeError)",
         _b("b", lambda r, o: (_write(r / "compile_commands.json", json.dumps(
             [{"file": 5, "directory": [], "arguments": 7}, {"file": "good.cu", "directory": ".", "command": 12},
              {"file": "good.cu", "directory": ".", "arguments": "nvcc"}, "x", 5, None,
              {"file": "good.cu", "directory": ".", "arguments": ["nvcc", "-optf", "self.rsp", "-c", "good.cu"]},
              {"file": "good.cu", "directory": ".",
               "arguments": ["nvcc", "--options-file", "fifo.rsp", "-optf", "/dev/zero", "-c", "good.cu"]}])),
                               _write(r / "self.rsp", "--options-file self.rsp -DX\n"), _fifo(r / "fifo.rsp"))),
         extra=("--precise",)),
    Case("precise-not-json", "compile_commands.json that is not JSON, or 100k-deep JSON, under --precise",
         _b("b", lambda r, o: (_write(r / "compile_commands.json", "[" * 100_000 + "]" * 100_000),
                               _write(r / "build" / "compile_commands.json", "{oops"))), extra=("--precise",),
         alone=True),
    Case("cache-wrong-rows", "every cache row (facts, results, reports, precompiled rules) of the wrong type",
         _b("b", lambda r, o: (_write(r / "p.py", "import pynvml\n"), _write(r / "n.cu", "#if HIP_X\n#endif\n"))),
         command="poisoned-cache"),
    Case("hipify-version-fails", "a hipify-perl on PATH whose -version fails",
         _b("b", lambda r, o: (_write(o / "bin" / "hipify-perl", "#!/bin/sh\necho boom >&2\nexit 3\n"),
                               os.chmod(o / "bin" / "hipify-perl", 0o755))),
         extra=("--hipify",), env={"PATH_PREPEND": "bin"}),
    # --- hangs and runaway memory --------------------------------------------------------
    Case("fifo-no-extension", "a FIFO without an extension: the content sniff blocks",
         _b("b", lambda r, o: _fifo(r / "run"))),
    Case("fifo-yaml", "a FIFO named .yaml: the manifest sniff blocks",
         _b("b", lambda r, o: _fifo(r / "deploy.yaml"))),
    Case("fifo-cu", "a FIFO named .cu (stat says FIFO; a swap after stat would block)",
         _b("b", lambda r, o: _fifo(r / "k2.cu"))),
    Case("gitignore-fifo", "a FIFO as .gitignore: reading it blocks",
         _b("b", lambda r, o: (_git(r), _fifo(r / ".gitignore"))), alone=True),
    Case("gitignore-devzero", "a /dev/zero symlink as .gitignore: memory grows without bound",
         _b("b", lambda r, o: (_git(r), _symlink(r / ".gitignore", "/dev/zero"))), alone=True),
    Case("devzero-cu", "a /dev/zero symlink as a .cu file",
         _b("b", lambda r, o: _symlink(r / "z.cu", "/dev/zero"))),
    Case("long-line", "a 4 MB single line under the 5 MiB limit: each fingerprint re-scans it",
         _b("b", lambda r, o: _write(r / "long.cu", "void f(){" + "cudaFree(0);" * n(330_000) + "}\n"))),
    Case("docker-continuations", "200k Dockerfile continuation lines (quadratic)",
         _b("b", lambda r, o: _write(r / "Dockerfile", "FROM nvidia/cuda:12.4.0-devel-ubuntu22.04\nRUN true"
                                     + " \\\n  && nvidia-smi" * n(200_000) + "\n"))),
    Case("cmake-gencode", "20k -gencode flags on one CMake line (quadratic)",
         _b("b", lambda r, o: _write(r / "CMakeLists.txt", 'set(CMAKE_CUDA_FLAGS "'
                                     + " -gencode arch=compute_80,code=sm_80" * n(20_000) + '")\n'))),
    Case("gitignore-stars", "a .gitignore line of 5,000 '*' (regex backtracking)",
         _b("b", lambda r, o: (_git(r), _write(r / ".gitignore", "*" * 5000 + "x\n"),
                               [_write(r / f"file{i}_abcdefghijklmnopqrstuvwxyz.cu", CUDA) for i in range(3)])), alone=True),
    Case("exclude-stars", "--exclude with 5,000 '*' (regex backtracking)",
         _b("b", lambda r, o: None), extra=("--exclude", "*" * 5000 + "x")),
    Case("if-nest-800", "an 800-deep #if nest (cubic guard map)",
         _b("b", lambda r, o: _write(r / "n.cu", "#if defined(__HIP_PLATFORM_AMD__)\n" * 800
                                     + "cudaFree(0);\n" + "#endif\n" * 800))),
    Case("if-nest-800-chains", "800 #if/#elif chains of 50 branches",
         _b("b", lambda r, o: _write(r / "n.cu", ("#if HIP_A\nint a;\n" + "#elif HIP_B\nint b;\n" * 50
                                                  + "#else\ncudaFree(0);\n#endif\n") * n(800)))),
    Case("config-jobs-40", "jobs = 40 in the scanned repo's config: 40 processes on a small machine",
         _b("b", lambda r, o: (_write(r / ".rocm-migrate.toml", "jobs = 40\n"), _many(r))), alone=True),
    Case("many-findings-one-file", "200k findings in one 2.6 MB file",
         _b("b", lambda r, o: _write(r / "many.cu", "void f(){\n" + "cudaFree(0);\n" * n(200_000) + "}\n"))),
    Case("deep-braces", "a 100k-deep brace nest in C++",
         _b("b", lambda r, o: _write(r / "b.cu", "void f()" + "{" * 100_000 + "cudaFree(0);" + "}" * 100_000))),
    # --- reads outside the tree ----------------------------------------------------------
    Case("requirements-etc-passwd", "requirements.txt -> /etc/passwd is parsed as requirements",
         _b("b", lambda r, o: _symlink(r / "requirements.txt", "/etc/passwd"))),
    Case("etc-shadow-proc-environ", "/etc/shadow and /proc/self/environ are opened",
         _b("b", lambda r, o: (_symlink(r / "shadow.cu", "/etc/shadow"),
                               _symlink(r / "env.sh", "/proc/self/environ")))),
    Case("symlink-outside-files", "symlinked files outside the tree are scanned",
         _b("b", lambda r, o: (_outside_tree(o), _symlink(r / "k.cu", o / "dir" / "k.cu"),
                               _symlink(r / "requirements.txt", o / "requirements.txt"),
                               _symlink(r / "rel.cu", os.path.relpath(o / "dir" / "k.cu", r))))),
    Case("symlink-outside-dir", "a symlinked directory outside the tree is scanned (HTML snippets)",
         _b("b", lambda r, o: (_outside_tree(o), _symlink(r / "ext", o / "dir"))), command="html"),
    Case("symlink-inside-dir", "a symlink to a folder inside the tree is followed once",
         _b("b", lambda r, o: (_write(r / "a" / "k.cu", CUDA), _symlink(r / "b", "a"),
                               _symlink(r / "a" / "loop", "..")))),
    Case("symlink-parent-escape", "a symlink to the root's parent",
         _b("b", lambda r, o: (_outside_tree(o), _symlink(r / "up", ".."))), alone=True),
    # --- terminal-safe output ------------------------------------------------------------
    Case("escape-file-names", "raw escape sequences from file names in the terminal summary",
         _b("b", lambda r, o: (_write(r / "\x1b[2J\x1b]0;pwned\x07.cu", CUDA),
                               _write(r / "bidi\u202euc.cu", CUDA),
                               _write(r / "bad\x1b[31m.py", b"\xff\xfe"))), command="terminal"),
    Case("escape-lint", "raw escape sequences from file names in lint output",
         _b("b", lambda r, o: _write(r / "\x1b]0;title\x07\u202e.cu", CUDA)), command="lint", codes=(1,)),
    Case("escape-config-warning", "raw escape sequences in a configuration error",
         _b("b", lambda r, o: _write(r / ".rocm-migrate.toml", '"\\u001b[2J\\u001b]0;x\\u0007" = 1\n')),
         command="terminal", codes=(2,), refused=True),
    Case("escape-workload-names", "workload names with control characters (terminal, Markdown table)",
         _b("b", lambda r, o: (_write(r / "CMakeLists.txt", 'project("a\rb|c\x1b[2J")\nadd_library("x\ry\x1b]0;t\x07" k.cu)\n'),
                               _write(r / "k.cu", CUDA))), command="markdown"),
    Case("sarif-uris", "SARIF URIs of hostile names are not valid URIs (42 of 289)",
         _b("b", lambda r, o: [_write(r / name, CUDA) for name in SARIF_NAMES]), command="sarif"),
    # --- silently wrong ------------------------------------------------------------------
    Case("bom-python", "a UTF-8 BOM .py is skipped as a syntax error",
         _b("b", lambda r, o: _write(r / "b.py", "\ufeffimport pynvml\npynvml.nvmlInit()\n"))),
    Case("bom-requirements", "a BOM hides the first requirement of requirements.txt",
         _b("b", lambda r, o: _write(r / "requirements.txt", "\ufeffcupy-cuda12x\n"))),
    Case("path-too-long", "a too-long path is reported as a symlink loop",
         _b("b", lambda r, o: _deep_path(r))),
    Case("late-nul", "a late NUL in a .py is 'syntax error at line None'",
         _b("b", lambda r, o: _write(r / "n.py", "import pynvml\n" + "#" * 9000 + "\n\0\n"))),
    Case("determinism", "two runs differ (seconds) and hold absolute paths",
         _b("b", lambda r, o: (_write(r / "p.py", "import pynvml\n"), _write(r / "CMakeLists.txt", "project(p CUDA)\n"))),
         command="twice"),
    # --- convert -------------------------------------------------------------------------
    Case("convert-todo-symlink", "rocm-migrate-todo.md -> the source's README.md is overwritten",
         _b("b", lambda r, o: (_write(r / "README.md", "readme\n"),
                               _symlink(r / "rocm-migrate-todo.md", r / "README.md"))),
         command="convert", fake_hipify=True),
    Case("convert-diff-symlink", "rocm-migrate.diff -> an outside file is overwritten",
         _b("b", lambda r, o: (_outside_tree(o), _symlink(r / "rocm-migrate.diff", o / "victim.txt"))),
         command="convert", fake_hipify=True),
    Case("convert-tmp-symlink", "k.cu.rocm-migrate.tmp -> an outside file is overwritten",
         _b("b", lambda r, o: (_outside_tree(o), _symlink(r / "good.cu.rocm-migrate.tmp", o / "victim.txt"))),
         command="convert", fake_hipify=True),
    Case("convert-source-links", "links to outside files and folders in the source of convert",
         _b("b", lambda r, o: (_outside_tree(o), _symlink(r / "ext", o / "dir"), _symlink(r / "k.cu", o / "dir" / "k.cu"))),
         command="convert", fake_hipify=True),
    Case("convert-force-symlinks", "--force into a folder holding symlinks writes through them",
         _b("b", lambda r, o: (_outside_tree(o), _write(r / "dir" / "k.cu", CUDA))),
         command="convert-force", fake_hipify=True, codes=(2,)),
]


def _git_repo(folder: Path, *config: tuple[str, str]) -> None:
    """A git checkout with one commit (and config entries), built with the real git."""
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / "g.cu", CUDA)
    quiet = {"capture_output": True, "timeout": 60}
    subprocess.run(["git", "-C", str(folder), "init", "-q"], check=True, **quiet)  # type: ignore[call-overload]
    subprocess.run(["git", "-C", str(folder), "add", "-A"], check=True, **quiet)  # type: ignore[call-overload]
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
                   check=True, **quiet)  # type: ignore[call-overload]
    for key, value in config:
        subprocess.run(["git", "-C", str(folder), "config", key, value], check=True, **quiet)  # type: ignore[call-overload]


def _precise_database(root: Path, outside: Path, names: tuple[str, ...]) -> None:
    """A compilation database whose flags write (-Wp,-MD / -Xcompiler -MD,-MF / -Xclang) and read
    (-include, -I) outside the tree, with -MT text that would overwrite a file with a command."""
    o = str(outside)
    hostile = ["nvcc", f"-Wp,-MD,{o}/wp.d", "-Xcompiler", f"-MD,-MF,{o}/xc.d", "-Xclang", "-header-include-file",
               "-Xclang", f"{o}/hi.txt", f"-Wp,-MT,\"x\nrm -rf ~\",-MD,{o}/victim.txt", "-include", f"{o}/secret.h",
               f"-I{o}", "-arch=sm_80", "-c"]
    _write(root / "compile_commands.json", json.dumps(
        [{"directory": str(root), "file": n, "arguments": [*hostile, n]} for n in names]))


def _outside_header(outside: Path) -> None:
    _outside_tree(outside)
    _write(outside / "secret.h", f"int {SECRET};\n{SECRET} {SECRET};\n")


def _deep_folders(root: Path, depth: int = 1100) -> None:
    deep_folders(root, depth, CUDA.encode())


def _sparse(path: Path, size: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.truncate(size)


TROJAN_NAMES = ["\x1b[2J\x1b]0;pwned\x07.cu", "bidi\u202euc.cu", "tag\U000e0041\U000e0042.cu", "\r=1+1.cu",
                "=HYPERLINK(1).cu", "zw\u200bsp.cu"]


CASES += [
    # --- issue 29: a crash on an ordinary repository ------------------------------------------
    Case("pin-variable", "torch==${{ matrix.torch }} beside torch>=2.0: ValueError in the stack table (exit 3)",
         _b("b", lambda r, o: (_write(r / "requirements.txt", "torch>=2.0\n"),
                               _write(r / ".github" / "workflows" / "ci.yml", "jobs:\n  t:\n    steps:\n"
                                      "      - run: pip install torch==${{ matrix.torch }}\n"))), command="markdown"),
    # --- issue 29: writes outside and reads outside through precise mode --------------------------
    Case("precise-flags-write-outside", "-Wp,-MD / -Xcompiler -MD,-MF / -Xclang -header-include-file wrote outside",
         _b("b", lambda r, o: (_outside_header(o), _precise_database(r, o, ("good.cu",)))), extra=("--precise",)),
    Case("precise-include-outside", "#include of an outside file: its text in the notes",
         _b("b", lambda r, o: (_outside_header(o), _write(r / "inc.cu", f'#include "{os.path.relpath(o, r)}/secret.h"\n'
                                                         + CUDA), _precise_database(r, o, ("good.cu", "inc.cu")))),
         extra=("--precise",)),
    Case("precise-include-fifo", "#include of a FIFO in the tree: no answer in 300 s",
         _b("b", lambda r, o: (_outside_header(o), _fifo(r / "fifo.h"), _write(r / "f.cu", '#include "fifo.h"\n' + CUDA),
                               _precise_database(r, o, ("f.cu",)))), extra=("--precise",)),
    # --- issue 29: reads outside through configuration, the command line and git -----------------
    Case("config-link-outside", ".rocm-migrate.toml -> an outside file: its keys and workloads in every output",
         _b("b", lambda r, o: (_write(o / "cfg.toml", f'[workloads]\n{SECRET} = ["**"]\n'),
                               _symlink(r / ".rocm-migrate.toml", o / "cfg.toml"))), alone=True, codes=(2,),
         refused=True),
    Case("pyproject-link-outside", "pyproject.toml -> an outside file with [tool.rocm-migrate]",
         _b("b", lambda r, o: (_write(o / "p.toml", f'[tool.rocm-migrate.workloads]\n{SECRET} = ["**"]\n'),
                               _symlink(r / "pyproject.toml", o / "p.toml"))), alone=True),
    Case("command-line-link", "scan s.cu where s.cu links outside: scanned (lint refused)",
         _b("b", lambda r, o: (_outside_tree(o), _symlink(r / "s.cu", o / "dir" / "k.cu"))), command="scan-file"),
    Case("gitdir-outside", "a .git file with gitdir: /outside reports the outside repository's commit",
         _b("b", lambda r, o: (_git_repo(o / "other"), _write(r / ".git", f"gitdir: {o / 'other' / '.git'}\n"))),
         alone=True),
    Case("core-worktree-outside", "core.worktree=/outside: the tree's own files dropped (0 findings, no note)",
         _b("b", lambda r, o: (_outside_tree(o), _git_repo(r, ("core.worktree", str(o / "dir"))))), alone=True),
    # --- issue 29: crashes and hangs -----------------------------------------------------------
    Case("workload-glob-absolute", '[workloads] w = ["src/**", "/src/**"]: ValueError (exit 3)',
         _b("b", lambda r, o: _write(r / ".rocm-migrate.toml", '[workloads]\nw = ["src/**", "/src/**"]\n')),
         alone=True, codes=(2,), refused=True),
    Case("deep-folders-scan", "folders 1,100 deep: RecursionError in scan",
         _b("b", lambda r, o: _deep_folders(r)), alone=True),
    Case("deep-folders-lint", "folders 1,100 deep: RecursionError in lint",
         _b("b", lambda r, o: _deep_folders(r)), command="lint", codes=(1,)),
    Case("twenty-4mb-lines", "20 one-line 4 MB .cu files: 619 s, 4 GB, then SIGSEGV with no report",
         _b("b", lambda r, o: [_write(r / f"big{i:02}.cu", "void f(){" + "cudaFree(0);" * 330_000 + "}\n")
                               for i in range(n(20))]), extra=("--max-scan-seconds", "45")),
    Case("sparse-5gb-max-size-6g", "5 GB sparse files with --max-file-size 6G: MemoryError",
         _b("b", lambda r, o: [_sparse(r / f"s{i}.cu", 5 << 30) for i in range(2)]),
         extra=("--max-file-size", str(6 << 30))),
    Case("fifo-info-exclude", "a FIFO at .git/info/exclude: 121 s per command (git's timeout)",
         _b("b", lambda r, o: (_git_repo(r), (r / ".git" / "info").mkdir(exist_ok=True),
                               (r / ".git" / "info" / "exclude").unlink(missing_ok=True),
                               _fifo(r / ".git" / "info" / "exclude"))), alone=True),
    Case("fifo-excludesfile", "a FIFO as core.excludesFile: 121 s per command",
         _b("b", lambda r, o: (_fifo(o / "ignore"), _git_repo(r, ("core.excludesFile", str(o / "ignore"))))),
         alone=True),
    Case("inventory-bad-name", "inventory --scan with one repository holding a \\xff name: exit 3, no inventory",
         _b("b", lambda r, o: _write(Path(os.fsdecode(os.fsencode(r) + b"/raw\xff.cu")), CUDA)),
         command="inventory", codes=(0,)),
    # --- issue 29: unescaped output -------------------------------------------------------------
    Case("trojan-names", "ESC, U+202E, tag characters, CR and formulas in file names: raw in HTML, SARIF, CSV, lint",
         _b("b", lambda r, o: [_write(r / name, CUDA) for name in TROJAN_NAMES]), command="every-output"),
]


def tree_digest(*tops: Path) -> dict[str, bytes]:
    """Every file and link under the tops (link targets, not what they point at)."""
    out: dict[str, bytes] = {}
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(top):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                if os.path.islink(path):
                    out[path] = b"-> " + os.fsencode(os.readlink(path))
                elif os.path.isfile(path) and not name.endswith(".gitignore"):
                    try:
                        with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NONBLOCK)) as handle:
                            out[path] = handle.read(1 << 20)
                    except OSError:
                        out[path] = b"?"
    return out


def session_rss_mib(sid: int) -> float:
    """Resident memory of every process in a session, summed (the scan and its workers)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid:  # field 6 (session), after pid and comm
                total += int(fields[21]) * os.sysconf("SC_PAGE_SIZE")  # field 24, rss in pages
        except (OSError, IndexError, ValueError):
            continue
    return total / (1 << 20)


def run_case(case: Case, work: Path, *, pythonpath: str, timeout: float = 60, memory_mib: int = 4096) -> Result:
    root, outside, out = work / "repo", work / "outside", work / "out"
    for d in (root, outside, out):
        d.mkdir(parents=True, exist_ok=True)
    case.build(root, outside)
    env = dict(os.environ, PYTHONPATH=pythonpath, ROCM_MIGRATE_CACHE_DIR=str(work / "cache"), COLUMNS="120")
    env.pop("HIPIFY_PERL", None)
    hipify = []
    if case.fake_hipify:
        _write(out / "hipify-perl", FAKE_HIPIFY)
        os.chmod(out / "hipify-perl", 0o755)
        hipify = ["--hipify", str(out / "hipify-perl")]
    extra = list(case.extra)
    if extra == ["--hipify"]:
        extra = ["--hipify", str(outside / "bin" / "hipify-perl")]
    report_path = out / "report.json"
    cli = [sys.executable, "-m", "migrate"]
    if case.command in ("scan", "twice", "poisoned-cache"):
        argv = [*cli, "scan", str(root), "--format", "json", "-o", str(report_path), "--sarif", str(out / "r.sarif")]
    elif case.command == "html":
        argv = [*cli, "scan", str(root), "--json", str(report_path), "--html", str(out / "r.html"), "--markdown",
                str(out / "r.md"), "--sarif", str(out / "r.sarif"), "--csv", str(out / "r.csv"),
                "-f", "terminal", "-o", "-"]
    elif case.command == "terminal":
        argv = [*cli, "scan", str(root), "--json", str(report_path), "-f", "terminal", "-o", "-"]
    elif case.command == "markdown":
        argv = [*cli, "scan", str(root), "--json", str(report_path), "--markdown", str(out / "r.md"), "-f", "terminal", "-o", "-"]
    elif case.command == "sarif":
        argv = [*cli, "scan", str(root), "--json", str(report_path), "--sarif", str(out / "r.sarif")]
    elif case.command == "lint":
        argv = [*cli, "lint", str(root)]
    elif case.command == "scan-file":
        argv = [*cli, "scan", str(root / "s.cu"), str(root / "good.cu"), "--format", "json", "-o", str(report_path)]
    elif case.command == "every-output":
        argv = [*cli, "scan", str(root), "--json", str(report_path), "--html", str(out / "r.html"), "--markdown",
                str(out / "r.md"), "--sarif", str(out / "r.sarif"), "--csv", str(out / "r.csv"),
                "-f", "terminal", "-o", "-"]
    elif case.command == "inventory":
        _write(work / "repos.txt", f"{root}\n")
        argv = [*cli, "inventory", "--scan", str(work / "repos.txt"), "--out", str(out / "inventory"),
                "--workers", "1", "--no-hipify"]
    elif case.command == "convert":
        argv = [*cli, "convert", str(root), "--out", str(out / "converted"), *hipify]
    elif case.command == "convert-force":
        dest = out / "converted"
        _symlink(dest / "dir", outside / "dir")
        _symlink(dest / "good.cu", outside / "victim.txt")
        argv = [*cli, "convert", str(root), "--out", str(dest), "--force", *hipify]
    else:
        raise ValueError(case.command)
    argv += extra
    deep = case.name.startswith("deep-folders")
    before = tree_digest(outside) if deep else tree_digest(root, outside)
    started = time.monotonic()
    runs = 2 if case.command == "twice" else 1
    rc, stdout, stderr, outputs, timed_out, peak = _execute(argv, env, work, out, runs, timeout, memory_mib)
    if case.command == "poisoned-cache" and not timed_out:  # the same scan again, on a cache of bad rows
        _poison(work / "cache")
        rc2, stdout, stderr, again, timed_out, peak2 = _execute(argv, env, work, out, 1, timeout, memory_mib)
        rc, peak = rc if rc2 == 0 else rc2, max(peak, peak2)
        outputs.update({"1:" + name.split(":", 1)[1]: data for name, data in again.items()})
    seconds = time.monotonic() - started
    report = _report(report_path)
    after = tree_digest(outside) if deep else tree_digest(root, outside)
    if deep:  # pytest's and tempfile's clean-ups recurse: remove the chain here
        remove_deep(root)
    if before != after:
        outputs["CHANGED"] = repr(sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))).encode()
    return Result(case, rc, seconds, peak, stdout, stderr, report, outputs, timed_out, root, outside)


def run_together(cases: list[Case], work: Path, *, pythonpath: str, timeout: float = 120,
                 memory_mib: int = 4096) -> Result:
    """One scan of a tree holding every case in a folder of its own (named after the case)."""
    root, outside, out = work / "repo", work / "outside", work / "out"
    for case in cases:
        case.build(root / case.name, outside / case.name)
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=pythonpath, ROCM_MIGRATE_CACHE_DIR=str(work / "cache"), COLUMNS="120")
    argv = [sys.executable, "-m", "migrate", "scan", str(root), "--json", str(out / "report.json"),
            "--sarif", str(out / "r.sarif"), "--html", str(out / "r.html")]
    started = time.monotonic()
    rc, stdout, stderr, outputs, timed_out, peak = _execute(argv, env, work, out, 1, timeout, memory_mib)
    together = Case("together", "", lambda r, o: None)
    return Result(together, rc, time.monotonic() - started, peak, stdout, stderr, _report(out / "report.json"),
                  outputs, timed_out, root, outside)


POISON = [b"5", b"null", b'"text"', b"[1, 2]", b'{"a": 1}', b"[" * 100_000, b"\xff\xfe", b'["3", "x"]']


def _poison(cache: Path) -> None:
    """Every row of every table of the cache database, and every cached rules file, replaced by
    values of the wrong type or shape (what a shared, writable CI cache may hold)."""
    import sqlite3

    for database in cache.rglob("*.sqlite3"):
        with sqlite3.connect(database) as db:
            for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                keys = [k for (k,) in db.execute(f"SELECT key FROM {table}").fetchall()]
                for i, k in enumerate(keys):
                    bad = POISON[i % len(POISON)]
                    db.execute(f"UPDATE {table} SET value = ? WHERE key = ?", (bad.decode("latin-1") if i % 3 else bad, k))
    for i, path in enumerate(p for p in cache.rglob("*") if p.is_file() and p.suffix != ".sqlite3"):
        path.write_bytes(POISON[i % len(POISON)])


def _report(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _execute(argv: list[str], env: dict[str, str], work: Path, out: Path, runs: int, timeout: float,
             memory_mib: int) -> tuple[int | None, bytes, str, dict[str, bytes], bool, float]:
    def limits() -> None:
        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (memory_mib << 20, memory_mib << 20))

    stdout, stderr, rc, timed_out, peak = b"", b"", None, False, 0.0
    outputs: dict[str, bytes] = {}
    for attempt in range(runs):
        with open(work / "stdout", "wb") as so, open(work / "stderr", "wb") as se:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                                    env=env, preexec_fn=limits, cwd=work)  # noqa: PLW1509 (rlimits, single-threaded harness)
            deadline = time.monotonic() + timeout
            while proc.poll() is None:
                peak = max(peak, session_rss_mib(proc.pid))
                if time.monotonic() > deadline:
                    timed_out = True
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    break
                time.sleep(0.05)
        stdout, stderr = (work / "stdout").read_bytes(), (work / "stderr").read_bytes()
        rc = proc.returncode
        for path in sorted(out.rglob("*")):
            if path.is_file() and not path.is_symlink() and path.name != "hipify-perl":
                outputs[f"{attempt}:{path.relative_to(out)}"] = path.read_bytes()
    return rc, stdout, stderr.decode("utf-8", "replace"), outputs, timed_out, peak

URI = re.compile(r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$")  # RFC 3986 path characters
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
EXPECT_SKIPPED = {  # case -> {path: words its skip reason must contain}
    "requirements-etc-passwd": {"requirements.txt": "outside"},
    "etc-shadow-proc-environ": {"shadow.cu": "outside", "env.sh": "outside"},
    "symlink-outside-files": {"k.cu": "outside", "requirements.txt": "outside", "rel.cu": "outside"},
    "symlink-outside-dir": {"ext": "outside"},
    "symlink-parent-escape": {"up": "outside"},
    "fifo-cu": {"k2.cu": "not a regular file"},
    "devzero-cu": {"z.cu": "outside"},
    "late-nul": {"n.py": "NUL"},
    "nb-cells-int": {"n.ipynb": "notebook"},
    "nb-deep-json": {"n.ipynb": "deep"},
}
EXPECT_FINDING = {"bom-python": "b.py", "bom-requirements": "requirements.txt", "py-binop-chain-3000": "x.py",
                  "symlink-inside-dir": "a/k.cu", "py-binop-chain": "x.py", "py-unary-chain": "x.py",
                  "cu-guard-nonutf8": "g.cu", "long-line": "long.cu", "cmake-gencode": "CMakeLists.txt",
                  "docker-continuations": "Dockerfile", "dir-not-utf8": "d\ufffd/k.cu"}
EXPECT_SKIPPED.update({
    "command-line-link": {"s.cu": "outside"},
    "sparse-5gb-max-size-6g": {"s0.cu": "largest file"},
})
EXPECT_MESSAGE_29 = {
    "config-link-outside": "symbolic link to outside", "workload-glob-absolute": "must be relative",
    "gitdir-outside": "outside the scanned tree", "core-worktree-outside": "core.worktree",
    "twenty-4mb-lines": "facts; only the first", "precise-flags-write-outside": "allow-list",
    "precise-include-outside": "precise mode:", "precise-include-fifo": "precise mode:",
}
EXPECT_MESSAGE = {  # case -> words that must appear in the notes, skipped reasons or stderr
    "config-learning-rate-negative": "learning-rate", "config-jobs-40": "jobs", "config-bad-types": "max-file-size",
    "hipify-version-fails": "hipify-perl", "gitignore-fifo": ".gitignore", "gitignore-devzero": ".gitignore",
    "nb-source-nonstring": "not text", "precise-bad-database": "precise mode",
    "precise-not-json": "cannot read the compilation database",
    "pyproject-deep-array": "pyproject.toml", "many-findings-one-file": "only the first", **EXPECT_MESSAGE_29,
}


def _broken_tables(markdown: str) -> bool:
    """A table row whose unescaped '|' count differs from its header's (a CR or '|' leaked in)."""
    header = None
    for line in markdown.split("\n"):
        if not line.startswith("|"):
            header = None
            continue
        count = len(re.findall(r"(?<!\\)\|", line))
        header = count if header is None else header
        if count != header:
            return True
    return False


def problems(r: Result, *, budget: float = 30.0, case: Case | None = None, prefix: str = "") -> list[str]:
    """What is wrong with a run: an empty list when the case is handled. For a case scanned with
    others (run_together), `prefix` is its folder."""
    case, out = case or r.case, []
    if r.timed_out:
        return [f"timed out after {r.seconds:.0f} s (peak {r.peak_mib:.0f} MiB)"]
    if "Traceback" in r.stderr or r.rc not in case.codes:
        last = r.stderr.strip().splitlines()[-1:] or [""]
        out.append(f"exit {r.rc}: {last[0][:160]}")
    if r.seconds > budget:
        out.append(f"slow: {r.seconds:.1f} s")
    blobs = [r.stdout, r.stderr.encode(), *list(r.outputs.values())]
    if any(SECRET.encode() in b for b in blobs):
        out.append("content from outside the tree in the output")
    if "CHANGED" in r.outputs:
        out.append("the source or an outside file changed: " + r.outputs["CHANGED"].decode()[:200])
    if case.command == "inventory":
        if not any(name.endswith("inventory/inventory.csv") for name in r.outputs):
            out.append("no inventory written")
        return out
    if case.command.startswith("convert"):
        return out
    if case.refused:
        errors = [line for line in r.stderr.splitlines() if line.startswith("rocm-migrate: error: ")]
        if not errors or len(errors) != len(r.stderr.splitlines()):
            out.append("an invalid configuration must give only error lines on stderr")
        if case.name in EXPECT_MESSAGE and EXPECT_MESSAGE[case.name] not in r.stderr:
            out.append(f"nothing says {EXPECT_MESSAGE[case.name]!r} on stderr")
        if UNSAFE.search(r.stderr.replace("\n", "")):
            out.append("control or bidi characters printed raw: " + repr(UNSAFE.findall(r.stderr))[:80])
        return out
    rep = r.report
    if rep is None and case.command != "lint":
        return [*out, "no JSON report"]
    if rep is not None:
        if not any(f["path"] == prefix + "good.cu" for f in rep["findings"]):
            out.append("the ordinary file good.cu lost its findings")
        skipped = {s["path"].rstrip("/")[len(prefix):]: s["reason"] for s in rep["skipped"]
                   if s["path"].startswith(prefix)}
        through = [f["path"] for f in rep["findings"] if f["path"].startswith((prefix + "ext/", prefix + "up/"))]
        if through:
            out.append(f"findings through a link out of the tree: {through[:3]}")
        for path, words in EXPECT_SKIPPED.get(case.name, {}).items():
            if words.lower() not in skipped.get(path, "").lower():
                out.append(f"{path}: skip reason {skipped.get(path)!r}, wanted one saying {words!r}")
        if (case.name in EXPECT_FINDING and (path := EXPECT_FINDING[case.name]) is not None
                and not any(f["path"] == prefix + path for f in rep["findings"])):
            out.append(f"no finding in {path} (skipped: {skipped.get(path)!r})")
        text = json.dumps(rep["notes"]) + json.dumps(rep["skipped"]) + r.stderr
        if case.name in EXPECT_MESSAGE and EXPECT_MESSAGE[case.name] not in text:
            out.append(f"nothing says {EXPECT_MESSAGE[case.name]!r} in notes, skipped or stderr")
        if case.name == "late-nul" and "None" in skipped.get("n.py", ""):
            out.append(f"late NUL: {skipped['n.py']!r}")
        if case.name == "path-too-long" and any("loop" in v for v in skipped.values()):
            out.append("a long path reported as a symlink loop")
    if case.command == "every-output":  # every file written and both streams (JSON keeps exact names as \\u escapes)
        for name, data in [*r.outputs.items(), ("stdout", r.stdout)]:
            if UNSAFE.search(data.decode("utf-8", "replace").replace("\n", "").replace("\t", "")):
                out.append(f"{name}: raw control, bidi or tag characters")
        csv_text = r.outputs.get("0:r.csv", b"").decode()
        if not csv_text or any(not line.startswith('"') for line in csv_text.splitlines()):
            out.append("CSV: a field is not quoted")
        if re.search(r'(^|,)"[=+\-@\t\r]', csv_text, re.MULTILINE):
            out.append("CSV: a cell starts a formula")
    if case.command in ("terminal", "markdown", "lint"):
        shown = r.stdout.decode("utf-8", "replace") + r.stderr
        if UNSAFE.search(shown.replace("\n", "").replace("\t", "")):
            out.append("control or bidi characters printed raw: " + repr(UNSAFE.findall(shown))[:80])
    if case.command == "markdown":
        md = r.outputs.get("0:r.md", b"").decode()
        if "\r" in md or UNSAFE.search(md.replace("\n", "")):
            out.append("Markdown holds raw control characters")
        if _broken_tables(md):
            out.append("a Markdown table row is broken")
    if case.command in ("sarif", "scan", "twice", "poisoned-cache", "html") and (sarif := r.outputs.get("0:r.sarif")):
        runs = json.loads(sarif)["runs"]
        uris = [loc["physicalLocation"]["artifactLocation"]["uri"] for res in runs[0]["results"]
                for loc in res["locations"]]
        bad = [u for u in uris if not URI.match(u)]
        if bad:
            out.append(f"{len(bad)} of {len(uris)} SARIF URIs are not valid: {bad[:3]!r}")
        if case.name == "sarif-uris":  # each name comes back from its URI, byte for byte
            back = {os.fsencode(unquote(u, errors="surrogateescape")) for u in uris}
            lost = [n for n in SARIF_NAMES if os.fsencode(n) not in back]
            if lost or len(uris) < len(SARIF_NAMES):
                out.append(f"{len(lost)} of {len(SARIF_NAMES)} names do not come back from the SARIF URIs: {lost[:3]!r}")
    if case.command in ("twice", "poisoned-cache"):
        for name in ("report.json", "r.sarif"):
            if r.outputs.get(f"0:{name}") != r.outputs.get(f"1:{name}"):
                out.append(f"{name} differs between two runs")
            if str(r.root).encode() in r.outputs.get(f"0:{name}", b""):
                out.append(f"{name} holds the absolute path of the root")
    return out
