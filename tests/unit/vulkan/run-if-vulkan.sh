#!/bin/sh
# Runs a command with CAJETA_XPU_BACKEND=vulkan when the runtime sees a Vulkan device; otherwise
# exits 77 (the tests' SKIP_RETURN_CODE). Usage: run-if-vulkan.sh <vulkan_probe> <command...>
probe="$1"
shift
"$probe" || exit 77
CAJETA_XPU_BACKEND=vulkan exec "$@"
