#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang-19 (ASan + UBSan) in build-fuzz/ and runs
# each for a bounded time; prints per target the executions, exec/s, coverage gained and
# findings, and exits 1 on any finding (a crash, a sanitizer report, a leak, a timeout, an OOM).
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# SECONDS_PER_TARGET: default 600 (CI runs 15, through scripts/test.sh).
# TARGET: frontend, bundle_reader, manifest_json, jit_cache_entry (default: all of them).
# Each target fuzzes build-fuzz/corpus/<target>/ (what earlier runs found; it keeps growing) and
# reads the committed seeds tests/fuzz/corpus/<target>/ (never written). A finding's input goes
# to build-fuzz/artifacts/<target>/ (crash-*, leak-*, timeout-*, oom-*) and its report to
# build-fuzz/logs/<target>.log; reproduce it with build-fuzz/<target>_fuzz <file>.
# Environment: CAJETA_FUZZ_DIR (build directory, default <repo>/build-fuzz); CAJETA_FUZZ_CXX
# (default clang++-19); CAJETA_FUZZ_BUILD_JOBS (build parallelism, default all cores).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${CAJETA_FUZZ_DIR:-$ROOT/build-fuzz}"
CXX_FUZZ="${CAJETA_FUZZ_CXX:-clang++-19}"
ALL_TARGETS=(frontend bundle_reader manifest_json jit_cache_entry)

SECONDS_PER_TARGET=600
if (($#)) && [[ "$1" =~ ^[0-9]+$ ]]; then
  SECONDS_PER_TARGET="$1"
  shift
fi
if ((10#$SECONDS_PER_TARGET == 0)); then
  echo "fuzz.sh: SECONDS_PER_TARGET must be positive (libFuzzer reads 0 as no limit)" >&2
  exit 2
fi
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=("${ALL_TARGETS[@]}")

# Per target: the longest input, the per-input time limit (s), the dictionary.
options() {
  case "$1" in
    frontend) echo "16384 10 frontend.dict" ;;
    bundle_reader) echo "65536 10 bundle.dict" ;;
    manifest_json) echo "16384 10 manifest_json.dict" ;;
    jit_cache_entry) echo "65536 10 bundle.dict" ;;
    *) return 1 ;;
  esac
}
for T in "${TARGETS[@]}"; do
  if ! options "$T" >/dev/null; then
    echo "fuzz.sh: unknown target '$T' (expected: ${ALL_TARGETS[*]})" >&2
    exit 2
  fi
done

if ! command -v "$CXX_FUZZ" >/dev/null 2>&1; then
  echo "fuzz.sh: $CXX_FUZZ not found; install clang-19 and libclang-rt-19-dev" \
    "(scripts/setup.sh --deps-only)" >&2
  exit 2
fi

echo "fuzz.sh: building the fuzzers in $DIR"
GENERATOR=()
command -v ninja >/dev/null 2>&1 && [[ ! -f "$DIR/Makefile" ]] && GENERATOR=(-G Ninja)
mkdir -p "$DIR"
cmake -S "$ROOT/tests/fuzz" -B "$DIR" "${GENERATOR[@]}" -DCMAKE_CXX_COMPILER="$CXX_FUZZ" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$DIR/configure.log" 2>&1 ||
  { cat "$DIR/configure.log" >&2; exit 2; }
BUILD_TARGETS=()
for T in "${TARGETS[@]}"; do BUILD_TARGETS+=(--target "${T}_fuzz"); done
cmake --build "$DIR" -j"${CAJETA_FUZZ_BUILD_JOBS:-$(nproc)}" "${BUILD_TARGETS[@]}"

# The value of `stat::NAME: value` in a libFuzzer log, or "?".
stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -1 | grep . || echo "?"; }

FAILED=()
SUMMARY=()
for T in "${TARGETS[@]}"; do
  read -r MAX_LEN TIMEOUT DICT <<<"$(options "$T")"
  WORK="$DIR/corpus/$T"
  ARTIFACTS="$DIR/artifacts/$T"
  LOGS="$DIR/logs"
  mkdir -p "$WORK" "$ARTIFACTS" "$LOGS/$T"
  STAMP="$LOGS/$T/.start"
  touch "$STAMP"
  sleep 1 # findings are the artifacts newer than the stamp
  echo "fuzz.sh: $T for ${SECONDS_PER_TARGET}s"
  # -jobs=1: one worker process, its output in fuzz-0.log of the working directory.
  set +e
  (cd "$LOGS/$T" && rm -f fuzz-0.log &&
    "$DIR/${T}_fuzz" -jobs=1 -max_total_time="$SECONDS_PER_TARGET" -max_len="$MAX_LEN" \
      -timeout="$TIMEOUT" -rss_limit_mb=4096 -dict="$ROOT/tests/fuzz/$DICT" \
      -artifact_prefix="$ARTIFACTS/" -print_final_stats=1 -print_pcs=0 \
      "$WORK" "$ROOT/tests/fuzz/corpus/$T" >/dev/null 2>&1)
  RC=$?
  set -e
  LOG="$LOGS/$T.log"
  cp "$LOGS/$T/fuzz-0.log" "$LOG" 2>/dev/null || echo "(no log)" >"$LOG"
  EXECS="$(stat number_of_executed_units "$LOG")"
  RATE="$(stat average_exec_per_sec "$LOG")"
  NEW_UNITS="$(stat new_units_added "$LOG")"
  COV_START="$(sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' "$LOG" | tail -1)"
  COV_END="$(sed -n 's/.* cov: \([0-9]*\) ft: .*/\1/p' "$LOG" | tail -1)"
  FT_START="$(sed -n 's/.*INITED cov: [0-9]* ft: \([0-9]*\).*/\1/p' "$LOG" | tail -1)"
  FT_END="$(sed -n 's/.* cov: [0-9]* ft: \([0-9]*\).*/\1/p' "$LOG" | tail -1)"
  mapfile -t FOUND < <(find "$ARTIFACTS" -maxdepth 1 -type f -newer "$STAMP" \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
  LINE="$(printf '%-16s %12s execs %8s exec/s  cov %s -> %s (+%s), ft %s -> %s, %s new inputs, %d findings' \
    "$T" "$EXECS" "$RATE" "${COV_START:-?}" "${COV_END:-?}" \
    "$(( ${COV_END:-0} - ${COV_START:-0} ))" "${FT_START:-?}" "${FT_END:-?}" "$NEW_UNITS" \
    "${#FOUND[@]}")"
  SUMMARY+=("$LINE")
  echo "$LINE"
  if ((${#FOUND[@]})) || ((RC != 0)) || ! grep -q '^stat::number_of_executed_units' "$LOG"; then
    FAILED+=("$T")
    for F in "${FOUND[@]}"; do echo "  finding: $F (reproduce: $DIR/${T}_fuzz $F)"; done
    ((${#FOUND[@]})) || echo "  the fuzzer exited with status $RC without a finding's input"
    echo "  report: $LOG"
    grep -m1 -A30 -E '^==[0-9]+==ERROR|runtime error:|^ALARM|deadly signal|-- leak' "$LOG" |
      cut -c1-200 | sed 's/^/    /' || tail -n 30 "$LOG" | cut -c1-200 | sed 's/^/    /'
  fi
done

echo "fuzz.sh: summary (${SECONDS_PER_TARGET}s per target)"
printf '  %s\n' "${SUMMARY[@]}"
if ((${#FAILED[@]})); then
  echo "fuzz.sh: FAILED: findings in ${FAILED[*]} (inputs under $DIR/artifacts/)" >&2
  exit 1
fi
echo "fuzz.sh: no findings"
