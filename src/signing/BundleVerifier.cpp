// Verifying a bundle's signature against a set of trusted keys.
#include "signing/BundleVerifier.h"

#include "bundle/BundleSignature.h"

#include <algorithm>

namespace cajeta::signing {

Verification BundleVerifier::verify(const uint8_t* Data, size_t Size,
                                    const bundle::BundleReadResult& Read,
                                    const std::vector<PublicKey>& Trusted) {
  Verification V;
  if (!Read.Signature) {
    V.Result = Verification::Outcome::Unsigned;
    V.Message = "is not signed";
    return V;
  }
  PublicKey Signer(Read.Signature->PublicKey);
  V.Fingerprint = Signer.fingerprint();
  // The signature first: a changed bundle says so whoever signed it.
  std::vector<uint8_t> Signed = bundle::BundleSignature::signedBytes(Data, Size);
  if (!Signer.verify(Signed.data(), Signed.size(), Read.Signature->Signature)) {
    V.Result = Verification::Outcome::BadSignature;
    V.Message = "is signed by key " + V.Fingerprint +
                ", but the signature does not verify: the bundle was changed after it was "
                "signed, or the signature was not made by that key";
    return V;
  }
  if (std::find(Trusted.begin(), Trusted.end(), Signer) == Trusted.end()) {
    V.Result = Verification::Outcome::Untrusted;
    V.Message = "is signed by key " + V.Fingerprint + ", which is not trusted";
    return V;
  }
  V.Result = Verification::Outcome::Trusted;
  V.Message = "is signed by trusted key " + V.Fingerprint;
  return V;
}

Verification BundleVerifier::verify(const uint8_t* Data, size_t Size,
                                    const std::vector<PublicKey>& Trusted) {
  bundle::BundleReadResult R = bundle::BundleReader::read(Data, Size);
  if (!R.Ok) {
    Verification V;
    V.Result = Verification::Outcome::Malformed;
    V.Message = "is not a valid bundle: " + R.Error;
    return V;
  }
  return verify(Data, Size, R, Trusted);
}

} // namespace cajeta::signing
