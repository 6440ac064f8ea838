// The progress of one Vulkan queue of the runtime: a timeline semaphore (or a fence per submit
// where the device has none), and the host copies that wait for a point of it. Its submits go to
// one of the device's hardware queues, which it may share with other streams.
#pragma once

#include "runtime/backends/vulkan/VulkanApi.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace cajeta::xpu::rt::vulkan {

class VulkanDevice;

/// Shared by a VulkanQueue and the events it records, so an event outlives its queue. Values are
/// the submit numbers 1, 2, ...; 0 is "nothing submitted", always reached. Thread-safe.
class VulkanTimeline {
public:
  /// Host memory the device fills (Src), copied to Dst once the submit carrying it completes.
  struct HostCopy {
    void* Dst;
    const void* Src;
    size_t Bytes;
  };

  /// Throws RuntimeError naming the device when the semaphore cannot be created.
  explicit VulkanTimeline(VulkanDevice& Device);
  ~VulkanTimeline();
  VulkanTimeline(const VulkanTimeline&) = delete;
  VulkanTimeline& operator=(const VulkanTimeline&) = delete;

  VulkanDevice& device() const { return Device; }
  /// The timeline semaphore, or VK_NULL_HANDLE where the device has none (the fence fallback).
  VkSemaphore semaphore() const { return Semaphore; }
  /// The value of the latest submit.
  uint64_t lastSubmitted() const;

  /// Submits Cmd (may be null: a submit that only waits and signals) after the (semaphore, value)
  /// waits, signalling the next value, which it returns; OnDone's copies are made once it is
  /// reached. Throws RuntimeError naming What (nothing was submitted then).
  uint64_t submit(VkCommandBuffer Cmd, const std::vector<VkSemaphore>& WaitSemaphores,
                  const std::vector<uint64_t>& WaitValues, const std::vector<HostCopy>& OnDone,
                  const char* What);
  /// The highest value the device has reached, without blocking; finishes the host copies up to
  /// it. Throws RuntimeError when the device is lost.
  uint64_t reached();
  /// Blocks until Value is reached, then finishes the host copies up to it. Throws RuntimeError.
  void wait(uint64_t Value);

  /// Forgets the copies not yet finished (their source memory is about to go: a lost device).
  void dropCopies();

private:
  struct PendingCopy {
    uint64_t Value;
    HostCopy Copy;
  };
  void finishCopiesLocked(uint64_t Reached);
  uint64_t pollFencesLocked();
  void fail(VkResult R, const char* What) const;

  VulkanDevice& Device;
  const VulkanApi& Api;
  const uint32_t Queue; // the device's hardware queue this timeline submits to
  VkSemaphore Semaphore = VK_NULL_HANDLE;
  bool SpinBeforeBlocking; // a GPU: wait polls briefly before it sleeps
  mutable std::mutex Mutex;
  uint64_t Submitted = 0;
  uint64_t Reached = 0;                            // the highest value seen reached
  std::deque<std::pair<uint64_t, VkFence>> Fences; // fallback: one per submit not yet seen done
  std::vector<VkFence> FreeFences;
  std::deque<PendingCopy> Copies; // in value order
};

} // namespace cajeta::xpu::rt::vulkan
