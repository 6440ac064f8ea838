// Compute units reserved for latency-class submissions on a CUDA device, through green contexts:
// the device's SMs split once into a reserved partition and the remainder, each a green context.
// Latency and frameBudget launches run in the first, every other launch in the second, so
// neither waits behind the other's resident workgroups (priority alone cannot do that: it never
// preempts a resident workgroup, and a grid in the primary context uses every SM, reserved or
// not, which is why the remainder must be a green context too).
#pragma once

#include "runtime/Backend.h"
#include "runtime/backends/cuda/CudaDriverApi.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cajeta::xpu::rt::cuda {

/// One green context: its SMs and the context handle that makes it current.
class CudaPartition {
public:
  CudaPartition(const CudaDriverApi& Api, CUgreenCtx Green, CUcontext Ctx, unsigned Sms)
      : Api(Api), Green(Green), Ctx(Ctx), Sms(Sms) {}
  ~CudaPartition();
  CudaPartition(const CudaPartition&) = delete;
  CudaPartition& operator=(const CudaPartition&) = delete;

  unsigned sms() const { return Sms; }
  CUgreenCtx green() const { return Green; }

  /// Makes the partition's context current on this thread while it lives. The driver lets a
  /// green context be current on one thread at a time, so scopes of one partition exclude
  /// each other.
  class Scope {
  public:
    explicit Scope(CudaPartition& P);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

  private:
    CudaPartition& P;
    std::lock_guard<std::mutex> Lock;
  };

private:
  const CudaDriverApi& Api;
  CUgreenCtx Green;
  CUcontext Ctx;
  unsigned Sms;
  std::mutex Mutex;
};

class CudaReservation {
public:
  /// The two partitions (a slice: the slice and its complement). A split that is replaced or
  /// released is kept for the process: queues may still be inside its contexts, and an idle
  /// green context holds no SM.
  struct Split {
    std::unique_ptr<CudaPartition> Reserved;
    std::unique_ptr<CudaPartition> Remainder;
  };

  CudaReservation(const CudaDriverApi& Api, CUdevice Dev, unsigned SmCount,
                  const std::string& DeviceName)
      : Api(Api), Dev(Dev), SmCount(SmCount), DeviceName(DeviceName) {}

  /// The split, or nullptr before the first reservation (and where none can be made).
  const Split* current() const { return Current.load(std::memory_order_acquire); }
  unsigned reservedSms() const {
    const Split* S = current();
    return S ? S->Reserved->sms() : 0;
  }

  /// Reserves Units SMs (rounded up to the driver's partition granularity, at most half the
  /// device), replacing a reservation of another size (0 releases it); returns the reserved
  /// SMs, 0 where the driver has no green contexts. Why names what the reservation is for in
  /// its note. Throws RuntimeError when the driver refuses the split.
  unsigned reserve(unsigned Units, const std::string& Why) { return reserve(Units, Why, true, 2); }
  /// The step of slices' sizes (the driver's partition granularity: 8 SMs on Hopper); 0 where
  /// the driver has no green contexts or refused one.
  unsigned granularity();
  /// The device cut into a slice of Units SMs (rounded up to the granularity) and the rest, for a
  /// co-running pair or a throughput submission's compute-unit budget: made on first use and
  /// kept (the few sizes admission picks each cost two green contexts, milliseconds). nullptr
  /// where no slice can be made (noted once). Independent of the latency reservation.
  const Split* slice(unsigned Units);

  /// The split for a latency-class launch of Fn, made on the first one and sized for one wave
  /// of its workgroups, at most a quarter of the device (or the submission's compute-unit
  /// budget, at most half); nullptr where the driver has
  /// no green contexts or refused (a note says so once; the launch then runs on the whole device
  /// at the highest launch priority). Needs the primary context current.
  const Split* forLatency(CUfunction Fn, const LaunchGeometry& Geometry, const std::string& Kernel);

private:
  /// Replace false: an existing reservation stays whatever its size (the automatic one). At
  /// most 1/MostDivisor of the device.
  unsigned reserve(unsigned Units, const std::string& Why, bool Replace, unsigned MostDivisor);
  unsigned unitsFor(CUfunction Fn, const LaunchGeometry& Geometry) const;
  CUgreenCtx createGreen(CudaDevResource& Resource);
  /// The split of Want SMs and the rest of All (Mutex held).
  std::unique_ptr<Split> makeSplit(CudaDevResource& All, unsigned Want);
  /// The device's SMs and their partition granularity (Mutex held); throws RuntimeError.
  CudaDevResource deviceSms(unsigned& Align);

  const CudaDriverApi& Api;
  CUdevice Dev;
  unsigned SmCount;
  std::string DeviceName;
  std::mutex Mutex;                         // making the split
  std::vector<std::unique_ptr<Split>> Made; // the current one last
  std::atomic<const Split*> Current{nullptr};
  bool Refused = false;                       // the driver cannot: noted once, never tried again
  std::vector<std::unique_ptr<Split>> Slices; // by size, made on first use
  unsigned Granularity = 0;                   // 0: not asked yet
  std::atomic<unsigned> KnownGranularity{0};  // Granularity once known: read without the lock
  bool SlicesRefused = false;
};

} // namespace cajeta::xpu::rt::cuda
