// The Cajeta XPU runtime's C++ API: header-only wrappers over the C ABI that throw typed errors.
#pragma once

#include "cajeta/xpu/AccelerationStructure.hpp"
#include "cajeta/xpu/Buffer.hpp"
#include "cajeta/xpu/Calibration.hpp"
#include "cajeta/xpu/Device.hpp"
#include "cajeta/xpu/Errors.hpp"
#include "cajeta/xpu/Float16.hpp"
#include "cajeta/xpu/Program.hpp"
#include "cajeta/xpu/Scheduler.hpp"
#include "cajeta/xpu/Stream.hpp"
#include "cajeta/xpu/Submission.hpp"
#include "cajeta/xpu/cajeta_xpu.h"
