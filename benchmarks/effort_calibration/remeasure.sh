#!/usr/bin/env bash
# Re-run every measurement in measurements.yaml. Needs the three repositories checked out at the
# commits named there (BNB, APEX, MAMBA: paths to their git directories), HIPIFY's bin/hipify-perl
# (HIPIFY_PERL) and rocm-migrate on the path. Prints the per-file records of each project.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
measure="python ${MEASURE:-$here/measure.py}"
work=$(mktemp -d)
scan() { rocm-migrate scan "$1" --format json -o "$2" --no-hipify --no-cache >/dev/null; }
cxx() { (cd "$1" && find . -regextype egrep -regex '.*\.(cu|cuh|h|hpp|cpp|cc)$' | sed 's|^\./||' | sort); }

# bitsandbytes before #1877: kernels.cu/ops.cu and their hand-kept .hip twins.
mkdir -p "$work/bnb/src" "$work/bnb/orig"
for f in kernels.cu kernels.hip ops.cu ops.hip kernels.cuh kernels_hip.cuh ops.cuh ops_hip.cuh common.cuh \
         common_hip.cuh pythonInterface.cpp; do
  git --git-dir "$BNB" show 96b37ec959477c160c7234a7c9ef30fa9d56f295:csrc/$f > "$work/bnb/orig/$f"
done
git --git-dir "$BNB" show 96b37ec959477c160c7234a7c9ef30fa9d56f295:CMakeLists.txt > "$work/bnb/CMakeLists.txt"
cp "$work"/bnb/orig/{kernels.cu,ops.cu,kernels.cuh,ops.cuh,common.cuh,pythonInterface.cpp} "$work/bnb/src/"
$measure cuda-variant - "$work/bnb/src/pythonInterface.cpp"
scan "$work/bnb/src" "$work/bnb.json"
echo "# bitsandbytes"
for pair in kernels.cu:kernels.hip ops.cu:ops.hip kernels.cuh:kernels_hip.cuh ops.cuh:ops_hip.cuh common.cuh:common_hip.cuh; do
  $measure pair "$work/bnb.json" "$work/bnb/orig/${pair%%:*}" "$work/bnb/orig/${pair##*:}" "${pair%%:*}" --hipify "$HIPIFY_PERL"
done
$measure guards "$work/bnb.json" "$work/bnb/orig/pythonInterface.cpp" pythonInterface.cpp
$measure cmake - "$work/bnb/CMakeLists.txt" CMakeLists.txt

# ROCm/apex and state-spaces/mamba: one tree that keeps both paths behind HIP guards.
for spec in "apex:$APEX:daed85255d51476425080e7e6203f0bee6d7e4cc:csrc apex/contrib/csrc" \
            "mamba:$MAMBA:e9594ce1c732d97440f0332fdc43170a2294dbfa:csrc"; do
  IFS=: read -r name gitdir commit dirs <<<"$spec"
  mkdir -p "$work/$name/orig" "$work/$name/variant"
  git --git-dir "$gitdir" archive "$commit" $dirs setup.py | tar -x -C "$work/$name/orig"
  git --git-dir "$gitdir" archive "$commit" $dirs | tar -x -C "$work/$name/variant"
  (cd "$work/$name/variant" && cxx . | xargs $measure cuda-variant -)
  scan "$work/$name/variant" "$work/$name.json"
  echo "# $name"
  for rel in $(cxx "$work/$name/orig"); do
    $measure guards "$work/$name.json" "$work/$name/orig/$rel" "$rel"
  done
  $measure setup-py - "$work/$name/orig/setup.py" setup.py
done
