// The C ABI's thread-local error state and the guard that turns exceptions into status codes.
#pragma once

#include "runtime/RuntimeError.h"

#include <new>
#include <string>

namespace cajeta::xpu::rt {

void setLastError(cajeta_xpu_status Status, const std::string& Message,
                  const std::string& Diagnostics = {});
const char* lastError();
const char* lastDiagnostics();

/// Runs Body; returns CAJETA_XPU_SUCCESS, or the status of what it threw with the message set.
template <class Fn> int guarded(Fn&& Body) {
  try {
    Body();
    return CAJETA_XPU_SUCCESS;
  } catch (const RuntimeError& E) {
    setLastError(E.status(), E.what(), E.diagnostics());
    return E.status();
  } catch (const std::bad_alloc&) {
    setLastError(CAJETA_XPU_ERROR, "out of host memory");
    return CAJETA_XPU_ERROR;
  } catch (const std::exception& E) {
    setLastError(CAJETA_XPU_ERROR, E.what());
    return CAJETA_XPU_ERROR;
  }
}

} // namespace cajeta::xpu::rt
