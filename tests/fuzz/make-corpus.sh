#!/usr/bin/env bash
# Regenerates the committed seeds of the bundle, manifest and JIT cache entry fuzzers from a main
# build (default build/): small conformance programs built to bundles (--cpu x86-64), the same
# programs JIT-compiled into a scratch cache directory, and the manifest JSON of each. Run it
# when the bundle or manifest format changes. The frontend seeds are plain copies of .cj files.
#   tests/fuzz/make-corpus.sh [BUILD_DIR]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
CORPUS="$ROOT/tests/fuzz/corpus"
PROGRAMS="$ROOT/tests/conformance/programs"
BUNDLES=(Saxpy PodPushConstant FnParam BackendCuda AtomicCasLoop WaveBlockSum SharedDynamic)
CACHED=(PodPushConstant FnParam BackendCuda AtomicCasLoop)

SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT

rm -f "$CORPUS"/bundle_reader/* "$CORPUS"/jit_cache_entry/* "$CORPUS"/manifest_json/*
for P in "${BUNDLES[@]}"; do
  "$BUILD/bin/cajeta" build --cpu x86-64 "$PROGRAMS/$P.cj" -o "$CORPUS/bundle_reader/$P.cjx" \
    >/dev/null 2>&1
done
# One signed bundle (a throwaway key), so that mutants start from a signature section too.
"$BUILD/bin/cajeta" keygen -o "$SCRATCH/seed" >/dev/null
"$BUILD/bin/cajeta" sign --key "$SCRATCH/seed.key" "$CORPUS/bundle_reader/Saxpy.cjx" \
  -o "$CORPUS/bundle_reader/SaxpySigned.cjx" >/dev/null
# The runtime's JIT writes <key>.cjx entries (and compiler-version) into $XDG_CACHE_HOME/cajeta;
# the saxpy example JIT-compiles the file it is given (and then fails to find K.saxpy: fine).
for SOURCE in "$ROOT/examples/saxpy.cj" "${CACHED[@]/#/$PROGRAMS/}"; do
  XDG_CACHE_HOME="$SCRATCH" "$BUILD/bin/saxpy" "${SOURCE%.cj}.cj" >/dev/null 2>&1 || true
done
cp "$SCRATCH"/cajeta/*.cjx "$SCRATCH"/cajeta/compiler-version "$CORPUS/jit_cache_entry/"

# The manifest section (kind 1) of every bundle and cache entry, without its indentation (the
# same JSON; shorter inputs fuzz faster).
python3 - "$CORPUS" <<'PY'
import json, pathlib, struct, sys
corpus = pathlib.Path(sys.argv[1])
for f in sorted([*corpus.glob("bundle_reader/*.cjx"), *corpus.glob("jit_cache_entry/*.cjx")]):
    data = f.read_bytes()
    count = struct.unpack_from("<I", data, 8)[0]
    for i in range(count):
        kind, _, offset, size, _ = struct.unpack_from("<IIQQQ", data, 24 + 32 * i)
        if kind == 1:
            name = f.stem if f.parent.name == "bundle_reader" else "cache-" + f.stem[:8]
            compact = json.dumps(json.loads(data[offset:offset + size]), separators=(",", ":"))
            (corpus / "manifest_json" / (name + ".json")).write_text(compact)
PY
du -sh "$CORPUS"/*
