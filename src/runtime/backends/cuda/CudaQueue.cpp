// CUDA queues: launches and copies enqueued without waiting for the GPU; failures, deferred
// staging returns and events resolved when the stream is synchronised.
#include "runtime/backends/cuda/CudaQueue.h"
#include "runtime/backends/cuda/CudaAbandonedWork.h"

#include "bundle/GpuKernelAbi.h"
#include "runtime/RuntimeError.h"
#include "runtime/backends/cuda/CudaEntry.h"
#include "runtime/backends/cuda/CudaKernelParams.h"
#include "runtime/backends/cuda/CudaTensorMaps.h"
#include "runtime/scheduler/Submission.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace cajeta::xpu::rt::cuda {

namespace {

constexpr unsigned DefaultSharedLimit = 48 * 1024; // above it a kernel must opt in
constexpr size_t MinStagingBytes = 64 * 1024;
constexpr size_t MaxPooledBytes = 256u << 20; // free pinned memory kept after a synchronize
constexpr size_t MaxParams = MaxKernelParams;

class CudaEvent : public BackendEvent {
public:
  CudaEvent(const CudaDriverApi& Api, CUcontext Ctx, CUevent E, const std::string& DeviceName)
      : Api(Api), Ctx(Ctx), E(E), DeviceName(DeviceName) {}
  ~CudaEvent() override { Api.cuEventDestroy(E); } // released by the driver once reached

  void synchronize() override {
    bindContext(Api, Ctx);
    CUresult R = Api.cuEventSynchronize(E);
    if (R != CUDA_SUCCESS)
      fail(CAJETA_XPU_ERROR,
           fmt::format("cuda device '{}': cuEventSynchronize: {}", DeviceName, Api.describe(R)));
  }
  bool done() override {
    bindContext(Api, Ctx);
    return Api.cuEventQuery(E) == CUDA_SUCCESS;
  }
  CUevent handle() const { return E; }

private:
  const CudaDriverApi& Api;
  CUcontext Ctx;
  CUevent E;
  std::string DeviceName;
};

} // namespace

void bindContext(const CudaDriverApi& Api, CUcontext Ctx) {
  CUcontext Current = nullptr;
  if (Api.cuCtxGetCurrent(&Current) == CUDA_SUCCESS && Current == Ctx)
    return;
  CUresult R = Api.cuCtxSetCurrent(Ctx);
  if (R != CUDA_SUCCESS)
    fail(CAJETA_XPU_ERROR, "cuCtxSetCurrent: " + Api.describe(R));
}

CudaQueue::CudaQueue(const CudaDriverApi& Api, CUcontext Ctx, const std::string& DeviceName,
                     CudaReservation& Reservation)
    : Api(Api), Ctx(Ctx), DeviceName(DeviceName), Reservation(Reservation),
      SlotTags(SlotCount, nullptr) {
  Debug = std::getenv("CAJETA_XPU_DEBUG") != nullptr;
  bindContext(Api, Ctx);
  check(Api.cuStreamCreate(&Stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  Lanes[WholeLane].Stream = Stream;
  int Least = 0, Greatest = 0;
  if (Api.cuLaunchKernelEx && Api.cuCtxGetStreamPriorityRange &&
      Api.cuCtxGetStreamPriorityRange(&Least, &Greatest) == CUDA_SUCCESS)
    UrgentPriority = Greatest; // lower numbers are higher priorities: H200, 0 to -5
  size_t Bytes = SlotCount * sizeof(CajetaGpuStatus);
  CUresult R = Api.cuMemAlloc(&Slots, Bytes);
  if (R == CUDA_SUCCESS)
    R = Api.cuMemsetD8Async(Slots, 0, Bytes, Stream);
  if (R == CUDA_SUCCESS)
    R = Api.cuStreamSynchronize(Stream);
  if (R != CUDA_SUCCESS) {
    if (Slots)
      Api.cuMemFree(Slots);
    Api.cuStreamDestroy(Stream);
    check(R, "allocating a stream's status records");
  }
}

void CudaQueue::abandon() {
  Abandoned = true;
  workAbandoned() = true;
}

void CudaQueue::destroyLanes(bool Drain) {
  for (unsigned L = ReservedLane; L != LaneCount; ++L) {
    Lane& Ln = Lanes[L];
    if (!Ln.Stream)
      continue;
    CudaPartition::Scope In(*Ln.Partition);
    if (Drain)
      Api.cuStreamSynchronize(Ln.Stream);
    Api.cuStreamDestroy(Ln.Stream);
    if (Ln.Join)
      Api.cuEventDestroy(Ln.Join);
  }
  if (Lanes[WholeLane].Join)
    Api.cuEventDestroy(Lanes[WholeLane].Join);
}

CudaQueue::~CudaQueue() {
  bindContext(Api, Ctx);
  if (Abandoned) {
    // cuStreamDestroy returns at once and lets the work finish (it never will).
    destroyLanes(false);
    Api.cuStreamDestroy(Stream);
    return;
  }
  destroyLanes(true);
  Api.cuStreamSynchronize(Stream); // host callbacks have run once this returns
  Api.cuStreamDestroy(Stream);
  if (workAbandoned())
    return; // freeing would wait for another stream's kernel that never ends
  Api.cuMemFree(Slots);
  for (const TimedLaunch& T : Timed) {
    Api.cuEventDestroy(T.Start);
    Api.cuEventDestroy(T.End);
  }
  for (Harvest& H : Harvests)
    giveBack(H.Block);
  for (Staging& B : AllBlocks)
    Api.cuMemFreeHost(B.Ptr);
}

void CudaQueue::check(CUresult R, const char* What) const {
  if (R == CUDA_SUCCESS)
    return;
  fail(R == CUDA_ERROR_OUT_OF_MEMORY ? CAJETA_XPU_OUT_OF_DEVICE_MEMORY : CAJETA_XPU_ERROR,
       fmt::format("cuda device '{}': {}: {}", DeviceName, What, Api.describe(R)));
}

unsigned CudaQueue::laneFor(CUfunction Fn, const bundle::KernelInfo& Info,
                            const LaunchGeometry& Geometry) {
  using Part = LaunchGeometry::Part;
  const CudaReservation::Split* Split = nullptr;
  unsigned L = WholeLane;
  switch (Geometry.Partition) {
  case Part::Whole:
    return WholeLane;
  case Part::Reserved:
    Split = Reservation.forLatency(Fn, Geometry, Info.Name);
    L = ReservedLane;
    break;
  case Part::Remainder:
    Split = Reservation.current();
    L = RemainderLane;
    break;
  case Part::Slice:
  case Part::SliceComplement:
    Split = Reservation.slice(Geometry.SliceUnits);
    L = Geometry.Partition == Part::Slice ? SliceLane : ComplementLane;
    break;
  }
  if (!Split)
    return WholeLane;
  Lane& Ln = Lanes[L];
  CudaPartition& P = L == ReservedLane || L == SliceLane ? *Split->Reserved : *Split->Remainder;
  if (Ln.Stream && Ln.Partition != &P) { // the reservation was remade: leave the old partition
    if (Current == L)
      moveTo(WholeLane);
    CudaPartition::Scope Old(*Ln.Partition);
    Api.cuStreamDestroy(Ln.Stream); // its work still completes
    if (Ln.Join)
      Api.cuEventDestroy(Ln.Join);
    Ln = Lane{};
  }
  if (!Ln.Stream) {
    CudaPartition::Scope In(P);
    check(Api.cuGreenCtxStreamCreate(&Ln.Stream, P.green(), CU_STREAM_NON_BLOCKING,
                                     L == ReservedLane ? UrgentPriority : 0),
          "cuGreenCtxStreamCreate");
    Ln.Partition = &P;
  }
  return L;
}

void CudaQueue::moveTo(unsigned L) {
  if (L == Current)
    return;
  Lane& From = Lanes[Current];
  {
    std::optional<CudaPartition::Scope> In;
    if (From.Partition)
      In.emplace(*From.Partition);
    if (!From.Join)
      check(Api.cuEventCreate(&From.Join, CU_EVENT_DISABLE_TIMING), "cuEventCreate (a lane join)");
    check(Api.cuEventRecord(From.Join, From.Stream), "cuEventRecord (a lane join)");
  }
  Lane& To = Lanes[L];
  std::optional<CudaPartition::Scope> In;
  if (To.Partition)
    In.emplace(*To.Partition);
  check(Api.cuStreamWaitEvent(To.Stream, From.Join, 0), "cuStreamWaitEvent (a lane join)");
  Current = L;
}

void CudaQueue::usePrimaryLane() {
  bindContext(Api, Ctx);
  moveTo(WholeLane);
}

void CudaQueue::launch(const void* Kernel, const bundle::KernelInfo& Info,
                       const MarshalledArg* Args, const LaunchGeometry& Geometry, const void* Tag) {
  bindContext(Api, Ctx);
  if (Info.Params.size() > MaxParams)
    fail(CAJETA_XPU_LAUNCH_ERROR,
         fmt::format("{}: {} parameters; the cuda backend passes at most {}", Info.Name,
                     Info.Params.size(), MaxParams));
  CudaLaunchChoice Choice =
      CudaTensorMaps::choose(Api, CudaEntry::of(Kernel), Info, Args, Geometry);
  noteChoice(Kernel, Info, Choice);
  CUfunction Fn = Choice.Fn;
  unsigned L = laneFor(Fn, Info, Geometry);
  if (Used == SlotCount)
    harvestAsync();
  moveTo(L);
  CUstream On = Lanes[L].Stream;
  std::optional<CudaPartition::Scope> In;
  if (Lanes[L].Partition)
    In.emplace(*Lanes[L].Partition);
  CUdeviceptr Status = Slots + CUdeviceptr(Used) * sizeof(CajetaGpuStatus);
  void* Params[MaxParamSlots];
  packKernelParams(Info, Args, &Status, Params, Choice.Maps.data(), Choice.Maps.size());
  // Dynamic shared memory past 48 KiB less the static bytes needs the kernel's opt-in.
  if (Geometry.DynamicSharedBytes &&
      Geometry.DynamicSharedBytes + Choice.StaticSharedBytes > DefaultSharedLimit)
    check(Api.cuFuncSetAttribute(Fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 int(Geometry.DynamicSharedBytes)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  CUevent Before = Timing ? timingEvent(On) : nullptr;
  CUresult R;
  if (Geometry.Urgent && UrgentPriority != 0 && L == WholeLane) {
    // Priority orders the workgroups waiting for a free SM; it never preempts resident ones.
    CudaLaunchAttribute Priority{};
    Priority.Id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    Priority.Value.Priority = UrgentPriority;
    CudaLaunchConfig Config{Geometry.Grid[0],
                            Geometry.Grid[1],
                            Geometry.Grid[2],
                            Geometry.Block[0],
                            Geometry.Block[1],
                            Geometry.Block[2],
                            Geometry.DynamicSharedBytes,
                            On,
                            &Priority,
                            1};
    R = Api.cuLaunchKernelEx(&Config, Fn, Params, nullptr);
  } else {
    R = Api.cuLaunchKernel(Fn, Geometry.Grid[0], Geometry.Grid[1], Geometry.Grid[2],
                           Geometry.Block[0], Geometry.Block[1], Geometry.Block[2],
                           Geometry.DynamicSharedBytes, On, Params, nullptr);
  }
  if (R != CUDA_SUCCESS) {
    if (Before)
      Api.cuEventDestroy(Before);
    int Regs = 0, Local = 0, Shared = 0;
    Api.cuFuncGetAttribute(&Regs, CU_FUNC_ATTRIBUTE_NUM_REGS, Fn);
    Api.cuFuncGetAttribute(&Local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, Fn);
    Api.cuFuncGetAttribute(&Shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, Fn);
    fail(CAJETA_XPU_LAUNCH_ERROR,
         fmt::format("{}: cuLaunchKernel on cuda device '{}': {} (kernel footprint: {} registers, "
                     "{} local bytes, {} static shared bytes)",
                     Info.Name, DeviceName, Api.describe(R), Regs, Local, Shared));
  }
  SlotTags[Used++] = Tag;
  if (Before)
    Timed.push_back({Tag, 1, Before, timingEvent(On)});
}

void CudaQueue::noteChoice(const void* Kernel, const bundle::KernelInfo& Info,
                           const CudaLaunchChoice& Choice) {
  constexpr size_t MostNotes = 64; // reasons name addresses: a long run could say many
  if (!Debug || !CudaEntry::of(Kernel).Plain || Noted.size() == MostNotes ||
      !Noted.emplace(Kernel, Choice.Fallback).second)
    return;
  if (Choice.tma())
    fmt::print(stderr, "cajeta-xpu: cuda: {} runs its TMA entry\n", Info.Name);
  else
    fmt::print(stderr, "cajeta-xpu: cuda: {} runs its plain entry, not the TMA one: {}\n",
               Info.Name, Choice.Fallback);
}

CUevent CudaQueue::timingEvent(CUstream On) {
  CUevent E = nullptr;
  check(Api.cuEventCreate(&E, 0), "cuEventCreate (timing)");
  CUresult R = Api.cuEventRecord(E, On);
  if (R != CUDA_SUCCESS) {
    Api.cuEventDestroy(E);
    check(R, "cuEventRecord (timing)");
  }
  return E;
}

bool CudaQueue::timeLaunches() {
  Timing = Api.cuEventElapsedTime != nullptr;
  return Timing;
}

void CudaQueue::takeDeviceSpans(std::vector<DeviceSpan>& Out) {
  Out.insert(Out.end(), Spans.begin(), Spans.end());
  Spans.clear();
}

void CudaQueue::resolveTimes() {
  if (Timed.empty())
    return;
  CUevent Anchor = nullptr;
  uint64_t AnchorNs = 0;
  if (Api.cuEventCreate(&Anchor, 0) == CUDA_SUCCESS &&
      Api.cuEventRecord(Anchor, Stream) == CUDA_SUCCESS &&
      Api.cuEventSynchronize(Anchor) == CUDA_SUCCESS)
    AnchorNs = monotonicNowNs(); // the stream is idle: the anchor ran just now
  for (const TimedLaunch& T : Timed) {
    float StartMs = 0, EndMs = 0;
    if (AnchorNs && Api.cuEventElapsedTime(&StartMs, T.Start, Anchor) == CUDA_SUCCESS &&
        Api.cuEventElapsedTime(&EndMs, T.End, Anchor) == CUDA_SUCCESS)
      Spans.push_back({T.Tag, T.Launches, AnchorNs - uint64_t(double(StartMs) * 1e6),
                       AnchorNs - uint64_t(double(EndMs) * 1e6)});
    Api.cuEventDestroy(T.Start);
    Api.cuEventDestroy(T.End);
  }
  Timed.clear();
  if (Anchor)
    Api.cuEventDestroy(Anchor);
}

void CudaQueue::launchChain(uint64_t Id, std::vector<ChainLaunch>& Launches) {
  usePrimaryLane();
  // Which code each launch runs decides the nodes: a TMA entry whose maps stop encoding records
  // the chain anew with its plain entry.
  std::vector<CudaLaunchChoice>& Choices = ChainChoices;
  Choices.clear();
  for (const ChainLaunch& L : Launches) {
    Choices.push_back(
        CudaTensorMaps::choose(Api, CudaEntry::of(L.Kernel), *L.Info, L.Args.data(), L.Geometry));
    noteChoice(L.Kernel, *L.Info, Choices.back());
  }
  std::unique_ptr<CudaGraphChain>& Chain = Chains[Id];
  if (Chain && Chain->matches(Launches, Choices)) {
    Chain->update(Launches, Choices);
  } else {
    auto Recorded = std::make_unique<CudaGraphChain>(Api, DeviceName, Stream, Launches, Choices);
    if (Chain) // it may still run: freed once the queue is synchronised
      RetiredChains.push_back(std::move(Chain));
    Chain = std::move(Recorded);
  }
  CUevent Before = Timing ? timingEvent(Stream) : nullptr;
  Chain->launch(Stream);
  if (Before)
    Timed.push_back({Launches.front().Tag, uint32_t(Launches.size()), Before, timingEvent(Stream)});
  if (std::find(LaunchedChains.begin(), LaunchedChains.end(), Chain.get()) == LaunchedChains.end())
    LaunchedChains.push_back(Chain.get());
}

void CudaQueue::harvestChains() {
  for (CudaGraphChain* Chain : LaunchedChains) {
    uint32_t Count = uint32_t(Chain->tags().size());
    size_t Bytes = size_t(Count) * sizeof(CajetaGpuStatus);
    Harvest H;
    H.Block = acquire(Bytes);
    H.Tags = Chain->tags();
    H.Count = Count;
    CUresult R = Api.cuMemcpyDtoHAsync(H.Block.Ptr, Chain->statusRecords(), Bytes, Stream);
    if (R != CUDA_SUCCESS) {
      giveBack(H.Block);
      check(R, "copying a chain's status records back");
    }
    Harvests.push_back(std::move(H));
    check(Api.cuMemsetD8Async(Chain->statusRecords(), 0, Bytes, Stream),
          "resetting a chain's status records");
  }
  LaunchedChains.clear();
}

void CudaQueue::harvestAsync() {
  usePrimaryLane();
  size_t Bytes = size_t(Used) * sizeof(CajetaGpuStatus);
  Harvest H;
  H.Block = acquire(Bytes);
  H.Tags.assign(SlotTags.begin(), SlotTags.begin() + Used);
  H.Count = Used;
  CUresult R = Api.cuMemcpyDtoHAsync(H.Block.Ptr, Slots, Bytes, Stream);
  if (R != CUDA_SUCCESS) {
    giveBack(H.Block);
    check(R, "copying status records back");
  }
  Harvests.push_back(std::move(H));
  Used = 0;
  check(Api.cuMemsetD8Async(Slots, 0, Bytes, Stream), "resetting status records");
}

void CudaQueue::collect(const void* Records, const std::vector<const void*>& Tags, uint32_t Count,
                        std::vector<QueuedFailure>& Failures, bool& AnyFailed) const {
  const auto* Status = static_cast<const CajetaGpuStatus*>(Records);
  for (uint32_t I = 0; I != Count; ++I) {
    if (!Status[I].Failed)
      continue;
    AnyFailed = true;
    KernelFailure F;
    F.Failed = true;
    F.Param = Status[I].FailedParam;
    F.Index = Status[I].FailedIndex;
    F.Length = Status[I].FailedLength;
    Failures.push_back({Tags[I], F});
  }
}

void CudaQueue::synchronize(std::vector<QueuedFailure>& Failures) {
  usePrimaryLane();
  Staging Tail;
  size_t TailBytes = size_t(Used) * sizeof(CajetaGpuStatus);
  CUresult R = CUDA_SUCCESS;
  if (Used) {
    Tail = acquire(TailBytes);
    R = Api.cuMemcpyDtoHAsync(Tail.Ptr, Slots, TailBytes, Stream);
  }
  harvestChains();
  CUresult Synced = Api.cuStreamSynchronize(Stream);
  RetiredChains.clear();
  if (Synced == CUDA_SUCCESS)
    resolveTimes();
  for (Harvest& H : Harvests) {
    bool Any = false;
    if (Synced == CUDA_SUCCESS)
      collect(H.Block.Ptr, H.Tags, H.Count, Failures, Any);
    giveBack(H.Block);
  }
  Harvests.clear();
  bool AnyFailed = false;
  if (Tail.Ptr && R == CUDA_SUCCESS && Synced == CUDA_SUCCESS)
    collect(Tail.Ptr, SlotTags, Used, Failures, AnyFailed);
  if (Tail.Ptr)
    giveBack(Tail);
  Used = 0;
  trimPool();
  check(R, "reading the status records");
  check(Synced, "cuStreamSynchronize");
  if (AnyFailed) // ordered before any later launch; records that did not fail are still zero
    check(Api.cuMemsetD8Async(Slots, 0, TailBytes, Stream), "resetting status records");
}

CudaQueue::Staging CudaQueue::acquire(size_t Bytes) {
  {
    std::lock_guard<std::mutex> Lock(PoolMutex);
    auto Best = FreeBlocks.end();
    for (auto It = FreeBlocks.begin(); It != FreeBlocks.end(); ++It)
      if (It->Bytes >= Bytes && (Best == FreeBlocks.end() || It->Bytes < Best->Bytes))
        Best = It;
    if (Best != FreeBlocks.end()) {
      Staging B = *Best;
      FreeBlocks.erase(Best);
      return B;
    }
  }
  size_t Size = MinStagingBytes;
  while (Size < Bytes && Size < (size_t(1) << 62))
    Size *= 2;
  Staging B;
  B.Bytes = std::max(Size, Bytes);
  CUresult R = Api.cuMemHostAlloc(&B.Ptr, B.Bytes, CU_MEMHOSTALLOC_PORTABLE);
  if (R != CUDA_SUCCESS)
    fail(CAJETA_XPU_OUT_OF_DEVICE_MEMORY,
         fmt::format("cuda device '{}': cannot allocate {} bytes of pinned staging memory: "
                     "cuMemHostAlloc: {}",
                     DeviceName, B.Bytes, Api.describe(R)));
  std::lock_guard<std::mutex> Lock(PoolMutex);
  AllBlocks.push_back(B);
  return B;
}

void CudaQueue::giveBack(Staging Block) {
  std::lock_guard<std::mutex> Lock(PoolMutex);
  FreeBlocks.push_back(Block);
}

void CudaQueue::trimPool() {
  // Only called with the stream drained: no callback holds a block.
  std::lock_guard<std::mutex> Lock(PoolMutex);
  size_t Total = 0;
  for (const Staging& B : FreeBlocks)
    Total += B.Bytes;
  std::sort(FreeBlocks.begin(), FreeBlocks.end(),
            [](const Staging& A, const Staging& B) { return A.Bytes < B.Bytes; });
  while (Total > MaxPooledBytes && !FreeBlocks.empty() && !workAbandoned()) {
    Staging B = FreeBlocks.back();
    FreeBlocks.pop_back();
    Total -= B.Bytes;
    Api.cuMemFreeHost(B.Ptr);
    std::erase_if(AllBlocks, [&](const Staging& A) { return A.Ptr == B.Ptr; });
  }
}

void CudaQueue::finishHostCopy(void* Data) {
  // The driver's callback thread: no CUDA calls here.
  auto* Copy = static_cast<HostCopy*>(Data);
  if (Copy->Dst)
    std::memcpy(Copy->Dst, Copy->Block.Ptr, Copy->Bytes);
  Copy->Queue->giveBack(Copy->Block);
  delete Copy;
}

void CudaQueue::finishLater(HostCopy* Copy) {
  if (Api.cuLaunchHostFunc(Stream, finishHostCopy, Copy) == CUDA_SUCCESS)
    return;
  // The driver cannot take the callback: finish here, after the copy.
  CUresult R = Api.cuStreamSynchronize(Stream);
  if (R == CUDA_SUCCESS) {
    finishHostCopy(Copy);
    return;
  }
  delete Copy; // the block stays out of the pool: the failed stream may still write it
  check(R, "cuStreamSynchronize after a staged copy");
}

void CudaQueue::copyToDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) {
  usePrimaryLane();
  auto Device = reinterpret_cast<CUdeviceptr>(Dst);
  if (!Bytes)
    return;
  if (!Staged) {
    check(Api.cuMemcpyHtoDAsync(Device, Src, Bytes, Stream), "cuMemcpyHtoDAsync");
    return;
  }
  Staging B = acquire(Bytes);
  std::memcpy(B.Ptr, Src, Bytes);
  CUresult R = Api.cuMemcpyHtoDAsync(Device, B.Ptr, Bytes, Stream);
  if (R != CUDA_SUCCESS) {
    giveBack(B);
    check(R, "cuMemcpyHtoDAsync from pinned staging");
  }
  finishLater(new HostCopy{this, B, nullptr, 0});
}

void CudaQueue::copyFromDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) {
  usePrimaryLane();
  auto Device = reinterpret_cast<CUdeviceptr>(Src);
  if (!Bytes)
    return;
  if (!Staged) {
    check(Api.cuMemcpyDtoHAsync(Dst, Device, Bytes, Stream), "cuMemcpyDtoHAsync");
    return;
  }
  Staging B = acquire(Bytes);
  CUresult R = Api.cuMemcpyDtoHAsync(B.Ptr, Device, Bytes, Stream);
  if (R != CUDA_SUCCESS) {
    giveBack(B);
    check(R, "cuMemcpyDtoHAsync to pinned staging");
  }
  finishLater(new HostCopy{this, B, Dst, Bytes});
}

void CudaQueue::copyWithinDevice(void* Dst, const void* Src, size_t Bytes) {
  usePrimaryLane();
  if (!Bytes)
    return;
  check(Api.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(Dst),
                              reinterpret_cast<CUdeviceptr>(Src), Bytes, Stream),
        "cuMemcpyDtoDAsync");
}

std::shared_ptr<BackendEvent> CudaQueue::record() {
  usePrimaryLane();
  CUevent E = nullptr;
  check(Api.cuEventCreate(&E, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  auto Event = std::make_shared<CudaEvent>(Api, Ctx, E, DeviceName);
  check(Api.cuEventRecord(E, Stream), "cuEventRecord");
  return Event;
}

void CudaQueue::wait(BackendEvent& E) {
  usePrimaryLane();
  auto* Cuda = dynamic_cast<CudaEvent*>(&E);
  if (!Cuda) { // another backend's event: the host waits for it
    E.synchronize();
    return;
  }
  check(Api.cuStreamWaitEvent(Stream, Cuda->handle(), 0), "cuStreamWaitEvent");
}

} // namespace cajeta::xpu::rt::cuda
