// The runtime's scheduling switches.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"

namespace cajeta::xpu {

class Scheduler {
public:
  /// Streams that share a buffer are ordered by what their launches and copies do to it; true
  /// turns that off (the raw launch path, for A/B measurement, as CAJETA_XPU_SCHEDULER=bypass
  /// does at start). Returns the previous setting.
  static bool bypass(bool On) { return cajeta_xpu_scheduler_set_bypass(On ? 1 : 0) != 0; }
  static bool bypassed() { return cajeta_xpu_scheduler_bypassed() != 0; }
};

} // namespace cajeta::xpu
