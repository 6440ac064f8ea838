// libFuzzer entry point: BundleReader::read must reject or accept any input without crashing,
// and the loader's check of each manifest against its payload (PTX entries and records, SPIR-V
// interfaces) must read whatever a bundle that reads holds.
#include "bundle/BundleReader.h"
#include "bundle/PayloadAbiCheck.h"

#include "BundleMutator.h" // fixes the checksums of mutants

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* Data, size_t Size) {
  cajeta::bundle::BundleReadResult R = cajeta::bundle::BundleReader::read(Data, Size);
  // A rejection must say why.
  if (!R.Ok && R.Error.empty())
    std::abort();
  if (R.Ok)
    (void)cajeta::bundle::PayloadAbiCheck::checkProgram(R.Value);
  return 0;
}
