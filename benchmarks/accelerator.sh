#!/usr/bin/env bash
# The corpus (and a project's own tests) on an accelerator machine with its own jax (installed mode), beside the same
# pins on its CPU.
# Usage: bash benchmarks/accelerator.sh OUT_DIR [RUN_STAMP] [PROJECT_DIR]
# Needs: `python3` is a venv holding a CUDA (or TPU) jax, flax, and the shardmatrix wheel with its pytest plugins
# (pip install shardmatrix, or the wheels carried in: pip install --no-index --no-deps wheels/*.whl); a PROJECT_DIR's
# package installed there too. It records under OUT_DIR/results the runs below, the report of the first, and
# OUT_DIR/machine.txt (nvidia-smi), printing each run's wall. Nothing here is specific to one GPU model.
set -uo pipefail
out=$(realpath -m "${1:?usage: accelerator.sh OUT_DIR [RUN_STAMP] [PROJECT_DIR]}")
stamp=${2:-$(date -u +%Y%m%dT%H%M%SZ)}
project=${3:+$(realpath "$3")}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv >"$out/machine.txt" 2>&1 || true
python3 -m pip list 2>/dev/null | grep -Ei '^(jax|jaxlib|flax|jax-cuda|nvidia-(cudnn|nccl|cublas)|libtpu|numpy|pytest)' >>"$out/machine.txt"
# The accelerator's device count: its CPU runs at the same count, so the report can compare the two case by case.
count=$(python3 -c 'import jax; print(jax.device_count())')
cd "$(mktemp -d)" || exit 1  # outside any checkout: the corpus comes from the installed package
run() {  # run NAME [ENV=VALUE...] -- shardmatrix installed options
  local name=$1; shift; local env=()
  while [[ $1 != -- ]]; do env+=("$1"); shift; done; shift
  local start=$SECONDS
  env "${env[@]}" shardmatrix installed --out "$out" --run-id "$stamp-$name" "$@"
  echo "== $name: rc $? in $((SECONDS - start)) s"
}
run accel --                                                   # the accelerator, one process
run accel -- --backend cpu --devices 8 --workers 8             # its CPU, 8 simulated devices (the default cells')
run cpu"$count" -- --backend cpu --devices "$count"            # its CPU at the accelerator's device count
run workers8 -- --workers 8                                    # 8 workers share one accelerator
run highest JAX_DEFAULT_MATMUL_PRECISION=highest --            # the accelerator at the highest matmul precision
if [[ -n $project ]]; then  # the project's tests, from its folder as its CI runs them
  cd "$project" || exit 1
  run project -- --cases tests
  run project -- --cases tests --backend cpu --devices "$count"
fi
shardmatrix report --out "$out" --run "$stamp-accel" --run "$stamp-cpu$count" && echo "== report: $out/report"
