#include "runtime/LibraryDirectory.h"

#include <dlfcn.h>

namespace cajeta::xpu::rt {

std::string libraryDirectory() {
  Dl_info Info{};
  if (!::dladdr(reinterpret_cast<const void*>(&libraryDirectory), &Info) || !Info.dli_fname)
    return "";
  std::string Self = Info.dli_fname;
  size_t Slash = Self.rfind('/');
  if (Slash == std::string::npos)
    return "";
  return Self.substr(0, Slash + 1);
}

} // namespace cajeta::xpu::rt
