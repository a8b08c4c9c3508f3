"""validate compare on the committed H200 fingerprints: passes against itself, and fails naming the check
on every kind of perturbed copy and on the run with a planted CPU fallback. Needs no PyTorch."""
from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from migrate.validate import compare, fingerprint, render_compare, tolerances
from tests.conftest import ROOT, run_cli

PRINTS = ROOT / "fixtures" / "validate" / "fingerprints"
TINYGPT, FALLBACK, LLAMA = PRINTS / "h200-tinygpt.json", PRINTS / "h200-tinygpt-cpu-fallback.json", PRINTS / "h200-hf-llama.json"
DOCS = ROOT / "docs"


def _load(path: Path) -> dict[str, Any]:
    return fingerprint.load(path)


def _check(fp: dict[str, Any], name: str, dtype: str | None) -> dict[str, Any]:
    return next(c for c in fp["checks"] if c["check"] == name and c["dtype"] == dtype)


def _failed(ref: dict[str, Any], cand: dict[str, Any], **kwargs: Any) -> list[str]:
    return list(compare.compare(ref, cand, **kwargs).to_json()["failed_checks"])


@pytest.mark.parametrize("path", [TINYGPT, FALLBACK, LLAMA], ids=lambda p: p.stem)
def test_committed_fingerprints_follow_the_schema(path: Path) -> None:
    schema = json.loads((DOCS / "validate-fingerprint.schema.json").read_text())
    data = _load(path)
    jsonschema.Draft202012Validator(schema).validate(data)
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
    bad = run_cli("validate", "compare", str(TINYGPT), str(FALLBACK), "-f", "terminal", "-o", "-", "-f", "json",
                  "-o", str(out_json), "-f", "markdown", "-o", str(out_md), "-f", "html", "-o", str(out_html))
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
    assert result.stderr.strip() == (f"rocm-migrate: error: {not_fp}: not a rocm-migrate fingerprint"
                                     ' (no "kind": "rocm-migrate-fingerprint")')


def test_html_escapes_what_the_fingerprint_says() -> None:
    reference = _load(TINYGPT)
    candidate = copy.deepcopy(reference)
    _fail_check("forward", "float32")(candidate)
    _check(candidate, "forward", "float32")["info"]["reason"] = "<script>alert(1)</script>"
    html = render_compare.html(compare.compare(reference, candidate))
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
