#!/usr/bin/env bash
# Sets up and builds the project (scripts/setup.sh), then runs every registered test.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j2
