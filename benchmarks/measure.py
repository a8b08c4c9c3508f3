"""What the benchmarks share: run a command, its wall time, and the peak memory of its whole
process tree (workers included), sampled from /proc; the load average around it."""
from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mb: float  # summed resident memory of the process and its children, at the worst moment
    load: float  # 1-minute load average when the run started
    returncode: int
    peak_pss_mb: float = 0.0  # the same as proportional set size: pages forked workers share count once
    cpu_seconds: float = 0.0  # user + system time of the process and the children it waited for


def installed_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """`env` (default: this process's) as an installed tool runs: Python's bytecode cached (in a folder
    of its own, not in the checkout), even where PYTHONDONTWRITEBYTECODE is set for development."""
    out = {k: v for k, v in (os.environ if env is None else env).items() if k != "PYTHONDONTWRITEBYTECODE"}
    out.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "rocm-migrate-bench-pycache"))
    return out


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _tree_rss(pid: int) -> tuple[int, int]:
    """(summed RSS, summed PSS) in bytes of a process and its descendants. RSS counts the pages a
    forked worker still shares with its parent in both; PSS splits them among the sharers."""
    tree, todo, total, pss = _children(), [pid], 0, 0
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/statm").read_text().split()
            total += int(fields[1]) * os.sysconf("SC_PAGE_SIZE")
            pss += _pss(current)
        except OSError:
            pass
        todo.extend(tree.get(current, ()))
    return total, pss


def _pss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run(command: list[str], *, env: dict[str, str] | None = None, cwd: str | None = None,
        sample: bool = False) -> Run:
    """Run `command` (output discarded); with `sample`, follow its memory every 20 ms."""
    load = os.getloadavg()[0]
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = [0, 0]

    finished = threading.Event()  # the process is waited for with os.wait4 (for its CPU time), not polled

    def follow() -> None:
        while not finished.is_set():
            rss, pss = _tree_rss(process.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            time.sleep(0.02)

    watcher = threading.Thread(target=follow, daemon=True) if sample else None
    if watcher:
        watcher.start()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    finished.set()
    process.returncode = returncode = os.waitstatus_to_exitcode(status)
    if watcher:
        watcher.join()
    return Run(seconds=seconds, peak_mb=peak[0] / 2**20, load=load, returncode=returncode, peak_pss_mb=peak[1] / 2**20,
               cpu_seconds=usage.ru_utime + usage.ru_stime)


def median(runs: list[Run]) -> float:
    return statistics.median(r.seconds for r in runs)


def median_cpu(runs: list[Run]) -> float:
    return statistics.median(r.cpu_seconds for r in runs)


def describe(runs: list[Run]) -> str:
    times = " ".join(f"{r.seconds:.2f}" for r in runs)
    loads = " ".join(f"{r.load:.1f}" for r in runs)
    return f"median {median(runs):.2f} s, CPU {median_cpu(runs):.2f} s (runs: {times}; load average at start: {loads})"


def instructions(command: list[str], *, env: dict[str, str], cwd: str) -> int | None:
    """Instructions executed by one run of `command` (valgrind --tool=cachegrind): a count that does not
    depend on the machine's load; None without valgrind."""
    if not shutil.which("valgrind"):
        return None
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          *command], env=env, cwd=cwd, capture_output=True, text=True, check=False).stderr
    found = re.search(r"I\s+refs:\s+([\d,]+)", out)
    return int(found.group(1).replace(",", "")) if found else None
