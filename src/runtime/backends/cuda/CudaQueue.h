// A runtime stream's CUDA queue: a CUstream fed from the calling thread, status records for
// --check-bounds kernels, CUDA events, and pinned staging for the Async copies. Where the device
// has a reservation (CudaReservation), launches run on a lane of the partition their submission
// belongs to (a stream of that green context), everything else on the primary context's stream;
// moving between lanes joins them with an event, so the queue keeps its order.
#pragma once

#include "runtime/Backend.h"
#include "runtime/backends/cuda/CudaDriverApi.h"
#include "runtime/backends/cuda/CudaGraphChain.h"
#include "runtime/backends/cuda/CudaReservation.h"
#include "runtime/backends/cuda/CudaTensorMaps.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace cajeta::xpu::rt::cuda {

/// Makes Ctx current on the calling thread when it is not already (cheap when it is).
void bindContext(const CudaDriverApi& Api, CUcontext Ctx);

class CudaQueue : public BackendQueue {
public:
  /// Throws RuntimeError naming DeviceName when the driver cannot create the stream or records.
  CudaQueue(const CudaDriverApi& Api, CUcontext Ctx, const std::string& DeviceName,
            CudaReservation& Reservation);
  ~CudaQueue() override;
  CudaQueue(const CudaQueue&) = delete;
  CudaQueue& operator=(const CudaQueue&) = delete;

  void launch(const void* Kernel, const bundle::KernelInfo& Info, const MarshalledArg* Args,
              const LaunchGeometry& Geometry, const void* Tag) override;
  bool timeLaunches() override;
  void takeDeviceSpans(std::vector<DeviceSpan>& Out) override;
  bool recordsChains() const override { return Api.hasGraphs(); }
  void launchChain(uint64_t Id, std::vector<ChainLaunch>& Launches) override;
  void copyToDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) override;
  void copyFromDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) override;
  void copyWithinDevice(void* Dst, const void* Src, size_t Bytes) override;
  std::shared_ptr<BackendEvent> record() override;
  void wait(BackendEvent& E) override;
  void synchronize(std::vector<QueuedFailure>& Failures) override;
  /// A kernel on this stream never ends (the watchdog gave it up): destroying the queue neither
  /// waits for it nor frees what it may still use (status records, staging blocks).
  void abandon() override;

  /// Status records a queue cycles through before it copies them back without waiting.
  static constexpr uint32_t SlotCount = 1024;

private:
  struct Staging {
    void* Ptr = nullptr;
    size_t Bytes = 0;
  };
  /// Status records copied back to pinned memory while the queue keeps running.
  struct Harvest {
    Staging Block;
    std::vector<const void*> Tags;
    uint32_t Count = 0;
  };
  /// A staged download finishing on the driver's callback thread.
  struct HostCopy {
    CudaQueue* Queue;
    Staging Block;
    void* Dst;
    size_t Bytes;
  };
  static void finishHostCopy(void* Data);

  /// Where launches and copies go: the primary context's stream or a partition's.
  struct Lane {
    CUstream Stream = nullptr;
    CudaPartition* Partition = nullptr; // null: the primary context
    CUevent Join = nullptr;             // recorded where work leaves this lane
  };
  enum : unsigned { WholeLane, ReservedLane, RemainderLane, SliceLane, ComplementLane, LaneCount };
  /// The lane a launch of Fn runs on (making the reservation or the lane's stream on first use).
  unsigned laneFor(CUfunction Fn, const bundle::KernelInfo& Info, const LaunchGeometry& Geometry);
  /// Orders what follows on lane L after everything enqueued so far.
  void moveTo(unsigned L);
  /// Binds the primary context and moves to its stream (copies, events, synchronize).
  void usePrimaryLane();
  void destroyLanes(bool Drain);

  void check(CUresult R, const char* What) const;
  Staging acquire(size_t Bytes);
  void giveBack(Staging Block);
  void trimPool();
  void finishLater(HostCopy* Copy);
  void harvestAsync();
  /// A timing event recorded on On now (in On's context).
  CUevent timingEvent(CUstream On);
  /// Turns Timed into Spans (the stream has drained).
  void resolveTimes();
  /// With CAJETA_XPU_DEBUG set, says once per TMA entry and outcome which code a launch ran
  /// and, for the plain one, why.
  void noteChoice(const void* Kernel, const bundle::KernelInfo& Info,
                  const CudaLaunchChoice& Choice);
  /// Copies back the status records of the chains launched since the last synchronize.
  void harvestChains();
  void collect(const void* Records, const std::vector<const void*>& Tags, uint32_t Count,
               std::vector<QueuedFailure>& Failures, bool& AnyFailed) const;

  const CudaDriverApi& Api;
  CUcontext Ctx;
  std::string DeviceName;
  CUstream Stream = nullptr; // the primary context's: Lanes[WholeLane]
  CudaReservation& Reservation;
  Lane Lanes[LaneCount];
  unsigned Current = WholeLane;
  /// The launch priority of urgent launches (the context's greatest); 0 where the driver has
  /// no per-launch priority (cuLaunchKernelEx) or a single level.
  int UrgentPriority = 0;
  bool Abandoned = false;
  bool Debug = false;                                  // CAJETA_XPU_DEBUG
  std::set<std::pair<const void*, std::string>> Noted; // (TMA entry, fallback) said so far
  CUdeviceptr Slots = 0;
  std::vector<const void*> SlotTags;
  uint32_t Used = 0;
  std::vector<Harvest> Harvests;
  // Chains by capture identity; those launched since the last synchronize (their status records
  // are read then), and recordings replaced meanwhile (freed then).
  std::map<uint64_t, std::unique_ptr<CudaGraphChain>> Chains;
  std::vector<CudaGraphChain*> LaunchedChains;
  std::vector<std::unique_ptr<CudaGraphChain>> RetiredChains;
  std::vector<CudaLaunchChoice> ChainChoices; // the code each launch of a chain runs
  // The trace's device times: timing events around each launch or chain, turned into spans at
  // synchronize against an event the host waits for.
  struct TimedLaunch {
    const void* Tag;
    uint32_t Launches;
    CUevent Start, End;
  };
  bool Timing = false;
  std::vector<TimedLaunch> Timed;
  std::vector<DeviceSpan> Spans;
  std::mutex PoolMutex; // staging blocks come back on the driver's callback thread
  std::vector<Staging> FreeBlocks;
  std::vector<Staging> AllBlocks;
};

} // namespace cajeta::xpu::rt::cuda
