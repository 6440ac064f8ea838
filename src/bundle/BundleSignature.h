// The signature section of a signed bundle (layout in BundleFormat.h): decoding and encoding it,
// and moving between a signed bundle and the unsigned bundle its signature covers. No
// cryptography here (that is src/signing), so the compiler and the fuzzers need no crypto library.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::bundle {

/// What a signature section holds.
struct SignatureBlock {
  std::array<uint8_t, 32> PublicKey{}; // the signer's raw Ed25519 public key
  std::array<uint8_t, 64> Signature{}; // Ed25519 over the unsigned bundle's bytes
};

class BundleSignature {
public:
  /// Decodes a signature section's bytes. False with Error ("it has 50 bytes, ...") when they
  /// are not exactly one well-formed section of a version and algorithm this reader knows.
  static bool decode(const uint8_t* Data, size_t Size, SignatureBlock& Out, std::string& Error);

  /// The section bytes of \p Block (decode's inverse).
  static std::vector<uint8_t> encode(const SignatureBlock& Block);

  /// The bytes the signature of a signed bundle covers: the unsigned bundle it was made from.
  /// Only for [Data, Data + Size) that BundleReader::read accepted with a signature.
  static std::vector<uint8_t> signedBytes(const uint8_t* Data, size_t Size);

  /// \p Unsigned (an unsigned bundle BundleReader::read accepts) with \p Block appended as its
  /// signature section.
  static std::vector<uint8_t> append(const std::vector<uint8_t>& Unsigned,
                                     const SignatureBlock& Block);
};

} // namespace cajeta::bundle
