// Ed25519 keys: the RFC 8032 answers, PEM in and out, and the messages for files that are not
// the key asked for.
#include "signing/PrivateKey.h"
#include "signing/PublicKey.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace cajeta::signing;

namespace {

// RFC 8032 section 7.1, TEST 2: the secret key as PKCS#8 PEM, its public key, and the signature
// of the one-byte message 0x72.
const char* const Rfc8032Private =
    "-----BEGIN PRIVATE KEY-----\n"
    "MC4CAQAwBQYDK2VwBCIEIEzNCJso/5banbbDRuwRTg9bijGfNaumJNqM9u1PuKb7\n"
    "-----END PRIVATE KEY-----\n";
const char* const Rfc8032Public = "-----BEGIN PUBLIC KEY-----\n"
                                  "MCowBQYDK2VwAyEAPUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=\n"
                                  "-----END PUBLIC KEY-----\n";
const char* const Rfc8032Signature =
    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
    "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00";

std::string hex(const uint8_t* Data, size_t Size) {
  std::string Out;
  char Buf[3];
  for (size_t I = 0; I < Size; ++I) {
    std::snprintf(Buf, sizeof(Buf), "%02x", Data[I]);
    Out += Buf;
  }
  return Out;
}

bool contains(const std::string& Haystack, const std::string& Needle) {
  return Haystack.find(Needle) != std::string::npos;
}

} // namespace

TEST(SigningKey, Rfc8032KnownAnswer) {
  PrivateKey Key;
  std::string Error;
  ASSERT_TRUE(PrivateKey::fromPem(Rfc8032Private, "rfc", Key, Error)) << Error;
  EXPECT_EQ(hex(Key.publicKey().raw().data(), 32),
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c");
  const uint8_t Message[] = {0x72};
  PublicKey::Signature Sig{};
  ASSERT_TRUE(Key.sign(Message, 1, Sig, Error)) << Error;
  EXPECT_EQ(hex(Sig.data(), Sig.size()), Rfc8032Signature);
  EXPECT_TRUE(Key.publicKey().verify(Message, 1, Sig));
  const uint8_t Other[] = {0x73};
  EXPECT_FALSE(Key.publicKey().verify(Other, 1, Sig));
  Sig[10] ^= 1;
  EXPECT_FALSE(Key.publicKey().verify(Message, 1, Sig));
  // The fingerprint: the first 8 bytes of SHA-256 of the raw key, in hex.
  EXPECT_EQ(Key.publicKey().fingerprint(), "39f713d0a644253f");
}

TEST(SigningKey, PemRoundTrips) {
  PrivateKey Key;
  std::string Error;
  ASSERT_TRUE(PrivateKey::generate(Key, Error)) << Error;
  PrivateKey Again;
  ASSERT_TRUE(PrivateKey::fromPem(Key.toPem(), "k", Again, Error)) << Error;
  EXPECT_EQ(Again.publicKey(), Key.publicKey());
  PublicKey Pub;
  ASSERT_TRUE(PublicKey::fromPem(Key.publicKey().toPem(), "k.pub", Pub, Error)) << Error;
  EXPECT_EQ(Pub, Key.publicKey());
  EXPECT_TRUE(contains(Key.publicKey().toPem(), "-----BEGIN PUBLIC KEY-----"));
  EXPECT_EQ(PublicKey::fromPem(Rfc8032Public, "rfc", Pub, Error), true) << Error;
  EXPECT_EQ(Pub.fingerprint(), "39f713d0a644253f");
  PrivateKey Fresh;
  ASSERT_TRUE(PrivateKey::generate(Fresh, Error));
  EXPECT_FALSE(Fresh.publicKey() == Key.publicKey());
}

TEST(SigningKey, WrongFilesAreNamedForWhatTheyAre) {
  PublicKey Pub;
  PrivateKey Priv;
  std::string Error;
  EXPECT_FALSE(PublicKey::fromPem(Rfc8032Private, "'k.key'", Pub, Error));
  EXPECT_TRUE(contains(Error, "'k.key' holds a private key; trust its public half")) << Error;
  EXPECT_FALSE(PublicKey::fromPem("hello\n", "'x.pub'", Pub, Error));
  EXPECT_TRUE(contains(Error, "'x.pub' is not a PEM public key")) << Error;
  EXPECT_FALSE(PrivateKey::fromPem(Rfc8032Public, "'k.pub'", Priv, Error));
  EXPECT_TRUE(contains(Error, "'k.pub' is not a PEM private key")) << Error;
  EXPECT_TRUE(contains(Error, "holds a public key, which verifies but cannot sign")) << Error;
  EXPECT_FALSE(PrivateKey::fromPem("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n"
                                   "-----END ENCRYPTED PRIVATE KEY-----\n",
                                   "'e.key'", Priv, Error));
  EXPECT_TRUE(contains(Error, "'e.key' is encrypted")) << Error;
  // An X25519 key (key agreement) is PEM of another algorithm.
  const char* X25519 = "-----BEGIN PUBLIC KEY-----\n"
                       "MCowBQYDK2VuAyEANG2Cmo809IVVrbPcc/y3mfM098vGPOMlI/77ri2VrFk=\n"
                       "-----END PUBLIC KEY-----\n";
  EXPECT_FALSE(PublicKey::fromPem(X25519, "'x.pub'", Pub, Error));
  EXPECT_TRUE(contains(Error, "not an Ed25519 one")) << Error;
  EXPECT_FALSE(PublicKey::fromPemFile("/nonexistent/k.pub", Pub, Error));
  EXPECT_TRUE(contains(Error, "cannot read public key '/nonexistent/k.pub'")) << Error;
}
