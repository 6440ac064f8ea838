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

} // namespace cajeta::signing
