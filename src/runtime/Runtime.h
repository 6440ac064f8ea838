// The process-wide runtime: the backends present and each thread's current stream.
#pragma once

#include "runtime/Backend.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class Stream;

class Runtime {
public:
  /// Created on first use and never destroyed (streams and pools may outlive static destructors).
  static Runtime& get();

  Backend* findBackend(const std::string& Name) const;
  /// Why the backend Name has no device here ("" when it has one, or is unknown): the driver
  /// that would not load or initialise, or that it is not built yet.
  std::string unavailableReason(const std::string& Name) const;
  /// Every device of every backend present, in dispatcher order.
  std::vector<BackendDevice*> devices() const;
  /// This thread's stream on the default device, created on first use.
  Stream& currentStream();
  Stream& currentStream(BackendDevice& Device);

private:
  Runtime();
  std::vector<std::unique_ptr<Backend>> Backends;
  std::map<std::string, std::string> Unavailable; // backend name -> why
};

} // namespace cajeta::xpu::rt
