"""validate run on a command spec (the project's own program, its metrics read by patterns), llm.c's committed
H200 fingerprints, and validate init's spec skeleton. Needs no PyTorch."""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from migrate.validate import command, fingerprint
from migrate.validate import spec as specs
from tests.conftest import ROOT, run_cli

PRINTS = ROOT / "fixtures" / "validate" / "fingerprints"
PROGRAM = """import sys
scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
for step in range(4):
    print(f"step {step}: loss {scale * 2.0 / (step + 1):.6f} (took {1.5 + step:.3f} ms)")
print("OK (LOGITS)")
sys.exit(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
"""


def _spec(tmp_path: Path, run: str = "{py} prog.py", extra: str = "") -> Path:
    (tmp_path / "prog.py").write_text(PROGRAM)
    spec = tmp_path / "spec.toml"
    spec.write_text(f"""[command]
run = {json.dumps(run.format(py=sys.executable))}
dtype = "float32"
[[metrics]]
name = "loss"
pattern = 'step \\d+: loss (\\S+)'
[[metrics]]
name = "logits_ok"
pattern = '^OK \\(LOGITS\\)'
kind = "present"
[[metrics]]
name = "mismatch"
pattern = 'NOT OK'
kind = "absent"
[[metrics]]
name = "step_ms"
pattern = 'took (\\S+) ms'
role = "time"
{extra}""")
    return spec


def _run(spec: Path, out: Path, *extra: str) -> dict:
    result = run_cli("validate", "run", str(spec), "-o", str(out), "-q", *extra)
    assert result.returncode == 0, result.stderr
    return fingerprint.load(out)


def test_a_command_run_reads_its_metrics_and_times_the_command(tmp_path: Path) -> None:
    data = _run(_spec(tmp_path), tmp_path / "a.json", "--repeats", "2")
    checks = {c["check"]: c for c in data["checks"]}
    assert checks["exit"]["metrics"] == {"returncode_ok": True} and checks["exit"]["info"]["returncodes"] == [0, 0]
    assert checks["metric:loss"]["metrics"] == {"values": [2.0, 1.0, pytest.approx(0.666667), 0.5]}
    assert checks["metric:logits_ok"]["metrics"] == {"present": True}
    assert checks["metric:mismatch"]["metrics"] == {"absent": True}
    assert "metric:step_ms" not in checks  # a timing: reported, not compared
    perf = data["performance"]["steps"][0]
    assert perf["unit"] == "run" and perf["timed_steps"] == 2 and perf["step_time_ms"]["median"] > 0
    assert perf["timings"] == {"step_ms": [1.5, 2.5, 3.5, 4.5]} and perf["peak_host_rss_bytes"] > 0
    same = run_cli("validate", "compare", str(tmp_path / "a.json"), str(tmp_path / "a.json"))
    assert same.returncode == 0 and "PASS    metric:loss[float32] (4 values)" in same.stdout


def test_a_command_that_differs_breaks_or_prints_nothing_fails_the_compare(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    _run(spec, tmp_path / "ref.json")
    drifted = _run(spec, tmp_path / "drift.json", "--command", f"{sys.executable} prog.py 1.01")
    result = run_cli("validate", "compare", str(tmp_path / "ref.json"), str(tmp_path / "drift.json"))
    assert result.returncode == 1 and "FAILED: metric:loss[float32]" in result.stdout
    assert drifted["spec"]["command"].endswith("prog.py 1.01")
    broken = _run(spec, tmp_path / "broken.json", "--command", f"{sys.executable} prog.py 1.0 3")
    assert next(c for c in broken["checks"] if c["check"] == "exit")["metrics"] == {"returncode_ok": False}
    silent = _run(spec, tmp_path / "silent.json", "--command", "true")
    loss = next(c for c in silent["checks"] if c["check"] == "metric:loss")
    assert loss["status"] == "failed" and "matched nothing" in loss["info"]["reason"]
    out = run_cli("validate", "compare", str(tmp_path / "ref.json"), str(tmp_path / "silent.json"))
    assert out.returncode == 1 and "metric:logits_ok[float32]" in out.stdout
    backwards = run_cli("validate", "compare", str(tmp_path / "silent.json"), str(tmp_path / "ref.json"))
    assert backwards.returncode == 4, backwards.stdout  # the reference failed: nothing to compare, never a pass


@pytest.mark.parametrize(("extra", "message"), [
    ("[[metrics]]\nname = 'x'\npattern = 'no group'\n", "a values metric needs a group"),
    ("[[metrics]]\nname = 'x'\npattern = '(a'\n", r"metrics\[4\]\.pattern: missing \)"),
    ("[[metrics]]\nname = 'x'\npattern = '(a)'\nkind = 'mean'\n", "kind is one of values, last, present, absent"),
    ("[other]\n", "unknown key 'other'"),
])
def test_bad_command_specs_are_usage_errors(tmp_path: Path, extra: str, message: str) -> None:
    spec = _spec(tmp_path, extra=extra)
    with pytest.raises(specs.SpecError, match=message):
        command.load(spec)
    result = run_cli("validate", "run", str(spec))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1


def test_read_metric_last_value() -> None:
    metric = command.Metric(name="tok", pattern=r"tok/s (\S+)", kind="last")
    assert command.read_metric(metric, "tok/s 10\ntok/s 12.5\n", "bfloat16")["metrics"] == {"value": 12.5}
    bad = command.read_metric(metric, "tok/s fast\n", "float32")
    assert bad["status"] == "failed" and "not a number" in bad["info"]["reason"]


@pytest.mark.parametrize("other", ["h200-llmc-rerun.json", "h200-host-cpu-llmc.json", "h200-llmc-notf32.json"])
def test_llmc_on_the_h200_against_a_second_run_and_the_cpu(other: str) -> None:
    """llm.c's test_gpt2fp32cu (CUDA, float32) on the H200, against a second run, the same program with TF32 off,
    and its C test_gpt2 on the host's CPU: ten losses within float32's default tolerance, its own checks passed."""
    result = run_cli("validate", "compare", str(PRINTS / "h200-llmc.json"), str(PRINTS / other))
    assert result.returncode == 0, result.stdout
    assert "5 checks: 5 compared (5 passed, 0 failed), 0 incomplete, 0 skipped" in result.stdout
    data = fingerprint.load(PRINTS / other)
    assert "overall okay: 0" in data["output_tail"]  # llm.c's fixed expected losses belong to pretrained GPT-2


def test_init_writes_a_spec_skeleton_for_the_demo_model(tmp_path: Path) -> None:
    out = tmp_path / "spec"
    result = run_cli("validate", "init", str(ROOT / "fixtures" / "repos" / "demo"), "-o", str(out), "--no-cache")
    assert result.returncode == 0, result.stderr
    assert "TinyTransformer from fastattn/model.py:47 (workload fastattn)" in result.stderr and result.stdout == ""
    spec = specs.load(out / "spec.toml")  # a valid spec, whose adapter the user completes
    assert spec.factory == "validate_adapter:build_model" and spec.dtypes == ("float32", "bfloat16")
    assert {(o.name, o.target) for o in spec.ops} == {
        ("scaled_dot_product_attention", "torch.nn.functional:scaled_dot_product_attention"),
        ("fused_attention", "fastattn.model:fused_attention")}  # looked up at call time in the model's module
    adapter = (out / "validate_adapter.py").read_text()
    ast.parse(adapter)
    assert "from fastattn.model import TinyTransformer" in adapter
    assert "torch.optim.AdamW(params)" in adapter and "seen at fastattn/model.py:78" in adapter
    assert "torch.nn.functional.cross_entropy (fastattn/model.py:66)" in adapter
    assert "(vocab=32000, dim=512, n_heads=8, depth=6)" in adapter
    again = run_cli("validate", "init", str(ROOT / "fixtures" / "repos" / "demo"), "-o", str(out), "--no-cache")
    assert again.returncode == 2 and "exists (use --force" in again.stderr


def test_init_without_a_model_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("validate", "init", str(ROOT / "fixtures" / "validate" / "plan" / "no_gpu"), "-o",
                     str(tmp_path / "s"), "--no-cache")
    assert result.returncode == 2 and "no PyTorch model" in result.stderr
