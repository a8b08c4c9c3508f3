"""How convert writes: never through a symbolic link, never onto a predictable temporary name.

Every file convert creates is written to a fresh temporary file in its folder (`mkstemp`:
O_CREAT|O_EXCL, an unpredictable name, mode 0600 until chmod) and then renamed over the
final name, so a symbolic link already standing at that name (copied from the source, or
planted) is replaced, not followed. The copy of the source keeps its links as links,
creates its folders itself, and never opens a FIFO or a device."""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

CHUNK = 1 << 20


def first_link(directory: Path) -> Path | None:
    """The first symbolic link under `directory` (not following links), or None."""
    for dirpath, dirnames, filenames in os.walk(directory):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath, name)
            if path.is_symlink():
                return path
    return None


def replace_file(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write `data` as the file `path`: a temporary file beside it, then a rename over the name."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".rocm-migrate.tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            os.fchmod(handle.fileno(), mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def copy_tree(src: Path, dest: Path, *, skip: frozenset[str] = frozenset()) -> list[str]:
    """Copy `src` into `dest` (which may exist and hold no links): folders are made, regular
    files written through replace_file, links recreated as links; special files are left out.
    Returns the relative paths left out."""
    left_out: list[str] = []
    dest.mkdir(parents=True, exist_ok=True)
    _copy_dir(src, dest, src, skip, left_out)
    return left_out


def _copy_dir(src: Path, dest: Path, top: Path, skip: frozenset[str], left_out: list[str]) -> None:
    with os.scandir(src) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.name in skip:
                continue
            target = dest / entry.name
            if entry.is_symlink():
                if target.is_symlink() or target.exists():
                    _remove(target)
                os.symlink(os.readlink(entry.path), target)
            elif entry.is_dir(follow_symlinks=False):
                if not target.is_dir() or target.is_symlink():
                    target.mkdir()
                _copy_dir(Path(entry.path), target, top, skip, left_out)
            elif entry.is_file(follow_symlinks=False):
                _copy_file(Path(entry.path), target)
            else:
                left_out.append(Path(entry.path).relative_to(top).as_posix())


def _copy_file(src: Path, target: Path) -> None:
    from migrate.scan.readfile import OPEN_FLAGS

    fd = os.open(src, OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as source:
        info = os.fstat(source.fileno())
        if not stat.S_ISREG(info.st_mode):
            return
        handle_fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".rocm-migrate.tmp")
        try:
            with os.fdopen(handle_fd, "wb") as out:
                while chunk := source.read(CHUNK):
                    out.write(chunk)
                os.fchmod(out.fileno(), stat.S_IMODE(info.st_mode))
            os.utime(temporary, ns=(info.st_atime_ns, info.st_mtime_ns))
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        raise IsADirectoryError(f"{path}: a folder where the source has a link")
    path.unlink()

