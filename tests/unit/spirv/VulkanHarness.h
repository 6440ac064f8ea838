// A tiny standalone Vulkan compute harness for tests: dlopen("libvulkan.so.1"), pick a CPU device
// (lavapipe) or any device, and run one SPIR-V kernel by VulkanKernelAbi.h with host-visible
// storage buffers, a push-constant block and the workgroup-size specialisation constants.
#pragma once

#include "compiler/lowering/spirv/SpirvEmitter.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cajeta::lowering::spirv::test {

class VulkanHarness {
public:
  /// Null with Why set when there is no Vulkan loader or device.
  static std::unique_ptr<VulkanHarness> create(std::string& Why);
  ~VulkanHarness();

  std::string deviceName() const;

  /// Runs K on a Grid x 1 x 1 dispatch with Block x 1 x 1 work-items. Buffers[i] is the content
  /// of binding i (read back after the run; empty for a non-buffer parameter); Params the
  /// parameter block bytes; DynamicSharedElements the value of spec constant 3.
  bool run(const SpirvKernel& K, uint32_t Grid, uint32_t Block,
           std::vector<std::vector<uint8_t>>& Buffers, const std::vector<uint8_t>& Params,
           uint32_t DynamicSharedElements, std::string& Error);

  struct Impl;

private:
  std::unique_ptr<Impl> P;
};

} // namespace cajeta::lowering::spirv::test
