// An Ed25519 private key: made fresh or read from a PEM file, written as PEM, and signing.
#pragma once

#include "signing/PublicKey.h"

#include <array>
#include <cstdint>
#include <string>

struct evp_pkey_st; // OpenSSL's EVP_PKEY, kept out of this header

namespace cajeta::signing {

class PrivateKey {
public:
  PrivateKey() = default;
  PrivateKey(const PrivateKey&) = default;
  PrivateKey& operator=(const PrivateKey&) = default;
  ~PrivateKey(); // wipes the key's bytes

  /// A new key from the system's random source.
  static bool generate(PrivateKey& Out, std::string& Error);
  /// The key in an unencrypted PEM file ("-----BEGIN PRIVATE KEY-----", as `cajeta keygen` and
  /// `openssl genpkey -algorithm ed25519` write). False with Error naming the path otherwise.
  static bool fromPemFile(const std::string& Path, PrivateKey& Out, std::string& Error);
  /// The same for PEM text; \p Name stands for the file in messages.
  static bool fromPem(const std::string& Text, const std::string& Name, PrivateKey& Out,
                      std::string& Error);

  const PublicKey& publicKey() const { return Public; }
  /// PKCS#8 PEM.
  std::string toPem() const;
  /// The Ed25519 signature of [Message, Message + Length).
  bool sign(const uint8_t* Message, size_t Length, PublicKey::Signature& Out,
            std::string& Error) const;

private:
  bool fill(evp_pkey_st* Key, std::string& Error);
  std::array<uint8_t, 32> Seed{};
  PublicKey Public;
};

} // namespace cajeta::signing
