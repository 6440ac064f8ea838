// libFuzzer entry point for the manifest JSON reader (bundle/ManifestJson.h) on arbitrary text,
// parsed as BundleReader parses a manifest section. manifestFromJson must accept or reject
// without throwing; what it accepts must survive a write and a read unchanged.
#include "bundle/ManifestJson.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace cajeta::bundle;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* Data, size_t Size) {
  const char* Begin = reinterpret_cast<const char*>(Data);
  nlohmann::json J = nlohmann::json::parse(Begin, Begin + Size, nullptr,
                                           /*allow_exceptions=*/false);
  if (J.is_discarded())
    return 0;
  Program P;
  std::string Error;
  if (!manifestFromJson(J, P, Error)) { // "Never throws": an exception escapes and is a finding
    if (Error.empty())
      std::abort(); // a rejection must say why
    return 0;
  }
  // Round trip: what was accepted is written back, read again, and written the same way.
  nlohmann::json Written = manifestToJson(P);
  Program Again;
  if (!manifestFromJson(Written, Again, Error)) {
    std::fprintf(stderr, "manifestFromJson rejects what manifestToJson wrote: %s\n%s\n",
                 Error.c_str(), Written.dump().c_str());
    std::abort();
  }
  if (manifestToJson(Again) != Written) {
    std::fprintf(stderr, "manifest round trip differs:\n%s\n%s\n", Written.dump().c_str(),
                 manifestToJson(Again).dump().c_str());
    std::abort();
  }
  return 0;
}
