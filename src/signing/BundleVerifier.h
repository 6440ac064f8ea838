// Checks that a bundle is signed, that the signature verifies, and that its key is trusted.
#pragma once

#include "bundle/BundleReader.h"
#include "signing/PublicKey.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::signing {

struct Verification {
  enum class Outcome { Trusted, Malformed, Unsigned, BadSignature, Untrusted };
  Outcome Result = Outcome::Unsigned;
  /// The signer's key fingerprint (PublicKey::fingerprint), when the bundle is signed.
  std::string Fingerprint;
  /// Why it is not trusted, to follow "bundle NAME ": "is not signed", "is signed by key X,
  /// which is not trusted", ...; for a trusted bundle, "is signed by trusted key X".
  std::string Message;

  bool trusted() const { return Result == Outcome::Trusted; }
};

class BundleVerifier {
public:
  /// Whether the bundle [Data, Data + Size), which the reader accepted as \p Read, carries a
  /// valid signature by one of \p Trusted. Never throws.
  static Verification verify(const uint8_t* Data, size_t Size, const bundle::BundleReadResult& Read,
                             const std::vector<PublicKey>& Trusted);
  /// The same, reading the bundle first (Malformed, with the reader's message, if it fails).
  static Verification verify(const uint8_t* Data, size_t Size,
                             const std::vector<PublicKey>& Trusted);
};

} // namespace cajeta::signing
