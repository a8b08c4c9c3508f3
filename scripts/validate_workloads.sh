#!/usr/bin/env bash
# The validation chain on real workloads, on one GPU machine: nanoGPT's unchanged model.py through a spec
# (NANOGPT_DIR), llm.c's own test program through --command (LLMC_DIR, built here with its Makefile), the
# in-repo minigpt (SPECS="nanogpt minigpt tinygpt hf_llama" chooses the specs): each spec twice on the GPU and once on
# the CPU, then the compares. GPU runs use cores 0-7; CPU runs and the build run beside them on cores 8-15.
# Fingerprints and logs go to $1 (default: .).
set -u
out="${1:-.}"; mkdir -p "$out"
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 MAX_JOBS=8
py="${PYTHON:-python3}"
nvidia-smi -L; "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
gpu() { echo "== gpu $*"; /usr/bin/time -f "   %e s" taskset -c 0-7 "$py" -m migrate.validate run -q "$@" || echo "   FAILED rc=$?"; }
cpu() { echo "== cpu $*"; OMP_NUM_THREADS=8 /usr/bin/time -f "   %e s" taskset -c 8-15 "$py" -m migrate.validate run -q --cpu "$@" || echo "   FAILED rc=$?"; }
specs="${SPECS-nanogpt minigpt}"
(
  if [ -n "${LLMC_DIR:-}" ]; then
    (cd "$LLMC_DIR" && taskset -c 8-15 make -j8 test_gpt2fp32cu test_gpt2 PRECISION=FP32 >"$out/llmc-build.log" 2>&1 \
      && taskset -c 8-15 "$py" "$OLDPWD/benchmarks/validate/llmc_random_state.py" >>"$out/llmc-build.log" 2>&1) \
      || echo "llm.c build FAILED"
  fi
  for s in $specs; do cpu "fixtures/validate/$s/spec.toml" -o "$out/cpu-$s.json"; done
) >"$out/cpu.log" 2>&1 &
bg=$!
for s in $specs; do
  gpu "fixtures/validate/$s/spec.toml" -o "$out/gpu-$s.json"
  gpu "fixtures/validate/$s/spec.toml" -o "$out/gpu-$s-rerun.json"
done
wait $bg; cat "$out/cpu.log"
if [ -n "${LLMC_DIR:-}" ]; then
  tail -3 "$out/llmc-build.log"
  gpu fixtures/validate/llmc/spec.toml --repeats 3 -o "$out/gpu-llmc.json"
  gpu fixtures/validate/llmc/spec.toml --repeats 3 -o "$out/gpu-llmc-rerun.json"
  gpu fixtures/validate/llmc/spec.toml --command "NVIDIA_TF32_OVERRIDE=0 ./test_gpt2fp32cu" -o "$out/gpu-llmc-notf32.json"
  cpu fixtures/validate/llmc/spec.toml --command "OMP_NUM_THREADS=8 taskset -c 8-15 ./test_gpt2" -o "$out/cpu-llmc.json"
  specs="$specs llmc"
fi
for s in $specs; do
  for c in "gpu-$s-rerun" "cpu-$s"; do
    echo "== compare gpu-$s $c"; "$py" -m migrate.validate compare "$out/gpu-$s.json" "$out/$c.json" | tail -4; echo "   rc=${PIPESTATUS[0]}"
  done
done
