// Ed25519 public keys through libcrypto's EVP interface.
#include "signing/PublicKey.h"

#include "bundle/RegularFile.h"
#include "signing/OpenSsl.h"

#include <openssl/bio.h>
#include <openssl/pem.h>

#include <cstdio>

namespace cajeta::signing {

bool PublicKey::fromPemFile(const std::string& Path, PublicKey& Out, std::string& Error) {
  std::string Text;
  if (!bundle::readRegularFile(Path, "public key", Text, Error))
    return false;
  return fromPem(Text, "'" + Path + "'", Out, Error);
}

bool PublicKey::fromPem(const std::string& Text, const std::string& Name, PublicKey& Out,
                        std::string& Error) {
  if (Text.size() > 64 * 1024) {
    Error = Name + " is " + std::to_string(Text.size()) + " bytes, too large for a PEM key";
    return false;
  }
  if (Text.find("PRIVATE KEY-----") != std::string::npos) {
    Error = Name + " holds a private key; trust its public half (the .pub file `cajeta keygen` "
                   "wrote beside it)";
    return false;
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> Bio(BIO_new_mem_buf(Text.data(), int(Text.size())),
                                                BIO_free);
  Pkey Key(Bio ? PEM_read_bio_PUBKEY(Bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!Key) {
    Error = openSslError(Name + " is not a PEM public key (-----BEGIN PUBLIC KEY-----)");
    return false;
  }
  if (!isEd25519(Key.get(), Name, Error))
    return false;
  size_t Length = Size;
  if (EVP_PKEY_get_raw_public_key(Key.get(), Out.Bytes.data(), &Length) != 1 || Length != Size) {
    Error = openSslError("cannot read the Ed25519 key of " + Name);
    return false;
  }
  return true;
}

std::string PublicKey::fingerprint() const {
  unsigned char Digest[EVP_MAX_MD_SIZE];
  unsigned int Length = 0;
  if (EVP_Digest(Bytes.data(), Bytes.size(), Digest, &Length, EVP_sha256(), nullptr) != 1)
    return openSslError("(no fingerprint: SHA-256 failed)");
  std::string Hex;
  char Buf[3];
  for (unsigned I = 0; I < 8 && I < Length; ++I) {
    std::snprintf(Buf, sizeof(Buf), "%02x", Digest[I]);
    Hex += Buf;
  }
  return Hex;
}

std::string PublicKey::toPem() const {
  Pkey Key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, Bytes.data(), Bytes.size()));
  std::unique_ptr<BIO, decltype(&BIO_free)> Bio(BIO_new(BIO_s_mem()), BIO_free);
  if (!Key || !Bio || PEM_write_bio_PUBKEY(Bio.get(), Key.get()) != 1) {
    openSslError("");
    return "";
  }
  char* Data = nullptr;
  long Length = BIO_get_mem_data(Bio.get(), &Data);
  return std::string(Data, size_t(Length));
}

bool PublicKey::verify(const uint8_t* Message, size_t Length, const Signature& Sig) const {
  Pkey Key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, Bytes.data(), Bytes.size()));
  MdCtx Ctx(EVP_MD_CTX_new());
  // Ed25519 hashes the message itself: no digest is named, and the message goes in whole.
  bool Ok = Key && Ctx &&
            EVP_DigestVerifyInit(Ctx.get(), nullptr, nullptr, nullptr, Key.get()) == 1 &&
            EVP_DigestVerify(Ctx.get(), Sig.data(), Sig.size(), Message, Length) == 1;
  if (!Ok)
    openSslError(""); // a bad signature leaves an entry on the queue
  return Ok;
}

} // namespace cajeta::signing
