"""validate compare on the committed H200 fingerprints: passes against itself, and fails naming the check
on every kind of perturbed copy and on the run with a planted CPU fallback. Needs no PyTorch."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from migrate.validate import compare, cost, fingerprint, margins, render_compare, tolerances
from tests.conftest import ROOT, run_cli

PRINTS = ROOT / "fixtures" / "validate" / "fingerprints"
TINYGPT, FALLBACK, LLAMA = PRINTS / "h200-tinygpt.json", PRINTS / "h200-tinygpt-cpu-fallback.json", PRINTS / "h200-hf-llama.json"
LLMC = PRINTS / "h200-llmc.json"
DOCS = ROOT / "docs"


def _load(path: Path) -> dict[str, Any]:
    return fingerprint.load(path)


def _check(fp: dict[str, Any], name: str, dtype: str | None) -> dict[str, Any]:
    return next(c for c in fp["checks"] if c["check"] == name and c["dtype"] == dtype)


def _failed(ref: dict[str, Any], cand: dict[str, Any], **kwargs: Any) -> list[str]:
    return list(compare.compare(ref, cand, **kwargs).to_json()["failed_checks"])


@pytest.mark.parametrize("path", sorted(PRINTS.glob("h200-*.json")), ids=lambda p: p.stem)
def test_committed_fingerprints_follow_the_schema(path: Path) -> None:
    schema = json.loads((DOCS / "validate-fingerprint.schema.json").read_text())
    data = _load(path)
    jsonschema.Draft202012Validator(schema).validate(data)
    if "host-cpu" in path.stem:  # a CPU run on the H200's host, for the CPU-vs-GPU measurements
        assert data["environment"]["platform"] == "cpu" and data["environment"]["gpu_count"] == 1
    else:
        assert data["environment"]["gpu_name"] == "NVIDIA H200" and data["environment"]["gpu_arch"] == "sm_90"


@pytest.mark.parametrize("path", [TINYGPT, LLAMA], ids=lambda p: p.stem)
def test_a_fingerprint_passes_against_itself(path: Path) -> None:
    result = compare.compare(_load(path), _load(path))
    assert result.passed
    assert {c.status for c in result.checks} == {"pass"}
    assert all(abs(p.ratio - 1) < 1e-12 for p in result.performance)


def _scale(name: str, dtype: str | None, key: str, factor: float) -> Callable[[dict[str, Any]], None]:
    def perturb(fp: dict[str, Any]) -> None:
        metrics = _check(fp, name, dtype)["metrics"]
        *path, last = key.split("/")
        for part in path:
            metrics = metrics[part]
        metrics[last] = [v * factor for v in metrics[last]] if isinstance(metrics[last], list) else metrics[last] * factor
    return perturb


def _set(name: str, dtype: str | None, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def perturb(fp: dict[str, Any]) -> None:
        _check(fp, name, dtype)["metrics"][key] = value
    return perturb


def _fail_check(name: str, dtype: str | None) -> Callable[[dict[str, Any]], None]:
    def perturb(fp: dict[str, Any]) -> None:
        entry = _check(fp, name, dtype)
        entry.update(status="failed", metrics={}, info={"reason": "RuntimeError: HIP error: invalid device function"})
    return perturb


PERTURBATIONS = {
    "forward std +1% (fp32)": (_scale("forward", "float32", "std", 1.01), "forward[float32]"),
    "loss values +0.1% (fp32)": (_scale("loss", "float32", "values", 1.001), "loss[float32]"),
    "one grad norm +1% (fp32)": (_scale("grad_norms", "float32", "per_parameter/blocks.1.up.weight", 1.01),
                                 "grad_norms[float32]"),
    "total grad norm x1.2 (bf16)": (_scale("grad_norms", "bfloat16", "total", 1.2), "grad_norms[bfloat16]"),
    "param deltas x1.5 (bf16)": (_scale("param_deltas", "bfloat16", "total", 1.5), "param_deltas[bfloat16]"),
    "op forward error 1e-3 (fp32)": (_set("op:fused_gelu", "float32", "forward_rel_err", 1e-3), "op:fused_gelu[float32]"),
    "op backward NaN (bf16)": (_set("op:rms_norm", "bfloat16", "backward_rel_err", float("nan")), "op:rms_norm[bfloat16]"),
    "checkpoint state differs": (_set("checkpoint", "float32", "state_equal", False), "checkpoint[float32]"),
    "checkpoint resume drifts": (_set("checkpoint", "bfloat16", "resume_max_abs_diff", 0.5), "checkpoint[bfloat16]"),
    "amp loss +10%": (_scale("amp", "bfloat16", "loss", 1.1), "amp[bfloat16]"),
    "all-reduce inexact": (_set("collectives", "float32", "all_reduce_exact", False), "collectives[float32]"),
    "ddp gradients differ": (_set("ddp", "float32", "grad_rel_err", 1e-3), "ddp[float32]"),
    "an op on the CPU": (_set("cpu_fallback", "float32", "ops", ["aten::addmm"]), "cpu_fallback[float32]"),
    "a check that crashed": (_fail_check("forward", "bfloat16"), "forward[bfloat16]"),
}


@pytest.mark.parametrize("name", PERTURBATIONS)
def test_a_perturbed_fingerprint_fails_naming_the_check(name: str) -> None:
    perturb, expected = PERTURBATIONS[name]
    reference = _load(TINYGPT)
    candidate = copy.deepcopy(reference)
    perturb(candidate)
    assert _failed(reference, candidate) == [expected]


def test_a_missing_check_fails() -> None:
    reference = _load(TINYGPT)
    candidate = copy.deepcopy(reference)
    candidate["checks"] = [c for c in candidate["checks"] if c["check"] != "ddp"]
    result = compare.compare(reference, candidate)
    assert result.to_json()["failed_checks"] == ["ddp[float32]"]
    assert result.failed[0].problems == ("missing from the candidate",)


def test_the_planted_cpu_fallback_run_fails_naming_cpu_fallback_and_the_ops() -> None:
    result = compare.compare(_load(TINYGPT), _load(FALLBACK))
    assert result.to_json()["failed_checks"] == ["cpu_fallback[float32]", "cpu_fallback[bfloat16]"]
    problems = result.failed[0].problems
    assert any(p.startswith("aten::gelu ran on the CPU") for p in problems)
    assert any(p.startswith("aten::gelu_backward ran on the CPU") for p in problems)
    assert ("fused_gelu", "cuda-extension", "cpu-fallback") in result.implementations
    fp32 = next(p for p in result.performance if p.dtype == "float32")
    assert fp32.ratio > 1.2 and fp32.ratio_low <= fp32.ratio <= fp32.ratio_high


def test_max_slowdown_turns_the_performance_ratio_into_a_check() -> None:
    assert "performance" in _failed(_load(TINYGPT), _load(FALLBACK), max_slowdown=1.2)
    assert "performance" not in _failed(_load(TINYGPT), _load(FALLBACK), max_slowdown=10.0)


def test_tolerances_are_dtype_aware_and_a_file_overrides_them(tmp_path: Path) -> None:
    table = tolerances.load(None)
    assert tolerances.lookup(table, "float32", "loss")["rtol"] < tolerances.lookup(table, "bfloat16", "loss")["rtol"]
    assert tolerances.lookup(table, "bfloat16", "op:fused_gelu")["bound"] == table["bfloat16"]["default"]["bound"]
    reference = _load(TINYGPT)
    candidate = copy.deepcopy(reference)
    _scale("loss", "float32", "values", 1.001)(candidate)
    loose = tmp_path / "tol.toml"
    loose.write_text("[float32.loss]\nrtol = 0.01\n")
    assert _failed(reference, candidate, tolerances=tolerances.load(loose)) == []
    bad = tmp_path / "bad.toml"
    bad.write_text("[float64.loss]\nrtol = 0.01\n")
    with pytest.raises(tolerances.ToleranceError, match="float64"):
        tolerances.load(bad)


def test_cli_compare_exit_codes_and_formats(tmp_path: Path) -> None:
    ok = run_cli("validate", "compare", str(TINYGPT), str(TINYGPT))
    assert ok.returncode == 0 and "PASSED" in ok.stdout, ok.stderr
    assert "collectives (reference: world size 1, nccl; candidate: world size 1, nccl):" in ok.stdout
    out_json, out_md, out_html = tmp_path / "c.json", tmp_path / "c.md", tmp_path / "c.html"
    bad = run_cli("validate", "compare", str(TINYGPT), str(FALLBACK), "-f", "terminal", "--json-output",
                  str(out_json), "--markdown-output", str(out_md), "--html-output", str(out_html))
    assert bad.returncode == 1, bad.stderr
    assert "FAILED: cpu_fallback[float32], cpu_fallback[bfloat16]" in bad.stdout
    data = json.loads(out_json.read_text())
    jsonschema.Draft202012Validator(json.loads((DOCS / "validate-compare.schema.json").read_text())).validate(data)
    assert data["passed"] is False and data["failed_checks"] == ["cpu_fallback[float32]", "cpu_fallback[bfloat16]"]
    assert "| cpu\\_fallback | float32 | fail | aten::gelu ran on the CPU" in out_md.read_text()
    html = out_html.read_text()
    assert '<span class="status fail">fail</span>' in html and "aten::gelu_backward ran on the CPU" in html


def test_cli_compare_usage_errors(tmp_path: Path) -> None:
    not_fp = tmp_path / "x.json"
    not_fp.write_text('{"schema_version": 1}')
    result = run_cli("validate", "compare", str(TINYGPT), str(not_fp))
    assert result.returncode == 2
    assert result.stderr.strip() == (f"rocm-migrate: error: {not_fp}: not a rocm-migrate fingerprint "
                                     '(no "kind": "rocm-migrate-fingerprint")')


def test_html_escapes_what_the_fingerprint_says() -> None:
    reference = _load(TINYGPT)
    candidate = copy.deepcopy(reference)
    _fail_check("forward", "float32")(candidate)
    _check(candidate, "forward", "float32")["info"]["reason"] = "<script>alert(1)</script>"
    html = render_compare.html(compare.compare(reference, candidate))
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html


def test_a_reference_whose_checks_failed_is_incomplete_never_passed() -> None:
    """The nanoGPT report: a CPU reference failed 10 of 11 checks; the compare must not pass."""
    reference, candidate = _load(TINYGPT), _load(TINYGPT)
    for c in reference["checks"]:
        if c["check"] != "collectives":
            c.update(status="failed", metrics={}, info={"reason": "RuntimeError: view size is not compatible"})
    result = compare.compare(reference, candidate)
    assert result.verdict == "incomplete" and not result.passed
    summary = result.summary()
    assert summary["compared"] == 1 and summary["incomplete"] == summary["checks"] - 1 and summary["failed"] == 0
    forward = next(c for c in result.checks if c.check == "forward")
    assert forward.status == "incomplete" and "failed in the reference" in forward.note
    assert "INCOMPLETE: nothing compared for forward[float32]" in render_compare.terminal(result)


def test_a_check_only_in_the_candidate_or_an_empty_reference_is_incomplete() -> None:
    reference, candidate = _load(TINYGPT), _load(TINYGPT)
    reference["checks"] = [c for c in reference["checks"] if c["check"] != "ddp"]
    result = compare.compare(reference, candidate)
    assert result.verdict == "incomplete" and result.to_json()["incomplete_checks"] == ["ddp[float32]"]
    empty = copy.deepcopy(reference)
    empty["checks"] = []
    assert compare.compare(empty, candidate).verdict == "incomplete"
    assert compare.compare(empty, copy.deepcopy(empty)).verdict == "incomplete"  # nothing compared is no pass
    no_values = copy.deepcopy(reference)
    _check(no_values, "loss", "float32")["metrics"] = {}
    assert next(c for c in compare.compare(no_values, candidate).checks if c.check == "loss").status == "incomplete"


def test_a_failure_outranks_incomplete() -> None:
    reference, candidate = _load(TINYGPT), _load(TINYGPT)
    _fail_check("forward", "float32")(reference)
    _scale("loss", "float32", "values", 1.5)(candidate)
    result = compare.compare(reference, candidate)
    assert result.verdict == "failed" and result.to_json()["failed_checks"] == ["loss[float32]"]


def test_cli_compare_exits_4_when_incomplete(tmp_path: Path) -> None:
    reference = _load(TINYGPT)
    _fail_check("forward", "float32")(reference)
    path = tmp_path / "ref.json"
    path.write_text(json.dumps(reference))
    out = run_cli("validate", "compare", str(path), str(TINYGPT))
    assert out.returncode == 4, out.stdout
    assert "INCOMPLETE" in out.stdout and "PASSED" not in out.stdout
    assert "19 checks: 18 compared (18 passed, 0 failed), 1 incomplete, 0 skipped" in out.stdout


PRICED = ("--price-reference", "4.0", "--price-candidate", "2.5", "--engineer-rate", "100")


def _scan_report(tmp_path: Path) -> Path:
    report = tmp_path / "scan.json"
    report.write_text(json.dumps({"summary": {"effort_hours": {"low": 10.0, "likely": 20.0, "high": 40.0}}}))
    return report


def test_cost_per_unit_of_work_and_break_even() -> None:
    perf = [{"dtype": "float32", "unit": "sample", "batch_size": 10, "reference_ms": 36.0, "candidate_ms": 36.0,
             "gpus": (1, 1)}]
    result = cost.estimate(perf, cost.Prices(reference=4.0, candidate=2.5, engineer_rate=100.0,
                                             effort_hours=(10.0, 20.0, 40.0)))
    line = result.lines[0]
    # 1M samples = 100,000 steps of 36 ms = 1 GPU-hour on each side
    assert line.reference_per_unit == pytest.approx(4.0) and line.candidate_per_unit == pytest.approx(2.5)
    assert result.port_cost == (1000.0, 2000.0, 4000.0)
    assert line.break_even_units == pytest.approx((1000 / 1.5, 2000 / 1.5, 4000 / 1.5))
    assert line.break_even_reference_gpu_hours == pytest.approx((1000 / 1.5, 2000 / 1.5, 4000 / 1.5))
    slower = cost.estimate([{**perf[0], "candidate_ms": 72.0}], result.prices).lines[0]
    assert slower.saving_per_unit < 0 and slower.break_even_units is None
    assert "never pays for itself" in cost.describe(slower, "USD")
    assert "not priced" in cost.estimate(perf, cost.Prices()).note


def test_cost_section_in_every_output_format(tmp_path: Path) -> None:
    out_json, out_md, out_html = tmp_path / "c.json", tmp_path / "c.md", tmp_path / "c.html"
    result = run_cli("validate", "compare", str(LLMC), str(PRINTS / "h200-llmc-rerun.json"), *PRICED,
                     "--scan-report", str(_scan_report(tmp_path)), "-f", "terminal", "--json-output",
                     str(out_json), "--markdown-output", str(out_md), "--html-output", str(out_html))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "port effort (scan): 20 h (range 10-40) = 2,000 USD at 100/h" in result.stdout
    assert "USD per run (candidate vs reference); break-even after" in result.stdout
    data = json.loads(out_json.read_text())
    jsonschema.Draft202012Validator(json.loads((DOCS / "validate-compare.schema.json").read_text())).validate(data)
    priced = data["cost"]["per_unit"][0]
    assert data["cost"]["port_cost"] == {"low": 1000.0, "likely": 2000.0, "high": 4000.0}
    assert priced["unit"] == "run" and priced["saving_per_unit"] > 0 and priced["break_even_units"]["likely"] > 0
    assert "### Cost" in out_md.read_text() and "| float32 | run |" in out_md.read_text()
    assert 'id="validation-cost"' in out_html.read_text()
    bare = run_cli("validate", "compare", str(TINYGPT), str(TINYGPT), "-f", "json")
    assert json.loads(bare.stdout)["cost"]["note"].startswith("not priced")
    bad = run_cli("validate", "compare", str(TINYGPT), str(TINYGPT), "--scan-report", str(TINYGPT))
    assert bad.returncode == 2 and "not a scan report" in bad.stderr


def test_defaults_are_justified_by_the_committed_measurements() -> None:
    """fixtures/validate/tolerances/measured.json is what scripts/measure_tolerances.py makes of the committed H200
    fingerprints, and every default leaves a margin over what was measured (float32 10x, bfloat16 4x on rtol,
    2x on error bounds)."""
    script = subprocess.run([sys.executable, str(ROOT / "scripts" / "measure_tolerances.py"), "--check"], check=False)
    assert script.returncode == 0, "regenerate: python scripts/measure_tolerances.py"
    rows = json.loads((ROOT / "fixtures" / "validate" / "tolerances" / "measured.json").read_text())["rows"]
    assert {r["spec"] for r in rows} == {"tinygpt", "hf-llama", "minigpt", "nanogpt", "llmc"}
    assert {r["pair"] for r in rows} == {"run-to-run", "cpu-vs-gpu"}
    margin = {"float32": 10.0, "bfloat16": 4.0}
    for r in rows:
        tol = tolerances.lookup(tolerances.DEFAULTS, r["dtype"], r["check"])
        if r["needed_rtol"] is not None:
            assert r["needed_rtol"] * margin[r["dtype"]] <= tol["rtol"], r
        if r["max_error"] is not None:
            assert r["max_error"] * 2 <= tol["bound"], r


def test_margins_measure_relative_differences_and_errors() -> None:
    reference = _load(TINYGPT)
    candidate = copy.deepcopy(reference)
    _scale("loss", "float32", "values", 1.001)(candidate)
    rows = {(r["check"], r["dtype"]): r for r in margins.differences(reference, candidate)}
    assert rows[("loss", "float32")]["max_rel_diff"] == pytest.approx(1e-3)
    assert rows[("forward", "float32")]["needed_rtol"] == 0.0
    assert rows[("op:fused_gelu", "float32")]["max_error"] is not None
