#!/usr/bin/env bash
# Runs cajeta_gpu_bench (bench/gpu) on the GPU machine: our AOT bundles on the cuda backend beside
# nvcc / CUB / raw-driver peers, and on the Vulkan backend (NVIDIA's Vulkan driver, same GPU)
# beside the cuda backend, in one process.
#
#   scripts/device-bench.sh prepare [BUILD]   here (LLVM and nvcc present): configures and builds
#       cajeta, the bundles (bench/gpu/kernels/*.cj -> .cjx with nvptx-sm_90 PTX and one SPIR-V
#       module per kernel, checked with `cajeta inspect`) and cajeta_gpu_bench in BUILD (default
#       build-gbench), and gathers BUILD/gpu-bench-carry: bin/cajeta_gpu_bench, lib/
#       (libcajeta_xpu.so and its non-system deps, and the toolkit's libcupti for our kernels'
#       GPU time; not cuBLAS, ~600 MB: `run` takes the GPU machine's own, CUDA 13 in
#       /usr/local/cuda), bundles/*.cjx, packed as BUILD/gpu-bench-carry.tar.xz (what travels;
#       `run` unpacks it). It also checks .gl/ (the Vulkan loader for the GPU
#       machine, which has none: the Debian debs libvulkan1 libglvnd0 libegl1 libgl1 libglx0
#       libopengl0 libgles2), fetched once per checkout as scripts/device-test.sh's header says:
#         echo /.gl/ >>.git/info/exclude; mkdir -p .gl /tmp/amd64/partial
#         o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#         apt-get $o update
#         (cd .gl && apt-get $o download libvulkan1 libglvnd0 libegl1 libopengl0 libgl1 libglx0 libgles2)
#   scripts/device-bench.sh run [CARRY] [BENCH ARGS...]   on the GPU machine (no LLVM needed):
#       unpacks .gl/*.deb into / (dpkg -x; ldconfig) when libvulkan.so.1 or libglvnd's
#       libGLdispatch.so.0 is missing, points the loader at the NVIDIA ICD, runs the bench and
#       writes $OUT/gpu-bench.txt (the machine, both tables) and $OUT/gpu-bench.stderr. BENCH ARGS
#       go to the bench (--smoke, --only saxpy,reduce, --no-vulkan ...). Without .gl (or with no
#       Vulkan device) the bench still runs; its Vulkan columns say why there is no Vulkan run.
#
#   scripts/device-bench.sh profile CARRY KERNEL [BENCH ARGS...]   on the GPU machine: one launch
#       of the kernels whose name matches the regular expression KERNEL (cj_k_TileGemm_gemm16$),
#       after two, under Nsight Compute (the toolkit's ncu): its speed of light, occupancy,
#       scheduler, warp-state (with each stall reason's warps per issue) and instruction
#       sections, to $OUT/profile.txt. The bench runs
#       without CUPTI or Vulkan and with one batch per side (--only tilegemm --tilegemm 4096 ...).
#
# On the device machine (the `run` tool) from the repository root:
#   command: scripts/device-bench.sh run build-gbench/gpu-bench-carry
#   carry:   ["build-gbench/gpu-bench-carry.tar.xz", ".gl"]
# (a quick check first, ~1 min: the same with `--smoke` after the carry folder.)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/carry-archive.sh
source "$ROOT/scripts/carry-archive.sh"
MODE=${1:-}

# Libraries every Linux with the NVIDIA driver has, and cuBLAS (libcublas, libcublasLt: ~600 MB,
# far over the 64 MiB carry; the GPU machine has the same CUDA 13 toolkit, which `run` puts on
# LD_LIBRARY_PATH); everything else ldd names is carried.
SYSTEM_LIBS='^(linux-vdso|ld-linux|libc\.|libm\.|libpthread|libdl\.|librt\.|libstdc\+\+|libgcc_s|libcuda\.|libcublas)'
# The toolkit's libraries on the GPU machine (cuBLAS for the tilegemm peer).
CUDA_LIBS="${CUDA_HOME:-/usr/local/cuda}/lib64:${CUDA_HOME:-/usr/local/cuda}/targets/x86_64-linux/lib"

prepare() {
  local Build=${1:-build-gbench}
  [[ $Build = /* ]] || Build="$ROOT/$Build"
  local Carry="$Build/gpu-bench-carry"
  # CUTLASS's headers for the mma.sync tier's CUTLASS peer (the bench skips it without them).
  "$ROOT/scripts/fetch-cutlass.sh" || echo "no CUTLASS headers: the tilegemm rows beside CUTLASS are skipped"
  if [[ ! -f $Build/build.ninja ]]; then
    cmake -S "$ROOT" -B "$Build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCAJETA_BUILD_TESTS=OFF || return 1
  fi
  cmake --build "$Build" -j2 --target cajeta_gpu_bench cajeta_lbvh_bundle cajeta_calibration_bundle || {
    echo "build failed (cajeta_gpu_bench needs nvcc: is /usr/local/cuda/bin/nvcc there?)"
    return 1
  }
  local Bin="$Build/bin/cajeta_gpu_bench"
  local Bundles="$Build/bench/gpu/bundles"
  rm -rf "$Carry" && mkdir -p "$Carry/bin" "$Carry/lib" "$Carry/bundles" || return 1
  strip -o "$Carry/bin/cajeta_gpu_bench" "$Bin" || return 1
  strip -o "$Carry/lib/libcajeta_xpu.so" "$Build/lib/libcajeta_xpu.so" || return 1
  cp "$Bundles"/*.cjx "$Carry/bundles/" || return 1
  # The device BVH build's kernels (no compiler on the GPU machine), beside the runtime library.
  cp "$Build/lib/cajeta-lbvh.cjx" "$Carry/lib/" || return 1
  # The calibration's kernels (the throughput profile calibrates the device first).
  cp "$Build"/lib/cajeta-calibration*.cjx "$Carry/lib/" || return 1
  # The Vulkan side loads the same bundles: each must carry one spirv payload per kernel, but
  # tilegemm, whose software tile does not fit Vulkan's shared memory beside its own staging
  # arrays (the compiler warns; the bench runs it on the cuda backend only).
  local B
  for B in "$Carry"/bundles/*.cjx; do
    [[ $(basename "$B") == tilegemm.cjx ]] && continue
    # grep reads all of it: `grep -q` would stop at the first match and, under pipefail, a
    # bundle whose listing outgrows the pipe buffer would fail on inspect's SIGPIPE.
    "$Build/bin/cajeta" inspect "$B" | grep '^  spirv:' >/dev/null ||
      { echo "$B has no spirv payload ('cajeta inspect $B')"; return 1; }
  done
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
  local Deb Missing=
  for Deb in libvulkan1 libglvnd0 libegl1 libgl1 libglx0 libopengl0 libgles2; do
    [[ -n $(ls "$ROOT/.gl/${Deb}_"*.deb 2>/dev/null) ]] || Missing+=" $Deb"
  done
  [[ -z $Missing ]] ||
    echo "note: .gl/ lacks$Missing: the Vulkan side will not run there (fetch them as the header says)"
  packCarry "$Carry" || return 1
  echo "on the device: scripts/device-bench.sh run ${Carry#$ROOT/}" \
    "(carry [\"${Carry#$ROOT/}.tar.xz\", \".gl\"])"
}

# The Vulkan loader and the NVIDIA ICD on the GPU machine (it has neither loader nor libglvnd).
vulkan_setup() {
  if ! ldconfig -p | grep -q 'libvulkan\.so\.1' || ! ldconfig -p | grep -q 'libGLdispatch\.so\.0'; then
    local F Any=
    for F in "$ROOT"/.gl/*.deb; do
      [[ -f $F ]] || continue
      dpkg -x "$F" / && Any=1
    done
    [[ -n $Any ]] && ldconfig
  fi
  if [[ -z ${VK_DRIVER_FILES:-} ]]; then
    local Icd
    for Icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json \
      /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
      [[ -f $Icd ]] && { export VK_DRIVER_FILES=$Icd; break; }
    done
  fi
}

run() {
  local Carry=${1:-build-gbench/gpu-bench-carry}
  [[ $# -gt 0 ]] && shift
  [[ $Carry = /* ]] || Carry="$ROOT/$Carry"
  unpackCarry "$Carry" || return 1
  local Out=${OUT:-$ROOT/gpu-bench-results}
  mkdir -p "$Out"
  local Table="$Out/gpu-bench.txt"
  [[ -x $Carry/bin/cajeta_gpu_bench ]] ||
    { echo "no $Carry/bin/cajeta_gpu_bench: run 'prepare' here first" | tee "$Table"; return 1; }
  vulkan_setup
  export LD_LIBRARY_PATH="$Carry/lib:$CUDA_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local Missing
  Missing=$(ldd "$Carry/bin/cajeta_gpu_bench" | awk '/not found/ {print $1}' | tr '\n' ' ')
  [[ -z $Missing ]] || {
    echo "cajeta_gpu_bench cannot load: ${Missing}not found (carried: $Carry/lib; cuBLAS is" \
      "expected in the machine's CUDA 13 toolkit: $CUDA_LIBS)" | tee "$Table"
    return 1
  }
  export XDG_CACHE_HOME="$Out/cache"
  # The bench picks its cuda and Vulkan devices itself; a forced backend has no say.
  unset CAJETA_XPU_BACKEND
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -n), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,power.limit \
      --format=csv 2>&1 | head -n 3
    cat "$Carry/BUILD-INFO.txt" 2>/dev/null
    echo "vulkan loader: $(ldconfig -p | awk '/libvulkan\.so\.1 / {print $NF; exit}')," \
      "VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}"
    echo "command: cajeta_gpu_bench --bundles ${Carry#$ROOT/}/bundles $*"
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

profile() {
  local Carry=$1 Kernel=$2
  shift 2
  [[ $Carry = /* ]] || Carry="$ROOT/$Carry"
  unpackCarry "$Carry" || return 1
  local Out=${OUT:-$ROOT/gpu-bench-results}
  mkdir -p "$Out"
  local Ncu
  Ncu=$(command -v ncu || ls -d "${CUDA_HOME:-/usr/local/cuda}"/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
  [[ -n $Ncu ]] || { echo "no ncu on this machine" | tee "$Out/profile.txt"; return 1; }
  export LD_LIBRARY_PATH="$Carry/lib:$CUDA_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export XDG_CACHE_HOME="$Out/cache"
  unset CAJETA_XPU_BACKEND
  "$Ncu" --kernel-name "regex:$Kernel" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
    --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
    "$Carry/bin/cajeta_gpu_bench" --bundles "$Carry/bundles" --no-cupti --no-vulkan \
    --reps 1 --warmup 1 --batch 1 "$@" > "$Out/profile.txt" 2>&1
  local Rc=$?
  cat "$Out/profile.txt"
  return $Rc
}

case $MODE in
prepare) shift; prepare "$@" ;;
run) shift; run "$@" ;;
profile) shift; profile "$@" ;;
*) sed -n '2,35p' "$0"; exit 2 ;;
esac
