// One backend our kernels run on (cuda or vulkan): its device, a stream of its own, its bundles.
#pragma once

#include <cajeta/xpu.hpp>

#include <string>
#include <vector>

namespace cajeta::gpubench {

namespace xpu = cajeta::xpu;

/// Everything of ours is made on one chosen device: programs through Program::load(path, device),
/// buffers through KernelBuffer(device, n), launches on a KernelStream(device). The default
/// device is never used, so the cuda and the Vulkan side can live in one process.
class OursDevice {
public:
  OursDevice(xpu::Device D, std::string BundleDir);

  xpu::Device& device() { return D; }
  xpu::KernelStream& stream() { return S; }
  /// "vulkan 'NVIDIA H200'".
  std::string describe() const;
  /// BundleDir/<Name>.cjx loaded on this device (its backend's payload).
  xpu::Program load(const std::string& Name) const;
  /// A buffer of Data.size() elements on this device holding Data.
  template <class T> xpu::KernelBuffer<T> buffer(const std::vector<T>& Data) const {
    xpu::KernelBuffer<T> B(D, Data.size());
    B.upload(Data);
    return B;
  }
  /// A buffer of N floats on this device (contents undefined).
  xpu::KernelBuffer<float> buffer(size_t N) const { return xpu::KernelBuffer<float>(D, N); }

private:
  xpu::Device D;
  xpu::KernelStream S;
  std::string BundleDir;
};

} // namespace cajeta::gpubench
