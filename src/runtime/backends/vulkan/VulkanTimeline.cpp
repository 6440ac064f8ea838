// Queue progress on a Vulkan device: timeline semaphore submits and waits, the fence fallback, and
// host copies finished once the device has passed them.
#include "runtime/backends/vulkan/VulkanTimeline.h"

#include "runtime/backends/vulkan/VulkanDevice.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

namespace cajeta::xpu::rt::vulkan {

VulkanTimeline::VulkanTimeline(VulkanDevice& Device)
    : Device(Device), Api(Device.api()), Queue(Device.assignQueue()),
      SpinBeforeBlocking(!Device.runsOnHostCpu()) {
  if (!Device.features().TimelineSemaphore)
    return;
  VkSemaphoreTypeCreateInfo Type{};
  Type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  Type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  Type.initialValue = 0;
  VkSemaphoreCreateInfo SCI{};
  SCI.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  SCI.pNext = &Type;
  Device.check(Api.vkCreateSemaphore(Device.handle(), &SCI, nullptr, &Semaphore),
               "vkCreateSemaphore (a stream's timeline)");
}

VulkanTimeline::~VulkanTimeline() {
  // The owning queue waited for its submits before letting go; events only wait. Another
  // stream's submit may still wait on the semaphore, so the device's queue drains first.
  VkDevice D = Device.handle();
  if (Semaphore) {
    Device.waitIdle();
    Api.vkDestroySemaphore(D, Semaphore, nullptr);
  }
  for (auto& [Value, F] : Fences)
    Api.vkDestroyFence(D, F, nullptr);
  for (VkFence F : FreeFences)
    Api.vkDestroyFence(D, F, nullptr);
}

void VulkanTimeline::fail(VkResult R, const char* What) const {
  Device.check(R, What);
}

uint64_t VulkanTimeline::lastSubmitted() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Submitted;
}

uint64_t VulkanTimeline::submit(VkCommandBuffer Cmd, const std::vector<VkSemaphore>& WaitSemaphores,
                                const std::vector<uint64_t>& WaitValues,
                                const std::vector<HostCopy>& OnDone, const char* What) {
  std::lock_guard<std::mutex> Lock(Mutex);
  uint64_t Value = Submitted + 1;
  std::vector<VkPipelineStageFlags> Stages(WaitSemaphores.size(),
                                           VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  VkSubmitInfo Submit{};
  Submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  Submit.waitSemaphoreCount = uint32_t(WaitSemaphores.size());
  Submit.pWaitSemaphores = WaitSemaphores.data();
  Submit.pWaitDstStageMask = Stages.data();
  Submit.commandBufferCount = Cmd ? 1 : 0;
  Submit.pCommandBuffers = &Cmd;
  VkTimelineSemaphoreSubmitInfo Values{};
  VkFence Fence = VK_NULL_HANDLE;
  if (Semaphore) {
    Values.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    Values.waitSemaphoreValueCount = uint32_t(WaitValues.size());
    Values.pWaitSemaphoreValues = WaitValues.data();
    Values.signalSemaphoreValueCount = 1;
    Values.pSignalSemaphoreValues = &Value;
    Submit.pNext = &Values;
    Submit.signalSemaphoreCount = 1;
    Submit.pSignalSemaphores = &Semaphore;
  } else {
    if (FreeFences.empty()) {
      VkFenceCreateInfo FCI{};
      FCI.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
      VkFence F = VK_NULL_HANDLE;
      fail(Api.vkCreateFence(Device.handle(), &FCI, nullptr, &F), "vkCreateFence");
      FreeFences.push_back(F);
    }
    Fence = FreeFences.back();
  }
  fail(Device.submit(Queue, Submit, Fence), What);
  if (Fence) {
    FreeFences.pop_back();
    Fences.emplace_back(Value, Fence);
  }
  Submitted = Value;
  for (const HostCopy& C : OnDone)
    Copies.push_back({Value, C});
  return Value;
}

uint64_t VulkanTimeline::pollFencesLocked() {
  while (!Fences.empty()) {
    VkResult R = Api.vkGetFenceStatus(Device.handle(), Fences.front().second);
    if (R == VK_NOT_READY)
      break;
    fail(R, "vkGetFenceStatus");
    Api.vkResetFences(Device.handle(), 1, &Fences.front().second);
    FreeFences.push_back(Fences.front().second);
    Reached = Fences.front().first;
    Fences.pop_front();
  }
  return Reached;
}

uint64_t VulkanTimeline::reached() {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Reached == Submitted)
    return Reached;
  if (Semaphore) {
    uint64_t Now = 0;
    fail(Api.vkGetSemaphoreCounterValue(Device.handle(), Semaphore, &Now),
         "vkGetSemaphoreCounterValue");
    Reached = std::max(Reached, Now);
  } else {
    pollFencesLocked();
  }
  finishCopiesLocked(Reached);
  return Reached;
}

void VulkanTimeline::wait(uint64_t Value) {
  if (Device.lost()) { // what a lost device had not finished never will be
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Reached >= Value)
      return;
    Device.checkNotLost("waiting for a stream");
  }
  if (Semaphore) {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Value = std::min(Value, Submitted); // never a value no submit will signal
      if (Reached >= Value) {
        finishCopiesLocked(Reached);
        return;
      }
    }
    // Waits without the lock: the queue may go on submitting meanwhile. On a GPU, first polls
    // the counter for a short while: a blocking wait sleeps, and its wake-up costs tens of
    // microseconds that a short kernel's round trip would otherwise pay (CUDA's default sync
    // spins first too). A host-emulated device needs the cores for the work itself.
    if (SpinBeforeBlocking) {
      auto Until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
      uint64_t Now = 0;
      while (std::chrono::steady_clock::now() < Until) {
        if (Api.vkGetSemaphoreCounterValue(Device.handle(), Semaphore, &Now) != VK_SUCCESS)
          break;
        if (Now >= Value) {
          std::lock_guard<std::mutex> Lock(Mutex);
          Reached = std::max(Reached, Now);
          finishCopiesLocked(Reached);
          return;
        }
        std::this_thread::yield();
      }
    }
    VkSemaphoreWaitInfo Info{};
    Info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    Info.semaphoreCount = 1;
    Info.pSemaphores = &Semaphore;
    Info.pValues = &Value;
    fail(Api.vkWaitSemaphores(Device.handle(), &Info, UINT64_MAX), "vkWaitSemaphores");
    std::lock_guard<std::mutex> Lock(Mutex);
    Reached = std::max(Reached, Value);
    finishCopiesLocked(Reached);
    return;
  }
  // The fence fallback waits holding the lock, so no one recycles the fence meanwhile.
  std::lock_guard<std::mutex> Lock(Mutex);
  while (pollFencesLocked() < Value && !Fences.empty()) {
    VkFence F = Fences.front().second;
    fail(Api.vkWaitForFences(Device.handle(), 1, &F, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  }
  finishCopiesLocked(Reached);
}

void VulkanTimeline::dropCopies() {
  std::lock_guard<std::mutex> Lock(Mutex);
  Copies.clear();
}

void VulkanTimeline::finishCopiesLocked(uint64_t Upto) {
  while (!Copies.empty() && Copies.front().Value <= Upto) {
    const HostCopy& C = Copies.front().Copy;
    std::memcpy(C.Dst, C.Src, C.Bytes);
    Copies.pop_front();
  }
}

} // namespace cajeta::xpu::rt::vulkan
