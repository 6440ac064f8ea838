// The exception the runtime throws internally; the C ABI turns it into a status and a message.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"

#include <stdexcept>
#include <string>

namespace cajeta::xpu::rt {

class RuntimeError : public std::runtime_error {
public:
  RuntimeError(cajeta_xpu_status Status, const std::string& Message, std::string Diagnostics = {})
      : std::runtime_error(Message), Status(Status), Diagnostics(std::move(Diagnostics)) {}

  cajeta_xpu_status status() const { return Status; }
  const std::string& diagnostics() const { return Diagnostics; }

private:
  cajeta_xpu_status Status;
  std::string Diagnostics;
};

[[noreturn]] inline void fail(cajeta_xpu_status Status, const std::string& Message) {
  throw RuntimeError(Status, Message);
}

} // namespace cajeta::xpu::rt
