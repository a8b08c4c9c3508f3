#!/usr/bin/env bash
# The validation chain on a GPU machine: the bundled example (twice, for determinism, and once with a
# planted CPU fallback) and the transformers model, fp32 and bf16. Fingerprints go to $1 (default: .).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0 ...): it can take a shared host's GPUs out of service.
set -u
out="${1:-.}"
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export MAX_JOBS="${MAX_JOBS:-16}"
py="${PYTHON:-python3}"
gpus=$("$py" -c 'import torch; print(torch.cuda.device_count())')
nvidia-smi -L 2>/dev/null || rocm-smi --showproductname 2>/dev/null || true
"$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", getattr(torch.version, "hip", None))'
run() { echo "== $*"; /usr/bin/time -f "   %e s" "$py" -m migrate.validate run "$@" || echo "   FAILED rc=$?"; }
nproc=1; [ "$gpus" -ge 2 ] && nproc="$gpus"
run fixtures/validate/tinygpt/spec.toml --nproc "$nproc" -o "$out/gpu-tinygpt.json"
run fixtures/validate/tinygpt/spec.toml --nproc "$nproc" -o "$out/gpu-tinygpt-rerun.json"
TINYGPT_FORCE_CPU_GELU=1 run fixtures/validate/tinygpt/spec.toml -o "$out/gpu-tinygpt-cpu-fallback.json"
run fixtures/validate/hf_llama/spec.toml --nproc "$nproc" -o "$out/gpu-hf-llama.json"
cmp() { echo "== compare $1 $2"; "$py" -m migrate.validate compare "$out/$1" "$out/$2"; echo "   rc=$?"; }
cmp gpu-tinygpt.json gpu-tinygpt-rerun.json
cmp gpu-tinygpt.json gpu-tinygpt-cpu-fallback.json | tail -8
"$py" - "$out" <<'PY'
import json, sys, pathlib
for f in sorted(pathlib.Path(sys.argv[1]).glob("gpu-*.json")):
    fp = json.loads(f.read_text())
    print(f.name, fp["environment"]["gpu_name"], fp["implementations"], f'{fp["seconds"]} s')
    for p in fp["performance"]["steps"]:
        s = p["step_time_ms"]
        print(f'  {p["dtype"]}: median {s["median"]:.3f} ms [p10 {s["p10"]:.3f}, p90 {s["p90"]:.3f}], '
              f'{p["samples_per_s"]:.1f} samples/s, peak {p["peak_device_memory_bytes"]} B')
    for c in fp["checks"]:
        if c["status"] != "ran" or c["check"] == "cpu_fallback":
            print("  ", c["check"], c["dtype"], c["status"], c["metrics"].get("ops", ""), c["info"].get("reason", ""))
PY
if [ "$gpus" -lt 2 ]; then  # the launcher on this host with 2 ranks: gloo on the CPU, since there is one GPU
  run fixtures/validate/tinygpt/spec.toml --dtype float32 --nproc 2 -o "$out/gpu-tinygpt-nproc2-gloo.json"
  "$py" -c "import json,sys; d=json.load(open(sys.argv[1]))['performance']['distributed']; print(json.dumps(d))" "$out/gpu-tinygpt-nproc2-gloo.json"
fi
