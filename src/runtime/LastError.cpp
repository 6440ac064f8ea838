// Thread-local storage for cajeta_xpu_last_error and cajeta_xpu_last_diagnostics.
#include "runtime/LastError.h"

namespace cajeta::xpu::rt {

namespace {
thread_local std::string LastMessage;
thread_local std::string LastDiags;
} // namespace

void setLastError(cajeta_xpu_status, const std::string& Message, const std::string& Diagnostics) {
  LastMessage = Message;
  LastDiags = Diagnostics;
}

const char* lastError() {
  return LastMessage.c_str();
}
const char* lastDiagnostics() {
  return LastDiags.c_str();
}

} // namespace cajeta::xpu::rt
