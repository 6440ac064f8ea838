// The C++ API's typed exceptions, chosen from the C ABI's status codes.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"

#include <stdexcept>
#include <string>

namespace cajeta::xpu {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class CompileError : public Error {
public:
  CompileError(const std::string& Message, std::string Diagnostics)
      : Error(Message), Diags(std::move(Diagnostics)) {}
  /// The compiler's rendered diagnostics (file:line:col: error: ...).
  const std::string& diagnostics() const { return Diags; }

private:
  std::string Diags;
};

class LaunchError : public Error {
public:
  using Error::Error;
};
/// The spec's name for a refused or failed launch.
using XpuLaunchException = LaunchError;
/// A submission whose window closed before it could start: refused, never run late.
class DeadlineMissed : public LaunchError {
public:
  using LaunchError::LaunchError;
};
class BorrowError : public Error {
public:
  using Error::Error;
};
class OutOfDeviceMemory : public Error {
public:
  using Error::Error;
};
class BundleError : public Error {
public:
  using Error::Error;
};
/// A kernel name the program does not have, or a source file that does not exist.
class NotFound : public Error {
public:
  using Error::Error;
};
class BackendUnavailable : public Error {
public:
  using Error::Error;
};
/// The device was lost (a GPU reset, a driver failure): every later use of it, its buffers and
/// its streams throws this too. Other devices, and programs loaded on them, go on.
class DeviceLost : public Error {
public:
  using Error::Error;
};

namespace detail {

[[noreturn]] inline void throwStatus(int Status) {
  std::string Message = cajeta_xpu_last_error();
  switch (Status) {
  case CAJETA_XPU_COMPILE_ERROR:
    throw CompileError(Message, cajeta_xpu_last_diagnostics());
  case CAJETA_XPU_LAUNCH_ERROR:
    throw LaunchError(Message);
  case CAJETA_XPU_DEADLINE_MISSED:
    throw DeadlineMissed(Message);
  case CAJETA_XPU_BORROW_ERROR:
    throw BorrowError(Message);
  case CAJETA_XPU_OUT_OF_DEVICE_MEMORY:
    throw OutOfDeviceMemory(Message);
  case CAJETA_XPU_BUNDLE_ERROR:
    throw BundleError(Message);
  case CAJETA_XPU_NOT_FOUND:
    throw NotFound(Message);
  case CAJETA_XPU_BACKEND_UNAVAILABLE:
    throw BackendUnavailable(Message);
  case CAJETA_XPU_DEVICE_LOST:
    throw DeviceLost(Message);
  default:
    throw Error(Message);
  }
}

inline void check(int Status) {
  if (Status != CAJETA_XPU_SUCCESS)
    throwStatus(Status);
}

} // namespace detail
} // namespace cajeta::xpu
