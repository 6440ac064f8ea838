#!/bin/sh
# Emits the PTX inputs of nvptx_device_run: make-ptx.sh CAJETA_BINARY OUT_DIR
set -eu
cajeta=$1
out=$2
src=$(dirname "$0")/DeviceKernels.cj
mkdir -p "$out"
"$cajeta" emit --target=ptx --sm=sm_70 "$src" -o "$out/plain_sm_70.ptx"
"$cajeta" emit --target=ptx --sm=sm_90 "$src" -o "$out/plain_sm_90.ptx"
"$cajeta" emit --target=ptx --sm=sm_90 --check-bounds "$src" -o "$out/bounds_sm_90.ptx"
CAJETA_LIBDEVICE= "$cajeta" emit --target=ptx --sm=sm_90 "$src" -o "$out/approx_sm_90.ptx"
