// Green-context reservations (CudaReservation.h).
#include "runtime/backends/cuda/CudaReservation.h"

#include "runtime/RuntimeError.h"
#include "runtime/scheduler/CoRunPlanner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace cajeta::xpu::rt::cuda {

CudaPartition::~CudaPartition() {
  Api.cuGreenCtxDestroy(Green);
}

CudaPartition::Scope::Scope(CudaPartition& P) : P(P), Lock(P.Mutex) {
  CUresult R = P.Api.cuCtxPushCurrent(P.Ctx);
  if (R != CUDA_SUCCESS)
    fail(CAJETA_XPU_ERROR, "cuCtxPushCurrent (a green context): " + P.Api.describe(R));
}

CudaPartition::Scope::~Scope() {
  CUcontext Popped = nullptr;
  P.Api.cuCtxPopCurrent(&Popped);
}

CUgreenCtx CudaReservation::createGreen(CudaDevResource& Resource) {
  CUdevResourceDesc Desc = nullptr;
  CUresult R = Api.cuDevResourceGenerateDesc(&Desc, &Resource, 1);
  CUgreenCtx Green = nullptr;
  if (R == CUDA_SUCCESS)
    R = Api.cuGreenCtxCreate(&Green, Desc, Dev, CU_GREEN_CTX_DEFAULT_STREAM);
  if (R != CUDA_SUCCESS)
    fail(CAJETA_XPU_ERROR,
         fmt::format("cuda device '{}': cannot create a green context of {} SMs: {}", DeviceName,
                     Resource.SmCount, Api.describe(R)));
  return Green;
}

unsigned CudaReservation::reserve(unsigned Units, const std::string& Why, bool Replace,
                                  unsigned MostDivisor) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (!Replace && !Made.empty()) // made meanwhile, or released on purpose
    return reservedSms();
  if (!Units) {
    if (Current.exchange(nullptr, std::memory_order_acq_rel))
      std::fprintf(stderr,
                   "cajeta: note: [reservation] cuda device '%s': reservation released; every "
                   "submission runs on the whole device\n",
                   DeviceName.c_str());
    return 0;
  }
  if (Refused || !Api.hasGreenContexts())
    return 0;
  unsigned Align = 0;
  CudaDevResource All = deviceSms(Align);
  unsigned Most = All.SmCount / MostDivisor / Align * Align;
  if (Most < Align)
    fail(CAJETA_XPU_ERROR,
         fmt::format("cuda device '{}': {} SMs are too few to reserve a partition of {}",
                     DeviceName, All.SmCount, Align));
  unsigned Want = std::min(Most, std::max(Units, 1u) + Align - 1) / Align * Align;
  Want = std::max(Want, Align);
  if (const Split* S = current(); S && S->Reserved->sms() == Want)
    return Want;
  std::unique_ptr<Split> S = makeSplit(All, Want);
  std::fprintf(stderr,
               "cajeta: note: [reservation] cuda device '%s': %u of %u SMs reserved for latency "
               "and frameBudget submissions (green contexts; %s); the others run on the "
               "remaining %u (CAJETA_XPU_RESERVATION=off turns this off)\n",
               DeviceName.c_str(), S->Reserved->sms(), All.SmCount, Why.c_str(),
               S->Remainder->sms());
  Made.push_back(std::move(S));
  Current.store(Made.back().get(), std::memory_order_release);
  return Made.back()->Reserved->sms();
}

CudaDevResource CudaReservation::deviceSms(unsigned& Align) {
  CudaDevResource All{};
  CUresult R = Api.cuDeviceGetDevResource(Dev, &All, CU_DEV_RESOURCE_TYPE_SM);
  if (R != CUDA_SUCCESS)
    fail(CAJETA_XPU_ERROR,
         fmt::format("cuda device '{}': cuDeviceGetDevResource: {}", DeviceName, Api.describe(R)));
  // Hopper partitions in multiples of 8 SMs; older drivers do not report the granularity.
  Align = std::max({All.SmCoscheduledAlignment, All.MinSmPartitionSize, 2u});
  if (!All.SmCoscheduledAlignment && SmCount >= 100)
    Align = 8;
  return All;
}

unsigned CudaReservation::granularity() {
  if (unsigned Known = KnownGranularity.load(std::memory_order_acquire))
    return Known;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (SlicesRefused || !Api.hasGreenContexts())
    return 0;
  if (!Granularity) {
    try {
      deviceSms(Granularity);
      KnownGranularity.store(Granularity, std::memory_order_release);
    } catch (const RuntimeError& E) {
      std::fprintf(stderr, "cajeta: note: [co-running] %s; launches run on the whole device\n",
                   E.what());
      SlicesRefused = true;
      return 0;
    }
  }
  return Granularity;
}

const CudaReservation::Split* CudaReservation::slice(unsigned Units) {
  unsigned Align = granularity();
  if (!Align)
    return nullptr;
  std::lock_guard<std::mutex> Lock(Mutex);
  unsigned Want = sliceSize(Units, Align);
  for (const std::unique_ptr<Split>& S : Slices)
    if (S->Reserved->sms() == Want)
      return S.get();
  if (SlicesRefused || Want + Align > SmCount)
    return nullptr;
  try {
    unsigned Unused = 0;
    CudaDevResource All = deviceSms(Unused);
    Slices.push_back(makeSplit(All, Want));
  } catch (const RuntimeError& E) {
    std::fprintf(stderr, "cajeta: note: [co-running] %s; launches run on the whole device\n",
                 E.what());
    SlicesRefused = true;
    return nullptr;
  }
  return Slices.back().get();
}

std::unique_ptr<CudaReservation::Split> CudaReservation::makeSplit(CudaDevResource& All,
                                                                   unsigned Want) {
  CudaDevResource Reserved{}, Rest{};
  CUresult R;
  unsigned Groups = 1;
  R = Api.cuDevSmResourceSplitByCount(&Reserved, &Groups, &All, &Rest, 0, Want);
  if (R != CUDA_SUCCESS || Groups != 1)
    fail(CAJETA_XPU_ERROR,
         fmt::format("cuda device '{}': cannot split {} SMs into {} and the rest: {}", DeviceName,
                     All.SmCount, Want,
                     R != CUDA_SUCCESS ? Api.describe(R) : std::string("no group made")));
  auto S = std::make_unique<Split>();
  CUgreenCtx Green = createGreen(Reserved);
  CUcontext Ctx = nullptr;
  R = Api.cuCtxFromGreenCtx(&Ctx, Green);
  if (R != CUDA_SUCCESS) {
    Api.cuGreenCtxDestroy(Green);
    fail(CAJETA_XPU_ERROR, "cuCtxFromGreenCtx: " + Api.describe(R));
  }
  S->Reserved = std::make_unique<CudaPartition>(Api, Green, Ctx, Reserved.SmCount);
  Green = createGreen(Rest);
  R = Api.cuCtxFromGreenCtx(&Ctx, Green);
  if (R != CUDA_SUCCESS) {
    Api.cuGreenCtxDestroy(Green);
    fail(CAJETA_XPU_ERROR, "cuCtxFromGreenCtx: " + Api.describe(R));
  }
  S->Remainder = std::make_unique<CudaPartition>(Api, Green, Ctx, Rest.SmCount);
  return S;
}

unsigned CudaReservation::unitsFor(CUfunction Fn, const LaunchGeometry& G) const {
  if (G.ReserveUnits)
    return G.ReserveUnits;
  int PerSm = 0;
  int Threads = int(G.Block[0] * G.Block[1] * G.Block[2]);
  if (Api.cuOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, Fn, Threads, G.DynamicSharedBytes) !=
          CUDA_SUCCESS ||
      PerSm <= 0)
    PerSm = 1;
  uint64_t Groups = uint64_t(G.Grid[0]) * G.Grid[1] * G.Grid[2];
  return unsigned(std::min<uint64_t>(SmCount, (Groups + unsigned(PerSm) - 1) / unsigned(PerSm)));
}

const CudaReservation::Split* CudaReservation::forLatency(CUfunction Fn,
                                                          const LaunchGeometry& Geometry,
                                                          const std::string& Kernel) {
  if (const Split* S = current())
    return S;
  if (Refused || !Api.hasGreenContexts())
    return nullptr;
  // Sized for the launch, but at most a quarter of the device: on the H200 the other work keeps
  // three quarters of its throughput and a whole-device request is within a fifth of its
  // latency alone (docs/benchmarks.md). A compute-unit budget may ask for up to half.
  unsigned Units = unitsFor(Fn, Geometry);
  try {
    // Not after a release: the latency class then runs on the whole device.
    reserve(Units,
            Geometry.ReserveUnits
                ? fmt::format("the compute-unit budget of {}", Kernel)
                : fmt::format("sized for one wave of {}'s {} workgroups", Kernel,
                              uint64_t(Geometry.Grid[0]) * Geometry.Grid[1] * Geometry.Grid[2]),
            false, Geometry.ReserveUnits ? 2 : 4);
  } catch (const RuntimeError& E) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (!Refused)
      std::fprintf(stderr,
                   "cajeta: note: [reservation] %s; latency submissions run on the whole device "
                   "at the highest launch priority\n",
                   E.what());
    Refused = true;
  }
  return current();
}

} // namespace cajeta::xpu::rt::cuda
