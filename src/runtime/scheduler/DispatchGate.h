// Holding a windowed submission on the host until it may start (DispatchWindow), for queues that
// hand launches to a driver: the launch is issued only once the work it follows has finished, so
// issuing it is starting it, and only inside its window.
#pragma once

#include "runtime/Backend.h"

#include <memory>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class DispatchGate {
public:
  DispatchGate(const DispatchWindow& Window, const std::string& Kernel)
      : Window(Window), Kernel(Kernel) {}

  /// Throws a missed-deadline error when the window has closed (When: "at submit").
  void refuseIfClosed(const char* When) const;
  /// Waits for each event while the window is open; a missed-deadline error if it closes first.
  void waitFor(const std::vector<std::shared_ptr<BackendEvent>>& Events) const;
  /// Sleeps until the window opens, then refuses if it has closed meanwhile.
  void waitForOpening() const;

  /// The message of a launch that would have started MissedByNs after its window closed.
  static std::string missedMessage(const std::string& Kernel, uint64_t MissedByNs,
                                   const char* When);

private:
  DispatchWindow Window;
  const std::string& Kernel;
};

} // namespace cajeta::xpu::rt
