#!/usr/bin/env bash
# Runs cajeta_gpu_bench (bench/gpu) on the GPU machine: our AOT bundles on the cuda backend beside
# nvcc / CUB / raw-driver peers.
#
#   scripts/device-bench.sh prepare [BUILD]   here (LLVM and nvcc present): configures and builds
#       cajeta, the bundles (bench/gpu/kernels/*.cj -> .cjx with nvptx-sm_90 PTX) and
#       cajeta_gpu_bench in BUILD (default build-gbench), and gathers BUILD/gpu-bench-carry:
#       bin/cajeta_gpu_bench, lib/ (libcajeta_xpu.so and its non-system deps, and the toolkit's
#       libcupti for our kernels' GPU time), bundles/*.cjx.
#   scripts/device-bench.sh run [CARRY] [BENCH ARGS...]   on the GPU machine (no LLVM needed):
#       runs the bench with CAJETA_XPU_BACKEND=cuda and writes $OUT/gpu-bench.txt (the table
#       and the machine) and $OUT/gpu-bench.stderr. BENCH ARGS go to the bench (--smoke ...).
#
# On the device machine (the `run` tool) from the repository root:
#   command: scripts/device-bench.sh run build-gbench/gpu-bench-carry
#   carry:   ["build-gbench/gpu-bench-carry"]
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-}

# Libraries every Linux with the NVIDIA driver has; everything else ldd names is carried.
SYSTEM_LIBS='^(linux-vdso|ld-linux|libc\.|libm\.|libpthread|libdl\.|librt\.|libstdc\+\+|libgcc_s|libcuda\.)'

prepare() {
  local Build=${1:-build-gbench}
  [[ $Build = /* ]] || Build="$ROOT/$Build"
  local Carry="$Build/gpu-bench-carry"
  if [[ ! -f $Build/build.ninja ]]; then
    cmake -S "$ROOT" -B "$Build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCAJETA_BUILD_TESTS=OFF || return 1
  fi
  cmake --build "$Build" -j2 --target cajeta_gpu_bench || {
    echo "build failed (cajeta_gpu_bench needs nvcc: is /usr/local/cuda/bin/nvcc there?)"
    return 1
  }
  local Bin="$Build/bin/cajeta_gpu_bench"
  local Bundles="$Build/bench/gpu/bundles"
  rm -rf "$Carry" && mkdir -p "$Carry/bin" "$Carry/lib" "$Carry/bundles" || return 1
  strip -o "$Carry/bin/cajeta_gpu_bench" "$Bin" || return 1
  strip -o "$Carry/lib/libcajeta_xpu.so" "$Build/lib/libcajeta_xpu.so" || return 1
  cp "$Bundles"/*.cjx "$Carry/bundles/" || return 1
  local Lib Name
  while read -r Name Lib; do
    [[ $Name =~ $SYSTEM_LIBS || $Name == libcajeta_xpu.so ]] && continue
    [[ -n $Lib && -f $Lib ]] || { echo "cannot find $Name for the carry"; return 1; }
    cp -L "$Lib" "$Carry/lib/$Name" || return 1
  done < <(ldd "$Bin" "$Build/lib/libcajeta_xpu.so" | awk '/=>/ {print $1, $3}' | sort -u)
  # libcupti (optional at run time): the GPU time of our kernels from CUPTI's activity records.
  local Nvcc Cupti
  Nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  Cupti=$(ls "$(dirname "$(readlink -f "$Nvcc")")"/../lib{,64}/libcupti.so.* 2>/dev/null | head -n 1)
  if [[ -n $Cupti ]]; then
    cp -L "$Cupti" "$Carry/lib/" || return 1
  else
    echo "no libcupti beside nvcc: the table will lack our kernels' GPU time"
  fi
  {
    echo "commit: $(git -C "$ROOT" rev-parse HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src bench/gpu include || echo ' (+ uncommitted changes)')"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
    echo "nvcc: $(nvcc --version 2>/dev/null | tail -n 1 || /usr/local/cuda/bin/nvcc --version | tail -n 1)"
  } > "$Carry/BUILD-INFO.txt"
  find "$Carry" -type f | sed "s|^$Carry/||" | sort
  du -sh "$Carry"
  echo "carry ${Carry#$ROOT/}; on the device: scripts/device-bench.sh run ${Carry#$ROOT/}"
}

run() {
  local Carry=${1:-build-gbench/gpu-bench-carry}
  [[ $# -gt 0 ]] && shift
  [[ $Carry = /* ]] || Carry="$ROOT/$Carry"
  local Out=${OUT:-$ROOT/gpu-bench-results}
  mkdir -p "$Out"
  local Table="$Out/gpu-bench.txt"
  [[ -x $Carry/bin/cajeta_gpu_bench ]] ||
    { echo "no $Carry/bin/cajeta_gpu_bench: run 'prepare' here first" | tee "$Table"; return 1; }
  export LD_LIBRARY_PATH="$Carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export XDG_CACHE_HOME="$Out/cache"
  export CAJETA_XPU_BACKEND=cuda
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -n), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,power.limit \
      --format=csv 2>&1 | head -n 3
    cat "$Carry/BUILD-INFO.txt" 2>/dev/null
    echo "command: CAJETA_XPU_BACKEND=cuda cajeta_gpu_bench --bundles ${Carry#$ROOT/}/bundles $*"
    echo
  } > "$Table"
  local Rc=0
  "$Carry/bin/cajeta_gpu_bench" --bundles "$Carry/bundles" "$@" >> "$Table" \
    2> "$Out/gpu-bench.stderr" || Rc=$?
  echo "exit status: $Rc" >> "$Table"
  cat "$Table"
  [[ -s $Out/gpu-bench.stderr ]] && { echo "--- stderr:"; cat "$Out/gpu-bench.stderr"; }
  return $Rc
}

case $MODE in
prepare) shift; prepare "$@" ;;
run) shift; run "$@" ;;
*) sed -n '2,16p' "$0"; exit 2 ;;
esac
