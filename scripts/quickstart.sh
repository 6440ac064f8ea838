#!/usr/bin/env bash
# The main job for a new user: set up (packages, build), compile examples/saxpy.cj into a bundle,
# and run it from examples/saxpy.cpp on the best backend present, then the same through the JIT.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
echo "== cajeta devices"
build/bin/cajeta devices
echo "== cajeta build examples/saxpy.cj -o build/saxpy.cjx"
build/bin/cajeta build examples/saxpy.cj -o build/saxpy.cjx
build/bin/cajeta inspect build/saxpy.cjx
echo "== saxpy from the AOT bundle"
build/bin/saxpy build/saxpy.cjx
echo "== saxpy through the JIT (compiled from source, cached under \${XDG_CACHE_HOME:-~/.cache}/cajeta)"
build/bin/saxpy examples/saxpy.cj
