// libFuzzer entry point: BundleReader::read must reject or accept any input without crashing.
#include "bundle/BundleReader.h"

#include "BundleMutator.h" // fixes the checksums of mutants

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* Data, size_t Size) {
  cajeta::bundle::BundleReadResult R = cajeta::bundle::BundleReader::read(Data, Size);
  // A rejection must say why.
  if (!R.Ok && R.Error.empty())
    std::abort();
  return 0;
}
