#!/usr/bin/env bash
# `cajeta calibrate` on the GPU machine, which has no LLVM: the CLI and the libraries it needs
# (LLVM 19 among them) travel compressed.
#
#   scripts/device-calibrate.sh prepare [BUILD]   here: packs BUILD/bin/cajeta, the saxpy example
#       and every library they load but the C and C++ runtimes into BUILD/calibrate-carry/cli.tar.xz
#       (default BUILD: build).
#   scripts/device-calibrate.sh run [CARRY]       on the GPU machine: unpacks it, then on the cuda
#       and the Vulkan device measures the device (`cajeta calibrate --anew`), builds the saxpy
#       example, records and replays its launches (`cajeta calibrate <program>`), builds the
#       snapshot into a bundle (`cajeta build --with-calibration`), shows the bundle's records
#       (`cajeta inspect`) and runs the example from that bundle; writes to $OUT (default
#       ./calibrate-results).
#
# On the device machine (the `run` tool) from the repository root:
#   command: scripts/device-calibrate.sh run build/calibrate-carry
#   carry:   ["build/calibrate-carry", ".gl"]
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-}

prepare() {
  local Build=${1:-build}
  [[ $Build = /* ]] || Build="$ROOT/$Build"
  cmake --build "$Build" -j2 --target cajeta saxpy || return 1
  local Stage
  Stage=$(mktemp -d) || return 1
  mkdir -p "$Stage/cli/bin" "$Stage/cli/lib"
  strip -o "$Stage/cli/bin/cajeta" "$Build/bin/cajeta"
  strip -o "$Stage/cli/bin/saxpy" "$Build/bin/saxpy"
  # Every library but the C/C++ runtimes and the loader, beside bin/ (the binaries' RUNPATH).
  ldd "$Build/bin/cajeta" "$Build/bin/saxpy" | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    while read -r Lib; do
      case $(basename "$Lib") in
      libcajeta_*) strip -o "$Stage/cli/lib/$(basename "$Lib")" "$Lib" ;;
      *) cp -L "$Lib" "$Stage/cli/lib/" ;;
      esac
    done
  cp "$Build"/lib/cajeta-calibration*.cjx "$Stage/cli/lib/" || return 1
  rm -rf "$Build/calibrate-carry" && mkdir -p "$Build/calibrate-carry"
  tar -C "$Stage" -cf - cli | xz -T2 -6 > "$Build/calibrate-carry/cli.tar.xz" || return 1
  rm -rf "$Stage"
  du -sh "$Build/calibrate-carry"
  echo "carry ${Build#$ROOT/}/calibrate-carry and .gl; on the device: scripts/device-calibrate.sh run ${Build#$ROOT/}/calibrate-carry"
}

run() {
  local Carry=${1:-build/calibrate-carry}
  local Out=${OUT:-$ROOT/calibrate-results}
  mkdir -p "$Out"
  local Dir
  Dir=$(mktemp -d) || return 1
  xz -dc "$Carry/cli.tar.xz" | tar -C "$Dir" -xf - || return 1
  local Cli="$Dir/cli/bin/cajeta" Saxpy="$Dir/cli/bin/saxpy"
  if ! ldconfig -p | grep -q 'libvulkan.so.1'; then # the Vulkan loader, carried in .gl
    for f in "$ROOT"/.gl/*.deb; do [[ -f $f ]] && dpkg -x "$f" /; done
    ldconfig
  fi
  local Icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [[ -z ${VK_DRIVER_FILES:-} && -f $Icd ]]; then export VK_DRIVER_FILES=$Icd; fi
  export XDG_CACHE_HOME="$Dir/cache"
  # RUNPATH reaches the binaries' own libraries only, not what those load (libxml2's ICU).
  export LD_LIBRARY_PATH="$Dir/cli/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local Rc=0
  "$Cli" devices 2>&1 | tee "$Out/devices.txt"
  "$Cli" build "$ROOT/examples/saxpy.cj" -o "$Dir/saxpy.cjx" > "$Out/build.txt" 2>&1 || Rc=1
  local Backend
  for Backend in cuda vulkan; do
    echo "== $Backend"
    CAJETA_XPU_BACKEND=$Backend "$Cli" calibrate --anew 2>&1 | tee "$Out/calibrate-$Backend.txt" ||
      Rc=1
    CAJETA_XPU_BACKEND=$Backend "$Cli" calibrate "$Saxpy" --out "$Out/saxpy-$Backend.json" \
      -- "$Dir/saxpy.cjx" 2>&1 | tee "$Out/calibrate-saxpy-$Backend.txt" || Rc=1
    "$Cli" build --with-calibration="$Out/saxpy-$Backend.json" "$ROOT/examples/saxpy.cj" \
      -o "$Dir/saxpy-$Backend.cjx" > "$Out/build-$Backend.txt" 2>&1 || Rc=1
    "$Cli" inspect "$Dir/saxpy-$Backend.cjx" 2>&1 | grep -A12 '^calibration:' |
      tee "$Out/inspect-$Backend.txt"
    CAJETA_XPU_BACKEND=$Backend "$Saxpy" "$Dir/saxpy-$Backend.cjx" 2>&1 | tail -n 3 || Rc=1
  done
  rm -rf "$Dir"
  echo "exit status: $Rc"
  return $Rc
}

case $MODE in
prepare) shift; prepare "$@" ;;
run) shift; run "$@" ;;
*) sed -n '2,17p' "$0"; exit 2 ;;
esac
