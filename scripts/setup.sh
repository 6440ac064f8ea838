#!/usr/bin/env bash
# Installs the Debian packages this slice builds with (only those missing), then configures and
# builds build/ with Ninja.
#   --check      list missing packages and exit 1 if any; install and build nothing
#   --deps-only  install missing packages, do not configure or build
# Environment: CAJETA_WERROR=ON configures with warnings as errors (-DCAJETA_WERROR=ON; CI does,
# through scripts/test.sh); unset or OFF configures without.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACKAGES=(
  llvm-19-dev liblld-19-dev lld-19
  libgtest-dev libbenchmark-dev libembree-dev
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

if [[ "$MODE" == check ]]; then
  if ((${#missing[@]})); then
    echo "missing packages: ${missing[*]}"
    exit 1
  fi
  echo "all ${#PACKAGES[@]} packages installed"
  exit 0
fi

if ((${#missing[@]})); then
  echo "setup.sh: installing ${missing[*]}"
  SUDO=()
  if [[ "$(id -u)" -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "setup.sh: not root and sudo not found; install as root: ${missing[*]}" >&2
      exit 1
    fi
    SUDO=(sudo)
  fi
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "${missing[@]}"
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
