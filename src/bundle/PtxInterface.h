// What a PTX module's text says a launch must pass: each kernel entry's parameter list, and the
// parameter records (KernelAbiRecord.h) the compiler leaves beside the entries as .global byte
// arrays. The loader holds each kernel's manifest against both.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cajeta::bundle {

struct PtxParam {
  uint64_t Size = 0;  // bytes: the type's size times the array length
  uint32_t Align = 0; // .align N, or the type's size
};

struct PtxInterface {
  std::map<std::string, std::vector<PtxParam>> Entries; // every `.entry NAME(...)`, by name
  std::map<std::string, std::string> Records; // `.b8 cajeta_abi_X[N] = {...}` as text, by name

  /// Reads Ptx (comments skipped). False with Error naming the entry or record and what is
  /// malformed; a module without entries is not an error.
  static bool read(std::string_view Ptx, PtxInterface& Out, std::string& Error);
};

} // namespace cajeta::bundle
