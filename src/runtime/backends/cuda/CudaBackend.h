// The cuda backend's factory: NVIDIA GPUs through the driver API, dlopened at run time.
#pragma once

#include "runtime/Backend.h"

#include <memory>
#include <string>

namespace cajeta::xpu::rt {

/// The cuda backend with its devices, or nullptr with Why set when the driver cannot be loaded,
/// does not initialise, or has no device it can open.
std::unique_ptr<Backend> createCudaBackend(std::string& Why);

} // namespace cajeta::xpu::rt
