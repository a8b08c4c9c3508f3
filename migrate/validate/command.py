"""validate run on a command spec: the project's own program or test suite, its metrics read from its output.

The spec's [command] says what to run (a shell command line, in the spec's folder or `cwd`, environment
variables expanded), [[metrics]] which lines to read: each metric is a regular expression whose first group is a
number (`values`: every match, `last`: the last one), or whose presence (`present`) or absence (`absent`) is the
result. Each metric becomes a check `metric:NAME` compared like the model checks (the spec's `dtype` picks the
tolerances); metrics with `role = "time"` are reported with the wall time, not compared. The command runs
`repeats` times: the numbers come from the first run, the wall time from all of them.
"""
from __future__ import annotations

import os
import platform
import re
import resource
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from migrate import __version__
from migrate.compat import tomllib
from migrate.validate.fingerprint import SCHEMA_VERSION
from migrate.validate.performance import summary
from migrate.validate.spec import DTYPES, SpecError

MetricKind = Literal["values", "last", "present", "absent"]
MetricRole = Literal["numerics", "time"]
KINDS: tuple[MetricKind, ...] = ("values", "last", "present", "absent")
ROLES: tuple[MetricRole, ...] = ("numerics", "time")
COMMAND_KEYS = ("run", "cwd", "timeout_s", "dtype", "repeats", "env", "returncode")
TAIL_LINES = 20
SAMPLE_S = 0.25


@dataclass(frozen=True, slots=True, kw_only=True)
class Metric:
    name: str
    pattern: str
    kind: MetricKind = "values"
    role: MetricRole = "numerics"


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandSpec:
    path: Path
    name: str
    run: str
    cwd: str = "."
    timeout_s: int = 600
    dtype: str = "float32"
    repeats: int = 1
    env: tuple[tuple[str, str], ...] = ()
    returncode: int = 0
    metrics: tuple[Metric, ...] = ()

    def folder(self) -> Path:
        return (self.path.parent / os.path.expandvars(self.cwd)).resolve()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path.as_posix(), "command": self.run, "cwd": self.cwd,
                "dtype": self.dtype, "repeats": self.repeats, "returncode": self.returncode,
                "env": dict(self.env), "metrics": [{"name": m.name, "pattern": m.pattern, "kind": m.kind,
                                                    "role": m.role} for m in self.metrics]}


def is_command_spec(path: Path) -> bool:
    try:
        return "command" in tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False


def load(path: Path) -> CommandSpec:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(f"{path}: {exc}") from None
    return parse(data, path)


def parse(data: dict[str, Any], path: Path) -> CommandSpec:
    table, entries = data.get("command"), data.get("metrics", [])
    unknown = sorted(set(data) - {"command", "metrics"})
    if unknown:
        raise SpecError(f"{path}: unknown key {unknown[0]!r} (a command spec has [command] and [[metrics]])")
    if not isinstance(table, dict) or not isinstance(table.get("run"), str) or not table["run"].strip():
        raise SpecError(f"{path}: command.run: must be the command line to run")
    extra = sorted(set(table) - set(COMMAND_KEYS))
    if extra:
        raise SpecError(f"{path}: unknown key 'command.{extra[0]}'")
    for key in ("timeout_s", "repeats"):
        value = table.get(key, 1)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise SpecError(f"{path}: command.{key}: must be a positive integer")
    if table.get("dtype", "float32") not in DTYPES:
        raise SpecError(f"{path}: command.dtype: must be one of {', '.join(DTYPES)}")
    env = table.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise SpecError(f"{path}: command.env: must be a table of strings")
    return CommandSpec(path=path, name=path.parent.name, run=table["run"], cwd=str(table.get("cwd", ".")),
                       timeout_s=table.get("timeout_s", 600), dtype=table.get("dtype", "float32"),
                       repeats=table.get("repeats", 1), env=tuple(sorted(env.items())),
                       returncode=int(table.get("returncode", 0)), metrics=_metrics(entries, path))


def _metrics(entries: object, path: Path) -> tuple[Metric, ...]:
    if not isinstance(entries, list) or not entries:
        raise SpecError(f"{path}: [[metrics]]: name at least one metric (name, pattern)")
    out = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) \
                or not isinstance(entry.get("pattern"), str) or set(entry) - {"name", "pattern", "kind", "role"}:
            raise SpecError(f"{path}: metrics[{i}]: needs name and pattern (strings), optionally kind and role")
        kind, role = entry.get("kind", "values"), entry.get("role", "numerics")
        if kind not in KINDS or role not in ROLES:
            raise SpecError(f"{path}: metrics[{i}]: kind is one of {', '.join(KINDS)}; role one of {', '.join(ROLES)}")
        try:
            compiled = re.compile(entry["pattern"], re.MULTILINE)
        except re.error as exc:
            raise SpecError(f"{path}: metrics[{i}].pattern: {exc}") from None
        if kind in ("values", "last") and compiled.groups < 1:
            raise SpecError(f"{path}: metrics[{i}].pattern: a {kind} metric needs a group around the number")
        out.append(Metric(name=entry["name"], pattern=entry["pattern"], kind=kind, role=role))
    return tuple(out)


def read_metric(metric: Metric, output: str, dtype: str) -> dict[str, Any]:
    """One metric's check from the command's output (a pure function, for tests)."""
    name = f"metric:{metric.name}"
    found = re.findall(metric.pattern, output, flags=re.MULTILINE)
    if metric.kind in ("present", "absent"):
        ok = bool(found) if metric.kind == "present" else not found
        return {"check": name, "dtype": dtype, "status": "ran", "metrics": {metric.kind: ok},
                "info": {"pattern": metric.pattern, "matches": len(found)}}
    numbers = []
    for match in found:
        text = match[0] if isinstance(match, tuple) else match
        try:
            numbers.append(float(text))
        except ValueError:
            return {"check": name, "dtype": dtype, "status": "failed", "metrics": {},
                    "info": {"reason": f"pattern {metric.pattern!r} captured {text!r}, not a number"}}
    if not numbers:
        return {"check": name, "dtype": dtype, "status": "failed", "metrics": {},
                "info": {"reason": f"pattern {metric.pattern!r} matched nothing in the output"}}
    value: Any = numbers if metric.kind == "values" else numbers[-1]
    return {"check": name, "dtype": dtype, "status": "ran", "metrics": {"values" if metric.kind == "values" else
                                                                         "value": value},
            "info": {"pattern": metric.pattern, "matches": len(numbers)}}


class _DeviceMemory:
    """Peak device memory in use while the command runs, sampled from nvidia-smi (whole device, not per process)."""

    def __init__(self) -> None:
        self.tool = shutil.which("nvidia-smi")
        self.peak: int | None = None
        self.baseline = self._read()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _read(self) -> int | None:
        if not self.tool:
            return None
        try:
            out = subprocess.run([self.tool, "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                                 capture_output=True, text=True, timeout=10, check=False).stdout
            return int(out.split()[0]) * 1024 * 1024 if out.split() else None
        except (OSError, subprocess.SubprocessError, ValueError):
            return None

    def _loop(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            used = self._read()
            if used is not None:
                self.peak = max(self.peak or 0, used)

    def __enter__(self) -> _DeviceMemory:
        if self.tool:
            self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        if self.tool:
            self._thread.join()

    def used(self) -> int | None:
        if self.peak is None or self.baseline is None:
            return None
        return max(0, self.peak - self.baseline)


def _execute(spec: CommandSpec) -> tuple[int | None, str, float, int | None]:
    env = {**os.environ, **dict(spec.env)}
    started = time.perf_counter()
    with _DeviceMemory() as memory:
        try:
            done = subprocess.run(spec.run, shell=True, cwd=spec.folder(), env=env, capture_output=True, text=True,
                                  errors="replace", timeout=spec.timeout_s, check=False)
            code, output = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as exc:
            text = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            code, output = None, text + f"\n[timed out after {spec.timeout_s} s]"
    return code, output, time.perf_counter() - started, memory.used()


def run(spec: CommandSpec, *, force_cpu: bool = False) -> dict[str, Any]:
    """The command's fingerprint; `force_cpu` says the command computes on the CPU (a GPU may still be present)."""
    if not spec.folder().is_dir():
        raise SpecError(f"{spec.path}: command.cwd: {spec.folder()} is not a folder")
    started = time.perf_counter()
    runs = [_execute(spec) for _ in range(spec.repeats)]
    code, output, _, _ = runs[0]
    checks = [{"check": "exit", "dtype": spec.dtype, "status": "ran" if code is not None else "failed",
               "metrics": {"returncode_ok": code == spec.returncode} if code is not None else {},
               "info": {"returncode": code, "expected": spec.returncode, "repeats": spec.repeats,
                        "returncodes": [r[0] for r in runs],
                        **({"reason": f"timed out after {spec.timeout_s} s"} if code is None else {})}}]
    numerics = [m for m in spec.metrics if m.role == "numerics"]
    checks += [read_metric(m, output, spec.dtype) for m in numerics]
    timings = {m.name: read_metric(m, output, spec.dtype)["metrics"].get("values") for m in spec.metrics
               if m.role == "time"}
    walls = [r[2] for r in runs]
    devices = [r[3] for r in runs if r[3] is not None]
    step_ms = summary(walls)
    return {
        "schema_version": SCHEMA_VERSION, "kind": "rocm-migrate-fingerprint",
        "tool": {"name": "rocm-migrate", "version": __version__}, "spec": spec.to_json(),
        "environment": environment(force_cpu), "implementations": {}, "checks": checks,
        "performance": {"unit": "run", "steps": [{
            "dtype": spec.dtype, "warmup": 0, "timed_steps": len(walls), "batch_size": 1, "unit": "run",
            "step_time_ms": step_ms, "samples_per_s": 1000.0 / step_ms["median"],
            "peak_device_memory_bytes": max(devices) if devices else None,
            "peak_host_rss_bytes": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
            "timings": timings}], "distributed": None},
        "output_tail": output.splitlines()[-TAIL_LINES:],
        "seconds": round(time.perf_counter() - started, 2),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def environment(force_cpu: bool = False) -> dict[str, Any]:
    """The machine, without PyTorch: GPU name and driver from nvidia-smi (or ROCm's presence); the platform and
    device are the CPU's when the command runs there (`--cpu`), the GPU's fields still describe the machine."""
    env: dict[str, Any] = {"platform": "cpu", "device": "cpu", "framework": None, "framework_version": None,
                           "cuda_version": None, "hip_version": None, "gpu_name": None, "gpu_arch": None,
                           "gpu_count": 0, "driver": None, "python": platform.python_version(),
                           "os": f"{platform.system()} {platform.release()}", "machine": platform.machine(),
                           "cpu_count": os.cpu_count(), "determinism": {"held": None, "nondeterministic": []}}
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=20, check=False).stdout.strip().splitlines()
        except (OSError, subprocess.SubprocessError):
            out = []
        if out:
            name, driver, cap = ([p.strip() for p in out[0].split(",")] + ["", "", ""])[:3]
            env.update({"platform": "cuda", "device": "cuda:0", "gpu_name": name, "driver": driver,
                        "gpu_arch": f"sm_{cap.replace('.', '')}" if cap else None, "gpu_count": len(out)})
    elif shutil.which("rocm-smi") or Path("/opt/rocm").is_dir():
        env.update({"platform": "rocm", "device": "cuda:0"})
    if force_cpu:
        env.update({"platform": "cpu", "device": "cpu"})
    nvcc = shutil.which("nvcc") or shutil.which("hipcc")
    if nvcc:
        try:
            version = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=20, check=False)
            env["compiler"] = version.stdout.strip().splitlines()[-1][:200] if version.stdout.strip() else None
        except (OSError, subprocess.SubprocessError):
            env["compiler"] = None
    return env
