// Ed25519 private keys through libcrypto's EVP interface. Only the 32-byte seed is kept; an
// EVP_PKEY is made from it for each use.
#include "signing/PrivateKey.h"

#include "bundle/RegularFile.h"
#include "signing/OpenSsl.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/pem.h>

namespace cajeta::signing {

namespace {

Pkey makeKey(const std::array<uint8_t, 32>& Seed) {
  return Pkey(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, Seed.data(), Seed.size()));
}

/// Never asks for a passphrase (OpenSSL's default would prompt on the terminal).
int noPassphrase(char*, int, int, void*) {
  return -1;
}

} // namespace

PrivateKey::~PrivateKey() {
  OPENSSL_cleanse(Seed.data(), Seed.size());
}

bool PrivateKey::fill(EVP_PKEY* Key, std::string& Error) {
  size_t SeedLength = Seed.size();
  PublicKey::Raw Pub{};
  size_t PubLength = Pub.size();
  if (EVP_PKEY_get_raw_private_key(Key, Seed.data(), &SeedLength) != 1 ||
      EVP_PKEY_get_raw_public_key(Key, Pub.data(), &PubLength) != 1 || SeedLength != Seed.size() ||
      PubLength != Pub.size()) {
    Error = openSslError("cannot read the Ed25519 key's bytes");
    return false;
  }
  Public = PublicKey(Pub);
  return true;
}

bool PrivateKey::generate(PrivateKey& Out, std::string& Error) {
  Pkey Key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (!Key) {
    Error = openSslError("cannot generate an Ed25519 key");
    return false;
  }
  return Out.fill(Key.get(), Error);
}

bool PrivateKey::fromPemFile(const std::string& Path, PrivateKey& Out, std::string& Error) {
  std::string Text;
  if (!bundle::readRegularFile(Path, "private key", Text, Error))
    return false;
  bool Ok = fromPem(Text, "'" + Path + "'", Out, Error);
  OPENSSL_cleanse(Text.data(), Text.size());
  return Ok;
}

bool PrivateKey::fromPem(const std::string& Text, const std::string& Name, PrivateKey& Out,
                         std::string& Error) {
  if (Text.size() > 64 * 1024) {
    Error = Name + " is " + std::to_string(Text.size()) + " bytes, too large for a PEM key";
    return false;
  }
  if (Text.find("ENCRYPTED PRIVATE KEY-----") != std::string::npos) {
    Error = Name + " is encrypted; cajeta reads unencrypted keys only (keep the file private, "
                   "mode 0600, instead)";
    return false;
  }
  if (Text.find("PRIVATE KEY-----") == std::string::npos) {
    Error = Name + " is not a PEM private key (-----BEGIN PRIVATE KEY-----)" +
            (Text.find("PUBLIC KEY-----") != std::string::npos
                 ? std::string("; it holds a public key, which verifies but cannot sign")
                 : std::string());
    return false;
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> Bio(BIO_new_mem_buf(Text.data(), int(Text.size())),
                                                BIO_free);
  Pkey Key(Bio ? PEM_read_bio_PrivateKey(Bio.get(), nullptr, noPassphrase, nullptr) : nullptr);
  if (!Key) {
    Error = openSslError(Name + " is not a PEM private key (-----BEGIN PRIVATE KEY-----)");
    return false;
  }
  if (!isEd25519(Key.get(), Name, Error))
    return false;
  return Out.fill(Key.get(), Error);
}

std::string PrivateKey::toPem() const {
  Pkey Key = makeKey(Seed);
  std::unique_ptr<BIO, decltype(&BIO_free)> Bio(BIO_new(BIO_s_mem()), BIO_free);
  if (!Key || !Bio ||
      PEM_write_bio_PrivateKey(Bio.get(), Key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    openSslError("");
    return "";
  }
  char* Data = nullptr;
  long Length = BIO_get_mem_data(Bio.get(), &Data);
  std::string Pem(Data, size_t(Length));
  OPENSSL_cleanse(Data, size_t(Length));
  return Pem;
}

bool PrivateKey::sign(const uint8_t* Message, size_t Length, PublicKey::Signature& Out,
                      std::string& Error) const {
  Pkey Key = makeKey(Seed);
  MdCtx Ctx(EVP_MD_CTX_new());
  size_t SigLength = Out.size();
  // Ed25519 hashes the message itself: no digest is named, and the message goes in whole.
  if (!Key || !Ctx || EVP_DigestSignInit(Ctx.get(), nullptr, nullptr, nullptr, Key.get()) != 1 ||
      EVP_DigestSign(Ctx.get(), Out.data(), &SigLength, Message, Length) != 1 ||
      SigLength != Out.size()) {
    Error = openSslError("Ed25519 signing failed");
    return false;
  }
  return true;
}

} // namespace cajeta::signing
