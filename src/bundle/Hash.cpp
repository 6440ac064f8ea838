// xxh3 hashes of byte ranges, over libxxhash.
#include "bundle/Hash.h"

#include <xxhash.h>

namespace cajeta::bundle {

uint64_t hash64(const void* Data, size_t Size) {
  return XXH3_64bits(Data, Size);
}

std::string hash128Hex(const void* Data, size_t Size) {
  XXH128_canonical_t Canonical;
  XXH128_canonicalFromHash(&Canonical, XXH3_128bits(Data, Size));
  static const char Digits[] = "0123456789abcdef";
  std::string Hex;
  Hex.reserve(32);
  for (unsigned char Byte : Canonical.digest) {
    Hex.push_back(Digits[Byte >> 4]);
    Hex.push_back(Digits[Byte & 0xF]);
  }
  return Hex;
}

} // namespace cajeta::bundle
