// One unit of work queued on a stream: a launch, a copy, or an event signal / wait.
#pragma once

#include "runtime/Backend.h"

#include <array>
#include <memory>
#include <vector>

namespace cajeta::xpu::rt {

class Buffer;
class Event;
class Kernel;
class LoadedProgram;

/// A launch's marshalled arguments, inline up to a dozen so a launch rarely allocates.
class LaunchArgs {
public:
  static constexpr size_t InlineCount = 12;
  static constexpr size_t InlinePodBytes = 256;
  static constexpr size_t PodAlignment = 64; // the most a POD may need (ManifestJson checks)

  /// N arguments with PodBytes of POD storage (the kernel's precomputed layout).
  void resize(size_t N, size_t PodBytes = 0) {
    Size = N;
    PodSize = PodBytes;
    if (PodBytes > InlinePodBytes)
      LargePods.resize(PodBytes + PodAlignment);
    if (N <= InlineCount)
      return;
    Large.resize(N);
    LargeBuffers.resize(N);
  }
  size_t size() const { return Size; }
  MarshalledArg* args() { return Size <= InlineCount ? Small.data() : Large.data(); }
  std::shared_ptr<Buffer>* buffers() {
    return Size <= InlineCount ? SmallBuffers.data() : LargeBuffers.data();
  }

  /// POD storage aligned to PodAlignment. Inline storage moves with the command, so take this
  /// pointer only where the command will stay (when the launch runs).
  uint8_t* pods() {
    if (PodSize <= InlinePodBytes)
      return SmallPods.data();
    auto Base = reinterpret_cast<uintptr_t>(LargePods.data());
    return LargePods.data() + ((PodAlignment - Base % PodAlignment) % PodAlignment);
  }

private:
  size_t Size = 0;
  size_t PodSize = 0;
  alignas(PodAlignment) std::array<uint8_t, InlinePodBytes> SmallPods{};
  std::vector<uint8_t> LargePods;
  std::array<MarshalledArg, InlineCount> Small{};
  std::array<std::shared_ptr<Buffer>, InlineCount> SmallBuffers;
  std::vector<MarshalledArg> Large;
  std::vector<std::shared_ptr<Buffer>> LargeBuffers;
};

struct Command {
  enum class Kind : uint8_t { Marker, Launch, Write, Read, Signal, Wait };
  Kind What = Kind::Marker;

  // Launch: the program keeps the kernel's module loaded while the launch is queued.
  std::shared_ptr<const LoadedProgram> Program;
  const Kernel* Target = nullptr;
  LaunchGeometry Geometry{};
  LaunchArgs Args;

  // Write / Read: Count elements between host memory and the start of Buf.
  std::shared_ptr<Buffer> Buf;
  const void* Src = nullptr;
  void* Dst = nullptr;
  size_t Count = 0;
  bool Staged = false; // an Async copy: a queue-backed stream copies through pinned staging

  // Signal / Wait.
  std::shared_ptr<Event> Ev;
};

} // namespace cajeta::xpu::rt
