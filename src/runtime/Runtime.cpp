// The runtime singleton: backend factories and per-thread current streams.
#include "runtime/Runtime.h"

#include "runtime/Dispatcher.h"
#include "runtime/Stream.h"
#include "runtime/backends/cpu/CpuBackend.h"
#include "runtime/backends/cuda/CudaBackend.h"
#include "runtime/backends/vulkan/VulkanBackend.h"

namespace cajeta::xpu::rt {

Runtime& Runtime::get() {
  static Runtime* Instance = new Runtime();
  return *Instance;
}

Runtime::Runtime() {
  // One factory per backend built in, in dispatch order; a GPU backend whose driver or device
  // is absent returns nullptr, is not there, and says why (`cajeta devices`).
  std::string Why;
  if (std::unique_ptr<Backend> Cuda = createCudaBackend(Why))
    Backends.push_back(std::move(Cuda));
  else
    Unavailable["cuda"] = Why;
  Unavailable["hip"] = "not built yet";
  Why.clear();
  if (std::unique_ptr<Backend> Vulkan = createVulkanBackend(Why))
    Backends.push_back(std::move(Vulkan));
  else
    Unavailable["vulkan"] = Why;
  Backends.push_back(createCpuBackend());
}

std::string Runtime::unavailableReason(const std::string& Name) const {
  auto It = Unavailable.find(Name);
  return It == Unavailable.end() ? std::string() : It->second;
}

Backend* Runtime::findBackend(const std::string& Name) const {
  for (const std::unique_ptr<Backend>& B : Backends)
    if (Name == B->name())
      return B.get();
  return nullptr;
}

std::vector<BackendDevice*> Runtime::devices() const {
  std::vector<BackendDevice*> All;
  for (const std::string& Name : Dispatcher::order())
    if (Backend* B = findBackend(Name))
      All.insert(All.end(), B->devices().begin(), B->devices().end());
  return All;
}

Stream& Runtime::currentStream() {
  return currentStream(Dispatcher::defaultDevice());
}

Stream& Runtime::currentStream(BackendDevice& Device) {
  // One per thread and device: KernelStream::current() is the default device's; synchronous
  // copies of a buffer on another device use that device's.
  thread_local std::map<BackendDevice*, std::unique_ptr<Stream>> Current;
  std::unique_ptr<Stream>& S = Current[&Device];
  if (!S)
    S = std::make_unique<Stream>(Device, Stream::nextName(" (current)"));
  return *S;
}

} // namespace cajeta::xpu::rt
