#!/usr/bin/env bash
# Runs the conformance suite (and runtime_tests) on the GPU machine with the cuda backend forced.
#
#   scripts/device-test.sh prepare [BUILD]   here (LLVM present): builds the tests in BUILD
#       (default build-runtime2), runs the conformance suite once on the CPU to fill a JIT cache
#       (bundles hold the nvptx-sm_70/sm_90 PTX too), and gathers what the GPU machine needs in
#       BUILD/device-carry: bin/ (conformance_tests, runtime_tests, cuda_runtime_device_tests), lib/ (libcajeta_xpu.so, the
#       test kernels, libxxhash), cache/cajeta (the JIT cache and its compiler-version record).
#   scripts/device-test.sh run [CARRY]       on the GPU machine (no LLVM): runs the carried tests
#       with CAJETA_XPU_BACKEND=cuda (runtime_tests' hand-written kernels are CPU-only: they run
#       with the backend left to the dispatcher for the cuda-absent check and forced to cpu
#       otherwise) and writes results to $OUT (default ./device-results).
#
# On the device machine (the `run` tool) from the repository root:
#   command: scripts/device-test.sh run build-runtime2/device-carry
#   carry:   ["build-runtime2/device-carry.tar.xz"] (prepare packs the folder; run unpacks it)
#   CAJETA_DEVICE_TEST_ONLY=<gtest filter> runs that part of the conformance suite and the TMA
#   runs alone.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/carry-archive.sh
source "$ROOT/scripts/carry-archive.sh"
MODE=${1:-}
# The tests run again with CAJETA_GPU_ASYNC_COPY_INLINE=1.
InLineCopyTests='AsyncCopy*:AsyncBlockCopy*:Tile*'

prepare() {
  local Build=${1:-build-runtime2}
  [[ $Build = /* ]] || Build="$ROOT/$Build"
  local Carry="$Build/device-carry"
  cmake --build "$Build" -j2 --target conformance_tests runtime_tests cuda_runtime_device_tests \
    cajeta_compiler cajeta_calibration_bundle cajeta_lbvh_bundle || return 1
  rm -rf "$Carry" && mkdir -p "$Carry/bin" "$Carry/lib" "$Carry/cache" || return 1
  # Fill the JIT cache with exactly the keys the GPU run will ask for (same paths, options).
  XDG_CACHE_HOME="$Carry/cache" CAJETA_XPU_BACKEND=cpu \
    "$Build/bin/conformance_tests" --gtest_brief=1 > "$Carry/cpu-fill.log" 2>&1 || {
    echo "the CPU run that fills the cache failed (exit $?):"
    tail -n 20 "$Carry/cpu-fill.log"
    return 1
  }
  echo "cpu run that filled the cache: $(tail -n 3 "$Carry/cpu-fill.log" | tr '\n' ' ')"
  # The wave tests again under the software-tier override (a different JIT cache key).
  XDG_CACHE_HOME="$Carry/cache" CAJETA_XPU_BACKEND=cpu CAJETA_GPU_WAVE_IMPL=software \
    "$Build/bin/conformance_tests" --gtest_filter='Wave*' --gtest_brief=1 \
    > "$Carry/cpu-fill-wave-software.log" 2>&1
  # The tile tests under the software-tile override (the portable tier on every GPU too).
  XDG_CACHE_HOME="$Carry/cache" CAJETA_XPU_BACKEND=cpu CAJETA_GPU_COOPMATRIX_IMPL=software \
    "$Build/bin/conformance_tests" --gtest_filter='Tile*' --gtest_brief=1 \
    > "$Carry/cpu-fill-tile-software.log" 2>&1
  # The tile tests with each K-step waiting for its own wgmma products (the form before products
  # were carried into the next step by default; a different JIT cache key).
  XDG_CACHE_HOME="$Carry/cache" CAJETA_XPU_BACKEND=cpu CAJETA_GPU_WGMMA_CARRY=0 \
    "$Build/bin/conformance_tests" --gtest_filter='Tile*' --gtest_brief=1 \
    > "$Carry/cpu-fill-tile-per-step.log" 2>&1
  # The copies and tiles with each run of AsyncCopy issued in line under predicates (the opt-in
  # form; a different JIT cache key).
  XDG_CACHE_HOME="$Carry/cache" CAJETA_XPU_BACKEND=cpu CAJETA_GPU_ASYNC_COPY_INLINE=1 \
    "$Build/bin/conformance_tests" --gtest_filter="$InLineCopyTests" --gtest_brief=1 \
    > "$Carry/cpu-fill-copy-inline.log" 2>&1
  strip -o "$Carry/bin/conformance_tests" "$Build/bin/conformance_tests"
  strip -o "$Carry/bin/runtime_tests" "$Build/bin/runtime_tests"
  strip -o "$Carry/bin/cuda_runtime_device_tests" "$Build/bin/cuda_runtime_device_tests"
  strip -o "$Carry/lib/libcajeta_xpu.so" "$Build/lib/libcajeta_xpu.so"
  local Kernels Fake Xxhash
  Kernels=$(find "$Build" -name 'libcajeta_test_kernels.so' | head -n 1)
  Fake=$(find "$Build" -name 'libcajeta_fake_compiler.so' | head -n 1)
  Xxhash=$(ldd "$Build/lib/libcajeta_xpu.so" | awk '/libxxhash/ {print $3}')
  cp "$Kernels" "$Fake" "$Carry/lib/" || return 1
  # The runtime's own kernels for a machine without the compiler, beside the runtime library.
  cp "$Build"/lib/cajeta-calibration*.cjx "$Build/lib/cajeta-lbvh.cjx" "$Carry/lib/" || return 1
  if [[ -n $Xxhash ]]; then cp -L "$Xxhash" "$Carry/lib/" || return 1; fi
  # Absolute paths baked into the binaries, recreated on the GPU machine.
  {
    echo "ROOT=$ROOT"
    echo "KERNELS=$Kernels"
    echo "FAKE=$Fake"
  } > "$Carry/paths.env"
  du -sh "$Carry"
  packCarry "$Carry" || return 1
  echo "on the device: scripts/device-test.sh run ${Carry#$ROOT/}" \
    "(carry [\"${Carry#$ROOT/}.tar.xz\"])"
}

# Appends what each failed test said (googletest's "Failure" blocks, at most 60 lines a log) to
# the summary, so that a flaky failure's message comes back with the summary itself.
failureDetails() {
  local Summary=$1
  shift
  local Log
  for Log in "$@"; do
    [[ -f $Log ]] && grep -q -E ': Failure$' "$Log" || continue
    echo "--- failures in $(basename "$Log"):" >> "$Summary"
    grep -B1 -A8 -E ': Failure$' "$Log" | head -n 60 >> "$Summary"
  done
}

run() {
  local Carry=${1:-build-runtime2/device-carry}
  [[ $Carry = /* ]] || Carry="$ROOT/$Carry"
  unpackCarry "$Carry" || return 1
  local Out=${OUT:-$ROOT/device-results}
  mkdir -p "$Out"
  local Summary="$Out/results.txt"
  [[ -f $Carry/paths.env ]] || { echo "no $Carry/paths.env: run 'prepare' first" | tee "$Summary"; return 1; }
  # shellcheck disable=SC1091
  source "$Carry/paths.env"
  # The binaries name the conformance programs and test libraries by this machine's paths.
  if [[ ! -d $ROOT/tests/conformance/programs ]]; then
    mkdir -p "$(dirname "$ROOT")" && ln -sfn "$(cd "$(dirname "$0")/.." && pwd)" "$ROOT" ||
      { echo "cannot make $ROOT point at this checkout" | tee "$Summary"; return 1; }
  fi
  mkdir -p "$(dirname "$KERNELS")" "$(dirname "$FAKE")"
  cp -n "$Carry/lib/$(basename "$KERNELS")" "$KERNELS" 2>/dev/null
  cp -n "$Carry/lib/$(basename "$FAKE")" "$FAKE" 2>/dev/null
  # A writable copy of the cache (the runtime may rewrite entries).
  local Cache="$Out/cache"
  rm -rf "$Cache" && cp -r "$Carry/cache" "$Cache"
  export LD_LIBRARY_PATH="$Carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export XDG_CACHE_HOME="$Cache"
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -n)"
    nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 | head -n 4
    echo "libcajeta_xpu.so needs: $(ldd "$Carry/lib/libcajeta_xpu.so" | awk '{print $1}' | tr '\n' ' ')"
  } > "$Summary"
  local Rc=0
  # CAJETA_DEVICE_TEST_ONLY=<gtest filter>: that part of the suite and the TMA runs alone (a
  # short call when device time is scarce).
  local Only=${CAJETA_DEVICE_TEST_ONLY:-}
  CAJETA_XPU_BACKEND=cuda "$Carry/bin/conformance_tests" --gtest_filter="${Only:-*}" \
    --gtest_output="xml:$Out/conformance-cuda.xml" > "$Out/conformance-cuda.log" 2>&1 || Rc=1
  echo "conformance_tests ${Only:+$Only }(CAJETA_XPU_BACKEND=cuda): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-cuda.log" | tr '\n' ' ')" >> "$Summary"
  if [[ -z $Only ]]; then
    # A kernel that never ends: the watchdog gives its stream up, and the process must still exit
    # (timeout's 124 says it hung).
    local WatchdogRc=0
    CAJETA_XPU_BACKEND=cuda CAJETA_XPU_WATCHDOG_MS=300 timeout 120 "$Carry/bin/conformance_tests" \
      --gtest_filter='Watchdog.*' > "$Out/conformance-cuda-watchdog.log" 2>&1 || WatchdogRc=$?
    [[ $WatchdogRc = 0 ]] || Rc=1
    echo "conformance_tests Watchdog.* (cuda, CAJETA_XPU_WATCHDOG_MS=300): exit $WatchdogRc, $(grep -E '^\[  (PASSED|FAILED|SKIPPED)  \]|tests ran' "$Out/conformance-cuda-watchdog.log" | tr '\n' ' ')" >> "$Summary"
    CAJETA_XPU_BACKEND=cuda CAJETA_XPU_TRACE="$Out/trace-cuda.json" "$Carry/bin/conformance_tests" \
      --gtest_filter='TraceDevice.*:Chain.*' > "$Out/conformance-cuda-trace.log" 2>&1 || Rc=1
    echo "conformance_tests TraceDevice.*:Chain.* (cuda, CAJETA_XPU_TRACE): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-cuda-trace.log" | tr '\n' ' ')" >> "$Summary"
    CAJETA_XPU_BACKEND=cuda CAJETA_GPU_WAVE_IMPL=software "$Carry/bin/conformance_tests" \
      --gtest_filter='Wave*' > "$Out/conformance-cuda-wave-software.log" 2>&1 || Rc=1
    echo "conformance_tests Wave* (cuda, CAJETA_GPU_WAVE_IMPL=software): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-cuda-wave-software.log" | tr '\n' ' ')" >> "$Summary"
    CAJETA_XPU_BACKEND=cuda CAJETA_GPU_COOPMATRIX_IMPL=software "$Carry/bin/conformance_tests" \
      --gtest_filter='Tile*' > "$Out/conformance-cuda-tile-software.log" 2>&1 || Rc=1
    echo "conformance_tests Tile* (cuda, CAJETA_GPU_COOPMATRIX_IMPL=software): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-cuda-tile-software.log" | tr '\n' ' ')" >> "$Summary"
    CAJETA_XPU_BACKEND=cuda CAJETA_GPU_WGMMA_CARRY=0 "$Carry/bin/conformance_tests" \
      --gtest_filter='Tile*' > "$Out/conformance-cuda-tile-per-step.log" 2>&1 || Rc=1
    echo "conformance_tests Tile* (cuda, CAJETA_GPU_WGMMA_CARRY=0): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-cuda-tile-per-step.log" | tr '\n' ' ')" >> "$Summary"
    CAJETA_XPU_BACKEND=cuda CAJETA_GPU_ASYNC_COPY_INLINE=1 "$Carry/bin/conformance_tests" \
      --gtest_filter="$InLineCopyTests" > "$Out/conformance-cuda-copy-inline.log" 2>&1 || Rc=1
    echo "conformance_tests $InLineCopyTests (cuda, CAJETA_GPU_ASYNC_COPY_INLINE=1): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-cuda-copy-inline.log" | tr '\n' ' ')" >> "$Summary"
  fi
  # The block copies' TMA entries (compute capability 9.0): which launches took them and why the
  # others did not (CAJETA_XPU_DEBUG), and the same tests on the plain entries alone.
  local Tma='AsyncBlockCopy.*:TileSharedB.StagesFilledByBlockCopies'
  CAJETA_XPU_BACKEND=cuda CAJETA_XPU_DEBUG=1 "$Carry/bin/conformance_tests" \
    --gtest_filter="$Tma" > "$Out/conformance-cuda-tma.log" 2>&1 || Rc=1
  echo "conformance_tests $Tma (cuda, CAJETA_XPU_DEBUG=1): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-cuda-tma.log" | tr '\n' ' ') $(grep -c 'runs its TMA entry' "$Out/conformance-cuda-tma.log") kernels ran their TMA entry, $(grep -c 'not the TMA one' "$Out/conformance-cuda-tma.log") their plain one" >> "$Summary"
  CAJETA_XPU_BACKEND=cuda CAJETA_GPU_TMA=0 "$Carry/bin/conformance_tests" \
    --gtest_filter="$Tma" > "$Out/conformance-cuda-no-tma.log" 2>&1 || Rc=1
  echo "conformance_tests $Tma (cuda, CAJETA_GPU_TMA=0): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-cuda-no-tma.log" | tr '\n' ' ')" >> "$Summary"
  if [[ -z $Only ]]; then
    CAJETA_XPU_BACKEND=cpu "$Carry/bin/runtime_tests" --gtest_filter='-CudaBackend.*' \
      --gtest_output="xml:$Out/runtime-cpu.xml" > "$Out/runtime-cpu.log" 2>&1 || Rc=1
    echo "runtime_tests (CAJETA_XPU_BACKEND=cpu): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/runtime-cpu.log" | tr '\n' ' ')" >> "$Summary"
    CAJETA_XPU_BACKEND=cuda "$Carry/bin/cuda_runtime_device_tests" \
      --gtest_output="xml:$Out/runtime-cuda-device.xml" > "$Out/runtime-cuda-device.log" 2>&1 || Rc=1
    echo "cuda_runtime_device_tests (CAJETA_XPU_BACKEND=cuda): $(grep -E '^\[  (PASSED  |FAILED  |SKIPPED )\]' "$Out/runtime-cuda-device.log" | tr '\n' ' ')" >> "$Summary"
    "$Carry/bin/runtime_tests" --gtest_filter='CudaBackend.*' > "$Out/runtime-cuda-absent.log" 2>&1 || Rc=1
    echo "runtime_tests CudaBackend.* (driver hidden in a child): $(grep -E '^\[  (PASSED|FAILED)  \]' "$Out/runtime-cuda-absent.log" | tr '\n' ' ')" >> "$Summary"
  fi
  grep -E '^\[  FAILED  \]' "$Out"/*.log >> "$Summary"
  failureDetails "$Summary" "$Out"/*.log
  cat "$Summary"
  return $Rc
}

# --- vulkan mode: the same suite on the GPU machine's NVIDIA Vulkan driver ----------
#   scripts/device-test.sh vulkan-prepare [BUILD]  here: 'prepare', plus vulkan_tests and
#       vulkan_probe in BUILD/device-carry/bin, their JIT cache entries filled by one lavapipe run.
#       Once per checkout, also fetch the Vulkan loader for the GPU machine (it has none):
#         echo /.gl/ >>.git/info/exclude; mkdir -p .gl /tmp/amd64/partial
#         o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#         apt-get $o update
#         (cd .gl && apt-get $o download libvulkan1 libglvnd0 libegl1 libopengl0 libgl1 libglx0 libgles2)
#       The NVIDIA ICD (libGLX_nvidia) needs libglvnd's dispatch library: with the loader alone it
#       fails with "Could not get 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr'" (seen on
#       the H200, 2026-11-30). Begin the device command with
#         for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   scripts/device-test.sh vulkan [CARRY]          on the GPU machine: unpacks .gl/*.deb (the
#       loader) into / when libvulkan.so.1 is missing, points the loader at the NVIDIA ICD, and runs
#       conformance_tests and vulkan_tests with CAJETA_XPU_BACKEND=vulkan; results in $OUT.
#   command: scripts/device-test.sh vulkan build-vk/device-carry
#   carry:   ["build-vk/device-carry", ".gl"]
vulkan_prepare() {
  local Build=${1:-build-vk}
  [[ $Build = /* ]] || Build="$ROOT/$Build"
  prepare "$Build" || return 1
  local Carry="$Build/device-carry"
  cmake --build "$Build" -j2 --target vulkan_tests vulkan_probe || return 1
  XDG_CACHE_HOME="$Carry/cache" CAJETA_XPU_BACKEND=vulkan "$Build/bin/vulkan_tests" \
    --gtest_brief=1 > "$Carry/vulkan-fill.log" 2>&1 || {
    # A fill that did not run leaves cache misses the GPU machine (no compiler) cannot repair.
    echo "the lavapipe run that fills the cache failed (exit $?):"
    tail -n 20 "$Carry/vulkan-fill.log"
    return 1
  }
  echo "lavapipe run that filled the cache: $(tail -n 3 "$Carry/vulkan-fill.log" | tr '\n' ' ')"
  strip -o "$Carry/bin/vulkan_tests" "$Build/bin/vulkan_tests" || return 1
  strip -o "$Carry/bin/vulkan_probe" "$Build/bin/vulkan_probe" || return 1
  [[ -n $(ls "$ROOT"/.gl/libvulkan1_*.deb 2>/dev/null) ]] ||
    echo "note: no .gl/libvulkan1_*.deb yet; fetch it as the header of this script says"
  echo "on the device: scripts/device-test.sh vulkan ${Carry#$ROOT/} (carry it and .gl)"
}

vulkan_run() {
  local Carry=${1:-build-vk/device-carry}
  [[ $Carry = /* ]] || Carry="$ROOT/$Carry"
  local Out=${OUT:-$ROOT/device-results}
  mkdir -p "$Out"
  local Summary="$Out/results-vulkan.txt"
  if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
    for f in "$ROOT"/.gl/*.deb; do [[ -f $f ]] && dpkg -x "$f" /; done
    ldconfig
  fi
  local Icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [[ -z ${VK_DRIVER_FILES:-} && -f $Icd ]]; then export VK_DRIVER_FILES=$Icd; fi
  [[ -f $Carry/paths.env ]] || { echo "no $Carry/paths.env: run 'vulkan-prepare' first" | tee "$Summary"; return 1; }
  # shellcheck disable=SC1091
  source "$Carry/paths.env"
  if [[ ! -d $ROOT/tests/conformance/programs ]]; then
    mkdir -p "$(dirname "$ROOT")" && ln -sfn "$(cd "$(dirname "$0")/.." && pwd)" "$ROOT" ||
      { echo "cannot make $ROOT point at this checkout" | tee "$Summary"; return 1; }
  fi
  local Cache="$Out/cache-vulkan"
  rm -rf "$Cache" && cp -r "$Carry/cache" "$Cache"
  export LD_LIBRARY_PATH="$Carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export XDG_CACHE_HOME="$Cache"
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -n)"
    echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}"
    echo "probe: $("$Carry/bin/vulkan_probe" 2>&1)"
  } > "$Summary"
  local Rc=0
  CAJETA_XPU_BACKEND=vulkan "$Carry/bin/conformance_tests" \
    --gtest_output="xml:$Out/conformance-vulkan.xml" > "$Out/conformance-vulkan.log" 2>&1 || Rc=1
  echo "conformance_tests (CAJETA_XPU_BACKEND=vulkan): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-vulkan.log" | tr '\n' ' ')" >> "$Summary"
  CAJETA_XPU_BACKEND=vulkan CAJETA_XPU_TRACE="$Out/trace-vulkan.json" "$Carry/bin/conformance_tests" \
    --gtest_filter='TraceDevice.*' > "$Out/conformance-vulkan-trace.log" 2>&1 || Rc=1
  echo "conformance_tests TraceDevice.* (vulkan, CAJETA_XPU_TRACE): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-vulkan-trace.log" | tr '\n' ' ')" >> "$Summary"
  CAJETA_XPU_BACKEND=vulkan CAJETA_GPU_WAVE_IMPL=software "$Carry/bin/conformance_tests" \
    --gtest_filter='Wave*' > "$Out/conformance-vulkan-wave-software.log" 2>&1 || Rc=1
  # Every grid that allows it dispatched in pieces of seven workgroups (pacing's path). Not the
  # pacing test: pieces that small of workgroups that long exceed the grids a GPU keeps resident
  # at once (128 on Hopper), and the probe waits for a slot; pacing cuts pieces of a wave.
  CAJETA_XPU_BACKEND=vulkan CAJETA_XPU_VULKAN_PIECE_GROUPS=7 "$Carry/bin/conformance_tests" \
    --gtest_filter=-Pacing.* > "$Out/conformance-vulkan-pieces.log" 2>&1 || Rc=1
  echo "conformance_tests (vulkan, CAJETA_XPU_VULKAN_PIECE_GROUPS=7): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-vulkan-pieces.log" | tr '\n' ' ')" >> "$Summary"
  echo "conformance_tests Wave* (vulkan, CAJETA_GPU_WAVE_IMPL=software): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-vulkan-wave-software.log" | tr '\n' ' ')" >> "$Summary"
  CAJETA_XPU_BACKEND=vulkan "$Carry/bin/vulkan_tests" \
    --gtest_output="xml:$Out/vulkan-tests.xml" > "$Out/vulkan-tests.log" 2>&1 || Rc=1
  echo "vulkan_tests (CAJETA_XPU_BACKEND=vulkan): $(grep -E '^\[  (PASSED  |FAILED  |SKIPPED )\]' "$Out/vulkan-tests.log" | tr '\n' ' ')" >> "$Summary"
  # Streams on one queue (everything passes; the test of launches running together skips).
  CAJETA_XPU_BACKEND=vulkan CAJETA_XPU_VULKAN_QUEUES=1 "$Carry/bin/vulkan_tests" \
    --gtest_filter='VulkanQueue.*' > "$Out/vulkan-tests-one-queue.log" 2>&1 || Rc=1
  echo "vulkan_tests VulkanQueue.* (CAJETA_XPU_VULKAN_QUEUES=1): $(grep -E '^\[  (PASSED  |FAILED  |SKIPPED )\]' "$Out/vulkan-tests-one-queue.log" | tr '\n' ' ')" >> "$Summary"
  # Not a gate: without a sync submitting the other streams' gathered launches, the test that
  # needs it fails (it shows the test can).
  CAJETA_XPU_BACKEND=vulkan CAJETA_XPU_VULKAN_SUBMIT_OTHERS=0 "$Carry/bin/vulkan_tests" \
    --gtest_filter='VulkanQueue.AnotherStreamsSync*' > "$Out/vulkan-tests-no-submit-others.log" 2>&1
  echo "vulkan_tests VulkanQueue.AnotherStreamsSync* (CAJETA_XPU_VULKAN_SUBMIT_OTHERS=0, not a gate, fails on a device with several queues): $(grep -E '^\[  (PASSED  |FAILED  |SKIPPED )\]' "$Out/vulkan-tests-no-submit-others.log" | head -n 2 | tr '\n' ' ')" >> "$Summary"
  # Not a gate: with the scheduler bypassed, streams on several queues race where they share
  # buffers (Streams.*'s ordering tests fail, as on CUDA); on one queue they do not.
  CAJETA_XPU_BACKEND=vulkan CAJETA_XPU_SCHEDULER=bypass "$Carry/bin/conformance_tests" \
    --gtest_filter='Streams.*' > "$Out/conformance-vulkan-bypass.log" 2>&1
  echo "conformance_tests Streams.* (vulkan, CAJETA_XPU_SCHEDULER=bypass, not a gate): $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$Out/conformance-vulkan-bypass.log" | tr '\n' ' ')" >> "$Summary"
  grep -E '^\[  FAILED  \]' "$Out/conformance-vulkan.log" "$Out/vulkan-tests.log" \
    "$Out/conformance-vulkan-wave-software.log" "$Out/vulkan-tests-one-queue.log" \
    "$Out/conformance-vulkan-pieces.log" >> "$Summary"
  failureDetails "$Summary" "$Out/conformance-vulkan.log" "$Out/conformance-vulkan-trace.log" \
    "$Out/conformance-vulkan-wave-software.log" "$Out/vulkan-tests.log"
  cat "$Summary"
  return $Rc
}

case $MODE in
vulkan-prepare) shift; vulkan_prepare "$@" ;;
vulkan) shift; vulkan_run "$@" ;;
prepare) shift; prepare "$@" ;;
run) shift; run "$@" ;;
*) sed -n '2,17p' "$0"; exit 2 ;;
esac
