// An Ed25519 public key: read from a PEM file, written as PEM, named by its fingerprint, and
// checking signatures.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace cajeta::signing {

class PublicKey {
public:
  static constexpr size_t Size = 32;
  using Raw = std::array<uint8_t, Size>;
  using Signature = std::array<uint8_t, 64>;

  PublicKey() = default;
  explicit PublicKey(const Raw& Bytes) : Bytes(Bytes) {}

  /// The key in a PEM file ("-----BEGIN PUBLIC KEY-----", as `cajeta keygen` and `openssl
  /// pkey -pubout` write). False with Error naming the path and what is wrong: unreadable, not
  /// PEM, a private key, or a key of another algorithm.
  static bool fromPemFile(const std::string& Path, PublicKey& Out, std::string& Error);
  /// The same for PEM text; \p Name stands for the file in messages.
  static bool fromPem(const std::string& Text, const std::string& Name, PublicKey& Out,
                      std::string& Error);

  const Raw& raw() const { return Bytes; }
  /// The first 16 hex digits of the SHA-256 of the raw key: short, and what messages name.
  std::string fingerprint() const;
  std::string toPem() const;
  /// Whether \p Sig is this key's Ed25519 signature of [Message, Message + Length).
  bool verify(const uint8_t* Message, size_t Length, const Signature& Sig) const;

  bool operator==(const PublicKey& Other) const { return Bytes == Other.Bytes; }

private:
  Raw Bytes{};
};

} // namespace cajeta::signing
