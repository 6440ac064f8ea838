// Signs a bundle: the unsigned bundle's bytes, signed with an Ed25519 key, as its last section.
#pragma once

#include "signing/PrivateKey.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::signing {

class BundleSigner {
public:
  /// The signed form of the bundle [Data, Data + Size), which must be one the reader accepts;
  /// a signature it has already is replaced. The result is verified with the key's public half
  /// before it is returned. False with Error ("not a valid bundle: ...") otherwise.
  static bool sign(const uint8_t* Data, size_t Size, const PrivateKey& Key,
                   std::vector<uint8_t>& Out, std::string& Error);
};

} // namespace cajeta::signing
