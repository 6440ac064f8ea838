// Asynchronous in-order streams and the events that order work across them.
#pragma once

#include "cajeta/xpu/Device.hpp"

#include <memory>
#include <utility>

namespace cajeta::xpu {

class Event {
public:
  /// Blocks until the stream that recorded the event has reached it.
  void sync() const { detail::check(cajeta_xpu_event_sync(H.get())); }
  bool done() const { return cajeta_xpu_event_done(H.get()) != 0; }
  cajeta_xpu_event* handle() const { return H.get(); }

private:
  friend class KernelStream;
  explicit Event(cajeta_xpu_event* E) : H(E, cajeta_xpu_event_destroy) {}
  std::shared_ptr<cajeta_xpu_event> H;
};

class KernelStream {
public:
  /// This thread's stream on the default device (what synchronous copies use).
  static KernelStream& current() {
    thread_local KernelStream Current(currentHandle(), false);
    return Current;
  }
  /// A new stream on the default device.
  KernelStream() { detail::check(cajeta_xpu_stream_create(nullptr, &H)); }
  explicit KernelStream(const Device& D) {
    detail::check(cajeta_xpu_stream_create(D.handle(), &H));
  }
  ~KernelStream() {
    if (Owned && H)
      cajeta_xpu_stream_destroy(H);
  }
  KernelStream(const KernelStream&) = delete;
  KernelStream& operator=(const KernelStream&) = delete;
  KernelStream(KernelStream&& O) noexcept
      : H(std::exchange(O.H, nullptr)), Owned(std::exchange(O.Owned, false)) {}
  KernelStream& operator=(KernelStream&& O) noexcept {
    if (this == &O)
      return *this;
    if (Owned && H)
      cajeta_xpu_stream_destroy(H);
    H = std::exchange(O.H, nullptr);
    Owned = std::exchange(O.Owned, false);
    return *this;
  }

  /// Waits for the stream's work, ends the borrows of its launches and rethrows the first error
  /// it hit since the last sync (LaunchError for a failed kernel).
  void sync() { detail::check(cajeta_xpu_stream_sync(H)); }
  /// Ends the open chain (KernelSubmission::capture): issued now as one unit; the next
  /// submission with its identity replays it.
  void endChain() { detail::check(cajeta_xpu_stream_end_chain(H)); }
  Event record() {
    cajeta_xpu_event* E = nullptr;
    detail::check(cajeta_xpu_stream_record(H, &E));
    return Event(E);
  }
  /// Work enqueued after this starts only once E has completed.
  void wait(const Event& E) { detail::check(cajeta_xpu_stream_wait(H, E.handle())); }
  std::string name() const { return cajeta_xpu_stream_name(H); }
  Device device() const {
    cajeta_xpu_device* D = nullptr;
    detail::check(cajeta_xpu_stream_device(H, &D));
    return Device(D);
  }
  cajeta_xpu_stream* handle() const { return H; }

private:
  KernelStream(cajeta_xpu_stream* Handle, bool Owned) : H(Handle), Owned(Owned) {}
  static cajeta_xpu_stream* currentHandle() {
    cajeta_xpu_stream* S = nullptr;
    detail::check(cajeta_xpu_stream_current(&S));
    return S;
  }

  cajeta_xpu_stream* H = nullptr;
  bool Owned = true;
};

} // namespace cajeta::xpu
