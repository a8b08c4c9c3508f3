"""--nproc N: N worker processes on this host, torchrun-style (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from migrate.validate.distributed import SAFE_ENV, merge

TIMEOUT_S = 600


class LaunchError(Exception):
    """A worker failed; str() names the rank and the last line it printed."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run(spec_path: Path, nproc: int, force_cpu: bool, overrides: dict[str, Any]) -> dict[str, Any]:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="rocm-migrate-nproc-") as folder:
        procs = []
        for rank in range(nproc):
            env = {**os.environ, **SAFE_ENV, "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(nproc),
                   "LOCAL_WORLD_SIZE": str(nproc), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
            args = [sys.executable, "-m", "migrate.validate.worker", str(spec_path), str(Path(folder) / f"rank{rank}.json"),
                    "--overrides", json.dumps(overrides)] + (["--force-cpu"] if force_cpu else [])
            procs.append(subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        outputs = [_wait(p) for p in procs]
        for rank, (proc, output) in enumerate(zip(procs, outputs, strict=True)):
            if proc.returncode != 0:
                last = [line for line in output.splitlines() if line.strip()][-1:] or ["no output"]
                raise LaunchError(f"rank {rank} exited with {proc.returncode}: {last[0][:300]}")
        results = [json.loads((Path(folder) / f"rank{r}.json").read_text(encoding="utf-8")) for r in range(nproc)]
    return merge(results, launcher="processes")


def _wait(proc: subprocess.Popen[str]) -> str:
    try:
        out, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out or ""
