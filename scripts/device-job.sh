#!/usr/bin/env bash
# The whole GPU-machine job in one call: the conformance and runtime suites through CUDA, the same
# suite on NVIDIA's Vulkan driver, and the GPU benchmarks (optionally a second, baseline bench
# carry beside them, for a before/after comparison in the same lease).
#
#   scripts/device-job.sh prepare [BUILD]   here (LLVM, nvcc and lavapipe present): runs
#       `device-test.sh vulkan-prepare BUILD` (default build-dev) and
#       `device-bench.sh prepare BUILD-gbench`, so BUILD/device-carry and
#       BUILD-gbench/gpu-bench-carry hold everything the GPU machine needs. Fetch .gl/ once per
#       checkout first (scripts/device-test.sh's header says how).
#   scripts/device-job.sh run [BUILD] [BASELINE-CARRY]   on the GPU machine: the three runs;
#       $OUT gets summary.txt (every suite's line and every failure), gpu-bench.txt,
#       gpu-bench-baseline.txt (when a baseline bench carry is given) and logs.tar.gz (all logs
#       and test XML).
#
# On the device machine (the `run` tool) from the repository root:
#   command: scripts/device-job.sh run build-dev
#   carry:   ["build-dev/device-carry", "build-dev-gbench/gpu-bench-carry", ".gl"]
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-}

prepare() {
  local Build=${1:-build-dev}
  bash "$ROOT/scripts/device-test.sh" vulkan-prepare "$Build" || return 1
  bash "$ROOT/scripts/device-bench.sh" prepare "$Build-gbench" || return 1
  echo "on the device: scripts/device-job.sh run $Build" \
    "(carry [\"$Build/device-carry\", \"$Build-gbench/gpu-bench-carry\", \".gl\"])"
}

run() {
  local Build=${1:-build-dev} Baseline=${2:-}
  local Final=${OUT:-$ROOT/device-results}
  local Work
  Work=$(mktemp -d)
  mkdir -p "$Final"
  local Rc=0
  OUT="$Work/cuda" bash "$ROOT/scripts/device-test.sh" run "$Build/device-carry" > /dev/null || Rc=1
  OUT="$Work/vulkan" bash "$ROOT/scripts/device-test.sh" vulkan "$Build/device-carry" > /dev/null ||
    Rc=1
  OUT="$Work/bench" bash "$ROOT/scripts/device-bench.sh" run "$Build-gbench/gpu-bench-carry" \
    > /dev/null || Rc=1
  if [[ -n $Baseline ]]; then
    OUT="$Work/baseline" bash "$ROOT/scripts/device-bench.sh" run "$Baseline" > /dev/null || Rc=1
    cp "$Work/baseline/gpu-bench.txt" "$Final/gpu-bench-baseline.txt" 2>/dev/null
  fi
  {
    echo "== cuda"
    cat "$Work/cuda/results.txt" 2>/dev/null
    echo "== vulkan"
    cat "$Work/vulkan/results-vulkan.txt" 2>/dev/null
    echo "== exit status: $Rc"
  } > "$Final/summary.txt"
  cp "$Work/bench/gpu-bench.txt" "$Final/gpu-bench.txt" 2>/dev/null
  rm -rf "$Work"/*/cache "$Work"/*/cache-vulkan
  tar -czf "$Final/logs.tar.gz" -C "$Work" . 2>/dev/null
  cat "$Final/summary.txt"
  return $Rc
}

case $MODE in
prepare) shift; prepare "$@" ;;
run) shift; run "$@" ;;
*) sed -n '2,19p' "$0"; exit 2 ;;
esac
