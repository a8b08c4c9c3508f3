"""A file's stat stamp and git's racy-clean rule, once for the memos that trust a file by its stamp:
a scanned tree's digests (migrate.scan.statcache), the rule data's (migrate.rulebase.stamps), the
extractor's version (migrate.extract.versionmemo) and a replayed command's inputs (migrate.scan.replay);
and the one way the rule-data and version memos are written. Imports nothing but os: replay's
start-up path loads it."""
from __future__ import annotations

import os

# The coarsest file-time granularity allowed for (FAT's 2 s; ext4 and tmpfs tick with the coarse
# kernel clock, a few ms behind time.time_ns()) plus that lag: a change after a run's start gets
# an mtime and ctime no older than this before the start.
RACY_NS = 3 * 10**9

Stamp = tuple[int, int, int, int, int]  # size, mtime_ns, ctime_ns, inode, device


def stamp_of(info: os.stat_result) -> Stamp:
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev


def write_memo(memo: str | os.PathLike[str], data: bytes) -> None:
    """A memo written whole or not at all (a partial file renamed into place); a failure leaves nothing behind and
    is ignored: a memo missing is a miss, never an error."""
    memo = os.fspath(memo)
    partial = f"{memo}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(memo) or ".", exist_ok=True)
        with open(partial, "wb") as handle:
            handle.write(data)
        os.replace(partial, memo)
    except OSError:
        try:  # noqa: SIM105  (contextlib is not loaded on replay's start-up path)
            os.unlink(partial)
        except OSError:
            pass
