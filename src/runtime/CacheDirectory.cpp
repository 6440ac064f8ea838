// JIT cache directory choice from the environment, following the XDG base directory rules.
#include "runtime/CacheDirectory.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace cajeta::xpu::rt {

static bool absolute(const char* Path) {
  return Path && Path[0] == '/';
}

std::string jitCacheDirectory() {
  // XDG: a relative XDG_CACHE_HOME is invalid and ignored.
  const char* Xdg = std::getenv("XDG_CACHE_HOME");
  if (absolute(Xdg))
    return std::string(Xdg) + "/cajeta";
  const char* Home = std::getenv("HOME");
  if (absolute(Home))
    return std::string(Home) + "/.cache/cajeta";
  return "";
}

std::string ensureJitCacheDirectory(std::string& Problem) {
  std::string Dir = jitCacheDirectory();
  if (Dir.empty())
    return "";
  std::error_code Ec;
  std::filesystem::create_directories(Dir, Ec);
  if (Ec) {
    Problem = "cannot create '" + Dir + "': " + Ec.message();
    return "";
  }
  if (!std::filesystem::is_directory(Dir, Ec)) {
    Problem = "'" + Dir + "' is not a directory";
    return "";
  }
  return Dir;
}

} // namespace cajeta::xpu::rt
