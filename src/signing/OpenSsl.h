// The few OpenSSL (libcrypto) helpers the signing code shares: owning handles and the error text.
#pragma once

#include <openssl/evp.h>

#include <memory>
#include <string>

namespace cajeta::signing {

struct PkeyFree {
  void operator()(EVP_PKEY* P) const { EVP_PKEY_free(P); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* C) const { EVP_MD_CTX_free(C); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

/// "What: the first reason on OpenSSL's error queue", emptying the queue so that nothing of
/// ours is left there for other users of libcrypto in the process.
std::string openSslError(const std::string& What);

/// True when Key is an Ed25519 key; otherwise false with Error "<Name> holds an RSA key, not an
/// Ed25519 one".
bool isEd25519(EVP_PKEY* Key, const std::string& Name, std::string& Error);

} // namespace cajeta::signing
