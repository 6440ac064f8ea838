#!/usr/bin/env bash
# Sets up and builds the project (scripts/setup.sh) with warnings as errors, runs every
# registered test, then runs each libFuzzer target of tests/fuzz for 15 s (scripts/fuzz.sh: a
# clang build in build-fuzz/; any finding fails).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CAJETA_WERROR=ON bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j2
# CAJETA_CI_FUZZ_SECONDS: seconds per fuzz target (default 15; 0 skips the fuzzers).
if [[ "${CAJETA_CI_FUZZ_SECONDS:-15}" != 0 ]]; then
  bash scripts/fuzz.sh "${CAJETA_CI_FUZZ_SECONDS:-15}"
fi
