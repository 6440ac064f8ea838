// Links one relocatable ELF object into a shared object with lld as a library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::lowering {

class LldElfLinker {
public:
  /// Links Object (an x86-64 ELF .o) into a shared object. Undefined symbols (libm) stay
  /// undefined for the loader. Serialised: lld is not re-entrant. Returns false with Error set.
  static bool linkSharedObject(const std::vector<uint8_t>& Object, std::vector<uint8_t>& Shared,
                               std::string& Error);
};

} // namespace cajeta::lowering
