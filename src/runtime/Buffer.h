// A typed device buffer: its memory, element type, and the kernels that borrow it until sync.
#pragma once

#include "runtime/DeviceAllocation.h"
#include "runtime/scheduler/BufferAccesses.h"

#include <mutex>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class Stream;

class Buffer {
public:
  /// Throws RuntimeError (out of device memory) naming the size.
  Buffer(BackendDevice& Device, bundle::ScalarType Type, size_t Count);

  BackendDevice& device() const { return Device; }
  bundle::ScalarType type() const { return Type; }
  size_t count() const;

  /// The buffer of an AccelerationStructure (marked once, before its handle is given out): only
  /// it binds to a kernel's AccelerationStructure parameter, and the C API does not write or
  /// resize it.
  void markAccelerationStructure() { Accel = true; }
  bool isAccelerationStructure() const { return Accel; }

  /// The memory and element count as of now; a command holds the allocation while it runs.
  struct View {
    std::shared_ptr<DeviceAllocation> Memory;
    size_t Count;
  };
  View view() const;

  /// Records that a kernel launched on Owner borrows this buffer until Owner is synced.
  /// Returns true when Owner did not borrow it already.
  bool borrow(const Stream& Owner, const std::string& KernelName);
  void endBorrow(const Stream& Owner);
  /// Throws RuntimeError (borrow error) if a kernel on a stream other than User borrows it.
  void checkNotBorrowedElsewhere(const Stream& User, const char* Operation) const;

  /// The other streams' commands an access by the stream of clock Mine must follow
  /// (BufferAccesses::conflictsWith), appended to Out.
  void conflictsWith(const StreamClock* Mine, bool Writes, std::vector<StreamPosition>& Out) const;
  /// Records an access by a stream's command.
  void noteAccess(const StreamPosition& At, bool Writes);

  /// Replaces the memory with Count elements keeping the first min(old, new), copied on On after
  /// the work already queued there. The caller has checked borrows.
  void resize(size_t NewCount, Stream& On);

private:
  struct Borrow {
    const Stream* Owner;
    std::string StreamName;
    std::string KernelName;
  };

  BackendDevice& Device;
  bundle::ScalarType Type;
  mutable std::mutex Mutex;
  std::shared_ptr<DeviceAllocation> Memory;
  size_t Count;
  std::vector<Borrow> Borrows;
  bool Accel = false;
  BufferAccesses Accesses;
};

size_t bufferBytes(bundle::ScalarType Type, size_t Count); // throws on overflow

} // namespace cajeta::xpu::rt
