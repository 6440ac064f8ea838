// Signing = the unsigned bundle's bytes plus a signature section over them (BundleFormat.h).
#include "signing/BundleSigner.h"

#include "bundle/BundleReader.h"
#include "bundle/BundleSignature.h"
#include "signing/BundleVerifier.h"

namespace cajeta::signing {

bool BundleSigner::sign(const uint8_t* Data, size_t Size, const PrivateKey& Key,
                        std::vector<uint8_t>& Out, std::string& Error) {
  bundle::BundleReadResult R = bundle::BundleReader::read(Data, Size);
  if (!R.Ok) {
    Error = "not a valid bundle: " + R.Error;
    return false;
  }
  std::vector<uint8_t> Unsigned = R.Signature ? bundle::BundleSignature::signedBytes(Data, Size)
                                              : std::vector<uint8_t>(Data, Data + Size);
  bundle::SignatureBlock Block;
  Block.PublicKey = Key.publicKey().raw();
  if (!Key.sign(Unsigned.data(), Unsigned.size(), Block.Signature, Error))
    return false;
  Out = bundle::BundleSignature::append(Unsigned, Block);
  // What the loader will do, done once here, so a signed bundle handed out always verifies.
  Verification Check = BundleVerifier::verify(Out.data(), Out.size(), {Key.publicKey()});
  if (!Check.trusted()) {
    Error = "internal error: the signed bundle does not verify: " + Check.Message;
    return false;
  }
  return true;
}

} // namespace cajeta::signing
