"""validate compare: a candidate fingerprint against a reference, check by check, within dtype-aware tolerances."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from migrate.validate.cost import Cost, Prices, estimate
from migrate.validate.fingerprint import checks_by_key
from migrate.validate.tolerances import DEFAULTS, Tolerance, lookup

MAX_PROBLEMS = 8  # per check, in the report; the count is always complete
ENV_KEYS = ("platform", "device", "gpu_name", "gpu_arch", "gpu_count", "driver", "framework_version",
            "cuda_version", "hip_version", "cudnn_version", "python", "os", "triton_version", "transformers_version")


Status = Literal["pass", "fail", "incomplete", "skipped"]
Verdict = Literal["passed", "failed", "incomplete"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckResult:
    """One check's outcome. `incomplete`: nothing could be compared (failed or missing in the reference, absent
    from the reference, or no value in it), so it can never count as passed; `skipped`: not applicable by design."""

    check: str
    dtype: str | None
    status: Status
    compared: int  # values compared
    problems: tuple[str, ...] = ()
    problem_count: int = 0
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "dtype": self.dtype, "status": self.status, "compared": self.compared,
                "problems": list(self.problems), "problem_count": self.problem_count, "note": self.note}


@dataclass(frozen=True, slots=True, kw_only=True)
class PerfResult:
    dtype: str
    reference_ms: float
    candidate_ms: float
    ratio: float  # candidate / reference step time: above 1 is slower
    ratio_low: float  # the spread: candidate p10 / reference p90 ...
    ratio_high: float  # ... candidate p90 / reference p10
    samples_per_s: tuple[float, float]
    peak_memory: tuple[int | None, int | None]
    unit: str = "sample"  # what one step does: a batch of samples, or one run of a command
    batch_size: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"dtype": self.dtype, "unit": self.unit, "batch_size": self.batch_size,
                "reference_ms": self.reference_ms, "candidate_ms": self.candidate_ms,
                "ratio": self.ratio, "ratio_spread": [self.ratio_low, self.ratio_high],
                "samples_per_s": list(self.samples_per_s), "peak_device_memory_bytes": list(self.peak_memory)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Comparison:
    reference: dict[str, Any]  # name, platform, device of each side
    candidate: dict[str, Any]
    checks: tuple[CheckResult, ...]
    performance: tuple[PerfResult, ...]
    max_slowdown: float | None
    environment: tuple[tuple[str, Any, Any], ...]  # (key, reference, candidate) where they differ
    implementations: tuple[tuple[str, Any, Any], ...]
    distributed: dict[str, Any] = field(default_factory=dict)
    cost: Cost = field(default_factory=lambda: estimate([], Prices()))

    @property
    def failed(self) -> tuple[CheckResult, ...]:
        return tuple(c for c in self.checks if c.status == "fail")

    @property
    def incomplete(self) -> tuple[CheckResult, ...]:
        return tuple(c for c in self.checks if c.status == "incomplete")

    @property
    def compared(self) -> tuple[CheckResult, ...]:
        return tuple(c for c in self.checks if c.status in ("pass", "fail"))

    @property
    def verdict(self) -> Verdict:
        """failed over incomplete over passed; a comparison in which no check was compared is incomplete."""
        if self.failed:
            return "failed"
        if self.incomplete or not self.compared:
            return "incomplete"
        return "passed"

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    def summary(self) -> dict[str, int]:
        count = {s: sum(1 for c in self.checks if c.status == s) for s in ("pass", "fail", "incomplete", "skipped")}
        return {"checks": len(self.checks), "compared": len(self.compared), "passed": count["pass"],
                "failed": count["fail"], "incomplete": count["incomplete"], "skipped": count["skipped"]}

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": 1, "kind": "rocm-migrate-comparison", "verdict": self.verdict,
                "passed": self.passed, "summary": self.summary(),
                "failed_checks": [label(c) for c in self.failed],
                "incomplete_checks": [label(c) for c in self.incomplete],
                "reference": self.reference, "candidate": self.candidate,
                "checks": [c.to_json() for c in self.checks],
                "performance": {"max_slowdown": self.max_slowdown, "steps": [p.to_json() for p in self.performance],
                                "distributed": self.distributed},
                "cost": self.cost.to_json(),
                "environment_diff": [{"key": k, "reference": r, "candidate": c} for k, r, c in self.environment],
                "implementations_diff": [{"op": k, "reference": r, "candidate": c} for k, r, c in self.implementations]}


def label(c: CheckResult) -> str:
    return f"{c.check}[{c.dtype}]" if c.dtype else c.check


def compare(reference: dict[str, Any], candidate: dict[str, Any], tolerances: dict[str, dict[str, Tolerance]] | None = None,
            max_slowdown: float | None = None, *, prices: Prices | None = None,
            dtypes: tuple[str, ...] = ()) -> Comparison:
    """`dtypes`, when given, limits the comparison to checks of those dtypes (the performance rows too)."""
    table = tolerances or DEFAULTS
    ref_checks, cand_checks = checks_by_key(reference), checks_by_key(candidate)
    if dtypes:
        ref_checks = {k: v for k, v in ref_checks.items() if k[1] in dtypes}
        cand_checks = {k: v for k, v in cand_checks.items() if k[1] in dtypes}
    results = [_check(key, ref_checks[key], cand_checks.get(key), lookup(table, key[1], key[0])) for key in ref_checks]
    results += [CheckResult(check=k[0], dtype=k[1], status="incomplete", compared=0,
                            note="only in the candidate: the reference has nothing to compare it with")
                for k in cand_checks if k not in ref_checks]
    perf = [p for p in _performance(reference, candidate) if not dtypes or p.dtype in dtypes]
    if max_slowdown is not None:
        slow = [p for p in perf if p.ratio > max_slowdown]
        results.append(CheckResult(check="performance", dtype=None, status="fail" if slow else "pass",
                                   compared=len(perf), problem_count=len(slow),
                                   problems=tuple(f"{p.dtype}: {p.ratio:.2f}x the reference step time "
                                                  f"> {max_slowdown:g}x" for p in slow)))
    return Comparison(reference=_side(reference), candidate=_side(candidate), checks=tuple(results),
                      performance=tuple(perf), max_slowdown=max_slowdown,
                      environment=_diff(reference.get("environment", {}), candidate.get("environment", {}), ENV_KEYS),
                      implementations=_diff(reference.get("implementations", {}), candidate.get("implementations", {}),
                                            None),
                      distributed=_distributed(reference, candidate),
                      cost=estimate([{"dtype": p.dtype, "unit": p.unit, "batch_size": p.batch_size,
                                      "reference_ms": p.reference_ms, "candidate_ms": p.candidate_ms,
                                      "gpus": (_gpus(reference), _gpus(candidate))} for p in perf],
                                    prices or Prices()))


def _side(fp: dict[str, Any]) -> dict[str, Any]:
    env = fp.get("environment", {})
    return {"spec": fp.get("spec", {}).get("name"), "platform": env.get("platform"), "device": env.get("device"),
            "gpu_name": env.get("gpu_name"), "framework_version": env.get("framework_version"),
            "on": "CPU" if env.get("platform") == "cpu" else env.get("gpu_name") or env.get("platform"),
            "runtime": f"torch {env['framework_version']}" if env.get("framework_version")
            else env.get("compiler") or "a command"}


def _check(key: tuple[str, str | None], ref: dict[str, Any], cand: dict[str, Any] | None, tol: Tolerance) -> CheckResult:
    name, dtype = key
    if cand is None:
        return CheckResult(check=name, dtype=dtype, status="fail", compared=0, problem_count=1,
                           problems=("missing from the candidate",))
    reason = cand.get("info", {}).get("reason", "")
    ref_reason = ref.get("info", {}).get("reason", ref["status"])
    if cand["status"] == "failed":
        return CheckResult(check=name, dtype=dtype, status="fail", compared=0, problem_count=1,
                           problems=(f"failed in the candidate: {reason}",))
    if ref["status"] == "failed":
        return CheckResult(check=name, dtype=dtype, status="incomplete", compared=0,
                           note=f"failed in the reference, nothing to compare with: {ref_reason}")
    if name == "cpu_fallback" and cand["status"] == "ran":  # a CPU reference vouches for no op on the CPU
        return _fallback(ref, cand, dtype)
    if cand["status"] == "skipped" or ref["status"] == "skipped":
        side = "candidate" if cand["status"] == "skipped" else "reference"
        return CheckResult(check=name, dtype=dtype, status="skipped", compared=0,
                           note=f"skipped in the {side}: {reason if side == 'candidate' else ref_reason}")
    problems: list[str] = []
    compared = _metrics(name, ref["metrics"], cand["metrics"], tol, problems)
    if not problems and not compared:
        return CheckResult(check=name, dtype=dtype, status="incomplete", compared=0,
                           note="the reference recorded no value to compare")
    return CheckResult(check=name, dtype=dtype, status="fail" if problems else "pass", compared=compared,
                       problems=tuple(problems[:MAX_PROBLEMS]), problem_count=len(problems))


def _fallback(ref: dict[str, Any], cand: dict[str, Any], dtype: str | None) -> CheckResult:
    """Ops on the CPU in the candidate that the reference ran on its device."""
    known = set(ref.get("metrics", {}).get("ops", [])) if ref["status"] == "ran" else set()
    new = sorted(set(cand["metrics"].get("ops", [])) - known)
    details = {d["op"]: d for d in cand.get("info", {}).get("details", [])}
    problems = tuple(f"{op} ran on the CPU ({details.get(op, {}).get('count', '?')} calls) while the model is on "
                     f"{cand.get('info', {}).get('device', 'the device')}" for op in new)
    return CheckResult(check="cpu_fallback", dtype=dtype, status="fail" if new else "pass",
                       compared=len(cand["metrics"].get("ops", [])) + len(known),
                       problems=problems[:MAX_PROBLEMS], problem_count=len(problems))


def _metrics(prefix: str, ref: dict[str, Any], cand: dict[str, Any], tol: Tolerance, problems: list[str]) -> int:
    compared = 0
    for key, want in ref.items():
        where = f"{prefix}.{key}"
        if key not in cand:
            problems.append(f"{where}: missing from the candidate")
            continue
        compared += _value(where, key, want, cand[key], tol, problems)
    return compared


def _value(where: str, key: str, want: Any, got: Any, tol: Tolerance, problems: list[str]) -> int:
    if isinstance(want, dict):
        return _metrics(where, want, got if isinstance(got, dict) else {}, tol, problems)
    if isinstance(want, bool) or isinstance(got, bool):
        if got is not True:
            problems.append(f"{where}: {got} (must be true; reference {want})")
        return 1
    if key.endswith(("_err", "_diff")) and isinstance(got, (int, float)):
        bound = tol["bound"]
        if not got <= bound:  # NaN fails too
            problems.append(f"{where}: {got:.3g} > bound {bound:.3g}")
        return 1
    if isinstance(want, list):
        if key == "shape" or not all(isinstance(v, (int, float)) for v in want):
            if want != got:
                problems.append(f"{where}: {got} (reference {want})")
            return 1
        if not isinstance(got, list) or len(got) != len(want):
            problems.append(f"{where}: {len(got) if isinstance(got, list) else got} values (reference {len(want)})")
            return 1
        return sum(_value(f"{where}[{i}]", key, w, g, tol, problems) for i, (w, g) in enumerate(zip(want, got, strict=True)))
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        allowed = tol["atol"] + tol["rtol"] * abs(want)
        if not abs(got - want) <= allowed or math.isnan(got):
            rel = abs(got - want) / abs(want) if want else math.inf
            problems.append(f"{where}: {got:.6g} vs {want:.6g} (relative {rel:.1e} > rtol {tol['rtol']:.0e})")
        return 1
    return 0  # strings and other descriptions are not compared


def _performance(reference: dict[str, Any], candidate: dict[str, Any]) -> list[PerfResult]:
    ref = {p["dtype"]: p for p in reference.get("performance", {}).get("steps", [])}
    out = []
    for p in candidate.get("performance", {}).get("steps", []):
        r = ref.get(p["dtype"])
        if r is None:
            continue
        rs, cs = r["step_time_ms"], p["step_time_ms"]
        out.append(PerfResult(dtype=p["dtype"], reference_ms=rs["median"], candidate_ms=cs["median"],
                              ratio=cs["median"] / rs["median"], ratio_low=cs["p10"] / rs["p90"],
                              ratio_high=cs["p90"] / rs["p10"], samples_per_s=(r["samples_per_s"], p["samples_per_s"]),
                              peak_memory=(r["peak_device_memory_bytes"], p["peak_device_memory_bytes"]),
                              unit=p.get("unit", "sample"), batch_size=int(p.get("batch_size", 1))))
    return out


def _gpus(fp: dict[str, Any]) -> int:
    """GPUs the timed step used: one process on one device (a CPU run is priced as one machine)."""
    return 1


def _distributed(reference: dict[str, Any], candidate: dict[str, Any]) -> dict[str, Any]:
    ref = reference.get("performance", {}).get("distributed") or {}
    cand = candidate.get("performance", {}).get("distributed") or {}
    if not ref or not cand:
        return {}
    ref_bw = {c["op"]: c["busbw_GBps"] for c in ref.get("collectives", [])}
    return {"world_size": [ref.get("world_size"), cand.get("world_size")],
            "backend": [ref.get("backend"), cand.get("backend")],
            "busbw_GBps": [{"op": c["op"], "reference": ref_bw.get(c["op"]), "candidate": c["busbw_GBps"]}
                           for c in cand.get("collectives", [])],
            "scaling_efficiency": [(ref.get("scaling") or {}).get("efficiency"),
                                   (cand.get("scaling") or {}).get("efficiency")]}


def _diff(ref: dict[str, Any], cand: dict[str, Any], keys: tuple[str, ...] | None) -> tuple[tuple[str, Any, Any], ...]:
    names = keys if keys is not None else tuple(sorted(set(ref) | set(cand)))
    return tuple((k, ref.get(k), cand.get(k)) for k in names if ref.get(k) != cand.get(k))
