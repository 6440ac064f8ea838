// Loading CPU payloads without touching the file system (SharedObject), after checking that this
// CPU has the features the payload was compiled for.
#include "runtime/backends/cpu/CpuModule.h"

#include "bundle/KernelAbiRecord.h"
#include "runtime/RuntimeError.h"
#include "runtime/backends/cpu/CpuFeatures.h"

#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

namespace cajeta::xpu::rt {

static constexpr const char* What = "cpu payload";

static void bundleError(const std::string& Message) {
  fail(CAJETA_XPU_BUNDLE_ERROR, fmt::format("{}: {}", What, Message));
}

std::unique_ptr<CpuModule> CpuModule::load(const bundle::Payload& Payload) {
  if (Payload.Format != "elf-shared-object")
    bundleError(fmt::format("target '{}' has format '{}', expected 'elf-shared-object'",
                            Payload.Target, Payload.Format));
  if (auto Features = Payload.Attributes.find("features"); Features != Payload.Attributes.end())
    requireCpuFeatures(Features->second, What);
  uint32_t WaveWidth = 0; // payloads from before wave ops have no attribute (and no wave ops)
  if (auto W = Payload.Attributes.find("wave_width"); W != Payload.Attributes.end()) {
    WaveWidth = uint32_t(std::strtoul(W->second.c_str(), nullptr, 10));
    if (WaveWidth < 1 || WaveWidth > 64 || (WaveWidth & (WaveWidth - 1)))
      bundleError(fmt::format("target '{}': wave_width '{}' is not a power of two in 1..64",
                              Payload.Target, W->second));
  }
  std::unique_ptr<SharedObject> Object =
      SharedObject::load(Payload.Bytes.data(), Payload.Bytes.size(), What, Payload.Target);
  return std::unique_ptr<CpuModule>(new CpuModule(std::move(Object), WaveWidth));
}

const void* CpuModule::findKernel(const std::string& Symbol) const {
  return Object->symbol(Symbol);
}

std::string CpuModule::checkKernel(const std::string& Symbol, const bundle::KernelInfo& K) const {
  const auto* Record =
      static_cast<const char*>(Object->symbol(bundle::kernelAbiRecordSymbol(Symbol)));
  std::string Have = Record ? std::string(Record, ::strnlen(Record, 1 << 20)) : std::string();
  return bundle::checkKernelAbiRecord(K, "cpu payload", Record ? &Have : nullptr, Symbol);
}

} // namespace cajeta::xpu::rt
