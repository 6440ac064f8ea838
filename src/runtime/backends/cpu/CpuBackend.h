// The CPU backend's factory: the always-present floor that runs "cpu-x86_64" payloads.
#pragma once

#include "runtime/Backend.h"

#include <memory>

namespace cajeta::xpu::rt {

std::unique_ptr<Backend> createCpuBackend();

} // namespace cajeta::xpu::rt
