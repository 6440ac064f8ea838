// libFuzzer entry point: BundleReader::read must reject or accept any input without crashing,
// the loader's check of each manifest against its payload (PTX entries and records, SPIR-V
// interfaces) must read whatever a bundle that reads holds, and a signed bundle it accepts must be
// exactly its unsigned bytes plus the signature section.
#include "bundle/BundleReader.h"
#include "bundle/BundleSignature.h"
#include "bundle/PayloadAbiCheck.h"

#include "BundleMutator.h" // fixes the checksums of mutants

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* Data, size_t Size) {
  using namespace cajeta::bundle;
  BundleReadResult R = BundleReader::read(Data, Size);
  // A rejection must say why.
  if (!R.Ok && R.Error.empty())
    std::abort();
  if (R.Ok)
    (void)PayloadAbiCheck::checkProgram(R.Value);
  // What a signature covers reads back as an unsigned bundle, and signing it again gives back
  // the very input: there is one signed form of each unsigned bundle.
  if (R.Ok && R.Signature) {
    std::vector<uint8_t> Unsigned = BundleSignature::signedBytes(Data, Size);
    BundleReadResult U = BundleReader::read(Unsigned.data(), Unsigned.size());
    if (!U.Ok || U.Signature ||
        BundleSignature::append(Unsigned, *R.Signature) != std::vector<uint8_t>(Data, Data + Size))
      std::abort();
  }
  return 0;
}
