"""validate run on the CPU: the bundled example and the transformers model against their H200 fingerprints,
determinism, recorded custom-op inputs, failed checks as results, --nproc N with gloo, and the spec file."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from migrate.validate import compare, fallback, fingerprint, performance
from migrate.validate import spec as specs
from tests.conftest import ROOT, run_cli

torch = pytest.importorskip("torch", reason="validate run needs PyTorch: pip install '.[validate]'")

VALIDATE = ROOT / "fixtures" / "validate"
PRINTS = VALIDATE / "fingerprints"
SCHEMA = json.loads((ROOT / "docs" / "validate-fingerprint.schema.json").read_text())
FAST = ("--warmup", "1", "--timed-steps", "2", "-q")  # timing only: the numerics follow the spec


def _run(spec: Path, out: Path, *extra: str) -> dict[str, Any]:
    result = run_cli("validate", "run", str(spec), "-o", str(out), *FAST, *extra)
    assert result.returncode == 0, result.stderr
    data = fingerprint.load(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    return data


@pytest.fixture(scope="module")
def tinygpt_cpu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tinygpt") / "cpu.json"
    _run(VALIDATE / "tinygpt" / "spec.toml", out)
    return out


@pytest.fixture(scope="module")
def tiny_cpu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tiny") / "cpu.json"
    _run(VALIDATE / "tiny" / "spec.toml", out)
    return out


def test_bundled_example_on_cpu_matches_the_h200_within_tolerance(tinygpt_cpu: Path) -> None:
    result = run_cli("validate", "compare", str(PRINTS / "h200-tinygpt.json"), str(tinygpt_cpu))
    assert result.returncode == 0, result.stdout
    cpu = fingerprint.load(tinygpt_cpu)
    assert cpu["environment"]["platform"] == "cpu"
    assert cpu["implementations"] == {"fused_gelu": "reference", "rms_norm": "reference"}
    skipped = [c["check"] for c in cpu["checks"] if c["status"] == "skipped"]
    assert skipped == ["cpu_fallback", "cpu_fallback"]  # everything runs on the CPU by design
    assert "PASS    op:fused_gelu[bfloat16]" in result.stdout and "SKIPPED cpu_fallback[float32]" in result.stdout


def test_transformers_model_on_cpu_matches_the_h200_within_tolerance(tmp_path: Path) -> None:
    pytest.importorskip("transformers", reason="the transformers model needs transformers")
    out = _run(VALIDATE / "hf_llama" / "spec.toml", tmp_path / "llama.json")
    assert out["environment"]["transformers_version"] == fingerprint.load(PRINTS / "h200-hf-llama.json")["environment"][
        "transformers_version"]
    result = compare.compare(fingerprint.load(PRINTS / "h200-hf-llama.json"), out)
    assert result.passed, [c.problems for c in result.failed]
    assert {c.check for c in result.checks if c.status == "pass"} >= {"forward", "loss", "grad_norms", "param_deltas",
                                                                      "checkpoint", "amp", "collectives", "ddp"}


def test_runs_are_deterministic(tiny_cpu: Path, tmp_path: Path) -> None:
    again = _run(VALIDATE / "tiny" / "spec.toml", tmp_path / "again.json")
    first = fingerprint.load(tiny_cpu)
    assert [c["metrics"] for c in first["checks"]] == [c["metrics"] for c in again["checks"]]


def test_every_check_runs_and_custom_ops_are_called_on_recorded_inputs(tiny_cpu: Path) -> None:
    data = fingerprint.load(tiny_cpu)
    names = [(c["check"], c["dtype"], c["status"]) for c in data["checks"]]
    for dtype in ("float32", "bfloat16"):
        for check in ("forward", "loss", "grad_norms", "param_deltas", "op:scaled_tanh", "checkpoint"):
            assert (check, dtype, "ran") in names
    assert ("amp", "bfloat16", "ran") in names and ("collectives", "float32", "ran") in names
    op = next(c for c in data["checks"] if c["check"] == "op:scaled_tanh" and c["dtype"] == "float32")
    assert [i["shape"] for i in op["info"]["inputs"]] == [[8, 16]]  # the activations the model passed it
    assert op["info"]["calls"] == 1 and op["info"]["checked_call"] == 0
    assert op["metrics"]["forward_rel_err"] < 1e-6 and op["metrics"]["backward_rel_err"] < 1e-6
    ckpt = next(c for c in data["checks"] if c["check"] == "checkpoint" and c["dtype"] == "float32")["metrics"]
    assert ckpt == {"state_equal": True, "output_max_abs_diff": 0.0, "resume_max_abs_diff": 0.0}
    loss = next(c for c in data["checks"] if c["check"] == "loss" and c["dtype"] == "float32")["metrics"]
    assert len(loss["values"]) == 3 and loss["values"][-1] < loss["values"][0]
    steps = data["performance"]["steps"]
    assert [p["dtype"] for p in steps] == ["float32", "bfloat16"]
    assert all(p["timed_steps"] == 2 and p["samples_per_s"] > 0 and p["peak_device_memory_bytes"] is None for p in steps)
    dist = data["performance"]["distributed"]
    assert dist["world_size"] == 1 and dist["backend"] == "gloo" and len(dist["collectives"]) == 4


def test_nproc_launches_ranks_checks_collectives_exactly_and_ddp_against_one_process(tiny_cpu: Path, tmp_path: Path) -> None:
    data = _run(VALIDATE / "tiny" / "spec.toml", tmp_path / "n2.json", "--nproc", "2", "--dtype", "float32")
    coll = next(c for c in data["checks"] if c["check"] == "collectives")
    assert coll["status"] == "ran" and coll["info"]["world_size"] == 2 and coll["info"]["launcher"] == "processes"
    assert coll["metrics"] == {f"{op}_exact": True for op in ("all_reduce", "all_gather", "reduce_scatter", "broadcast")}
    ddp = next(c for c in data["checks"] if c["check"] == "ddp")
    assert ddp["metrics"]["grad_rel_err"] < 1e-6
    dist = data["performance"]["distributed"]
    assert dist["world_size"] == 2 and dist["backend"] == "gloo"
    assert all(c["busbw_GBps"] > 0 for c in dist["collectives"])
    assert dist["scaling"]["world_size"] == 2 and dist["scaling"]["step_time_ms_n"] > 0
    # the 2-rank run agrees with the 1-rank run where both have the check
    assert compare.compare(fingerprint.load(tiny_cpu), data).to_json()["failed_checks"] == [
        f"{c}[bfloat16]" for c in ("forward", "loss", "grad_norms", "param_deltas", "op:scaled_tanh", "checkpoint",
                                   "cpu_fallback")]


def test_a_failing_port_is_a_failed_check_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text(
        "import torch\nfrom tiny import build_model, make_batch, make_optimizer\n\n"
        "def loss_fn(output, target):\n    raise RuntimeError('HIP error: invalid device function')\n")
    spec = tmp_path / "spec.toml"
    spec.write_text('[model]\nfactory = "tiny:build_model"\nbatch = "tiny:make_batch"\nloss = "broken:loss_fn"\n'
                    'optimizer = "tiny:make_optimizer"\n[run]\nsteps = 2\ndtypes = ["float32"]\namp_dtype = "none"\n')
    (tmp_path / "tiny.py").write_text((VALIDATE / "tiny" / "tiny.py").read_text())
    (tmp_path / "tiny_ops.py").write_text((VALIDATE / "tiny" / "tiny_ops.py").read_text())
    data = _run(spec, tmp_path / "broken.json")
    failed = {c["check"]: c["info"]["reason"] for c in data["checks"] if c["status"] == "failed"}
    assert set(failed) >= {"forward", "loss", "grad_norms", "param_deltas", "ddp"}
    assert failed["forward"] == failed["ddp"] == "RuntimeError: HIP error: invalid device function"
    assert next(c for c in data["checks"] if c["check"] == "collectives")["status"] == "ran"


@pytest.mark.parametrize(("text", "message"), [
    ('[model]\nfactory = "m:f"\nbatch = "m:b"\nloss = "m:l"\n', "model.optimizer: must be 'module:function'"),
    ('[model]\nfactory = "m"\nbatch = "m:b"\nloss = "m:l"\noptimizer = "m:o"\n', "model.factory: must be 'module:function'"),
    ('[model]\nfactory = "m:f"\nbatch = "m:b"\nloss = "m:l"\noptimizer = "m:o"\n[run]\ndtypes = ["float64"]\n',
     "run.dtypes: must be a list of float32, bfloat16, float16"),
    ('[model]\nfactory = "m:f"\nbatch = "m:b"\nloss = "m:l"\noptimizer = "m:o"\n[run]\nstep = 3\n', "unknown key 'step'"),
    ('[model]\nfactory = "m:f"\nbatch = "m:b"\nloss = "m:l"\noptimizer = "m:o"\n[[ops]]\nname = "x"\n',
     "ops[0]: needs name, target and reference (strings), and optionally call"),
    ('[model]\nfactory = "m:f"\nbatch = "m:b"\nloss = "m:l"\noptimizer = "m:o"\n[[ops]]\nname = "x"\ntarget = "m:t"\n'
     'reference = "m:r"\ncall = -1\n', "ops[0].call: must be a non-negative integer"),
    ('[model]\nfactory = "m:f"\nbatch = "m:b"\nloss = "m:l"\noptimizer = "m:o"\n[[ops]]\nname = "x"\ntarget = "torch.ops.x"\n'
     'reference = "m:r"\n', "ops[0].target: must be"),
])
def test_bad_spec_files_are_one_line_usage_errors(tmp_path: Path, text: str, message: str) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(text)
    with pytest.raises(specs.SpecError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        specs.load(spec)
    result = run_cli("validate", "run", str(spec))
    assert result.returncode == 2 and result.stderr.startswith("rocm-migrate: error: ") and len(result.stderr.splitlines()) == 1


def test_an_unimportable_function_is_a_usage_error(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text('[model]\nfactory = "nowhere:f"\nbatch = "m:b"\nloss = "m:l"\noptimizer = "m:o"\n')
    result = run_cli("validate", "run", str(spec))
    assert result.returncode == 2 and "cannot load nowhere:f" in result.stderr


def test_the_cpu_fallback_classifier() -> None:
    rows = [("aten::gelu", 2, 0.0, 120.0), ("aten::addmm", 4, 55.0, 30.0), ("aten::view", 9, 0.0, 3.0),
            ("aten::_to_copy", 2, 8.0, 40.0), ("ProfilerStep*", 1, 0.0, 900.0), ("aten::gelu_backward", 2, 0.0, 80.0),
            ("aten::empty", 3, 0.0, 0.0)]
    assert fallback.classify(rows) == [{"op": "aten::gelu", "count": 2, "self_cpu_us": 120.0},
                                       {"op": "aten::gelu_backward", "count": 2, "self_cpu_us": 80.0}]


def test_step_time_summary() -> None:
    s = performance.summary([0.010, 0.012, 0.011, 0.030, 0.009])
    assert s["median"] == pytest.approx(11.0) and s["min"] == pytest.approx(9.0) and s["max"] == pytest.approx(30.0)
    assert s["p10"] <= s["median"] <= s["p90"]


@pytest.fixture(scope="module")
def minigpt_cpu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("minigpt") / "cpu.json"
    _run(VALIDATE / "minigpt" / "spec.toml", out)
    return out


def test_ops_with_keyword_arguments_methods_and_torch_ops_are_recorded_and_checked(minigpt_cpu: Path) -> None:
    data = fingerprint.load(minigpt_cpu)
    ops = {(c["check"], c["dtype"]): c for c in data["checks"] if c["check"].startswith("op:")}
    sdpa = ops[("op:sdpa", "float32")]
    assert sdpa["status"] == "ran", sdpa["info"]
    assert sdpa["info"]["keyword_arguments"] == ["attn_mask", "dropout_p", "is_causal"]
    assert sdpa["info"]["calls"] == 2 and sdpa["info"]["checked_call"] == 1  # once per block; the second is checked
    assert [i["shape"] for i in sdpa["info"]["inputs"]] == [[4, 4, 16, 16]] * 3
    assert sdpa["metrics"]["forward_rel_err"] < 1e-5 and sdpa["metrics"]["backward_rel_err"] < 1e-5
    sigmoid = ops[("op:sigmoid", "float32")]  # a Tensor method, patched on the class and restored
    assert sigmoid["status"] == "ran" and sigmoid["info"]["calls"] == 2
    assert "sigmoid" not in vars(torch.Tensor)
    rms = ops[("op:rms_norm", "float32")]  # torch.library op, seen by the dispatch mode
    assert rms["status"] == "ran" and rms["info"]["calls"] == 4 and rms["info"]["checked_call"] == 2
    assert rms["metrics"]["forward_rel_err"] < 1e-6


def test_batches_have_one_layout_on_every_device(minigpt_cpu: Path) -> None:
    """The batch function cuts slices (not contiguous); the model's .view(-1) on them needs a contiguous copy,
    which the device always made: the CPU run now gets the same, and the fingerprint says both."""
    forward = next(c for c in fingerprint.load(minigpt_cpu)["checks"] if c["check"] == "forward")
    assert forward["status"] == "ran"
    assert [b["contiguous"] for b in forward["info"]["batch_as_drawn"]] == [False, False]
    assert forward["info"]["batch_on_device"] == [{"shape": [4, 16], "dtype": "int64", "stride": [16, 1],
                                                   "contiguous": True}] * 2


def test_minigpt_on_cpu_matches_its_h200_fingerprint(minigpt_cpu: Path) -> None:
    result = run_cli("validate", "compare", str(PRINTS / "h200-minigpt.json"), str(minigpt_cpu))
    assert result.returncode == 0, result.stdout
    assert "PASS    op:sdpa[float32]" in result.stdout and "incomplete" in result.stdout


def test_the_fingerprint_records_kernels_and_claims_determinism_only_when_held(minigpt_cpu: Path) -> None:
    cpu = fingerprint.load(minigpt_cpu)
    assert cpu["kernels"]["float32"]["sdpa"] == ["flash (cpu)"]
    assert cpu["environment"]["kernel_switches"]["tf32_matmul"] is False
    assert cpu["environment"]["determinism"]["held"] is True
    gpu = fingerprint.load(PRINTS / "h200-nanogpt.json")  # memory-efficient and cuDNN attention backward warned
    assert gpu["kernels"]["float32"]["sdpa"] == ["memory-efficient"] and gpu["kernels"]["bfloat16"]["sdpa"] == ["cudnn"]
    assert "cublasLt (nvjet)" in gpu["kernels"]["bfloat16"]["gemm_libraries"]
    assert gpu["environment"]["determinism"]["held"] is False
    assert any(w.startswith("Memory Efficient attention") for w in gpu["environment"]["determinism"]["nondeterministic"])


def test_kernel_names_are_summarised() -> None:
    from migrate.validate import kernels

    got = kernels.summarise(["aten::_scaled_dot_product_efficient_attention", "aten::mm",
                             "nvjet_sm90_tst_64x8_64x16_1x4_h_bz_NNT", "Cijk_Ailk_Bljk_S_MT64x64", "aten::addmm"])
    assert got["sdpa"] == ["memory-efficient"] and got["gemm_libraries"] == ["cublasLt (nvjet)", "hipblaslt/tensile"]


NANOGPT = Path(os.environ.get("NANOGPT_DIR", "/nonexistent")) / "model.py"


@pytest.mark.skipif(not NANOGPT.is_file(), reason="nanoGPT's model.py is fetched, not committed: set NANOGPT_DIR to a "
                                                  "karpathy/nanoGPT checkout to run this test")
def test_nanogpt_unchanged_on_cpu_passes_against_its_h200_fingerprint_in_float32(tmp_path: Path) -> None:
    out = tmp_path / "nanogpt.json"
    data = _run(VALIDATE / "nanogpt" / "spec.toml", out, "--dtype", "float32")
    assert all(c["status"] in ("ran", "skipped") for c in data["checks"]), [c["info"] for c in data["checks"]]
    whole = run_cli("validate", "compare", str(PRINTS / "h200-nanogpt.json"), str(out))
    assert whole.returncode == 1 and "missing from the candidate" in whole.stdout  # no bfloat16 run: never a pass
    result = run_cli("validate", "compare", str(PRINTS / "h200-nanogpt.json"), str(out), "--dtype", "float32")
    assert result.returncode == 0, result.stdout
    assert "PASS    op:sdpa[float32]" in result.stdout and "PASS    op:layer_norm[float32]" in result.stdout
    assert "0 failed), 0 incomplete" in result.stdout
