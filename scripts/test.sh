#!/usr/bin/env bash
# Sets up and builds the project (scripts/setup.sh) with warnings as errors, then runs every
# registered test.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CAJETA_WERROR=ON bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j2
