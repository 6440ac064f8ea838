#!/usr/bin/env bash
# Fetches CUTLASS's C++ headers (PyPI's nvidia-cutlass wheel carries them) into .deps/cutlass/include
# for the GPU bench's CUTLASS peer (bench/gpu/CutlassPeers.cu); nothing else uses them. Idempotent.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION=4.2.0.0
DIR="$ROOT/.deps/cutlass"
[[ -f "$DIR/$VERSION.stamp" ]] && exit 0

WHEELS="$(mktemp -d)"
trap 'rm -rf "$WHEELS"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$WHEELS" "nvidia-cutlass==$VERSION"
rm -rf "$DIR"
mkdir -p "$DIR"
python3 - "$WHEELS" "$DIR" <<'PY'
import glob, os, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]
prefix = "cutlass_library/source/include/"
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        if not info.filename.startswith(prefix) or info.is_dir():
            continue
        out = os.path.join(sys.argv[2], "include", info.filename[len(prefix):])
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(z.read(info))
PY
touch "$DIR/$VERSION.stamp"
echo "fetch-cutlass.sh: CUTLASS $VERSION headers in $DIR/include"
