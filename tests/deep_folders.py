"""A chain of folders deeper than Python's recursion limit, built and removed without recursion
(shared by the hostile table and the discovery tests)."""
from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path


def deep_folders(root: Path, depth: int, content: bytes, *, name: str = "k.cu") -> None:
    """`root/d/d/.../d/<name>` with `depth` folders; each step opens the next folder by descriptor,
    so no path grows past PATH_MAX."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        handle = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        try:
            os.write(handle, content)
        finally:
            os.close(handle)
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def remove_deep(root: Path) -> None:
    """pytest's clean-up of old temporary folders recurses and would fail on such a chain."""
    subprocess.run(["rm", "-rf", str(root)], check=False)
