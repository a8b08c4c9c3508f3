#!/usr/bin/env python3
"""Time full scans of a tree, each run a new process around the real CLI (start-up and rule
loading included), JSON to stdout (discarded):

    python benchmarks/scan_speed.py PATH [--repeat 3] [--jobs 1 2] [--only cold first miss warm]

- cold: `--no-cache`, nothing read from or written to any cache;
- first: an empty cache directory each run (the report cache misses, no row is cached);
- miss: the per-file rows and the stat entries are warm, the report cache misses (each run
  gives another `--exclude` pattern that matches nothing: the report's key changes, the rows'
  keys do not);
- warm: the report cache hits.

Prints each configuration's median, every run's time and the load average when it started
(other work on the machine shows there).

    python benchmarks/scan_speed.py PATH --phases [--repeat 3]

times the C/C++/CUDA extraction of every such file of PATH in this process, by phase, in CPU
seconds (each phase's own time, the phases it calls left out: a shared machine's load inflates
wall time, far less the CPU time): the tree-sitter parse, the walk that collects
the query's node types, each fact pass, the facts of macro bodies, the matching of the facts and
the row's encoding; the best of --repeat rounds per phase, and the load average.

    python benchmarks/scan_speed.py PATH --serial [--first] [--repeat 3]

times the repository-wide work of the "miss" path in this process (per-file rows warm, the report
cache missing; --jobs 1), by stage, in CPU seconds (each stage's own time, the stages it calls left
out): the report's key, decoding the rows, the cross-file join, merging the targets, the optional
parts, the verdicts, the stack, the costs, the plan, the JSON rendering and storing; the best of
--repeat rounds per stage, and the load average. With --first, each round is a first scan (an empty
cache directory, --jobs 1), the extraction and matching of every file a stage of its own.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure

CONFIGS = ("cold", "first", "miss", "warm")


def command(path: str, jobs: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "migrate", "scan", path, "-f", "json", "--jobs", str(jobs), "-q", *extra]


def runs(config: str, path: str, jobs: int, repeat: int) -> list[measure.Run]:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(cache)}
        if config == "cold":
            return [measure.run(command(path, jobs, "--no-cache"), env=env) for _ in range(repeat)]
        if config == "first":
            out = []
            for _ in range(repeat):
                shutil.rmtree(cache, ignore_errors=True)
                out.append(measure.run(command(path, jobs), env=env))
            return out
        measure.run(command(path, jobs), env=env)  # rows, stat entries and one report stored
        if config == "miss":
            return [measure.run(command(path, jobs, "--exclude", f"no-such-file-{n}.bench"), env=env)
                    for n in range(repeat)]
        return [measure.run(command(path, jobs), env=env) for _ in range(repeat)]


# (module, function) pairs timed by --phases, each as its own time
PHASES = (
    ("migrate.extract.c.ts", "parse"), ("migrate.extract.c.ts", "captures"),
    ("migrate.extract.c.cuda_cpp", "captures"), ("migrate.extract.c.cuda_cpp", "_identifiers"),
    ("migrate.extract.c.cuda_cpp", "_reparse"), ("migrate.extract.c.cuda_cpp", "_macros"),
    ("migrate.extract.c.cuda_cpp", "_kernels_and_launches"), ("migrate.extract.c.cuda_cpp", "_asm"),
    ("migrate.extract.c.cuda_cpp", "_includes"), ("migrate.extract.c.cuda_cpp", "_hip_branches"),
    ("migrate.extract.c.cuda_cpp", "_snippet"), ("migrate.extract.c.cuda_cpp", "extract"),
    ("migrate.extract.c.guards.GuardMap", "build"),
    ("migrate.extract.c.device", "constructs"), ("migrate.extract.c.hazards", "constructs"),
    ("migrate.extract.c.wavefront", "constructs"), ("migrate.extract.c.runtime", "constructs"),
    ("migrate.extract.c.language", "constructs"), ("migrate.extract.c.lanemasks", "constructs"),
    ("migrate.extract.c.xref", "facts"), ("migrate.extract.text.lines", "line_texts"),
    ("migrate.scan.analyse", "summarise"), ("migrate.scan.analyse", "encode"),
)


def own_time(spent: dict[str, float], clock):
    """A wrapper maker that adds each call's own time by `clock` (the calls it makes to other wrapped
    functions left out) to spent[name]."""
    stack: list[list[float]] = []  # [started, time of the calls inside]

    def timed(name: str, real):
        def wrapper(*args, **kwargs):
            stack.append([clock(), 0.0])
            try:
                return real(*args, **kwargs)
            finally:
                started, inner = stack.pop()
                total = clock() - started
                spent[name] = spent.get(name, 0.0) + total - inner
                if stack:
                    stack[-1][1] += total
        return wrapper
    return timed


def install(timed, targets) -> None:
    """Wrap each (module, function) of `targets` with `timed`, named `module.function` by the module's last part:
    a method of a class (`module.Class`, method) on its class; a function under every name a migrate module
    binds it to, as `from x import f` does (wrapped in its own module only, cuda_cpp's `line_texts` was never timed)."""
    import importlib

    for module_name, function in targets:
        name = f"{module_name.rsplit('.', 1)[-1]}.{function}"
        owner_name, _, last = module_name.rpartition(".")
        if last[:1].isupper():  # a class
            owner = getattr(importlib.import_module(owner_name), last)
            wrapper = timed(name, getattr(owner, function))
            bound = isinstance(vars(owner)[function], (classmethod, staticmethod))  # getattr gave it bound already
            setattr(owner, function, staticmethod(wrapper) if bound else wrapper)
            continue
        real = getattr(importlib.import_module(module_name), function)
        wrapper = timed(name, real)
        for module in [m for m_name, m in list(sys.modules.items()) if m_name.startswith("migrate")]:
            for attribute, value in list(vars(module).items()):
                if value is real:
                    setattr(module, attribute, wrapper)


def phases(path: Path, repeat: int) -> None:
    """Each phase's own time over the C/C++/CUDA files of `path`, in this process."""
    import time

    sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
    from migrate.cli.rules import load_rules
    from migrate.scan import analyse
    from migrate.scan.discover import discover
    from migrate.scan.match import IdentifierNames, indexes
    from migrate.settings import Settings

    rules, settings = load_rules(None), Settings()
    by_target = indexes(rules, rocm=settings.rocm, archs=settings.arch)
    analyse._STATE["work"] = analyse._Work(by_target, IdentifierNames(by_target))
    files = [f for f in discover([path], include_vendored=False, exclude=()).files if f.kind in ("cuda", "cpp", "hip")]
    sources = [(f.kind, f.path.read_bytes()) for f in files]
    spent: dict[str, float] = {}
    timed = own_time(spent, time.process_time)

    install(timed, PHASES)
    from migrate.extract.c import cuda_cpp as bodies_module

    bodies = {"looked up": 0, "parsed": 0, "seconds": 0.0}  # macro bodies: inclusive time of _reparse
    reparse, remember = bodies_module._reparse, bodies_module._remember

    def counted_reparse(*args, **kwargs):
        started = time.process_time()
        bodies["looked up"] += 1
        try:
            return reparse(*args, **kwargs)
        finally:
            bodies["seconds"] += time.process_time() - started

    def counted_remember(*args, **kwargs):
        bodies["parsed"] += 1
        return remember(*args, **kwargs)

    bodies_module._reparse, bodies_module._remember = counted_reparse, counted_remember
    best: dict[str, float] = {}
    walls = []
    loads = []
    for _ in range(repeat):
        spent.clear()
        bodies.update({"looked up": 0, "parsed": 0, "seconds": 0.0})
        loads.append(os.getloadavg()[0])
        from migrate.extract.c import cuda_cpp

        cuda_cpp._BODIES.clear()
        cuda_cpp._BODY_BYTES[0] = 0
        started = time.process_time()
        for kind, data in sources:
            analyse._analyse(kind, data)
        walls.append(time.process_time() - started)
        for name, seconds in spent.items():
            best[name] = min(best.get(name, seconds), seconds)
    lines = sum(data.count(b"\n") + 1 for _, data in sources)
    print(f"{path}: {len(sources)} C/C++/CUDA files, {lines} lines; extract+match in one process: "
          f"best {min(walls):.2f} s (runs: {' '.join(f'{w:.2f}' for w in walls)}; "
          f"load average at start: {' '.join(f'{x:.1f}' for x in loads)})")
    for name, seconds in sorted(best.items(), key=lambda item: -item[1]):
        print(f"  {name:<36} {seconds:7.2f} s own CPU time")
    print(f"  {'(not in a timed phase)':<36} {min(walls) - sum(best.values()):7.2f} s")
    print(f"  macro bodies (last round): {bodies['looked up']} looked up, {bodies['parsed']} parsed on their own, "
          f"{bodies['seconds']:.2f} s in all (their parses and fact passes included)")


# (module, function) pairs timed by --serial, each as its own CPU time
SERIAL = (
    ("migrate.scan.reportcache", "_key"), ("migrate.scan.analyse", "analyse_all"), ("migrate.scan.analyse", "decode"),
    ("migrate.scan.crossref", "uses"), ("migrate.scan.match", "merge_targets"), ("migrate.workloads.parts", "build"),
    ("migrate.workloads.verdict", "judge"), ("migrate.workloads.classify", "classify"),
    ("migrate.workloads.estimate", "estimate"), ("migrate.scan.project", "scan_project"),
    ("migrate.render.json_report", "render"), ("migrate.scan.pipeline", "run"),
    ("migrate.scan.discover", "discover"), ("migrate.scan.project", "_stack"),
    ("migrate.workloads.assemble", "workloads"), ("migrate.workloads.components", "attach"),
    ("migrate.workloads.route", "attach"), ("migrate.workloads.costs", "project_costs"),
    ("migrate.workloads.costs", "with_part_costs"), ("migrate.scan.pipeline", "with_plan"),
    ("migrate.scan.reportcache", "_marks"), ("migrate.scan.cache.Cache", "put_report"),
    ("migrate.scan.cache.Cache", "put_rows"), ("migrate.safetext", "unicode_text"),
)
FIRST = (("migrate.scan.analyse", "_analyse"), ("migrate.scan.analyse", "encode"))  # with --first: extract+match, encode


def serial(path: Path, repeat: int, *, first: bool = False) -> None:
    """Each stage's own CPU time on the miss path of `path` (with `first`: a first scan's), in this process."""
    import time

    sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
    from migrate.cli.rules import load_rules
    from migrate.scan import reportcache
    from migrate.settings import Settings

    spent: dict[str, float] = {}
    timed = own_time(spent, time.process_time)

    install(timed, (*SERIAL, *(FIRST if first else ())))
    with tempfile.TemporaryDirectory() as tmp:
        def scan(n: int) -> float:
            cache_dir = Path(tmp) / (f"first-{n}" if first else "cache")
            settings = Settings(jobs=1, cache_dir=cache_dir, exclude=(f"no-such-file-{n}.bench",))
            started = time.process_time()
            reportcache.scan([path], settings, rules_dir=None, load_rules=lambda: load_rules(None), formats=("json",),
                             write=lambda outputs: None)
            return time.process_time() - started

        if not first:
            scan(-1)  # rows, stat entries and one report stored
        best: dict[str, float] = {}
        cpus, loads = [], []
        for n in range(repeat):
            spent.clear()
            loads.append(os.getloadavg()[0])
            cpus.append(scan(n))
            for name, seconds in spent.items():
                best[name] = min(best.get(name, seconds), seconds)
    what = "a first scan's work (empty cache directory)" if first else "the miss path's repository-wide work"
    print(f"{path}: {what} in one process (--jobs 1): best {min(cpus):.2f} s CPU "
          f"(runs: {' '.join(f'{c:.2f}' for c in cpus)}; load average at start: {' '.join(f'{x:.1f}' for x in loads)})")
    for name, seconds in sorted(best.items(), key=lambda item: -item[1]):
        print(f"  {name:<36} {seconds:7.2f} s own CPU time")
    print(f"  {'(not in a timed stage)':<36} {min(cpus) - sum(best.values()):7.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--only", nargs="+", choices=CONFIGS, default=list(CONFIGS))
    parser.add_argument("--phases", action="store_true", help="time the extraction's phases in this process")
    parser.add_argument("--serial", action="store_true", help="time the miss path's stages in this process")
    parser.add_argument("--first", action="store_true", help="with --serial: time a first scan's stages instead")
    args = parser.parse_args()
    if args.serial:
        serial(Path(args.path).resolve(), args.repeat, first=args.first)
        return 0
    if args.phases:
        phases(Path(args.path).resolve(), args.repeat)
        return 0
    print(f"{args.path}: {os.cpu_count()} CPUs, {args.repeat} runs each")
    for jobs in args.jobs:
        for config in args.only:
            found = runs(config, args.path, jobs, args.repeat)
            failed = [r.returncode for r in found if r.returncode not in (0, 1)]
            print(f"jobs={jobs} {config:5}: {measure.describe(found)}" + (f" FAILED {failed}" if failed else ""),
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
