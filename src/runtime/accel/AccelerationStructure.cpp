// Building an acceleration structure: the implementation choice, the host build, the upload, and
// the registry of accel buffers that launches check their accel arguments against.
#include "runtime/accel/AccelerationStructure.h"

#include "runtime/Buffer.h"
#include "runtime/Runtime.h"
#include "runtime/RuntimeError.h"
#include "runtime/Stream.h"
#include "runtime/accel/LbvhBuilder.h"

#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace cajeta::xpu::rt {

cajeta_xpu_as_impl AccelerationStructure::resolveImpl(cajeta_xpu_as_impl Asked) {
  if (const char* Env = std::getenv("CAJETA_GPU_AS_IMPL"); Env && *Env) {
    std::string_view V(Env);
    if (V == "native")
      Asked = CAJETA_XPU_AS_IMPL_NATIVE;
    else if (V == "software")
      Asked = CAJETA_XPU_AS_IMPL_SOFTWARE;
    else
      fail(CAJETA_XPU_ERROR, fmt::format("CAJETA_GPU_AS_IMPL is '{}'; the valid values are "
                                         "'native' and 'software'",
                                         V));
  }
  switch (Asked) {
  case CAJETA_XPU_AS_IMPL_AUTO:
  case CAJETA_XPU_AS_IMPL_SOFTWARE:
    return CAJETA_XPU_AS_IMPL_SOFTWARE;
  case CAJETA_XPU_AS_IMPL_NATIVE:
    fail(CAJETA_XPU_BACKEND_UNAVAILABLE,
         "a native acceleration structure needs hardware ray query (VK_KHR_ray_query), which no "
         "device here offers; the software BVH (AsImpl Software or Auto) is the portable form "
         "and runs on every backend");
  case CAJETA_XPU_AS_IMPL_MAX_ENUM:
    break;
  }
  fail(CAJETA_XPU_ERROR,
       fmt::format("unknown acceleration structure implementation {}", int(Asked)));
}

AccelerationStructure::AccelerationStructure(BackendDevice& Device, const BvhBuilder::Scene& S,
                                             cajeta_xpu_as_impl Asked)
    : Device(Device), Impl(resolveImpl(Asked)) {
  if (S.OnDevice) {
    try {
      LbvhBuilder::Result R = LbvhBuilder::build(Device, S);
      Stats = R.Stats;
      BuildMillis = R.BuildMillis;
      Words = std::move(R.Words);
    } catch (const std::invalid_argument& E) {
      fail(CAJETA_XPU_ERROR, fmt::format("acceleration structure: {}", E.what()));
    }
    Words->markAccelerationStructure();
    return;
  }
  auto Start = std::chrono::steady_clock::now();
  // A device whose memory the host addresses gets the words written into its buffer; the
  // others get them from host memory (not zeroed first: the builder writes every word).
  std::unique_ptr<uint32_t[]> Host;
  size_t Count = 0;
  try {
    Count = BvhBuilder::build(
        S,
        [&](size_t N) {
          if (Device.memoryIsHostAddressable()) {
            Words = std::make_shared<Buffer>(Device, bundle::ScalarType::U32, N);
            return static_cast<uint32_t*>(Words->view().Memory->data());
          }
          Host.reset(new uint32_t[N]);
          return Host.get();
        },
        &Stats);
  } catch (const std::invalid_argument& E) {
    fail(CAJETA_XPU_ERROR, fmt::format("acceleration structure: {}", E.what()));
  }
  BuildMillis =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
  if (!Words) {
    Words = std::make_shared<Buffer>(Device, bundle::ScalarType::U32, Count);
    Stream& On = Runtime::get().currentStream(Device);
    On.waitFor(On.enqueue(Command::write(Words, Host.get(), Count)));
  }
  Words->markAccelerationStructure();
}

} // namespace cajeta::xpu::rt
