// OpenSSL error text.
#include "signing/OpenSsl.h"

#include <openssl/err.h>

namespace cajeta::signing {

std::string openSslError(const std::string& What) {
  unsigned long Code = ERR_get_error();
  ERR_clear_error();
  if (!Code)
    return What;
  char Buf[256];
  ERR_error_string_n(Code, Buf, sizeof(Buf));
  return What + " (" + Buf + ")";
}

bool isEd25519(EVP_PKEY* Key, const std::string& Name, std::string& Error) {
  if (EVP_PKEY_get_id(Key) == EVP_PKEY_ED25519)
    return true;
  const char* Type = EVP_PKEY_get0_type_name(Key);
  Error = Name + " holds " + (Type ? std::string("an ") + Type : std::string("a")) +
          " key, not an Ed25519 one";
  return false;
}

} // namespace cajeta::signing
