#!/usr/bin/env python3
"""The critical path of one scan, by CPU time per process and phase (a shared machine's load inflates
wall time far more than CPU time):

    python benchmarks/critical_path.py TREE [--code DIR ...] [--jobs N] [--repeat 3] [--cores 2] [--keep DIR]

Each run is a first scan (an empty cache directory, what a user's first scan pays) of TREE by each --code
(a checkout or `git archive` with migrate/, rules/ and templates/; default: this one), alternated round by round,
in a new process around the real CLI (`python -m migrate scan TREE --no-hipify -f json -o FILE`),
with the parent's stages and the workers' chunks wrapped to note when they ran (wall clock) and what
CPU they used (each process's own, `time.process_time`). Printed per run, and the median over runs:

- start: the interpreter's start and imports until `main` runs (wall, from the process's start time);
- the parent's CPU before the workers start (the report's key: discovery, reading and hashing every
  file, the tool's code key; the rule base), while they run (sending the files, decoding the rows as
  they come), and after the last row is in (the repository-wide stages, rendering, storing);
- each worker's CPU in its chunks and the chunks' sizes; the pool's span from the fork to the last row,
  and the workers' idle time in it (CPU not spent while the pool was open);
- a load-independent estimate of the wall time on --cores idle cores: the parent's serial CPU before
  and after, plus the pool phase as the larger of the chunks' greedy schedule (in submission order, one
  chunk at a time per worker) and all CPU spent in it divided by the cores.

The wrapped names are listed in STAGES; what a stage calls that is also wrapped is left out of its own time.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CODE = Path(__file__).resolve().parent.parent
# (module, function): the parent's stages, each timed by its own CPU time and its wall span
STAGES = (
    ("migrate.scan.reportcache", "_key"), ("migrate.scan.reportcache", "_code_key"),
    ("migrate.scan.discover", "discover"), ("migrate.cli.rules", "load_rules"),
    ("migrate.scan.analyse", "analyse_all"), ("migrate.scan.analyse", "_pool"), ("migrate.scan.analyse", "_run"),
    ("migrate.scan.analyse", "_analyse_fresh"), ("migrate.scan.analyse", "_copies"),
    ("migrate.scan.analyse._RowsBudget", "outcome"), ("migrate.scan.analyse", "chunks"),
    ("migrate.scan.match", "indexes"), ("migrate.scan.cache.Cache", "get_rows"),
    ("migrate.scan.cache.Cache", "put_rows"), ("migrate.scan.cache.Cache", "put_report"),
    ("migrate.scan.match", "merge_targets"), ("migrate.workloads.parts", "build"),
    ("migrate.workloads.verdict", "judge"), ("migrate.workloads.components", "attach"),
    ("migrate.workloads.route", "attach"), ("migrate.workloads.costs", "project_costs"),
    ("migrate.workloads.costs", "with_part_costs"), ("migrate.workloads.assemble", "workloads"),
    ("migrate.scan.project", "_stack"), ("migrate.scan.pipeline", "with_plan"),
    ("migrate.scan.reportcache", "_render"), ("migrate.scan.reportcache", "_rendered"), ("migrate.safetext", "unicode_text"),
    ("migrate.scan.reportcache", "_marks"), ("migrate.scan.project", "scan_project"),
)


def child(code: Path, trace: Path, argv: list[str]) -> None:
    """Run the CLI here with the stages wrapped; the events go to `trace` (JSON lines, one file per process)."""
    import atexit
    import importlib
    import time

    started = time.time()
    with open("/proc/self/stat") as f:
        ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    process_start = started - (uptime - ticks / os.sysconf("SC_CLK_TCK"))
    events: list[dict[str, object]] = [{"event": "process", "pid": os.getpid(), "start": process_start, "main": started}]
    stack: list[list[float]] = []

    def timed(name: str, real):
        def wrapper(*args, **kwargs):
            stack.append([time.process_time(), 0.0])
            wall = time.time()
            try:
                return real(*args, **kwargs)
            finally:
                cpu0, inner = stack.pop()
                total = time.process_time() - cpu0
                if stack:
                    stack[-1][1] += total
                if os.getpid() == events[0]["pid"]:
                    events.append({"event": "stage", "name": name, "start": wall, "end": time.time(),
                                   "own": total - inner, "cpu": total, "cpu_at": cpu0})
        return wrapper

    sys.path.insert(0, str(code))
    import migrate.cli.entry  # noqa: F401  (what the scan imports first)
    from migrate.scan import analyse  # imported before the workers fork in every scan

    def wrap(module_name: str, function: str) -> None:
        name = f"{module_name.rsplit('.', 1)[-1]}.{function}"
        owner_name, _, last = module_name.rpartition(".")
        if last.lstrip("_")[:1].isupper():  # a class
            owner = getattr(sys.modules[owner_name], last)
            setattr(owner, function, timed(name, getattr(owner, function)))
            return
        real = getattr(sys.modules[module_name], function, None)
        if real is None:  # a stage of another version of the code (--code)
            return
        wrapper = timed(name, real)
        for module in [m for n, m in list(sys.modules.items()) if n.startswith("migrate")]:
            for attribute, value in list(vars(module).items()):
                if value is real:
                    setattr(module, attribute, wrapper)

    def home(module_name: str) -> str:  # the module a stage is defined in (a class's: the module above it)
        owner, _, last = module_name.rpartition(".")
        return owner if last.lstrip("_")[:1].isupper() else module_name

    import importlib.abc

    later: dict[str, list[tuple[str, str]]] = {}
    for module_name, function in STAGES:
        if home(module_name) in sys.modules:
            wrap(module_name, function)
        else:  # wrapped once the scan imports it: importing it here would move its cost
            later.setdefault(home(module_name), []).append((module_name, function))

    class WrapOnImport(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname not in later:
                return None
            for finder in sys.meta_path:
                if finder is not self and (spec := finder.find_spec(fullname, path, target)) is not None:
                    break
            else:
                return None
            run_module = spec.loader.exec_module

            def exec_module(module):
                run_module(module)
                for stage in later.pop(fullname, ()):
                    wrap(*stage)
            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, WrapOnImport())

    def worker_events(name: str, real, rows_of):
        def wrapper(*args, **kwargs):
            wall, cpu = time.time(), time.process_time()
            out = real(*args, **kwargs)
            sent = sum(len(d) for d in rows_of(args))
            with open(trace.with_name(f"{trace.name}.{os.getpid()}"), "a") as f:
                f.write(json.dumps({"event": "chunk", "pid": os.getpid(), "start": wall, "end": time.time(),
                                    "cpu": time.process_time() - cpu, "files": len(args[0]), "bytes_in": sent,
                                    "bytes_out": sum(len(r[-1] if isinstance(r, tuple) else r) for r in out)}) + "\n")
            return out
        wrapper.__module__, wrapper.__qualname__ = real.__module__, real.__qualname__  # pickled by name, as the real one
        return wrapper

    analyse._analyse_chunk = worker_events("chunk", analyse._analyse_chunk, lambda a: [d for _, d in a[0]])
    analyse._read_and_analyse = worker_events("read", analyse._read_and_analyse, lambda a: [b""] * 0)
    real_init = analyse._init

    def init(work):
        with open(trace.with_name(f"{trace.name}.{os.getpid()}"), "a") as f:
            f.write(json.dumps({"event": "worker", "pid": os.getpid(), "start": time.time(),
                                "cpu": time.process_time()}) + "\n")
        return real_init(work)

    analyse._init = init

    def forking() -> None:  # the modules loaded when the first worker forks (the workers share them)
        if not any(e["event"] == "modules" for e in events):
            events.append({"event": "modules", "when": "fork", "names": sorted(sys.modules)})

    os.register_at_fork(before=forking)
    real_run = analyse._run

    def run(todo, work, jobs, progress, on_row, *rest):
        events.append({"event": "todo", "files": len(todo), "bytes": sum(len(d) for _, _, d in todo)})

        def row(position, data):
            events.append({"event": "row", "at": time.time(), "bytes": len(data), "cpu_at": time.process_time()})
            return on_row(position, data)
        return real_run(todo, work, jobs, progress, row, *rest)

    analyse._run = run

    def finish() -> None:
        import resource

        own = resource.getrusage(resource.RUSAGE_SELF)
        events.append({"event": "exit", "at": time.time(), "cpu": own.ru_utime + own.ru_stime,
                       "modules": sorted(sys.modules)})
        with open(trace, "w") as f:
            for event in events:
                f.write(json.dumps(event) + "\n")

    atexit.register(finish)
    if os.environ.get("CRITICAL_PATH_PROFILE"):  # the parent's profile (cProfile), the workers left out
        import cProfile

        profile = cProfile.Profile()
        os.register_at_fork(after_in_child=lambda: (profile.disable(), events.clear()))
        atexit.register(lambda: profile.dump_stats(os.environ["CRITICAL_PATH_PROFILE"]))
        profile.enable()
    sys.argv = ["rocm-migrate", *argv]
    from migrate.cli.entry import run as entry_run

    entry_run()


def schedule(chunks: list[float], workers: int) -> float:
    """The makespan of `chunks` (CPU seconds, in submission order) on `workers`, each taking the next when free."""
    free = [0.0] * workers
    for cost in chunks:
        at = free.index(min(free))
        free[at] += cost
    return max(free) if chunks else 0.0


LATE_MODULES: list[str] = []  # the last run's modules loaded after the fork


def analyse_trace(trace: Path, cores: int, wall: float, cpu_tree: float) -> dict[str, float]:
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    for extra in sorted(trace.parent.glob(trace.name + ".*")):
        events += [json.loads(line) for line in extra.read_text().splitlines()]
    process = next(e for e in events if e["event"] == "process")
    stages = [e for e in events if e["event"] == "stage"]
    chunks = sorted((e for e in events if e["event"] == "chunk"), key=lambda e: e["start"])
    rows = [e for e in events if e["event"] == "row"]
    workers = [e for e in events if e["event"] == "worker"]
    end = next(e for e in events if e["event"] == "exit")
    pools = [s for s in stages if s["name"] == "analyse._pool"]
    out: dict[str, float] = {"wall": wall, "cpu (process tree)": cpu_tree,
                             "start: interpreter and imports to main (wall)": process["main"] - process["start"]}
    parent_cpu = end["cpu"]
    if pools:
        fork = pools[0]["start"]
        last = max([r["at"] for r in rows] + [c["end"] for c in chunks])
        last_row = max(rows, key=lambda r: r["at"]) if rows else None
        before = pools[0]["cpu_at"]
        after = parent_cpu - (last_row["cpu_at"] if last_row else before)
        out["parent CPU before the pool (all, from the process's start)"] = before
        out["parent CPU before the pool (timed stages)"] = sum(s["own"] for s in stages if s["end"] <= fork)
        out["parent CPU after the last row (all, to exit)"] = after
        out["parent CPU after the last row (timed stages)"] = sum(s["own"] for s in stages if s["start"] >= last)
        out["parent CPU in all"] = parent_cpu
        out["pool: fork to last row (wall)"] = last - fork
        out["pool: fork to first chunk started (wall)"] = (chunks[0]["start"] - fork) if chunks else 0.0
        out["after the last row to exit (wall)"] = end["at"] - last
        out["main to fork (wall)"] = fork - process["main"]
        worker_cpu = sum(c["cpu"] for c in chunks)
        out["workers: CPU in chunks"] = worker_cpu
        out["workers: chunks"] = len(chunks)
        out["workers: largest chunk CPU"] = max((c["cpu"] for c in chunks), default=0.0)
        out["workers: bytes in / out (MB)"] = sum(c["bytes_in"] for c in chunks) / 1e6
        out["workers: rows out (MB)"] = sum(c["bytes_out"] for c in chunks) / 1e6
        ends = {}
        for c in chunks:
            ends[c["pid"]] = max(ends.get(c["pid"], 0.0), c["end"])
        if ends:
            out["workers: first to last worker's end (wall)"] = max(ends.values()) - min(ends.values())
        decode = sum(s["own"] for s in stages if s["name"] == "_RowsBudget.outcome")
        out["parent: decoding rows (own CPU)"] = decode
        serial_est = before + after
        makespan = schedule([c["cpu"] for c in chunks], max(1, len(workers) or len(ends)))
        out["estimate: greedy makespan of the chunks"] = makespan
        out["parent CPU while the pool ran (fork to last row)"] = parent_cpu - before - after
        pool_est = max(makespan, (worker_cpu + parent_cpu - before - after) / cores)
        out[f"estimate: wall on {cores} idle cores (before + pool + after)"] = serial_est + pool_est
    at_fork = next((e["names"] for e in events if e["event"] == "modules"), None)
    if at_fork is not None:
        later = sorted(set(end["modules"]) - set(at_fork))
        out["modules: loaded when the workers fork"] = len(at_fork)
        out["modules: loaded after the fork (the parent's)"] = len(later)
        LATE_MODULES[:] = later
    by_stage: dict[str, float] = {}
    for s in stages:
        by_stage[s["name"]] = by_stage.get(s["name"], 0.0) + s["own"]
    for name, seconds in sorted(by_stage.items(), key=lambda item: -item[1]):
        out[f"stage own CPU: {name}"] = seconds
    return out


def one(code: Path, tree: Path, jobs: str | None, scratch: Path, cores: int,
        profile: Path | None = None) -> dict[str, float]:
    import resource
    import time

    cache = scratch / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    trace = scratch / "trace.jsonl"
    for old in scratch.glob("trace.jsonl*"):
        old.unlink()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(ROCM_MIGRATE_CACHE_DIR=str(cache), PYTHONPATH=str(code),
               PYTHONPYCACHEPREFIX=str(scratch / f"pyc-{abs(hash(str(code)))}"))
    if profile:
        env["CRITICAL_PATH_PROFILE"] = str(profile)
    argv = ["scan", str(tree), "--no-hipify", "-f", "json", "-o", str(scratch / "r.json"), "-q",
            *(["--jobs", jobs] if jobs else [])]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--child", str(code), str(trace), "--", *argv], env=env, cwd=scratch,
                   check=True)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return analyse_trace(trace, cores, wall, cpu)


def main() -> int:
    if len(sys.argv) > 3 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[5:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--code", type=Path, action="append", help="a checkout to time (repeatable; default: this one)")
    parser.add_argument("--jobs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2, help="for the estimate (default 2)")
    parser.add_argument("--profile", type=Path, help="write the parent's cProfile of the last run here")
    parser.add_argument("--keep", type=Path, help="a folder for the traces (default: a temporary one)")
    args = parser.parse_args()
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="critical-path-"))
    scratch.mkdir(parents=True, exist_ok=True)
    codes = [c.resolve() for c in (args.code or [CODE])]
    runs: dict[Path, list[dict[str, float]]] = {code: [] for code in codes}
    for code in codes:
        one(code, args.tree.resolve(), args.jobs, scratch, args.cores)  # the bytecode cached, as an installed tool has it
    for n in range(args.repeat):
        for code in codes:
            load = os.getloadavg()[0]
            found = one(code, args.tree.resolve(), args.jobs, scratch, args.cores,
                        args.profile if n == args.repeat - 1 and code == codes[-1] else None)
            runs[code].append(found)
            print(f"round {n} {code} (load {load:.1f}): wall {found['wall']:.2f} s, "
                  f"cpu {found['cpu (process tree)']:.2f} s", flush=True)
    names = list(dict.fromkeys(name for found in runs.values() for r in found for name in r))
    print(f"medians of {args.repeat} runs, {args.tree} --jobs {args.jobs or 'default'}; columns: "
          + ", ".join(str(c) for c in codes))
    for name in names:
        cells = []
        for code in codes:
            values = [r[name] for r in runs[code] if name in r]
            cells.append(f"{statistics.median(values):8.3f}" if values else "       -")
        print(f"  {name:<66} {' '.join(cells)}")
    print(f"  modules the parent loaded after the fork (last run): {' '.join(LATE_MODULES)}")
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
