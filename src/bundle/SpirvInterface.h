// What a SPIR-V module's interface asks of whoever runs it: its compute entry points, the
// descriptor bindings its variables use, whether it reads push constants, and the parameter
// record the compiler leaves in it. Read from the words,
// so that the loader can hold a kernel's manifest against the module before a driver sees it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

namespace cajeta::bundle {

struct SpirvInterface {
  std::set<std::string> ComputeEntries; // OpEntryPoint GLCompute names
  /// (descriptor set, binding) of every StorageBuffer variable, and of every Uniform one.
  std::set<std::pair<uint32_t, uint32_t>> StorageBindings, UniformBindings;
  bool PushConstants = false; // a PushConstant variable exists
  /// The kernel's parameter record (KernelAbiRecord.h), from an OpModuleProcessed
  /// "cajeta-abi <record>"; empty when the module has none.
  std::string AbiRecord;
  bool HasAbiRecord = false;

  /// Reads the module of Size bytes (little-endian words). False with Error when it is not a
  /// SPIR-V module or an instruction runs past its end.
  static bool read(const uint8_t* Data, size_t Size, SpirvInterface& Out, std::string& Error);
};

} // namespace cajeta::bundle
