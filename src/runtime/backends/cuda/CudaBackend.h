// The cuda backend's factory: NVIDIA GPUs through the driver API, dlopened at run time.
#pragma once

#include "runtime/Backend.h"

#include <memory>

namespace cajeta::xpu::rt {

/// The cuda backend with its devices, or nullptr when the driver or a device is absent.
std::unique_ptr<Backend> createCudaBackend();

} // namespace cajeta::xpu::rt
