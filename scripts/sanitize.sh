#!/usr/bin/env bash
# The sanitizer builds, one command each (a landing step for changes to the runtime or the
# compiler; too long for CI on 2 cores):
#
#   scripts/sanitize.sh asan [CTEST-ARGS...]   AddressSanitizer + UndefinedBehaviorSanitizer over
#       the whole test suite, in build-asan/ (compiler, runtime, every test).
#   scripts/sanitize.sh tsan [CTEST-ARGS...]   ThreadSanitizer over the runtime: runtime_tests,
#       host_abi_tests and the conformance suite on the CPU backend (its Load.* test: 16 threads
#       launching on shared streams and buffers), in build-tsan/. The runtime is instrumented; the
#       JIT uses the main build's compiler library (build/lib/libcajeta_compiler.so: build it
#       first), which compiles one program at a time and links an uninstrumented LLVM anyway.
#
# Each prints ctest's summary; the exit status is ctest's. JOBS (default 2) sets the build's
# parallelism; CAJETA_LOAD_LAUNCHES shortens the load test under TSan (default here 2000).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-}
shift || true
JOBS=${JOBS:-2}

# Warnings are not errors here: GCC's flow warnings misfire under the sanitizers (uninitialised
# std::function in <regex>, mismatched new/delete on LLVM's own operator new); the main build
# (CAJETA_WERROR=ON) is where warnings fail.
configure() {
  local Dir=$1 Flags=$2 Compiler=$3
  cmake -S "$ROOT" -B "$ROOT/$Dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCAJETA_BUILD_COMPILER="$Compiler" \
    -DCAJETA_WERROR=OFF -DCAJETA_BUILD_BENCH=OFF \
    -DCMAKE_C_FLAGS="$Flags" -DCMAKE_CXX_FLAGS="$Flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$Flags" -DCMAKE_SHARED_LINKER_FLAGS="$Flags" > /dev/null
}

case "$MODE" in
asan)
  Flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  configure build-asan "$Flags" ON || exit 1
  # Set before the build too: it runs the instrumented `cajeta` (the calibration kernels' bundle).
  # LLVM's own allocations are not ours to police: leaks are checked, but the process-lifetime
  # caches of libLLVM are suppressed by name.
  # allocator_may_return_null=1: the tests allocate beyond the machine on purpose (a typed
  # OutOfDeviceMemory, not an abort). verify_asan_link_order=0: the executables `cajeta build
  # --exe` links are not instrumented, but load the instrumented runtime. use_sigaltstack=0: LLVM gives the thread that first registers its signal handlers (an lld
  # link thread) an alternate signal stack from malloc, which ASan would try to unmap as its own
  # when that thread ends ("failed to deallocate ... unable to unmap").
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0:use_sigaltstack=0:allocator_may_return_null=1:verify_asan_link_order=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/scripts/lsan.supp}
  cmake --build "$ROOT/build-asan" -j "$JOBS" || exit 1
  ctest --test-dir "$ROOT/build-asan" --output-on-failure -j "$JOBS" "$@"
  ;;
tsan)
  Flags="-fsanitize=thread -fno-omit-frame-pointer"
  export CAJETA_COMPILER_LIB=${CAJETA_COMPILER_LIB:-$ROOT/build/lib/libcajeta_compiler.so}
  if [[ ! -f $CAJETA_COMPILER_LIB ]]; then
    echo "sanitize.sh tsan: no compiler library at $CAJETA_COMPILER_LIB (build the main build first)" >&2
    exit 1
  fi
  configure build-tsan "$Flags" OFF || exit 1
  cmake --build "$ROOT/build-tsan" -j "$JOBS" --target runtime_tests host_abi_tests \
    conformance_tests || exit 1
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
  export CAJETA_LOAD_LAUNCHES=${CAJETA_LOAD_LAUNCHES:-2000}
  export CAJETA_XPU_BACKEND=cpu
  ctest --test-dir "$ROOT/build-tsan" --output-on-failure -j 1 \
    -R '^(Load\.|Streams\.|Chain\.|Submission\.|Reservation\.|Launch\.|Stream|HostAbi|Borrow|Trace)' "$@"
  ;;
*)
  echo "usage: scripts/sanitize.sh asan|tsan [ctest arguments]" >&2
  exit 2
  ;;
esac
