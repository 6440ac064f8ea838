// A --check-bounds kernel's status record (VulkanKernelAbi.h) as the failure the stream reports.
#pragma once

#include "bundle/VulkanKernelAbi.h"
#include "runtime/Backend.h"

namespace cajeta::xpu::rt::vulkan {

inline KernelFailure failureOf(const CajetaVkStatus& Record) {
  KernelFailure F;
  F.Failed = Record.Failed != 0;
  F.Param = Record.FailedParam;
  F.Index = Record.FailedIndex;
  F.Length = Record.FailedLength;
  return F;
}

} // namespace cajeta::xpu::rt::vulkan
