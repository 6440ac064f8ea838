// Typed device buffers and their borrow records.
#include "runtime/Buffer.h"

#include "runtime/RuntimeError.h"
#include "runtime/Stream.h"

#include <algorithm>
#include <fmt/format.h>

namespace cajeta::xpu::rt {

size_t bufferBytes(bundle::ScalarType Type, size_t Count) {
  size_t Bytes = 0;
  if (__builtin_mul_overflow(Count, size_t(bundle::scalarTypeSize(Type)), &Bytes))
    fail(CAJETA_XPU_OUT_OF_DEVICE_MEMORY,
         fmt::format("out of device memory: {} elements of {} overflow the address space", Count,
                     bundle::scalarTypeName(Type)));
  return Bytes;
}

Buffer::Buffer(BackendDevice& Device, bundle::ScalarType Type, size_t Count)
    : Device(Device), Type(Type),
      Memory(DeviceAllocation::create(Device, bufferBytes(Type, Count))), Count(Count) {}

size_t Buffer::count() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Count;
}

Buffer::View Buffer::view() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return {Memory, Count};
}

bool Buffer::borrow(const Stream& Owner, const std::string& KernelName) {
  std::lock_guard<std::mutex> Lock(Mutex);
  for (Borrow& B : Borrows) {
    if (B.Owner != &Owner)
      continue;
    B.KernelName = KernelName;
    return false;
  }
  Borrows.push_back({&Owner, Owner.name(), KernelName});
  return true;
}

void Buffer::endBorrow(const Stream& Owner) {
  std::lock_guard<std::mutex> Lock(Mutex);
  std::erase_if(Borrows, [&](const Borrow& B) { return B.Owner == &Owner; });
}

void Buffer::checkNotBorrowedElsewhere(const Stream& User, const char* Operation) const {
  std::lock_guard<std::mutex> Lock(Mutex);
  for (const Borrow& B : Borrows) {
    if (B.Owner == &User)
      continue;
    fail(CAJETA_XPU_BORROW_ERROR,
         fmt::format("{} on {}: the buffer is borrowed by kernel '{}' launched on {} until that "
                     "stream is synced (call sync() on it first, or issue the {} on {})",
                     Operation, User.name(), B.KernelName, B.StreamName, Operation, B.StreamName));
  }
}

void Buffer::conflictsWith(const StreamClock* Mine, bool Writes,
                           std::vector<StreamPosition>& Out) const {
  std::lock_guard<std::mutex> Lock(Mutex);
  Accesses.conflictsWith(Mine, Writes, Out);
}

void Buffer::noteAccess(const StreamPosition& At, bool Writes) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Accesses.note(At, Writes);
}

void Buffer::resize(size_t NewCount, Stream& On) {
  std::shared_ptr<DeviceAllocation> Fresh =
      DeviceAllocation::create(Device, bufferBytes(Type, NewCount));
  std::shared_ptr<DeviceAllocation> Old;
  size_t Keep;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Old = Memory;
    Keep = std::min(Count, NewCount) * bundle::scalarTypeSize(Type);
  }
  // Outside the buffer's lock: a launch takes the stream's lock and then the buffer's.
  if (Keep)
    On.copyWithinAndWait(Fresh, Old, Keep);
  std::lock_guard<std::mutex> Lock(Mutex);
  Memory = std::move(Fresh);
  Count = NewCount;
}

} // namespace cajeta::xpu::rt
